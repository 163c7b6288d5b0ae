// SPDX-License-Identifier: GPL-2.0
/*
 * curtask_race.c - a doorbell device, /dev/ctbell: read() sleeps until
 * the doorbell rings, write() rings it.
 *
 * Race test (case: the current task, issue 14). read() waits in the
 * classic hand-written loop (set_current_state, test, schedule) and
 * records the sleeping task in waiter so that write() can wake it, but
 * it stores waiter outside ct_lock: write() may read waiter while a read
 * replaces it. The writes of set_current_state to the current task's
 * __state are each caller's own task_struct and are not reported. The
 * fixed twin (curtask_fixed.c) stores waiter under ct_lock.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/fs.h>

static DEFINE_SPINLOCK(ct_lock);	/* guards waiter and rung */
static struct task_struct *waiter;
static int rung;

// @expect entry-point ct_read callback file_operations.read
static ssize_t ct_read(struct file *file, char __user *buf, size_t count,
		       loff_t *ppos)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		spin_lock(&ct_lock);
		if (rung) {
			rung = 0;
			waiter = NULL;		/* @racy: beside another read's unlocked store */
			spin_unlock(&ct_lock);
			break;
		}
		spin_unlock(&ct_lock);
		waiter = current;		/* @racy: outside ct_lock */
		if (signal_pending(current)) {
			__set_current_state(TASK_RUNNING);
			return -ERESTARTSYS;
		}
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

// @expect race ct_read ct_read "global waiter"
// @expect race ct_read ct_write "global waiter"
// @expect confirmed ct_read ct_read "global waiter"
// @expect confirmed ct_read ct_write "global waiter"

// @expect entry-point ct_write callback file_operations.write
static ssize_t ct_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos)
{
	spin_lock(&ct_lock);
	rung = 1;
	if (waiter)			/* @racy: read beside read()'s store */
		wake_up_process(waiter);	/* @racy: read again */
	spin_unlock(&ct_lock);
	return count;
}

static const struct file_operations ct_fops = {
	.owner = THIS_MODULE,
	.read = ct_read,
	.write = ct_write,
};

static struct miscdevice ct_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "ctbell",
	.fops = &ct_fops,
};

// @expect init ct_init
// @expect entry-point ct_init module-init module_init
static int __init ct_init(void)
{
	return misc_register(&ct_misc);
}

// @expect entry-point ct_exit module-exit module_exit
static void __exit ct_exit(void)
{
	misc_deregister(&ct_misc);
}

module_init(ct_init);
module_exit(ct_exit);

MODULE_DESCRIPTION("racewatch race corpus: the current task's waiter stored unlocked");
MODULE_LICENSE("GPL");
