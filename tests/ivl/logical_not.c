// flags: plain
// `!` as a value (0 or 1) and as a condition (a negated boolean), and `!!`.
int f(int a, int *p) {
  int b = !a;
  int c = !!*p;
  if (!b)
    return c;
  return !(a < 3);
}
