// SPDX-License-Identifier: GPL-2.0
/*
 * globalcnt_fixed.c - software event injector, /dev/rwevents, with a lock.
 *
 * Fixed twin of globalcnt_race.c (cases: global counter -> spinlock). The
 * global counter rwgc_events is only touched with the global spinlock
 * rwgc_lock held (spin_lock in write(), spin_lock_irq in the ioctl).
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#define RWGC_IOC_RESET	_IO('g', 0)
#define RWGC_IOC_GET	_IOR('g', 1, __u64)

static DEFINE_SPINLOCK(rwgc_lock);	/* guards rwgc_events */
static u64 rwgc_events;

// @expect entry-point rwgc_write callback file_operations.write
static ssize_t rwgc_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	if (!count)
		return 0;
	spin_lock(&rwgc_lock);
	rwgc_events += count;
	spin_unlock(&rwgc_lock);
	return count;
}

// @expect entry-point rwgc_ioctl callback file_operations.unlocked_ioctl
static long rwgc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	u64 val;

	switch (cmd) {
	case RWGC_IOC_RESET:
		spin_lock_irq(&rwgc_lock);
		rwgc_events = 0;
		spin_unlock_irq(&rwgc_lock);
		return 0;
	case RWGC_IOC_GET:
		spin_lock_irq(&rwgc_lock);
		val = rwgc_events;
		spin_unlock_irq(&rwgc_lock);
		if (copy_to_user((void __user *)arg, &val, sizeof(val)))
			return -EFAULT;
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect proven rwgc_write rwgc_write
// @expect proven rwgc_write rwgc_ioctl
// @expect proven rwgc_ioctl rwgc_ioctl

static const struct file_operations rwgc_fops = {
	.owner		= THIS_MODULE,
	.write		= rwgc_write,
	.unlocked_ioctl	= rwgc_ioctl,
};

static struct miscdevice rwgc_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwevents",
	.fops	= &rwgc_fops,
};

// @expect init rwgc_init
// @expect entry-point rwgc_init module-init module_init
static int __init rwgc_init(void)
{
	return misc_register(&rwgc_misc);
}

// @expect entry-point rwgc_exit module-exit module_exit
static void __exit rwgc_exit(void)
{
	misc_deregister(&rwgc_misc);
}

module_init(rwgc_init);
module_exit(rwgc_exit);

MODULE_DESCRIPTION("racewatch race corpus: global counter, fixed with a spinlock");
MODULE_LICENSE("GPL");
