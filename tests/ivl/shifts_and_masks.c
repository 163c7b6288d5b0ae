// flags: plain
// Shifts by a constant are exact (x << 3 is a wrapped multiplication by
// 8, u >> 2 on an unsigned is a division by 4); a mask of low bits on an
// unsigned is a remainder; other bit operations (~, ^, |, signed >>,
// shifts by a variable) are uninterpreted functions.
int f(int x, unsigned u, int k) {
  int a = x << 3;
  unsigned b = u >> 2;
  unsigned c = u & 0xff;
  int d = x >> 1;
  int e = x << k;
  int g = ~x ^ (x | 4);
  return a + b + c + d + e + g;
}
