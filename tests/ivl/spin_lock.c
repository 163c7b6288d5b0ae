// flags: kernel
// spin_lock/spin_unlock of a lock field become lock/unlock of the
// identified lock; the accesses between them are under it.
#include <linux/spinlock.h>
struct dev { spinlock_t lock; int count; };
void f(struct dev *d) {
  spin_lock(&d->lock);
  d->count++;
  spin_unlock(&d->lock);
}
