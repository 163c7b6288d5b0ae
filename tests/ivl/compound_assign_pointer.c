// flags: plain
// Compound assignment on pointers steps by the element size: p += n adds
// n * 4 for an int pointer, q -= 2 subtracts 2 * 16 for a struct pointer.
struct rec { long a; long b; };
int f(int *p, struct rec *q, int n) {
  p += n;
  q -= 2;
  return *p + (int)q->b;
}
