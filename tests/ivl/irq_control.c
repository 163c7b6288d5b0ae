// flags: kernel
// local_irq_save/local_irq_restore and local_irq_disable/local_irq_enable
// are recorded as `control` commands: they are not locks.
#include <linux/irqflags.h>
int counter;
void f(void) {
  unsigned long flags;
  local_irq_save(flags);
  counter++;
  local_irq_restore(flags);
  local_irq_disable();
  counter--;
  local_irq_enable();
}
