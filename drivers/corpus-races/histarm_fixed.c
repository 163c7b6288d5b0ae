// SPDX-License-Identifier: GPL-2.0
/*
 * histarm_fixed.c - /dev/rwbeat, a heartbeat counter, with a lock.
 *
 * Fixed twin of histarm_race.c (cases: a counter shared by a timer and
 * write() -> spinlock; a flag written once before the timer is armed and
 * read by the timer -> marked accesses). The timer and write() count under
 * hb_count_lock (spin_lock_bh in process context, since the timer runs in
 * softirq context); the ioctl publishes hb_armed with WRITE_ONCE and the
 * timer reads it with READ_ONCE, which the kernel's memory model does not
 * count as a data race.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/ioctl.h>

#define RWHB_IOC_START	_IO('h', 0)

static DEFINE_MUTEX(hb_lock);
static DEFINE_SPINLOCK(hb_count_lock);
static int hb_armed;			/* set once, by the first START */
static unsigned long hb_beats;		/* beats and bytes written */

// @expect entry-point hb_tick timer timer_list.function
static void hb_tick(struct timer_list *t);
static DEFINE_TIMER(hb_timer, hb_tick);

static void hb_tick(struct timer_list *t)
{
	spin_lock(&hb_count_lock);
	hb_beats++;
	spin_unlock(&hb_count_lock);
	if (READ_ONCE(hb_armed))
		mod_timer(&hb_timer, jiffies + HZ);
}

// @expect entry-point hb_write callback file_operations.write
static ssize_t hb_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos)
{
	spin_lock_bh(&hb_count_lock);
	hb_beats += count;
	spin_unlock_bh(&hb_count_lock);
	return count;
}

// @expect entry-point hb_ioctl callback file_operations.unlocked_ioctl
static long hb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != RWHB_IOC_START)
		return -ENOTTY;
	mutex_lock(&hb_lock);
	if (!hb_armed) {
		WRITE_ONCE(hb_armed, 1);
		mod_timer(&hb_timer, jiffies + HZ);
	}
	mutex_unlock(&hb_lock);
	return 0;
}

// @expect proven hb_tick hb_write
// @expect proven hb_write hb_write
// @expect proven hb_tick hb_ioctl
// @expect proven hb_ioctl hb_ioctl
// @expect proven hb_write hb_ioctl

static const struct file_operations hb_fops = {
	.owner		= THIS_MODULE,
	.write		= hb_write,
	.unlocked_ioctl	= hb_ioctl,
};

static struct miscdevice hb_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwbeat",
	.fops	= &hb_fops,
};

// @expect init hb_init
// @expect entry-point hb_init module-init module_init
static int __init hb_init(void)
{
	return misc_register(&hb_misc);
}

// @expect entry-point hb_exit module-exit module_exit
static void __exit hb_exit(void)
{
	misc_deregister(&hb_misc);
	timer_shutdown_sync(&hb_timer);
}

module_init(hb_init);
module_exit(hb_exit);

MODULE_DESCRIPTION("racewatch race corpus: fixed twin of histarm_race.c");
MODULE_LICENSE("GPL");
