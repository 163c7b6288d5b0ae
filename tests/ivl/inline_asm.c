// flags: plain
// Inline assembly is an `approx {inline-asm}`: its outputs get arbitrary
// values (x is havocked), its input operands are evaluated, and a memory
// operand is read and written.
int g;
int f(int y) {
  int x = 0;
  asm volatile("" : "=r"(x) : "r"(y));
  asm volatile("" : "+m"(g));
  return x;
}
