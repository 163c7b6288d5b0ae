// flags: kernel
// A helper taking a spinlock_t * is specialised for the lock its caller
// passes: locked_inc_for_1 locks struct dev.lock. The unspecialised
// locked_inc (lowered too, as every defined function is) cannot identify
// its lock: `lock ?` with an `approx {unknown-lock}` note.
#include <linux/spinlock.h>
struct dev { spinlock_t lock; int n; };
static void locked_inc(spinlock_t *l, int *p) {
  spin_lock(l);
  (*p)++;
  spin_unlock(l);
}
void f(struct dev *d) {
  locked_inc(&d->lock, &d->n);
}
