// SPDX-License-Identifier: GPL-2.0
/*
 * histarm_race.c - /dev/rwbeat, a heartbeat counter.
 *
 * Race test (case: a race that needs an earlier call, and a false alarm
 * that only an arbitrary start state would confirm). The RWHB_IOC_START
 * ioctl arms the heartbeat timer once, under hb_lock: it sets hb_armed
 * while it is 0, then calls mod_timer. The timer counts a beat in hb_beats
 * and re-arms itself while hb_armed is set; write() adds to the same
 * counter. Neither takes a lock for hb_beats, so the timer and write()
 * race on it, and two writes race with each other.
 *
 * The timer runs only once an earlier START ioctl armed it: the precise
 * phase shows the timer/write race with that ioctl run to its end after
 * module init and before the pair (src/precise/history.rs).
 *
 * hb_armed: the timer reads it without hb_lock, and the ioctl writes it,
 * so the lockset phase reports the pair. It is a false alarm: the ioctl
 * writes hb_armed only while it is 0, before it arms the timer, and nothing
 * clears it, so no timer runs before or during that write. It is
 * not confirmed: a witness needs hb_armed nonzero before init (module
 * loading leaves it 0) or the timer running before a mod_timer of the run
 * armed it; the history search finds no run where the kernel does that,
 * and leaves the region unknown.
 *
 * The fixed twin, histarm_fixed.c, counts under a spinlock and marks the
 * flag's accesses (READ_ONCE/WRITE_ONCE).
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/ioctl.h>

#define RWHB_IOC_START	_IO('h', 0)

static DEFINE_MUTEX(hb_lock);
static int hb_armed;			/* set once, by the first START */
static unsigned long hb_beats;		/* beats and bytes written */

// @expect entry-point hb_tick timer timer_list.function
static void hb_tick(struct timer_list *t);
static DEFINE_TIMER(hb_timer, hb_tick);

static void hb_tick(struct timer_list *t)
{
	hb_beats++;			/* @racy: no lock */
	if (hb_armed)			/* @racy: false alarm, see above */
		mod_timer(&hb_timer, jiffies + HZ);
}

// @expect entry-point hb_write callback file_operations.write
static ssize_t hb_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos)
{
	hb_beats += count;		/* @racy: no lock */
	return count;
}

// @expect entry-point hb_ioctl callback file_operations.unlocked_ioctl
static long hb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != RWHB_IOC_START)
		return -ENOTTY;
	mutex_lock(&hb_lock);
	if (!hb_armed) {
		hb_armed = 1;		/* @racy: false alarm, see above */
		mod_timer(&hb_timer, jiffies + HZ);
	}
	mutex_unlock(&hb_lock);
	return 0;
}

// @expect race hb_tick hb_write "global hb_beats"
// @expect confirmed hb_tick hb_write "global hb_beats"
// @expect race hb_write hb_write "global hb_beats"
// @expect confirmed hb_write hb_write "global hb_beats"
// @expect race hb_tick hb_ioctl "global hb_armed"
// @expect unconfirmed hb_tick hb_ioctl "global hb_armed"
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

MODULE_DESCRIPTION("racewatch race corpus: a race that needs an earlier call");
MODULE_LICENSE("GPL");
