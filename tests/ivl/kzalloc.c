// flags: kernel
// kzalloc is modelled: its result is null or a fresh positive address, so
// the null check splits the paths; kfree is modelled too.
#include <linux/slab.h>
struct buf { int len; char *data; };
struct buf *make(int len) {
  struct buf *b = kzalloc(sizeof(*b), GFP_KERNEL);
  if (!b)
    return NULL;
  b->len = len;
  return b;
}
void drop(struct buf *b) {
  kfree(b);
}
