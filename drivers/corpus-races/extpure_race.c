// SPDX-License-Identifier: GPL-2.0
/*
 * extpure_race.c - a tick counter exposed as /dev/ticker.
 *
 * Race test (case: a kernel helper whose model says it writes no driver
 * memory). ioctl() sets the tick period under tk_lock and re-arms the
 * timer with mod_timer(&tk_timer, ...); flush() stops it with
 * timer_delete(&tk_timer). Both helpers take a non-const pointer to the
 * driver's own timer_list, so without a model they would be taken to
 * write it (the sound default, extwrite_race.c); their models in
 * kernel-models/functions/deferred.xml say they write no driver memory,
 * because the timer core changes the timer's linkage under the timer
 * base's lock (kernel/time/timer.c: __mod_timer and timer_delete take
 * lock_timer_base). So no race is reported on tk_timer, and what stays is
 * the driver's own race: ioctl reads tk_period for the expiry outside
 * the lock while another ioctl writes it. The fixed twin
 * (extpure_fixed.c) reads the period under the lock.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/uaccess.h>

static DEFINE_SPINLOCK(tk_lock);	/* guards tk_period and tk_ticks */
static unsigned long tk_period = HZ;
static unsigned long tk_ticks;

// @expect entry-point tk_tick timer timer_list.function
static void tk_tick(struct timer_list *t)
{
	spin_lock(&tk_lock);
	tk_ticks++;
	spin_unlock(&tk_lock);
}

static DEFINE_TIMER(tk_timer, tk_tick);

// @expect entry-point tk_read callback file_operations.read
static ssize_t tk_read(struct file *file, char __user *buf, size_t count,
		       loff_t *ppos)
{
	unsigned long ticks;

	if (count < sizeof(ticks))
		return -EINVAL;
	spin_lock(&tk_lock);
	ticks = tk_ticks;
	spin_unlock(&tk_lock);
	if (copy_to_user(buf, &ticks, sizeof(ticks)))
		return -EFAULT;
	return sizeof(ticks);
}

// @expect entry-point tk_ioctl callback file_operations.unlocked_ioctl
static long tk_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (arg == 0)
		return -EINVAL;
	spin_lock(&tk_lock);
	tk_period = arg;		/* @racy: the other ioctl reads it without the lock */
	spin_unlock(&tk_lock);
	mod_timer(&tk_timer, jiffies + tk_period);	/* @racy: reads tk_period without tk_lock */
	return 0;
}

// @expect entry-point tk_flush callback file_operations.flush
static int tk_flush(struct file *file, fl_owner_t id)
{
	timer_delete(&tk_timer);
	return 0;
}

// @expect race tk_ioctl tk_ioctl "global tk_period"
// @expect confirmed tk_ioctl tk_ioctl "global tk_period"
// @expect proven tk_ioctl tk_flush
// @expect proven tk_flush tk_flush
// @expect proven tk_read tk_ioctl
// @expect proven tk_read tk_tick
// @expect proven tk_ioctl tk_tick
// @expect proven tk_flush tk_tick

static const struct file_operations tk_fops = {
	.owner		= THIS_MODULE,
	.read		= tk_read,
	.unlocked_ioctl	= tk_ioctl,
	.flush		= tk_flush,
};

static struct miscdevice tk_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "ticker",
	.fops	= &tk_fops,
};

// @expect init tk_misc_init
// @expect entry-point tk_misc_init module-init module_init
// @expect entry-point tk_misc_exit module-exit module_exit
module_misc_device(tk_misc);

MODULE_DESCRIPTION("racewatch race corpus: a kernel helper modelled as writing no driver memory");
MODULE_LICENSE("GPL");
