// flags: plain
// A for loop with all three header parts and the counter declared in the
// header: the head tests i < n, `continue` goes to the increment.
int f(const int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] < 0)
      continue;
    s += a[i];
  }
  return s;
}
