// flags: kernel
// scoped_guard(spinlock, &lock) takes the lock before its statement and
// releases it when the statement ends, before the code after it. The
// guard's loop test calls class_spinlock_lock_ptr, lowered from the
// header, whose result is arbitrary: a path also skips the statement.
#include <linux/spinlock.h>
#include <linux/cleanup.h>
struct dev { spinlock_t lock; int a; int b; };
void f(struct dev *d) {
  scoped_guard(spinlock, &d->lock) {
    d->a = 1;
  }
  d->b = 2;
}
