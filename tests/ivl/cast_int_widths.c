// flags: plain
// Integer casts: widening keeps the value; narrowing wraps through
// wrap_s8/wrap_u16/wrap_s32 (exact inside the target's range).
long f(long l, int i, short s) {
  signed char c = (signed char)i;
  unsigned short us = (unsigned short)l;
  int n = (int)l;
  long w = s;
  long long ll = i;
  return c + us + n + w + ll;
}
