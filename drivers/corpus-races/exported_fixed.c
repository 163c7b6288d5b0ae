// SPDX-License-Identifier: GPL-2.0
/*
 * exported_fixed.c - event threshold device, /dev/rwthresh, with an
 * exported setter, with a lock.
 *
 * Fixed twin of exported_race.c (case: exported function -> spinlock). The
 * exported rwx_set_threshold() takes rwx_lock like the ioctl, so every
 * access to rwx_threshold is under it. Expected: every pair proven
 * race-free.
 */
#include <linux/module.h>
#include <linux/export.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#define RWX_IOC_GET	_IOR('x', 0, __u32)
#define RWX_IOC_SET	_IOW('x', 1, __u32)

static DEFINE_SPINLOCK(rwx_lock);	/* meant to guard rwx_threshold */
static u32 rwx_threshold = 16;

// @expect entry-point rwx_set_threshold exported EXPORT_SYMBOL_GPL
int rwx_set_threshold(u32 value)
{
	if (!value)
		return -EINVAL;
	spin_lock(&rwx_lock);
	rwx_threshold = value;
	spin_unlock(&rwx_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(rwx_set_threshold);

// @expect entry-point rwx_ioctl callback file_operations.unlocked_ioctl
static long rwx_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	u32 val;

	switch (cmd) {
	case RWX_IOC_GET:
		spin_lock(&rwx_lock);
		val = rwx_threshold;
		spin_unlock(&rwx_lock);
		if (copy_to_user((void __user *)arg, &val, sizeof(val)))
			return -EFAULT;
		return 0;
	case RWX_IOC_SET:
		if (copy_from_user(&val, (void __user *)arg, sizeof(val)))
			return -EFAULT;
		spin_lock(&rwx_lock);
		rwx_threshold = val;
		spin_unlock(&rwx_lock);
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect proven rwx_set_threshold rwx_set_threshold
// @expect proven rwx_set_threshold rwx_ioctl
// @expect proven rwx_init rwx_set_threshold
// @expect proven rwx_ioctl rwx_ioctl

static const struct file_operations rwx_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwx_ioctl,
};

static struct miscdevice rwx_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwthresh",
	.fops	= &rwx_fops,
};

// @expect init rwx_init
// @expect entry-point rwx_init module-init module_init
static int __init rwx_init(void)
{
	return misc_register(&rwx_misc);
}

// @expect entry-point rwx_exit module-exit module_exit
static void __exit rwx_exit(void)
{
	misc_deregister(&rwx_misc);
}

module_init(rwx_init);
module_exit(rwx_exit);

MODULE_DESCRIPTION("racewatch race corpus: exported function locked like the callback");
MODULE_LICENSE("GPL");
