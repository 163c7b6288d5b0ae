// SPDX-License-Identifier: GPL-2.0
/*
 * opentwice_fixed.c - ISA watchdog card with a settable timeout,
 * /dev/watchdog, that may be opened several times.
 *
 * Fixed twin of opentwice_race.c (case: an open of a second file racing
 * an ioctl of a file already open): open() stores the deadline under
 * rwot_lock, as ioctl() does, so the two never write it at once. Every
 * pair is proven.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/watchdog.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/spinlock.h>

#define RWOT_PORT	0x463
#define RWOT_CTRL	(RWOT_PORT + 0)
#define  RWOT_CTRL_STOP	0x00
#define  RWOT_CTRL_RUN	0x01
#define RWOT_KICK	(RWOT_PORT + 1)

static unsigned long rwot_deadline;	/* next expiry, jiffies */
static DEFINE_SPINLOCK(rwot_lock);

// @expect entry-point rwot_open callback file_operations.open
static int rwot_open(struct inode *inode, struct file *file)
{
	spin_lock(&rwot_lock);
	rwot_deadline = jiffies + 60 * HZ;
	spin_unlock(&rwot_lock);
	outb(RWOT_CTRL_RUN, RWOT_CTRL);
	return 0;
}

// @expect entry-point rwot_release callback file_operations.release
static int rwot_release(struct inode *inode, struct file *file)
{
	outb(RWOT_CTRL_STOP, RWOT_CTRL);
	return 0;
}

// @expect entry-point rwot_ioctl callback file_operations.unlocked_ioctl
static long rwot_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != WDIOC_SETTIMEOUT || arg < 1 || arg > 255)
		return -EINVAL;
	spin_lock(&rwot_lock);
	rwot_deadline = jiffies + arg * HZ;
	outb(0, RWOT_KICK);
	spin_unlock(&rwot_lock);
	return 0;
}
// @expect proven rwot_open rwot_ioctl
// @expect proven rwot_open rwot_open

static const struct file_operations rwot_fops = {
	.owner		= THIS_MODULE,
	.open		= rwot_open,
	.release	= rwot_release,
	.unlocked_ioctl	= rwot_ioctl,
};

static struct miscdevice rwot_miscdev = {
	.minor	= WATCHDOG_MINOR,
	.name	= "watchdog",
	.fops	= &rwot_fops,
};

// @expect init rwot_init
// @expect entry-point rwot_init module-init module_init
static int __init rwot_init(void)
{
	if (!request_region(RWOT_PORT, 2, "rwot_wdt"))
		return -EBUSY;
	outb(RWOT_CTRL_STOP, RWOT_CTRL);
	return misc_register(&rwot_miscdev);
}

// @expect entry-point rwot_exit module-exit module_exit
static void __exit rwot_exit(void)
{
	misc_deregister(&rwot_miscdev);
	release_region(RWOT_PORT, 2);
}

module_init(rwot_init);
module_exit(rwot_exit);

MODULE_DESCRIPTION("racewatch race corpus: an open and an ioctl under one lock");
MODULE_LICENSE("GPL");
