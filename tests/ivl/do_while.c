// flags: plain
// A do-while loop: the body runs before the first test; `continue` jumps
// to the test, not to the start of the body.
int g;
int f(int n) {
  int i = 0;
  do {
    i++;
    if (i == 3)
      continue;
    g = i;
  } while (i < n);
  return i;
}
