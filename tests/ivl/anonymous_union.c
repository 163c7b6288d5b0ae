// flags: plain
// An anonymous union inside a struct: its members overlap each other and
// share the union's region, while the struct's other fields keep theirs.
struct reg {
  int id;
  union {
    unsigned int word;
    unsigned short half;
  };
};
unsigned f(struct reg *r) {
  r->word = 0x10000;
  return r->half + r->id;
}
