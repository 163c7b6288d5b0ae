// SPDX-License-Identifier: GPL-2.0
/*
 * annotheld_fixed.c - byte and write counters of a sink device, /dev/annsink.
 *
 * Fixed twin of annotheld_race.c (case: a lockdep_assert_held annotation).
 * The counter helper annsink_account() says, with lockdep_assert_held(),
 * that its caller holds dev->lock, and both callers, write() and the
 * ANNSINK_IOC_ADD ioctl, take it: the annotation is checked at both calls,
 * and every pair is proven.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/spinlock.h>
#include <linux/lockdep.h>

#define ANNSINK_IOC_ADD	_IO('a', 0)

struct annsink_dev {
	spinlock_t lock;	/* guards bytes and writes */
	u64 bytes;
	u32 writes;
};

static struct annsink_dev annsink = {
	.lock = __SPIN_LOCK_UNLOCKED(annsink.lock),
};

static void annsink_account(struct annsink_dev *dev, size_t n)
{
	lockdep_assert_held(&dev->lock);
	dev->bytes += n;
	dev->writes++;
}

// @expect entry-point annsink_write callback file_operations.write
static ssize_t annsink_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	spin_lock(&annsink.lock);
	annsink_account(&annsink, count);
	spin_unlock(&annsink.lock);
	return count;
}

// @expect entry-point annsink_ioctl callback file_operations.unlocked_ioctl
static long annsink_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case ANNSINK_IOC_ADD:
		spin_lock(&annsink.lock);
		annsink_account(&annsink, arg);
		spin_unlock(&annsink.lock);
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect proven annsink_write annsink_write
// @expect proven annsink_write annsink_ioctl
// @expect proven annsink_ioctl annsink_ioctl

static const struct file_operations annsink_fops = {
	.owner		= THIS_MODULE,
	.write		= annsink_write,
	.unlocked_ioctl	= annsink_ioctl,
};

static struct miscdevice annsink_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "annsink",
	.fops	= &annsink_fops,
};

// @expect init annsink_misc_init
// @expect entry-point annsink_misc_init module-init module_init
// @expect entry-point annsink_misc_exit module-exit module_exit
module_misc_device(annsink_misc);

MODULE_DESCRIPTION("racewatch race corpus: lockdep_assert_held checked at every call");
MODULE_LICENSE("GPL");
