// flags: plain
// Pointer-to-pointer casts keep the address; through void * the pointee is
// assumed type-correct, and a cast between scalar pointee types merges
// their pointee regions (int and unsigned char here).
struct dev { int id; };
int f(void *priv, int *ip) {
  struct dev *d = priv;
  unsigned char *bytes = (unsigned char *)ip;
  long *lp = (long *)(void *)ip;
  *bytes = 1;
  *lp = 2;
  return d->id;
}
