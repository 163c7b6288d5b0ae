// SPDX-License-Identifier: GPL-2.0
/*
 * wqdestroy_fixed.c - a statistics device: each write queues two work
 * items on the driver's own workqueue, which count the fills and flushes
 * done in a statistics record allocated at load.
 *
 * Fixed twin of wqdestroy_race.c (case: destroy_workqueue quiesces the
 * work items queued on it, issue 14 Build 4). The module exit destroys
 * the workqueue first: destroy_workqueue returns only once no item is
 * pending or running on it (kernel/workqueue.c drain_workqueue, which
 * refuses all but chained queueing while it drains), and no file is open
 * during module exit to queue them again, so the exit frees the record
 * and clears its pointer after the last count. Expected: every pair
 * proven race-free.
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
	struct wqd_stats *st = wqd_stats;

	mutex_lock(&wqd_lock);
	st->runs++;
	mutex_unlock(&wqd_lock);
}

// @expect entry-point wqd_flush work work_struct.func
static void wqd_flush(struct work_struct *work)
{
	struct wqd_stats *st = wqd_stats;

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
	.name = "wqdestroy_fixed",
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
	wqd_wq = alloc_workqueue("wqdestroy_fixed", 0, 0);
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
	destroy_workqueue(wqd_wq);
	kfree(wqd_stats);
	wqd_stats = NULL;
}

// @expect proven wqd_fill wqd_exit
// @expect proven wqd_flush wqd_exit

module_init(wqd_init);
module_exit(wqd_exit);
MODULE_LICENSE("GPL");
