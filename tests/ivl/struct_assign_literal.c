// flags: plain
// Assigning a compound literal to a struct copies it field by field: the
// literal is a thread-private temporary initialised in place, read leaf by
// leaf and written to the destination's field regions.
struct pt { int x; int y; };
void f(struct pt *p, int a) {
  *p = (struct pt){ .y = a };
}
