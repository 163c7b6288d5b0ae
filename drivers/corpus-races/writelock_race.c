// SPDX-License-Identifier: GPL-2.0
/*
 * writelock_race.c - tick counter of a heartbeat device, /dev/rwtick.
 *
 * Race test (case: a lock held at every write, not at every access). As
 * in writelock_fixed.c, the tick work increments the counter under the
 * mutex, in a helper, and reads it without the mutex to decide whether to
 * log; but it also counts a missed tick after releasing the mutex. That
 * write holds no lock and races with read()'s locked read.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

static DEFINE_MUTEX(rwtk_lock);		/* guards every write of the counter */
static unsigned long rwtk_ticks;	/* written by the tick work only */
static bool rwtk_reset;			/* a reset asked by write() */

/* Caller holds rwtk_lock. */
static void rwtk_count(void)
{
	if (rwtk_reset) {
		rwtk_ticks = 0;
		rwtk_reset = false;
	}
	rwtk_ticks++;
}

static void rwtk_tick(struct work_struct *work);
static DECLARE_DELAYED_WORK(rwtk_work, rwtk_tick);

// @expect entry-point rwtk_tick work work_struct.func
static void rwtk_tick(struct work_struct *work)
{
	mutex_lock(&rwtk_lock);
	rwtk_count();
	mutex_unlock(&rwtk_lock);
	rwtk_ticks++;	/* @racy: the missed tick, counted without the mutex */
	if (rwtk_ticks % 1000 == 0)	/* the writer's own read needs no lock */
		pr_info("rwtick: %lu ticks\n", rwtk_ticks);
	schedule_delayed_work(&rwtk_work, HZ);
}

// @expect entry-point rwtk_read callback file_operations.read
static ssize_t rwtk_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	unsigned long v;

	mutex_lock(&rwtk_lock);
	v = rwtk_ticks;	/* @racy */
	mutex_unlock(&rwtk_lock);
	return simple_read_from_buffer(buf, count, ppos, &v, sizeof(v));
}

// @expect entry-point rwtk_write callback file_operations.write
static ssize_t rwtk_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	mutex_lock(&rwtk_lock);
	rwtk_reset = true;
	mutex_unlock(&rwtk_lock);
	return count;
}

// @expect race rwtk_tick rwtk_read "global rwtk_ticks"
// @expect confirmed rwtk_tick rwtk_read "global rwtk_ticks"
// @expect proven rwtk_tick rwtk_write
// @expect proven rwtk_read rwtk_write
// @expect proven rwtk_read rwtk_read
// @expect proven rwtk_write rwtk_write

static const struct file_operations rwtk_fops = {
	.owner	= THIS_MODULE,
	.read	= rwtk_read,
	.write	= rwtk_write,
};

static struct miscdevice rwtk_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwtick",
	.fops	= &rwtk_fops,
};

// @expect init rwtk_init
// @expect entry-point rwtk_init module-init module_init
static int __init rwtk_init(void)
{
	schedule_delayed_work(&rwtk_work, HZ);
	return misc_register(&rwtk_misc);
}

// @expect entry-point rwtk_exit module-exit module_exit
static void __exit rwtk_exit(void)
{
	misc_deregister(&rwtk_misc);
	cancel_delayed_work_sync(&rwtk_work);
}

module_init(rwtk_init);
module_exit(rwtk_exit);

MODULE_DESCRIPTION("racewatch race corpus: a lock held at every write, not at every access");
MODULE_LICENSE("GPL");
