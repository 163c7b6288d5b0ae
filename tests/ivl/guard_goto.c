// flags: kernel
// A goto out of the block holding a guard(mutex) runs the guard's cleanup:
// the unlock happens on the jumping path as well as at the block's end.
#include <linux/mutex.h>
#include <linux/cleanup.h>
struct dev { struct mutex lock; int state; };
int f(struct dev *d, int v) {
  {
    guard(mutex)(&d->lock);
    if (v)
      goto out;
    d->state = 1;
  }
  d->state = 2;
out:
  return 0;
}
