// flags: plain
// A backward goto forms a loop: the label's block is reached from the
// entry and from the goto.
int f(int n) {
  int i = 0;
again:
  i++;
  if (i < n)
    goto again;
  return i;
}
