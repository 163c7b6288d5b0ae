// SPDX-License-Identifier: GPL-2.0
/*
 * fnvar_fixed.c - deferred level commands, /dev/rwlevel.
 *
 * Fixed twin of fnvar_race.c (case: a call through a static
 * function-pointer variable).
 * The RWFV_IOC_RAISE and RWFV_IOC_DROP ioctls choose the next step by
 * storing a handler in the static variable rwfv_step (under the mutex)
 * and queue a work item that calls the handler through a copy of that
 * variable. RWFV_IOC_GET and RWFV_IOC_RESET touch the level under the
 * mutex, and so do the handlers: no race.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/fs.h>

#define RWFV_IOC_RAISE	_IO('v', 0)
#define RWFV_IOC_DROP	_IO('v', 1)
#define RWFV_IOC_RESET	_IO('v', 2)
#define RWFV_IOC_GET	_IO('v', 3)

static DEFINE_MUTEX(rwfv_lock);		/* guards rwfv_level and rwfv_step */
static int rwfv_level;
static void (*rwfv_step)(void);

static void rwfv_raise(void)
{
	mutex_lock(&rwfv_lock);
	rwfv_level++;
	mutex_unlock(&rwfv_lock);
}

static void rwfv_drop(void)
{
	mutex_lock(&rwfv_lock);
	if (rwfv_level > 0)
		rwfv_level--;
	mutex_unlock(&rwfv_lock);
}

// @expect entry-point rwfv_workfn work work_struct.func
static void rwfv_workfn(struct work_struct *work)
{
	void (*step)(void);

	mutex_lock(&rwfv_lock);
	step = rwfv_step;
	mutex_unlock(&rwfv_lock);
	if (step)
		step();
}

static DECLARE_WORK(rwfv_work, rwfv_workfn);

// @expect entry-point rwfv_ioctl callback file_operations.unlocked_ioctl
static long rwfv_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	long ret;

	switch (cmd) {
	case RWFV_IOC_RAISE:
		mutex_lock(&rwfv_lock);
		rwfv_step = rwfv_raise;
		mutex_unlock(&rwfv_lock);
		schedule_work(&rwfv_work);
		return 0;
	case RWFV_IOC_DROP:
		mutex_lock(&rwfv_lock);
		rwfv_step = rwfv_drop;
		mutex_unlock(&rwfv_lock);
		schedule_work(&rwfv_work);
		return 0;
	case RWFV_IOC_RESET:
		mutex_lock(&rwfv_lock);
		rwfv_level = 0;
		mutex_unlock(&rwfv_lock);
		return 0;
	case RWFV_IOC_GET:
		mutex_lock(&rwfv_lock);
		ret = rwfv_level;
		mutex_unlock(&rwfv_lock);
		return ret;
	default:
		return -ENOTTY;
	}
}

// @expect proven rwfv_workfn rwfv_ioctl

static const struct file_operations rwfv_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwfv_ioctl,
};

static struct miscdevice rwfv_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwlevel",
	.fops	= &rwfv_fops,
};

// @expect init rwfv_init
// @expect entry-point rwfv_init module-init module_init
static int __init rwfv_init(void)
{
	return misc_register(&rwfv_misc);
}

// @expect entry-point rwfv_exit module-exit module_exit
static void __exit rwfv_exit(void)
{
	misc_deregister(&rwfv_misc);
	cancel_work_sync(&rwfv_work);
}

module_init(rwfv_init);
module_exit(rwfv_exit);

MODULE_DESCRIPTION("racewatch race corpus: call through a static function-pointer variable");
MODULE_LICENSE("GPL");
