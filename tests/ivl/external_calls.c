// flags: plain
// A function declared but not defined (nor modelled) is an
// `approx {external-call}`: its arguments are evaluated, its result is
// arbitrary, and it is assumed not to write driver memory.
extern int hw_read(int reg);
extern void hw_write(int reg, int val);
int cache;
int f(int reg) {
  int v = hw_read(reg);
  hw_write(reg + 1, cache);
  return v;
}
