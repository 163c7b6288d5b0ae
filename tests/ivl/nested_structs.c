// flags: plain
// A field of a nested struct goes to the region of its innermost named
// record (struct inner.v) whatever the path to it; an anonymous struct's
// fields belong to the enclosing named record.
struct inner { int v; int w; };
struct outer {
  int tag;
  struct inner in;
  struct { int x; int y; } anon;
  struct inner *ptr;
};
int f(struct outer *o, struct inner *i) {
  o->in.v = 1;
  o->anon.y = 2;
  o->ptr->w = 3;
  return o->tag + o->in.w + i->v + o->anon.x;
}
