// flags: kernel
// copy_from_user writes its destination (every field of the struct it
// points to) and reads no driver memory; its result is arbitrary.
#include <linux/uaccess.h>
struct req { int cmd; long arg; };
struct dev { struct req last; int busy; };
long f(struct dev *d, const void __user *ubuf) {
  if (copy_from_user(&d->last, ubuf, sizeof(d->last)))
    return -14;
  return d->last.cmd;
}
