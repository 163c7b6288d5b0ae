// flags: kernel
// spin_lock_irqsave takes the lock and saves and disables interrupts;
// spin_unlock_irqrestore releases it and restores them; spin_lock_irq and
// spin_lock_bh record their interrupt-state effects too.
#include <linux/spinlock.h>
struct port { spinlock_t lock; int tx; };
void f(struct port *p) {
  unsigned long flags;
  spin_lock_irqsave(&p->lock, flags);
  p->tx = 1;
  spin_unlock_irqrestore(&p->lock, flags);
  spin_lock_irq(&p->lock);
  p->tx = 2;
  spin_unlock_irq(&p->lock);
  spin_lock_bh(&p->lock);
  p->tx = 3;
  spin_unlock_bh(&p->lock);
}
