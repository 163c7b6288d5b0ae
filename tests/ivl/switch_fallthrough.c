// flags: plain
// A switch whose cases fall through into each other: case 1 runs into
// case 2's body, and the break leaves the switch.
int f(int x) {
  int r = 0;
  switch (x) {
  case 1:
    r += 1;
  case 2:
    r += 2;
    break;
  case 3:
    r = 3;
  }
  return r;
}
