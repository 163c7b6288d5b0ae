// flags: plain
// A switch without default: when no case matches, control goes straight
// to the statement after the switch.
int g;
void f(unsigned char c) {
  switch (c) {
  case 'a':
    g = 1;
    break;
  case 'b':
    g = 2;
    break;
  }
  g = 3;
}
