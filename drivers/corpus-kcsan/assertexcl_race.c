// SPDX-License-Identifier: GPL-2.0
/*
 * assertexcl_race.c - buffer of a mailbox device, /dev/annmbox.
 *
 * Race test (case: KCSAN's ASSERT_EXCLUSIVE_ACCESS violated). write()
 * refills the mailbox buffer under the mailbox mutex and asserts, with
 * ASSERT_EXCLUSIVE_ACCESS(), that nobody else touches the buffer length
 * meanwhile (it reuses the buffer), which racewatch checks as a write of
 * the field at the assertion. But the ANNMBOX_IOC_LEN ioctl reads the length
 * with READ_ONCE and without the mutex: a marked read, but a concurrent
 * access all the same, which breaks the assertion. The fixed twin,
 * assertexcl_fixed.c, reads the length under the mutex.
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
	ASSERT_EXCLUSIVE_ACCESS(annmbox.len);	/* @racy */
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
		len = READ_ONCE(annmbox.len);	/* BUG: without the mutex @racy */
		return len;
	default:
		return -ENOTTY;
	}
}

// @expect proven annmbox_write annmbox_write
// @expect race annmbox_write annmbox_ioctl "struct annmbox_dev.len"

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

MODULE_DESCRIPTION("racewatch race corpus: ASSERT_EXCLUSIVE_ACCESS broken by an unlocked reader");
MODULE_LICENSE("GPL");
