// flags: plain
// Forward gotos to error-handling labels, the kernel's unwind idiom.
int g1, g2;
int f(int a) {
  int err = 0;
  if (a < 0) {
    err = -1;
    goto out;
  }
  g1 = a;
  if (a > 100)
    goto undo;
  g2 = a;
  return 0;
undo:
  g1 = 0;
out:
  return err;
}
