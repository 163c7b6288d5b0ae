// flags: plain
// Duff's device: case labels inside a do-while body. The switch jumps
// into the middle of the loop body, which then loops as usual.
int duff(int *to, const int *from, int count) {
  int n = (count + 2) / 3;
  switch (count % 3) {
  case 0: do { *to = *from++;
  case 2:      *to = *from++;
  case 1:      *to = *from++;
          } while (--n > 0);
  }
  return n;
}
