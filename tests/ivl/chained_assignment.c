// flags: plain
// An assignment is an expression whose value is the value stored:
// `c = a = g = b + 3` stores one value into g, then a, then c; `(void)e`
// evaluates e and discards it.
int g;
int f(int a, int b) {
  int c;
  c = a = g = b + 3;
  (void)(a + 1);
  return c;
}
