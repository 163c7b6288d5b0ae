// SPDX-License-Identifier: GPL-2.0
/*
 * extwrite_fixed.c - a time stamp device exposed as /dev/tstamp.
 *
 * Fixed twin of extwrite_race.c (case: a kernel helper without body or
 * model writes through its pointer argument). ioctl() stamps the device
 * with ktime_get_real_ts64(&tsd_stamp), which may write the struct
 * timespec64 it is given, under tsd_lock, the lock read() copies the
 * stamp under: every pair is proven.
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
	now = tsd_stamp;
	spin_unlock(&tsd_lock);
	if (copy_to_user(buf, &now, sizeof(now)))
		return -EFAULT;
	return sizeof(now);
}

// @expect entry-point tsd_ioctl callback file_operations.unlocked_ioctl
static long tsd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	spin_lock(&tsd_lock);
	ktime_get_real_ts64(&tsd_stamp);
	spin_unlock(&tsd_lock);
	return 0;
}

// @expect proven tsd_read tsd_read
// @expect proven tsd_read tsd_ioctl
// @expect proven tsd_ioctl tsd_ioctl

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

MODULE_DESCRIPTION("racewatch race corpus: a kernel helper writing through its pointer argument, under the lock");
MODULE_LICENSE("GPL");
