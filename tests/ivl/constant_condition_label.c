// flags: plain
// A label inside a dead `if (0)` arm is still a jump target: the arm is
// lowered into a block that only the goto enters.
int g;
int f(int x) {
  if (x > 10)
    goto slow;
  if (0) {
slow:
    g = x;
    return 1;
  }
  return 0;
}
