// flags: kernel
// A local whose address only reaches kernel models (copy_from_user writes
// it) and comparisons stays in a thread-private region of its own
// (local f.v): it is not race-checked.
#include <linux/uaccess.h>
int f(const void __user *from, int *other)
{
	int v = 0;
	if (copy_from_user(&v, from, sizeof(v)))
		return -1;
	if (&v == other)
		return 0;
	return v;
}
