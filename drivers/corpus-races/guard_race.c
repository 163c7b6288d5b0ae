// SPDX-License-Identifier: GPL-2.0
/*
 * guard_race.c - backlight level of a panel controller, /dev/rwbacklight.
 *
 * Race test (case: guard(mutex) and scoped_guard). The ioctl and read()
 * take the mutex with guard(mutex), which releases it when the function
 * returns; write() uses scoped_guard(mutex, ...) around the level update
 * but bumps the update counter after the guarded statement, where the
 * mutex has already been released. Accesses inside either kind of guard
 * are protected (level: proven everywhere); the counter races between two
 * writers and between write() and read(). The fixed twin, guard_fixed.c,
 * moves the counter into the scoped_guard block.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/cleanup.h>
#include <linux/mutex.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWGD_MAX	255
#define RWGD_IOC_SET	_IO('B', 0)
#define RWGD_IOC_GET	_IO('B', 1)

struct rwgd_state {
	__u32 level;
	__u32 updates;
};

struct rwgd_dev {
	struct mutex lock;		/* guards level and updates */
	u32 level;
	u32 updates;
};

static struct rwgd_dev rwgd = {
	.lock = __MUTEX_INITIALIZER(rwgd.lock),
};

// @expect entry-point rwgd_ioctl callback file_operations.unlocked_ioctl
static long rwgd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	guard(mutex)(&rwgd.lock);

	switch (cmd) {
	case RWGD_IOC_SET:
		if (arg > RWGD_MAX)
			return -EINVAL;
		rwgd.level = arg;
		return 0;
	case RWGD_IOC_GET:
		return rwgd.level;
	default:
		return -ENOTTY;
	}
}

// @expect entry-point rwgd_read callback file_operations.read
static ssize_t rwgd_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwgd_state st;

	if (count < sizeof(st))
		return -EINVAL;
	{
		guard(mutex)(&rwgd.lock);
		st.level = rwgd.level;
		st.updates = rwgd.updates;	/* @racy */
	}
	return copy_to_user(buf, &st, sizeof(st)) ? -EFAULT : sizeof(st);
}

// @expect entry-point rwgd_write callback file_operations.write
static ssize_t rwgd_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	u32 v;

	if (count != sizeof(v) || copy_from_user(&v, buf, sizeof(v)))
		return -EINVAL;
	if (v > RWGD_MAX)
		return -EINVAL;
	scoped_guard(mutex, &rwgd.lock)
		rwgd.level = v;
	rwgd.updates++;			/* @racy: BUG: outside the guard's scope */
	return count;
}

// @expect proven rwgd_ioctl rwgd_ioctl
// @expect proven rwgd_ioctl rwgd_read
// @expect proven rwgd_ioctl rwgd_write
// @expect proven rwgd_read rwgd_read
// @expect race rwgd_read rwgd_write "struct rwgd_dev.updates"
// @expect confirmed rwgd_read rwgd_write "struct rwgd_dev.updates"
// @expect race rwgd_write rwgd_write "struct rwgd_dev.updates"
// @expect confirmed rwgd_write rwgd_write "struct rwgd_dev.updates"

static const struct file_operations rwgd_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwgd_ioctl,
	.read		= rwgd_read,
	.write		= rwgd_write,
};

static struct miscdevice rwgd_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwbacklight",
	.fops	= &rwgd_fops,
};

// @expect init rwgd_misc_init
// @expect entry-point rwgd_misc_init module-init module_init
// @expect entry-point rwgd_misc_exit module-exit module_exit
module_misc_device(rwgd_misc);

MODULE_DESCRIPTION("racewatch race corpus: access after a scoped_guard");
MODULE_LICENSE("GPL");
