// flags: plain
// Compound assignment and increment of bit-fields: the unit is loaded to
// read the old value, then loaded and stored again to write the new one.
struct f { unsigned a : 3; unsigned b : 5; };
void g(struct f *p) {
  p->a += 2;
  p->b++;
}
