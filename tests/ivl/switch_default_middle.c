// flags: plain
// `default` written between two cases: it is taken when no case matches
// (assumes the operand differs from 1 and 5) and falls through into case 5.
int f(int x) {
  int r;
  switch (x) {
  case 1:
    r = 10;
    break;
  default:
    r = 0;
  case 5:
    r += 50;
    break;
  }
  return r;
}
