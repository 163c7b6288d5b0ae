// flags: plain
// All members of a union share one region (union val), including the
// fields of a struct inside it, at the union's address plus their offset.
struct pair { short lo; short hi; };
union val { int i; unsigned char bytes[4]; struct pair p; };
struct msg { int kind; union val v; };
int f(struct msg *m, union val *u) {
  m->v.i = 7;
  u->p.hi = 3;
  return m->v.p.lo + u->i + m->kind;
}
