// flags: kernel
// spin_trylock is a trylock whose success is a non-zero result: the lock
// is held only on the path where it succeeded.
#include <linux/spinlock.h>
struct dev { spinlock_t lock; int count; };
int f(struct dev *d) {
  if (!spin_trylock(&d->lock))
    return 0;
  d->count++;
  spin_unlock(&d->lock);
  return 1;
}
