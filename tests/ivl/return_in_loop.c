// flags: plain
// A return inside a loop leaves the loop and the function: the rest of
// the body is not on that path.
int find(int *p, int n, int key) {
  for (int i = 0; i < n; i++) {
    if (p[i] == key)
      return i;
    while (p[i] < 0)
      return -1;
  }
  return n;
}
