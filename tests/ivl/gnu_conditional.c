// flags: plain
// GNU `a ?: b` evaluates a once (one load of *p) and yields it when it is
// non-zero; b (the load of y) is evaluated only on the other path.
int y;
int f(int *p) {
  return *p ?: y;
}
