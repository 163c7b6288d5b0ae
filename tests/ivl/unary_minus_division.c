// flags: plain
// Unary minus is wrapped (-INT_MIN overflows); / and % follow C (truncate
// toward zero, remainder with the dividend's sign) and are not wrapped.
int f(int a, int b) {
  int n = -a;
  int q = a / b;
  int r = a % b;
  return n + q + r;
}
