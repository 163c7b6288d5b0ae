// flags: plain
// A call through a struct field whose stored functions include one without a
// body here (open_ext, a kernel helper): each branch of a function with a
// body assumes the loaded pointer holds that function's address, and one more
// branch, assuming it holds none of them, is an external call. `(*o->open)`
// calls through the field's value, not through memory at the function.
struct ops { int (*open)(int); };
int open_ext(int x);
static int open_a(int x) { return x + 1; }
static struct ops default_ops = { .open = open_a };
static struct ops helper_ops = { .open = open_ext };
int dispatch(struct ops *o, int v) {
  return (*o->open)(v);
}
