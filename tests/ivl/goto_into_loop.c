// flags: plain
// A goto into the middle of a while loop's body: the label's block is
// entered from the goto and from the loop's test.
int f(int n) {
  int i = 0;
  goto inside;
  while (i < n) {
inside:
    i++;
  }
  return i;
}
