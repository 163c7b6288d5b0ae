// flags: plain
// Compiler builtins: __builtin_expect yields its first argument,
// __builtin_constant_p is 1 only for a constant, __builtin_unreachable
// ends the path, __builtin_popcount is an arbitrary value.
int f(int x, unsigned u) {
  if (__builtin_expect(x > 3, 0))
    return __builtin_constant_p(x) + __builtin_constant_p(4);
  if (x < 0)
    __builtin_unreachable();
  return __builtin_popcount(u);
}
