// SPDX-License-Identifier: GPL-2.0
/*
 * singleopen_fixed.c - an ISA watchdog card, /dev/watchdog, that one
 * process at a time may open.
 *
 * Fixed twin of singleopen_race.c (case: the single-open flag as a bit lock
 * that an open file holds until its release, issue 14 Build 6). open()
 * wins bit 0 of sowd_is_open with test_and_set_bit or fails with -EBUSY,
 * gives it back on its own error path, and release() clears it as its last
 * step. While the bit is set no other open() gets past it, and every file
 * operation runs on the one open file (do_dentry_open in fs/open.c
 * installs the file only after open() returned 0; __fput in
 * fs/file_table.c calls release() after every other operation of the file
 * has returned). So open() stores the deadline and the close flag without
 * a lock, write() and ioctl(), which two threads sharing the file may call
 * at once, update them under sowd_lock, and release() resets them before
 * it clears the bit. Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/watchdog.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/jiffies.h>
#include <linux/io.h>

#define SOWD_PORT	0x443
#define SOWD_ENABLE	0x01
#define SOWD_DISABLE	0x00
#define SOWD_FAULT	0x80

static unsigned long sowd_is_open;
static DEFINE_SPINLOCK(sowd_lock);	/* write/ioctl of the open file */
static unsigned long sowd_deadline;
static int sowd_timeout = 30;
static char sowd_expect_close;

// @expect entry-point sowd_open callback file_operations.open
static int sowd_open(struct inode *inode, struct file *file)
{
	if (test_and_set_bit(0, &sowd_is_open))
		return -EBUSY;
	if (inb(SOWD_PORT) & SOWD_FAULT) {
		clear_bit(0, &sowd_is_open);
		return -EIO;
	}
	sowd_deadline = jiffies + sowd_timeout * HZ;
	sowd_expect_close = 0;
	outb(SOWD_ENABLE, SOWD_PORT);
	return stream_open(inode, file);
}

// @expect entry-point sowd_write callback file_operations.write
static ssize_t sowd_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos)
{
	char c;

	if (!len)
		return 0;
	if (get_user(c, buf + len - 1))
		return -EFAULT;
	spin_lock(&sowd_lock);
	sowd_expect_close = (c == 'V') ? 42 : 0;
	sowd_deadline = jiffies + sowd_timeout * HZ;
	spin_unlock(&sowd_lock);
	return len;
}

// @expect entry-point sowd_ioctl callback file_operations.unlocked_ioctl
static long sowd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	int __user *p = (int __user *)arg;
	int t;

	switch (cmd) {
	case WDIOC_SETTIMEOUT:
		if (get_user(t, p))
			return -EFAULT;
		if (t < 1 || t > 255)
			return -EINVAL;
		spin_lock(&sowd_lock);
		sowd_timeout = t;
		sowd_deadline = jiffies + t * HZ;
		spin_unlock(&sowd_lock);
		return 0;
	case WDIOC_KEEPALIVE:
		spin_lock(&sowd_lock);
		sowd_deadline = jiffies + sowd_timeout * HZ;
		spin_unlock(&sowd_lock);
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect entry-point sowd_release callback file_operations.release
static int sowd_release(struct inode *inode, struct file *file)
{
	outb(SOWD_DISABLE, SOWD_PORT);
	sowd_deadline = 0;
	sowd_expect_close = 0;
	clear_bit(0, &sowd_is_open);
	return 0;
}

// @expect proven sowd_open sowd_release
// @expect proven sowd_write sowd_release
// @expect proven sowd_ioctl sowd_release
// @expect proven sowd_release sowd_release
// @expect proven sowd_open sowd_write
// @expect proven sowd_open sowd_ioctl
// @expect proven sowd_write sowd_ioctl

static const struct file_operations sowd_fops = {
	.owner		= THIS_MODULE,
	.open		= sowd_open,
	.write		= sowd_write,
	.unlocked_ioctl	= sowd_ioctl,
	.release	= sowd_release,
};

static struct miscdevice sowd_misc = {
	.minor	= WATCHDOG_MINOR,
	.name	= "watchdog",
	.fops	= &sowd_fops,
};

// @expect init sowd_init
// @expect entry-point sowd_init module-init module_init
static int __init sowd_init(void)
{
	return misc_register(&sowd_misc);
}

// @expect entry-point sowd_exit module-exit module_exit
static void __exit sowd_exit(void)
{
	misc_deregister(&sowd_misc);
}

module_init(sowd_init);
module_exit(sowd_exit);

MODULE_DESCRIPTION("racewatch race corpus: single-open bit held by the open file, fixed");
MODULE_LICENSE("GPL");
