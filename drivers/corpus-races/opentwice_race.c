// SPDX-License-Identifier: GPL-2.0
/*
 * opentwice_race.c - ISA watchdog card with a settable timeout,
 * /dev/watchdog, that may be opened several times.
 *
 * Race test (case: an open of a second file racing an ioctl of a file
 * already open). open() arms the card and stores the next deadline in
 * rwot_deadline without a lock; ioctl() (WDIOC_SETTIMEOUT) moves the
 * deadline under rwot_lock. An ioctl runs only on a file whose open
 * returned 0 (do_dentry_open, fs/open.c), but nothing stops a second
 * open() of another file meanwhile, so the second file's open and the
 * first file's ioctl write rwot_deadline at once: a race, which the
 * precise phase confirms with the ioctl's thread run from its own open
 * (kernel-models/lifetimes/files.xml, after-begin). The fixed twin,
 * opentwice_fixed.c, takes rwot_lock in open() too and is proven; the
 * single-open variant, drivers/corpus-precise/openfirst_false.c, is a
 * false alarm the precise phase does not confirm.
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
	rwot_deadline = jiffies + 60 * HZ; // @racy
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
	rwot_deadline = jiffies + arg * HZ; // @racy
	outb(0, RWOT_KICK);
	spin_unlock(&rwot_lock);
	return 0;
}
// @expect race rwot_open rwot_ioctl "global rwot_deadline"
// @expect confirmed rwot_open rwot_ioctl "global rwot_deadline"
// two opens write the same deadline (jiffies + 60 s): only --strict sees it.
// @expect race rwot_open rwot_open "global rwot_deadline"
// @expect confirmed-strict rwot_open rwot_open "global rwot_deadline"

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

MODULE_DESCRIPTION("racewatch race corpus: an open of a second file racing an ioctl");
MODULE_LICENSE("GPL");
