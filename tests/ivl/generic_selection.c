// flags: plain
// `_Generic` lowers the association whose type is the selection's type
// (the long one here; the others are not evaluated). When several
// associations have that type libclang does not say which was chosen, and
// the value is arbitrary (an `approx {unsupported-construct}`).
int gi;
long gl;
long f(long x) {
  return _Generic(x, int: gi, long: gl + x, default: 0);
}
int g(long x) {
  return _Generic(x, int: 1, long: 2);
}
