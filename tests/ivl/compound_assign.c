// flags: plain
// Every compound assignment operator on a local, a global and a field:
// arithmetic is wrapped to the type; shifts by a constant and low-bit
// masks of unsigned values are exact, other bit operations uninterpreted.
struct s { unsigned int u; };
int g;
void f(int x, struct s *p) {
  int a = x;
  a += 3;
  a -= x;
  a *= 2;
  a /= 5;
  a %= 7;
  a <<= 2;
  a >>= 1;
  a &= 12;
  a |= x;
  a ^= 6;
  g += a;
  p->u >>= 3;
  p->u &= 15;
}
