// flags: plain
// Direct and mutual recursion: calls name the procedures directly (every
// procedure is declared before any body is lowered).
static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
int fact(int n) {
  if (n <= 1)
    return 1;
  return n * fact(n - 1);
}
