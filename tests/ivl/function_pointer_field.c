// flags: plain
// A call through a struct field resolves to a nondeterministic choice among
// the functions this file stores in that field (open_a from an initializer,
// open_b from an assignment); the field itself is loaded first.
struct ops { int (*open)(int); void (*close)(int); };
static int open_a(int x) { return x + 1; }
static int open_b(int x) { return x - 1; }
static struct ops default_ops = { .open = open_a };
int dispatch(struct ops *o, int v) {
  o->open = open_b;
  return o->open(v);
}
