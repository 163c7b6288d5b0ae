// SPDX-License-Identifier: GPL-2.0
/*
 * freshkeep_fixed.c - a sampler of two devices, each with a link that
 * points back to it, whose timer reports the newest device.
 *
 * Fixed twin of freshkeep_race.c (case: a fresh allocation initialised
 * before its publication through a work item's initialisation, a second
 * fresh object stored into it and read back, and a helper that stores the
 * first object into the second; issue 14). module_init adds a device,
 * starts the timer, then adds a second one with the same helper: fi_add
 * allocates a device, initialises its work item (INIT_WORK: __init_work
 * keeps nothing, INIT_LIST_HEAD stores the list head into itself),
 * allocates its link and stores it in the device, reads it back to mark
 * it up, lets fi_link_set_owner store the device into the link (still
 * unpublished, so the device is not published by it), fills in the
 * device and only then publishes it in cur under the lock. While the
 * second device is built the timer can only reach the first one.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/workqueue.h>

struct fi_dev;

struct fi_link {
	struct fi_dev *owner;
	int up;
};

struct fi_dev {
	int id;
	int val;
	struct work_struct work;
	struct fi_link *link;
};

static DEFINE_SPINLOCK(fi_lock);	/* guards cur and seen */
static struct fi_dev *cur;
static struct fi_dev *first;
static int seen;
static struct timer_list fi_timer;

// @expect entry-point fi_tick timer timer_setup
static void fi_tick(struct timer_list *t)
{
	spin_lock(&fi_lock);
	if (cur)
		seen = cur->val + cur->id + cur->link->up + (cur->link->owner == cur);
	spin_unlock(&fi_lock);
	mod_timer(&fi_timer, jiffies + HZ);
}

// @expect entry-point fi_work_fn work work_struct.func
static void fi_work_fn(struct work_struct *w)
{
}

/* Stores the device a link belongs to into the link. */
static void fi_link_set_owner(struct fi_link *l, struct fi_dev *d)
{
	l->owner = d;
}

/* Allocates and fills in a device and its link, then publishes it. */
static struct fi_dev *fi_add(int id)
{
	struct fi_dev *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	INIT_WORK(&d->work, fi_work_fn);
	d->id = id;
	d->link = kzalloc(sizeof(*d->link), GFP_KERNEL);
	if (!d->link) {
		kfree(d);
		return NULL;
	}
	d->link->up = 1;
	fi_link_set_owner(d->link, d);
	d->val = 42;
	spin_lock_bh(&fi_lock);
	cur = d;
	spin_unlock_bh(&fi_lock);
	return d;
}

// @expect proven fi_init fi_tick

// @expect init fi_init
// @expect entry-point fi_init module-init module_init
static int __init fi_init(void)
{
	first = fi_add(0);
	if (!first)
		return -ENOMEM;
	timer_setup(&fi_timer, fi_tick, 0);
	mod_timer(&fi_timer, jiffies + HZ);
	if (!fi_add(1))
		return -ENOMEM;
	return 0;
}

// @expect entry-point fi_exit module-exit module_exit
static void __exit fi_exit(void)
{
	timer_shutdown_sync(&fi_timer);
	if (cur != first) {
		kfree(cur->link);
		kfree(cur);
	}
	kfree(first->link);
	kfree(first);
}

module_init(fi_init);
module_exit(fi_exit);

MODULE_DESCRIPTION("racewatch race corpus: fresh objects kept inside each other before their publication");
MODULE_LICENSE("GPL");
