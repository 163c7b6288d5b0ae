// flags: plain
// A while loop: the head tests the condition (loading *p each time round),
// the body jumps back to the head.
int f(int *p) {
  int n = 0;
  while (*p > 0) {
    *p -= 1;
    n++;
  }
  return n;
}
