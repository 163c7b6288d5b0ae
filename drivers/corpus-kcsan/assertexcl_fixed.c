// SPDX-License-Identifier: GPL-2.0
/*
 * assertexcl_fixed.c - buffer of a mailbox device, /dev/annmbox.
 *
 * Fixed twin of assertexcl_race.c (case: KCSAN's ASSERT_EXCLUSIVE_ACCESS).
 * write() refills the mailbox buffer under the mailbox mutex and asserts
 * that nobody else touches the buffer length meanwhile; the
 * ANNMBOX_IOC_LEN ioctl reads the length under the same mutex: every pair
 * is proven.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/kcsan-checks.h>
#include <linux/uaccess.h>
#include <linux/minmax.h>

#define ANNMBOX_IOC_LEN	_IO('m', 0)

struct annmbox_dev {
	struct mutex lock;	/* guards buf and len */
	char buf[64];
	size_t len;
};

static struct annmbox_dev annmbox = {
	.lock = __MUTEX_INITIALIZER(annmbox.lock),
};

// @expect entry-point annmbox_write callback file_operations.write
static ssize_t annmbox_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	size_t n = min(count, sizeof(annmbox.buf));

	mutex_lock(&annmbox.lock);
	ASSERT_EXCLUSIVE_ACCESS(annmbox.len);
	if (copy_from_user(annmbox.buf, buf, n)) {
		mutex_unlock(&annmbox.lock);
		return -EFAULT;
	}
	mutex_unlock(&annmbox.lock);
	return n;
}

// @expect entry-point annmbox_ioctl callback file_operations.unlocked_ioctl
static long annmbox_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	size_t len;

	switch (cmd) {
	case ANNMBOX_IOC_LEN:
		mutex_lock(&annmbox.lock);
		len = READ_ONCE(annmbox.len);
		mutex_unlock(&annmbox.lock);
		return len;
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

MODULE_DESCRIPTION("racewatch race corpus: ASSERT_EXCLUSIVE_ACCESS kept by one mutex");
MODULE_LICENSE("GPL");
