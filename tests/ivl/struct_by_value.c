// flags: plain
// A struct passed by value: the caller passes the object's address and the
// callee copies it field by field into its own thread-private local (local
// norm.p), from the field regions of a struct reached through a pointer
// or of a global.
struct pt { int x; int y; };
struct pt origin;
static int norm(struct pt p) { return p.x + p.y; }
int f(struct pt *q) {
  return norm(*q) + norm(origin);
}
