// flags: kernel
// container_of subtracts the member's offset from the member's address;
// the result is accessed at the containing struct's field regions.
#include <linux/container_of.h>
#include <linux/workqueue.h>
struct my_dev {
  int status;
  struct work_struct work;
  int pending;
};
static void my_work(struct work_struct *w) {
  struct my_dev *d = container_of(w, struct my_dev, work);
  d->pending = 0;
  d->status++;
}
