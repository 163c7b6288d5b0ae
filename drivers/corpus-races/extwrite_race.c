// SPDX-License-Identifier: GPL-2.0
/*
 * extwrite_race.c - a time stamp device exposed as /dev/tstamp.
 *
 * Race test (case: a kernel helper without body or model writes through
 * its pointer argument). ioctl() stamps the device with
 * ktime_get_real_ts64(&tsd_stamp), which stores the time into the
 * struct timespec64 it is given (kernel/time/timekeeping.c), without
 * tsd_lock, while read() copies the stamp under the lock: read can see a
 * torn stamp, and two ioctls store concurrently. racewatch has no model
 * of ktime_get_real_ts64 on purpose (kernel-models/functions/delays.xml),
 * so the call may write what its non-const pointer argument points to
 * (docs/soundness.md, Lowering). The fixed twin (extwrite_fixed.c) stamps
 * under the lock.
 *
 * The precise phase leaves the four races unknown, not confirmed: they
 * rest on a write assumed of a function without body or model, which it
 * never calls confirmed (the function may write nothing).
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

static DEFINE_SPINLOCK(tsd_lock);	/* guards tsd_stamp */
static struct timespec64 tsd_stamp;

// @expect entry-point tsd_read callback file_operations.read
static ssize_t tsd_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct timespec64 now;

	if (count < sizeof(now))
		return -EINVAL;
	spin_lock(&tsd_lock);
	now = tsd_stamp;		/* @racy: ioctl stamps it without the lock */
	spin_unlock(&tsd_lock);
	if (copy_to_user(buf, &now, sizeof(now)))
		return -EFAULT;
	return sizeof(now);
}

// @expect entry-point tsd_ioctl callback file_operations.unlocked_ioctl
static long tsd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	ktime_get_real_ts64(&tsd_stamp);	/* @racy: stores the stamp without tsd_lock */
	return 0;
}

// @expect race tsd_read tsd_ioctl "struct timespec64.tv_sec"
// @expect unconfirmed tsd_read tsd_ioctl "struct timespec64.tv_sec"
// @expect race tsd_read tsd_ioctl "struct timespec64.tv_nsec"
// @expect unconfirmed tsd_read tsd_ioctl "struct timespec64.tv_nsec"
// @expect race tsd_ioctl tsd_ioctl "struct timespec64.tv_sec"
// @expect unconfirmed tsd_ioctl tsd_ioctl "struct timespec64.tv_sec"
// @expect race tsd_ioctl tsd_ioctl "struct timespec64.tv_nsec"
// @expect unconfirmed tsd_ioctl tsd_ioctl "struct timespec64.tv_nsec"
// @expect proven tsd_read tsd_read

static const struct file_operations tsd_fops = {
	.owner		= THIS_MODULE,
	.read		= tsd_read,
	.unlocked_ioctl	= tsd_ioctl,
};

static struct miscdevice tsd_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "tstamp",
	.fops	= &tsd_fops,
};

// @expect init tsd_misc_init
// @expect entry-point tsd_misc_init module-init module_init
// @expect entry-point tsd_misc_exit module-exit module_exit
module_misc_device(tsd_misc);

MODULE_DESCRIPTION("racewatch race corpus: a kernel helper writing through its pointer argument");
MODULE_LICENSE("GPL");
