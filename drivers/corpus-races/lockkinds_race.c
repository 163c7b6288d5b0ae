// SPDX-License-Identifier: GPL-2.0
/*
 * lockkinds_race.c - the gain stage of a sensor whose state is written
 * holding both of its locks and read holding either, but for one read.
 *
 * Racy twin of lockkinds_fixed.c (case: the locksets of a region are kept
 * per kind of access, over the writes and over the reads, so that a pair
 * is checked with the locks of the accesses it is made of, and the report
 * names the accesses that conflict with the locks each held, issue 14).
 * The gain is written holding both rwlk_mutex and rwlk_lock (SET) or
 * rwlk_mutex (the work item's reset), and read holding rwlk_lock (the
 * work item's check); but the GET ioctl reads it holding neither lock.
 * Expected: races of GET's read with SET's write (which holds both locks)
 * and with the work item's write (which holds rwlk_mutex); the report
 * names those writes with their locks, not the lock-free read as the
 * lockset of every access of the ioctl.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#define RWLK_IOC_SET	_IOW('k', 1, int)
#define RWLK_IOC_GET	_IOR('k', 2, int)
#define RWLK_IOC_RESET	_IO('k', 3)

static DEFINE_MUTEX(rwlk_mutex);	/* orders the writers and GET */
static DEFINE_SPINLOCK(rwlk_lock);	/* SET against the work's check */
static int rwlk_gain;
static int rwlk_clipped;		/* work item only */

static void rwlk_reset_gain(void)
{
	rwlk_gain = 1;		/* @racy holding: rwlk_mutex */
}

static void rwlk_check_gain(void)
{
	if (rwlk_gain > 64)
		rwlk_clipped++;
}

// @expect entry-point rwlk_workfn work work_struct.func
static void rwlk_workfn(struct work_struct *work)
{
	mutex_lock(&rwlk_mutex);
	rwlk_reset_gain();
	mutex_unlock(&rwlk_mutex);
	spin_lock_irq(&rwlk_lock);
	rwlk_check_gain();
	spin_unlock_irq(&rwlk_lock);
}

static DECLARE_WORK(rwlk_work, rwlk_workfn);

// @expect entry-point rwlk_ioctl callback file_operations.unlocked_ioctl
static long rwlk_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case RWLK_IOC_SET:
		mutex_lock(&rwlk_mutex);
		spin_lock_irq(&rwlk_lock);
		rwlk_gain = arg;	/* @racy holding: rwlk_mutex, rwlk_lock */
		spin_unlock_irq(&rwlk_lock);
		mutex_unlock(&rwlk_mutex);
		return 0;
	case RWLK_IOC_GET:
		return rwlk_gain;	/* @racy holding: none */
	case RWLK_IOC_RESET:
		schedule_work(&rwlk_work);
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect race rwlk_workfn rwlk_ioctl "global rwlk_gain"
// @expect confirmed rwlk_workfn rwlk_ioctl "global rwlk_gain"
// @expect race rwlk_ioctl rwlk_ioctl "global rwlk_gain"
// @expect confirmed rwlk_ioctl rwlk_ioctl "global rwlk_gain"

static const struct file_operations rwlk_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwlk_ioctl,
};

static struct miscdevice rwlk_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwgain",
	.fops	= &rwlk_fops,
};

// @expect init rwlk_init
// @expect entry-point rwlk_init module-init module_init
static int __init rwlk_init(void)
{
	rwlk_gain = 8;
	return misc_register(&rwlk_misc);
}

// @expect entry-point rwlk_exit module-exit module_exit
static void __exit rwlk_exit(void)
{
	misc_deregister(&rwlk_misc);
	cancel_work_sync(&rwlk_work);
}

module_init(rwlk_init);
module_exit(rwlk_exit);

MODULE_DESCRIPTION("racewatch race corpus: locks by kind of access, racy");
MODULE_LICENSE("GPL");
