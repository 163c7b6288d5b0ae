// flags: plain
// Conversion to _Bool yields 1 for any non-zero value (not a wrap), from
// an integer and from a pointer.
_Bool f(int x, int *p) {
  _Bool a = x;
  _Bool b = (_Bool)p;
  _Bool c = 256;
  return a && b && c;
}
