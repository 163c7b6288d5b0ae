// flags: plain
// Pointer arithmetic scales by the element size: p + i, p - i, p - q
// (a difference in elements), p[i] and i[p].
struct big { long a; long b; };
long f(long *p, long *q, struct big *b, int i) {
  long *r = p + i;
  long *s = q - 2;
  long d = r - s;
  struct big *c = b + 3;
  return p[i] + i[q] + *r + d + c->b;
}
