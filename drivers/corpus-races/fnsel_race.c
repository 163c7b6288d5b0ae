// SPDX-License-Identifier: GPL-2.0
/*
 * fnsel_race.c - deferred tick counter with a calibration step, /dev/rwtick.
 *
 * Race test (case: a call through a function-pointer variable that holds
 * one of two functions, never the second while the callbacks run). Init
 * runs the calibration step through the hook rwfs_step once, before the
 * device is registered, then installs the tick handler for good; the
 * work item calls whatever the hook holds. RWFS_IOC_GET and RWFS_IOC_RESET
 * touch the counter and the base under the mutex, but the tick handler
 * changes the counter without it: the counter races between the work item
 * and the ioctl. The fixed twin, fnsel_fixed.c, takes the mutex in the
 * handlers.
 *
 * The base is a false alarm of the lockset phase, which resolves the call
 * through the hook to both functions it is ever assigned: the calibration
 * step writes the base without the mutex, but only init calls it, alone,
 * before misc_register makes the ioctl live, and the hook holds the tick
 * handler from then on. A call through the hook takes only the function it
 * holds, so the precise phase finds no race on the base.
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
	rwfs_base = 100;
}

static void rwfs_tick(void)
{
	rwfs_ticks++;		/* @racy: mutex not held */
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
		rwfs_ticks = 0;		/* @racy */
		rwfs_base = 0;
		mutex_unlock(&rwfs_lock);
		return 0;
	case RWFS_IOC_GET:
		mutex_lock(&rwfs_lock);
		ret = rwfs_base + rwfs_ticks;	/* @racy */
		mutex_unlock(&rwfs_lock);
		return ret;
	default:
		return -ENOTTY;
	}
}

// @expect race rwfs_workfn rwfs_ioctl "global rwfs_ticks"
// @expect confirmed rwfs_workfn rwfs_ioctl "global rwfs_ticks"
// The base: a false alarm (see the header); a witness would need the work
// item to call rwfs_calibrate while the hook holds rwfs_tick.
// @expect race rwfs_workfn rwfs_ioctl "global rwfs_base"
// @expect not-found rwfs_workfn rwfs_ioctl "global rwfs_base"

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
