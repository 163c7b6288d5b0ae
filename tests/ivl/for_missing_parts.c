// flags: plain
// for loops with missing header parts: the absent condition is always
// true (no test in the head), the absent init and increment do nothing.
int f(int n) {
  int i, s = 0;
  for (;;) {
    if (s > n) break;
    s++;
  }
  for (i = 0;; i++)
    if (i > n) break;
  for (; i < n;)
    i += 2;
  for (;; i--)
    if (i < 0) break;
  for (; i < 2 * n; i++)
    s--;
  for (i = 5; i > 0;)
    i--;
  for (i = 0; ; )
    if (++i > 4) break;
  return s + i;
}
