// flags: plain
// Calls to functions defined in the file: arguments are evaluated left to
// right into the call, a void call has no result, and the result of a
// non-void call is a fresh temporary.
static int add(int a, int b) { return a + b; }
static void store(int *p, int v) { *p = v; }
int g;
int f(int x) {
  int y = add(x, g);
  store(&g, y);
  add(1, 2);
  return add(add(x, 1), y);
}
