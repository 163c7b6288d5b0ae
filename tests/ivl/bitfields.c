// flags: plain
// Bit-fields live in their storage unit's region: a read loads the unit
// and extracts with bitfield_get; a write loads the unit, replaces the bits
// with bitfield_set and stores it back. Fields of one unit share a region.
struct flags {
  unsigned int ready : 1;
  unsigned int mode : 3;
  int count;
  unsigned char level : 4;
};
int f(struct flags *fl) {
  fl->ready = 1;
  fl->mode = fl->ready + 2;
  fl->level = 9;
  return fl->mode + fl->count;
}
