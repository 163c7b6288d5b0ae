// flags: plain
// A computed goto (`&&label`, `goto *p`) is an `approx
// {unsupported-construct}`: the address of a label is arbitrary and the
// indirect jump ends the path.
int f(int x) {
  void *target = x ? &&one : &&two;
  goto *target;
one:
  return 1;
two:
  return 2;
}
