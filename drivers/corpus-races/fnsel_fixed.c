// SPDX-License-Identifier: GPL-2.0
/*
 * fnsel_fixed.c - deferred tick counter with a calibration step, /dev/rwtick.
 *
 * Fixed twin of fnsel_race.c (case: a call through a function-pointer
 * variable that holds one of two functions, never the second while the
 * callbacks run). Init runs the calibration step through the hook
 * rwfs_step once, before the device is registered, then installs the tick
 * handler for good; the work item calls whatever the hook holds. Both
 * handlers take the mutex that guards the counter and the base (the
 * calibration step too: the lockset phase resolves the call through the
 * hook to both functions it is ever assigned), and so do the ioctls: no
 * race.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/fs.h>

#define RWFS_IOC_KICK	_IO('s', 0)
#define RWFS_IOC_RESET	_IO('s', 1)
#define RWFS_IOC_GET	_IO('s', 2)

static DEFINE_MUTEX(rwfs_lock);		/* guards rwfs_ticks and rwfs_base */
static int rwfs_ticks;
static int rwfs_base;
static void (*rwfs_step)(void);

/* Only init runs it, before the device is registered. */
static void rwfs_calibrate(void)
{
	mutex_lock(&rwfs_lock);
	rwfs_base = 100;
	mutex_unlock(&rwfs_lock);
}

static void rwfs_tick(void)
{
	mutex_lock(&rwfs_lock);
	rwfs_ticks++;
	mutex_unlock(&rwfs_lock);
}

// @expect entry-point rwfs_workfn work work_struct.func
static void rwfs_workfn(struct work_struct *work)
{
	void (*step)(void) = rwfs_step;

	if (step)
		step();
}

static DECLARE_WORK(rwfs_work, rwfs_workfn);

// @expect entry-point rwfs_ioctl callback file_operations.unlocked_ioctl
static long rwfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	long ret;

	switch (cmd) {
	case RWFS_IOC_KICK:
		schedule_work(&rwfs_work);
		return 0;
	case RWFS_IOC_RESET:
		mutex_lock(&rwfs_lock);
		rwfs_ticks = 0;
		rwfs_base = 0;
		mutex_unlock(&rwfs_lock);
		return 0;
	case RWFS_IOC_GET:
		mutex_lock(&rwfs_lock);
		ret = rwfs_base + rwfs_ticks;
		mutex_unlock(&rwfs_lock);
		return ret;
	default:
		return -ENOTTY;
	}
}

// @expect proven rwfs_workfn rwfs_ioctl

static const struct file_operations rwfs_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwfs_ioctl,
};

static struct miscdevice rwfs_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwtick",
	.fops	= &rwfs_fops,
};

// @expect init rwfs_init
// @expect entry-point rwfs_init module-init module_init
static int __init rwfs_init(void)
{
	rwfs_step = rwfs_calibrate;
	rwfs_step();
	rwfs_step = rwfs_tick;
	return misc_register(&rwfs_misc);
}

// @expect entry-point rwfs_exit module-exit module_exit
static void __exit rwfs_exit(void)
{
	misc_deregister(&rwfs_misc);
	cancel_work_sync(&rwfs_work);
}

module_init(rwfs_init);
module_exit(rwfs_exit);

MODULE_DESCRIPTION("racewatch race corpus: a function-pointer variable that holds one target while the callbacks run");
MODULE_LICENSE("GPL");
