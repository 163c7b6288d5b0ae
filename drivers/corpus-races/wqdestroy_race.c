// SPDX-License-Identifier: GPL-2.0
/*
 * wqdestroy_race.c - a statistics device: each write queues two work
 * items on the driver's own workqueue, which count the fills and flushes
 * done in a statistics record allocated at load.
 *
 * Racy twin of wqdestroy_fixed.c (case: destroy_workqueue quiesces the
 * work items queued on it, issue 14 Build 4). The module exit frees the
 * record and clears its pointer before it destroys the workqueue: until
 * destroy_workqueue has drained it (kernel/workqueue.c drain_workqueue
 * waits until no item is pending or running on it), a queued work item
 * may still read the pointer and count into the freed record. No file is
 * open during module exit (an open file holds a module reference), so no
 * write queues the items again. Expected: races between the exit and each
 * work item on the record pointer, confirmed.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>

struct wqd_stats {
	unsigned long runs;		/* fills and flushes done */
};

static struct wqd_stats *wqd_stats;
static struct workqueue_struct *wqd_wq;
static DEFINE_MUTEX(wqd_lock);		/* guards the counters */

// @expect entry-point wqd_fill work work_struct.func
static void wqd_fill(struct work_struct *work)
{
	struct wqd_stats *st = wqd_stats;	/* @racy: beside the exit's clear */

	mutex_lock(&wqd_lock);
	st->runs++;
	mutex_unlock(&wqd_lock);
}

// @expect entry-point wqd_flush work work_struct.func
static void wqd_flush(struct work_struct *work)
{
	struct wqd_stats *st = wqd_stats;	/* @racy: beside the exit's clear */

	mutex_lock(&wqd_lock);
	st->runs++;
	mutex_unlock(&wqd_lock);
}

static DECLARE_WORK(wqd_fill_work, wqd_fill);
static DECLARE_WORK(wqd_flush_work, wqd_flush);

// @expect entry-point wqd_write callback file_operations.write
static ssize_t wqd_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos)
{
	queue_work(wqd_wq, &wqd_fill_work);
	queue_work(wqd_wq, &wqd_flush_work);
	return len;
}

static const struct file_operations wqd_fops = {
	.owner = THIS_MODULE,
	.write = wqd_write,
};

static struct miscdevice wqd_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "wqdestroy",
	.fops = &wqd_fops,
};

// @expect init wqd_init
// @expect entry-point wqd_init module-init module_init
static int __init wqd_init(void)
{
	int err;

	wqd_stats = kzalloc(sizeof(*wqd_stats), GFP_KERNEL);
	if (!wqd_stats)
		return -ENOMEM;
	wqd_wq = alloc_workqueue("wqdestroy", 0, 0);
	if (!wqd_wq) {
		kfree(wqd_stats);
		return -ENOMEM;
	}
	err = misc_register(&wqd_misc);
	if (err) {
		destroy_workqueue(wqd_wq);
		kfree(wqd_stats);
		return err;
	}
	/* Start from a flushed, filled state. */
	queue_work(wqd_wq, &wqd_fill_work);
	queue_work(wqd_wq, &wqd_flush_work);
	return 0;
}

// @expect entry-point wqd_exit module-exit module_exit
static void __exit wqd_exit(void)
{
	misc_deregister(&wqd_misc);
	kfree(wqd_stats);
	wqd_stats = NULL;			/* @racy: before the drain */
	destroy_workqueue(wqd_wq);
}

// @expect race wqd_fill wqd_exit "global wqd_stats"
// @expect confirmed wqd_fill wqd_exit "global wqd_stats"
// @expect race wqd_flush wqd_exit "global wqd_stats"
// @expect confirmed wqd_flush wqd_exit "global wqd_stats"

module_init(wqd_init);
module_exit(wqd_exit);
MODULE_LICENSE("GPL");
