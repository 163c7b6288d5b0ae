// SPDX-License-Identifier: GPL-2.0
/*
 * constctx_fixed.c - a countdown timer chip, /dev/rwcount.
 *
 * Fixed test (case: a helper whose constant argument rules a write out).
 * rwcc_program(t) loads the chip's counter with t and, only when t is not
 * 0, remembers it in rwcc_period for the RWCC_IOC_GET ioctl. The ioctls
 * program and read under rwcc_lock; release() stops the chip through the
 * same helpers with 0, without the lock, so the helper never writes
 * rwcc_period for it. The helper is reached through rwcc_apply, which
 * passes its own parameter on: the constant 0 follows two calls.
 * Checking the helper once for every caller would count release's call
 * as an unlocked write of rwcc_period; each calling context with its
 * constants proves every pair (src/frontend/lower/const_callees.rs).
 * The racy twin (constctx_race.c) restores a default period on release,
 * a real unlocked write.
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

static DEFINE_MUTEX(rwcc_lock);
static unsigned int rwcc_period;	/* the last period programmed */

static void rwcc_program(unsigned int ticks)
{
	outl(ticks, RWCC_PORT);
	if (ticks)
		rwcc_period = ticks;
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
		ret = rwcc_period;
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
	rwcc_apply(0);
	return 0;
}

// @expect proven rwcc_ioctl rwcc_ioctl
// @expect proven rwcc_ioctl rwcc_release
// @expect proven rwcc_release rwcc_release

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

MODULE_DESCRIPTION("racewatch race corpus: a constant argument rules a helper's write out");
MODULE_LICENSE("GPL");
