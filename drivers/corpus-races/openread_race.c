// SPDX-License-Identifier: GPL-2.0
/*
 * openread_race.c - an ISA watchdog card, /dev/watchdog, that one process
 * at a time may open, whose open() reads the timeout that ioctl() sets.
 *
 * Race test (case: a read under the exclusive hold of the single-open bit
 * against a write under the shared hold, issue 14 Build 6). As in the
 * fixed twin, openread_fixed.c, open() wins bit 0 of orwd_is_open with test_and_set_bit or
 * fails with -EBUSY, and release() clears it as its last step, so while
 * an open() holds the bit no file of the device is open and no other file
 * operation runs (do_dentry_open in fs/open.c installs the file only after
 * open() returned 0; __fput in fs/file_table.c calls release() after every
 * other operation of the file has returned). open() therefore reads the
 * timeout without orwd_lock to arm the card, while ioctl(), which two
 * threads sharing the file may call at once, reads and writes it under
 * orwd_lock. But open() reads the timeout before it tries the bit: an
 * open() that will fail with -EBUSY reads it while the open file's ioctl()
 * stores a new one. Expected: a race of open()'s read with ioctl()'s
 * write, which the precise phase confirms.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/watchdog.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/io.h>

#define ORWD_START	0x443
#define ORWD_STOP	0x441

static unsigned long orwd_is_open;
static DEFINE_SPINLOCK(orwd_lock);	/* ioctl()s of the open file */
static int orwd_timeout = 30;

/* The card counts down 15 - (timeout + 1) / 2 units of two seconds. */
static void orwd_arm(int timeout)
{
	outb(15 - (timeout + 1) / 2, ORWD_START);
}

// @expect entry-point orwd_open callback file_operations.open
static int orwd_open(struct inode *inode, struct file *file)
{
	int timeout = orwd_timeout;	/* @racy */

	if (test_and_set_bit(0, &orwd_is_open))
		return -EBUSY;
	orwd_arm(timeout);
	return stream_open(inode, file);
}

// @expect entry-point orwd_ioctl callback file_operations.unlocked_ioctl
static long orwd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	int __user *p = (int __user *)arg;
	int t;

	switch (cmd) {
	case WDIOC_SETTIMEOUT:
		if (get_user(t, p))
			return -EFAULT;
		if (t < 1 || t > 30)
			return -EINVAL;
		spin_lock(&orwd_lock);
		orwd_timeout = t;	/* @racy holding: orwd_lock, bit 0 of orwd_is_open */
		orwd_arm(orwd_timeout);
		spin_unlock(&orwd_lock);
		return 0;
	case WDIOC_KEEPALIVE:
		spin_lock(&orwd_lock);
		orwd_arm(orwd_timeout);
		spin_unlock(&orwd_lock);
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect entry-point orwd_release callback file_operations.release
static int orwd_release(struct inode *inode, struct file *file)
{
	outb(0, ORWD_STOP);
	clear_bit(0, &orwd_is_open);
	return 0;
}

// @expect race orwd_open orwd_ioctl "global orwd_timeout"
// @expect confirmed orwd_open orwd_ioctl "global orwd_timeout"
// @expect proven orwd_ioctl orwd_ioctl
// @expect proven orwd_open orwd_release
// @expect proven orwd_ioctl orwd_release

static const struct file_operations orwd_fops = {
	.owner		= THIS_MODULE,
	.open		= orwd_open,
	.unlocked_ioctl	= orwd_ioctl,
	.release	= orwd_release,
};

static struct miscdevice orwd_misc = {
	.minor	= WATCHDOG_MINOR,
	.name	= "watchdog",
	.fops	= &orwd_fops,
};

// @expect init orwd_init
// @expect entry-point orwd_init module-init module_init
static int __init orwd_init(void)
{
	return misc_register(&orwd_misc);
}

// @expect entry-point orwd_exit module-exit module_exit
static void __exit orwd_exit(void)
{
	misc_deregister(&orwd_misc);
}

module_init(orwd_init);
module_exit(orwd_exit);

MODULE_DESCRIPTION("racewatch race corpus: a read under the exclusive single-open hold, racy");
MODULE_LICENSE("GPL");
