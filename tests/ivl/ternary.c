// flags: plain
// `c ? a : b` branches on c: each arm's load (of x or of y) happens only on
// its own path, and the result joins in a temporary.
int x, y;
int f(int c, int *p) {
  int r = c ? x : y;
  return r + (*p > 0 ? *p : 0);
}
