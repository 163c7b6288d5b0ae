// flags: plain
// A function declared but not defined (nor modelled) is an
// `approx {external-call}`: its arguments are evaluated, its result is
// arbitrary, it may write what its non-const pointer arguments point to
// when that is the driver's storage (`fill(&st)`: a store of each field of
// `st`), and it is assumed not to write other driver memory (`show(&st)`
// gets a const pointer: no store).
extern int hw_read(int reg);
extern void hw_write(int reg, int val);
struct stamp { long sec; long nsec; };
extern void fill(struct stamp *s);
extern void show(const struct stamp *s);
int cache;
struct stamp st;
int f(int reg) {
  int v = hw_read(reg);
  hw_write(reg + 1, cache);
  fill(&st);
  show(&st);
  return v;
}
