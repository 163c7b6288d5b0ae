// flags: kernel
// guard(mutex)(&lock) takes the lock and releases it when the scope is
// left: on every return path and at the end of the block.
#include <linux/mutex.h>
#include <linux/cleanup.h>
struct dev { struct mutex lock; int state; };
int f(struct dev *d, int v) {
  guard(mutex)(&d->lock);
  if (v < 0)
    return -22;
  d->state = v;
  return 0;
}
