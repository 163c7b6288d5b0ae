// flags: plain
// Casts between signed and unsigned of the same width wrap through
// wrap_u32/wrap_s32; in `i < u` the signed operand converts to unsigned.
unsigned f(int i, unsigned u) {
  unsigned a = (unsigned)i;
  int b = (int)u;
  if (i < u)
    return a;
  return b;
}
