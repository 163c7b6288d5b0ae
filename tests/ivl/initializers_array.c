// flags: plain
// Positional initializers of local arrays: the whole array is zeroed (one
// store at an arbitrary address within its extent), then the listed
// elements are written at their offsets, row by row for a 2-D array. The
// arrays are passed to use(), so their addresses escape: they live in the
// shared int (pointee) region; the initialising stores come before use()
// publishes them, so they are private.
extern void use(int *a, int *b);
void f(int x) {
  int a[4] = { 1, 2, x };
  int c[2][3] = { { 1, 2 }, { 3 } };
  use(a, &c[0][0]);
}
