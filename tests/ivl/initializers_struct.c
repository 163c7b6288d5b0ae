// flags: plain
// Designated and positional initializers of a local struct: every field is
// zeroed first, then the listed ones written in order; a designator
// resets the position for the positional elements after it.
struct cfg { int a; int b; int c; int d; };
int f(int x) {
  struct cfg c1 = { 1, 2 };
  struct cfg c2 = { .c = x, 9, .a = 4 };
  struct cfg c3 = {};
  return c1.b + c2.d + c3.a;
}
