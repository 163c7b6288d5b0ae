// SPDX-License-Identifier: GPL-2.0
/*
 * openfirst_false.c - ISA watchdog card with a settable timeout,
 * /dev/watchdog.
 *
 * False-alarm test (case: an ioctl runs only on a file whose open
 * succeeded). open() refuses a second opener with
 *
 *	if (test_and_set_bit(0, &rwof_is_open))
 *		return -EBUSY;
 *
 * and the opener that set the bit arms the card and stores the next
 * deadline in rwof_deadline. ioctl() (WDIOC_SETTIMEOUT) moves the
 * deadline to ARG seconds from now under rwof_kick_lock, which serialises
 * the ioctls of the one open file (two threads may share it) but which
 * open() does not take. An ioctl() runs only on a file whose open()
 * returned 0 (do_dentry_open, fs/open.c, installs the file only then), so
 * while it runs its own open() holds bit 0, and no other open() can win
 * the bit and write rwof_deadline until release() clears it, which runs
 * only after the file's last operation (__fput, fs/file_table.c). The
 * globals are never used by open() and ioctl() at once.
 *
 * The lockset phase gives the bit an arbitrary value, and knows nothing
 * of the ioctl's own open, so it reports open() racing with ioctl() (and
 * open() with open()). The precise phase runs the ioctl's thread from its
 * file's open() (kernel-models/lifetimes/files.xml, after-begin) and the
 * bit with its real value: it must not find either race. Its racy twin,
 * without the single-open bit, is drivers/corpus-races/opentwice_race.c.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/watchdog.h>
#include <linux/bitops.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/spinlock.h>

#define RWOF_PORT	0x453
#define RWOF_CTRL	(RWOF_PORT + 0)
#define  RWOF_CTRL_STOP	0x00
#define  RWOF_CTRL_RUN	0x01
#define RWOF_KICK	(RWOF_PORT + 1)

static unsigned long rwof_is_open;	/* bit 0: /dev/watchdog is open */
static unsigned long rwof_deadline;	/* owner only: next expiry, jiffies */
static DEFINE_SPINLOCK(rwof_kick_lock);	/* serialises the file's ioctls */

// @expect entry-point rwof_open callback file_operations.open
static int rwof_open(struct inode *inode, struct file *file)
{
	if (test_and_set_bit(0, &rwof_is_open))
		return -EBUSY;
	rwof_deadline = jiffies + 60 * HZ;
	outb(RWOF_CTRL_RUN, RWOF_CTRL);
	return 0;
}

// @expect entry-point rwof_release callback file_operations.release
static int rwof_release(struct inode *inode, struct file *file)
{
	outb(RWOF_CTRL_STOP, RWOF_CTRL);
	clear_bit(0, &rwof_is_open);
	return 0;
}

// @expect entry-point rwof_ioctl callback file_operations.unlocked_ioctl
static long rwof_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != WDIOC_SETTIMEOUT || arg < 1 || arg > 255)
		return -EINVAL;
	spin_lock(&rwof_kick_lock);
	rwof_deadline = jiffies + arg * HZ;
	outb(0, RWOF_KICK);
	spin_unlock(&rwof_kick_lock);
	return 0;
}

// false alarm: ioctl() runs only while its own open() holds bit 0, so no
// other open() writes the deadline meanwhile.
// @expect race rwof_open rwof_ioctl "global rwof_deadline"
// @expect not-found rwof_open rwof_ioctl "global rwof_deadline"
// @expect race rwof_open rwof_open "global rwof_deadline"
// @expect not-found rwof_open rwof_open "global rwof_deadline"

static const struct file_operations rwof_fops = {
	.owner		= THIS_MODULE,
	.open		= rwof_open,
	.release	= rwof_release,
	.unlocked_ioctl	= rwof_ioctl,
};

static struct miscdevice rwof_miscdev = {
	.minor	= WATCHDOG_MINOR,
	.name	= "watchdog",
	.fops	= &rwof_fops,
};

// @expect init rwof_init
// @expect entry-point rwof_init module-init module_init
static int __init rwof_init(void)
{
	if (!request_region(RWOF_PORT, 2, "rwof_wdt"))
		return -EBUSY;
	rwof_is_open = 0;
	outb(RWOF_CTRL_STOP, RWOF_CTRL);
	return misc_register(&rwof_miscdev);
}

// @expect entry-point rwof_exit module-exit module_exit
static void __exit rwof_exit(void)
{
	misc_deregister(&rwof_miscdev);
	release_region(RWOF_PORT, 2);
}

module_init(rwof_init);
module_exit(rwof_exit);

MODULE_DESCRIPTION("racewatch precise corpus: an ioctl runs after its file's open, a lockset false alarm");
MODULE_LICENSE("GPL");
