// flags: plain
// Statements after a return are lowered into a block no edge enters, which
// ends in `unreachable` or joins the rest.
int g;
int f(int x) {
  return x;
  g = 1;
  x++;
}
