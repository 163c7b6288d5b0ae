// SPDX-License-Identifier: GPL-2.0
/*
 * ordwq_race.c - a fill level counter exposed as /dev/owq.
 *
 * Race test (case: a work item queued outside the ordered workqueue).
 * write() queues the fill work on owq_wq, an ordered workqueue, but
 * ioctl() queues the drain work with schedule_work, on the system
 * workqueue, whose workers run it on another CPU while the fill work
 * runs: the two functions update owq_level concurrently. The fixed twin
 * (ordwq_fixed.c) queues both on owq_wq, which runs one at a time.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/workqueue.h>

static struct workqueue_struct *owq_wq;
static unsigned int owq_level;

// @expect entry-point owq_fill work work_struct.func
static void owq_fill(struct work_struct *work)
{
	owq_level++;		/* @racy: the drain work may run at the same time */
}

// @expect entry-point owq_drain work work_struct.func
static void owq_drain(struct work_struct *work)
{
	owq_level = 0;		/* @racy: queued on the system workqueue */
}

static DECLARE_WORK(owq_fill_work, owq_fill);
static DECLARE_WORK(owq_drain_work, owq_drain);

// @expect entry-point owq_write callback file_operations.write
static ssize_t owq_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	queue_work(owq_wq, &owq_fill_work);
	return count;
}

// @expect entry-point owq_ioctl callback file_operations.unlocked_ioctl
static long owq_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	schedule_work(&owq_drain_work);
	return 0;
}

// @expect race owq_fill owq_drain "global owq_level"
// @expect confirmed owq_fill owq_drain "global owq_level"
// @expect proven owq_fill owq_fill
// @expect proven owq_drain owq_drain

static const struct file_operations owq_fops = {
	.owner		= THIS_MODULE,
	.write		= owq_write,
	.unlocked_ioctl	= owq_ioctl,
};

static struct miscdevice owq_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "owq",
	.fops	= &owq_fops,
};

// @expect init owq_init
// @expect entry-point owq_init module-init module_init
static int __init owq_init(void)
{
	int ret;

	owq_wq = alloc_ordered_workqueue("owq", 0);
	if (!owq_wq)
		return -ENOMEM;
	ret = misc_register(&owq_misc);
	if (ret)
		destroy_workqueue(owq_wq);
	return ret;
}

// @expect entry-point owq_exit module-exit module_exit
static void __exit owq_exit(void)
{
	misc_deregister(&owq_misc);
	destroy_workqueue(owq_wq);
}

module_init(owq_init);
module_exit(owq_exit);

MODULE_DESCRIPTION("racewatch race corpus: work items on one ordered workqueue");
MODULE_LICENSE("GPL");
