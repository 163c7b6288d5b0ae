// flags: plain
// A switch inside a switch: the inner break leaves only the inner switch,
// the inner cases do not belong to the outer dispatch.
int f(int a, int b) {
  int r = 0;
  switch (a) {
  case 0:
    switch (b) {
    case 0:
      r = 1;
      break;
    default:
      r = 2;
    }
    r += 10;
    break;
  case 1:
    r = 3;
    break;
  }
  return r;
}
