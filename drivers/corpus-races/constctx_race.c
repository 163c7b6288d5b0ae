// SPDX-License-Identifier: GPL-2.0
/*
 * constctx_race.c - a countdown timer chip, /dev/rwcount.
 *
 * Race test (case: a helper whose constant argument allows a write).
 * rwcc_program(t) loads the chip's counter with t and, only when t is not
 * 0, remembers it in rwcc_period for the RWCC_IOC_GET ioctl. The ioctls
 * program and read under rwcc_lock; release() restores the default
 * period through the same helpers with RWCC_DEFAULT, a constant that is
 * not 0, without the lock: the helper writes rwcc_period for it, which
 * races with another file's ioctls, and with another release (the same
 * value: confirmed only by --strict). The fixed twin (constctx_fixed.c)
 * stops the chip with 0, which rules the write out.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioctl.h>
#include <linux/mutex.h>

#define RWCC_PORT		0x2e0
#define RWCC_IOC_SET		_IOW('c', 0, unsigned int)
#define RWCC_IOC_GET		_IOR('c', 1, unsigned int)
#define RWCC_DEFAULT		1000

static DEFINE_MUTEX(rwcc_lock);
static unsigned int rwcc_period;	/* the last period programmed */

static void rwcc_program(unsigned int ticks)
{
	outl(ticks, RWCC_PORT);
	if (ticks)
		rwcc_period = ticks;	/* @racy: unlocked for release */
}

static void rwcc_apply(unsigned int ticks)
{
	outb(ticks ? 1 : 0, RWCC_PORT + 4);
	rwcc_program(ticks);
}

// @expect entry-point rwcc_ioctl callback file_operations.unlocked_ioctl
static long rwcc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	long ret = 0;

	mutex_lock(&rwcc_lock);
	switch (cmd) {
	case RWCC_IOC_SET:
		rwcc_apply(arg & 0xffff);
		break;
	case RWCC_IOC_GET:
		ret = rwcc_period;	/* @racy: read under the lock */
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&rwcc_lock);
	return ret;
}

// @expect entry-point rwcc_release callback file_operations.release
static int rwcc_release(struct inode *inode, struct file *file)
{
	rwcc_apply(RWCC_DEFAULT);
	return 0;
}

// @expect proven rwcc_ioctl rwcc_ioctl
// @expect race rwcc_ioctl rwcc_release "global rwcc_period"
// @expect confirmed rwcc_ioctl rwcc_release "global rwcc_period"
// @expect race rwcc_release rwcc_release "global rwcc_period"
// @expect confirmed-strict rwcc_release rwcc_release "global rwcc_period"

static const struct file_operations rwcc_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwcc_ioctl,
	.release	= rwcc_release,
};

static struct miscdevice rwcc_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwcount",
	.fops	= &rwcc_fops,
};

// @expect init rwcc_init
// @expect entry-point rwcc_init module-init module_init
static int __init rwcc_init(void)
{
	return misc_register(&rwcc_misc);
}

// @expect entry-point rwcc_exit module-exit module_exit
static void __exit rwcc_exit(void)
{
	misc_deregister(&rwcc_misc);
}

module_init(rwcc_init);
module_exit(rwcc_exit);

MODULE_DESCRIPTION("racewatch race corpus: a constant argument allows a helper's write");
MODULE_LICENSE("GPL");
