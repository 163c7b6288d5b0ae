// flags: kernel
// copy_from_user into an address-taken local: the local lives in its own
// thread-private region (local f.val), which the model writes over a range
// starting at its address; the later read loads that region.
#include <linux/uaccess.h>
int f(const int __user *ubuf) {
  int val;
  if (copy_from_user(&val, ubuf, sizeof(val)))
    return -14;
  return val;
}
