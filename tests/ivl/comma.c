// flags: plain
// The comma operator evaluates its left operand for its effects (a store)
// and yields its right operand.
int g;
int f(int a) {
  int b = (g = a, a + 1);
  for (int i = 0, j = 10; i < j; i++, j--)
    b += i;
  return b;
}
