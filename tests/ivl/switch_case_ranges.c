// flags: plain
// GNU case ranges `lo ... hi` assume the operand lies in the range;
// default assumes it lies in none of them.
int f(int x) {
  switch (x) {
  case 0 ... 9:
    return 1;
  case 'a' ... 'z':
    return 2;
  case 200:
    return 3;
  default:
    return 0;
  }
}
