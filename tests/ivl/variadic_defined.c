// flags: plain
// A variadic function defined in the file: a call passes only the named
// parameters; the extra arguments are still evaluated (their loads of *p
// and g happen) but not passed.
int g;
static int log_level(int level, ...) {
  return level > 3;
}
int caller(int *p) {
  return log_level(2, *p, g) + log_level(4);
}
