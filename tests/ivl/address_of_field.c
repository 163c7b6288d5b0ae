// flags: plain
// The address of a field passed as a plain `int *`: the field's region
// (struct dev.count) merges with int (pointee), so both accesses name one
// region.
struct dev { int count; int other; };
static void bump(int *p) { (*p)++; }
void f(struct dev *d) {
  bump(&d->count);
  d->count = 0;
  d->other = 1;
}
