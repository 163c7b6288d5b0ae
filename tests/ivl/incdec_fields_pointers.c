// flags: plain
// ++/-- on a field and a global load and store them; on pointers they step
// by the element size (4 for int, 8 for long, 16 for the struct).
struct rec { int n; long pad; };
long gl;
void f(struct rec *r, int *p, long *q, struct rec *s) {
  r->n++;
  --r->n;
  gl++;
  p++;
  q--;
  ++s;
  *p = 0;
  *q = 0;
  s->n = 1;
}
