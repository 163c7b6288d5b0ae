// SPDX-License-Identifier: GPL-2.0
/*
 * exported_race.c - event threshold device, /dev/rwthresh, with an
 * exported setter.
 *
 * Race test (case: a function other modules call). The RWX_IOC_GET ioctl
 * reads the threshold under rwx_lock and RWX_IOC_SET writes it under the
 * lock; rwx_set_threshold(), exported for other modules, writes it without
 * the lock. Another module may call it at any time once this module is
 * live, concurrently with the ioctl and with itself. The fixed twin
 * (exported_fixed.c) takes the lock in the exported function too.
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
	rwx_threshold = value;		/* @racy: written without rwx_lock */
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
		val = rwx_threshold;	/* @racy: read under the lock, written without it */
		spin_unlock(&rwx_lock);
		if (copy_to_user((void __user *)arg, &val, sizeof(val)))
			return -EFAULT;
		return 0;
	case RWX_IOC_SET:
		if (copy_from_user(&val, (void __user *)arg, sizeof(val)))
			return -EFAULT;
		spin_lock(&rwx_lock);
		rwx_threshold = val;	/* @racy: write under the lock */
		spin_unlock(&rwx_lock);
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect race rwx_set_threshold rwx_set_threshold "global rwx_threshold"
// @expect confirmed rwx_set_threshold rwx_set_threshold "global rwx_threshold"
// @expect race rwx_set_threshold rwx_ioctl "global rwx_threshold"
// @expect confirmed rwx_set_threshold rwx_ioctl "global rwx_threshold"
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

MODULE_DESCRIPTION("racewatch race corpus: exported function racing with a callback");
MODULE_LICENSE("GPL");
