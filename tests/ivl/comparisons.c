// flags: plain
// Comparisons used as values become `if … then 1 else 0`; used as
// conditions they become the branch's boolean directly.
int f(int a, int b, unsigned u) {
  int lt = a < b, le = a <= b, gt = a > b, ge = a >= b, eq = a == b, ne = a != b;
  if (u >= 10)
    return lt + le + gt + ge + eq + ne;
  return a == b;
}
