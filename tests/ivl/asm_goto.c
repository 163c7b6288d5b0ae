// flags: plain
// `asm goto` may jump to one of its labels: an `approx {inline-asm}` then a
// nondeterministic branch to the fall-through path or to the label.
int f(int x) {
  asm goto("" : : "r"(x) : : slow);
  return 0;
slow:
  return 1;
}
