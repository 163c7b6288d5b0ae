// SPDX-License-Identifier: GPL-2.0
/*
 * annotexcl_fixed.c - last-command register of a mailbox device, /dev/annmbox.
 *
 * Fixed twin of annotexcl_race.c (case: KCSAN's ASSERT_EXCLUSIVE_WRITER).
 * write() records the last command under the mailbox mutex and asserts
 * that nobody else writes it concurrently; the ANNMBOX_IOC_CLEAR ioctl
 * clears it under the same mutex, and the readers use READ_ONCE, which the
 * assertion allows: every pair is proven.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/kcsan-checks.h>

#define ANNMBOX_IOC_CLEAR	_IO('m', 0)
#define ANNMBOX_IOC_LAST	_IO('m', 1)

struct annmbox_dev {
	struct mutex lock;	/* serialises the writers of last */
	unsigned long last;
};

static struct annmbox_dev annmbox = {
	.lock = __MUTEX_INITIALIZER(annmbox.lock),
};

// @expect entry-point annmbox_write callback file_operations.write
static ssize_t annmbox_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	mutex_lock(&annmbox.lock);
	WRITE_ONCE(annmbox.last, count);
	ASSERT_EXCLUSIVE_WRITER(annmbox.last);
	mutex_unlock(&annmbox.lock);
	return count;
}

// @expect entry-point annmbox_ioctl callback file_operations.unlocked_ioctl
static long annmbox_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case ANNMBOX_IOC_CLEAR:
		mutex_lock(&annmbox.lock);
		WRITE_ONCE(annmbox.last, 0);
		mutex_unlock(&annmbox.lock);
		return 0;
	case ANNMBOX_IOC_LAST:
		return READ_ONCE(annmbox.last);
	default:
		return -ENOTTY;
	}
}

// @expect proven annmbox_write annmbox_write
// @expect proven annmbox_write annmbox_ioctl
// @expect proven annmbox_ioctl annmbox_ioctl

static const struct file_operations annmbox_fops = {
	.owner		= THIS_MODULE,
	.write		= annmbox_write,
	.unlocked_ioctl	= annmbox_ioctl,
};

static struct miscdevice annmbox_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "annmbox",
	.fops	= &annmbox_fops,
};

// @expect init annmbox_misc_init
// @expect entry-point annmbox_misc_init module-init module_init
// @expect entry-point annmbox_misc_exit module-exit module_exit
module_misc_device(annmbox_misc);

MODULE_DESCRIPTION("racewatch race corpus: ASSERT_EXCLUSIVE_WRITER kept by one mutex");
MODULE_LICENSE("GPL");
