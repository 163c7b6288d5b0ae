// SPDX-License-Identifier: GPL-2.0
/*
 * freshkeep_race.c - a sampler of two devices, each with a link that
 * points back to it, whose timer reports the newest device and the last
 * owner linked.
 *
 * Race test (case: a fresh allocation published by a helper that stores
 * it into a global as well as into another fresh object, issue 14).
 * module_init adds a device, starts the timer, then adds a second one
 * with the same helper: fi_add allocates a device, initialises its work
 * item, allocates its link and stores it in the device, reads it back to
 * mark it up, and lets fi_link_set_owner store the device into the link;
 * but that helper also records the device in last_owner, which the timer
 * reads: the device's value, written after the call, may be read before
 * it is written. The writes before the call are private (not reported).
 * The fixed twin (freshkeep_fixed.c) keeps the device in the link only.
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
static struct fi_dev *last_owner;	/* guarded by fi_lock */
static int seen;
static struct timer_list fi_timer;

// @expect entry-point fi_tick timer timer_setup
static void fi_tick(struct timer_list *t)
{
	spin_lock(&fi_lock);
	if (cur)
		seen = cur->id + cur->link->up + (cur->link->owner == cur);
	if (last_owner)
		seen += last_owner->val;	/* @racy: may read the value before fi_add writes it */
	spin_unlock(&fi_lock);
	mod_timer(&fi_timer, jiffies + HZ);
}

// @expect entry-point fi_work_fn work work_struct.func
static void fi_work_fn(struct work_struct *w)
{
}

/* Stores the device a link belongs to into the link and last_owner. */
static void fi_link_set_owner(struct fi_link *l, struct fi_dev *d)
{
	l->owner = d;
	spin_lock_bh(&fi_lock);
	last_owner = d;
	spin_unlock_bh(&fi_lock);
}

/* Allocates a device and its link, publishes it in last_owner through
 * fi_link_set_owner, then fills in its value and publishes it in cur. */
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
	d->val = 42;			/* @racy: written after last_owner publishes d */
	spin_lock_bh(&fi_lock);
	cur = d;
	spin_unlock_bh(&fi_lock);
	return d;
}

// @expect race fi_tick fi_init "struct fi_dev.val"
// @expect confirmed fi_tick fi_init "struct fi_dev.val"

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

MODULE_DESCRIPTION("racewatch race corpus: a fresh object published by a helper that also keeps it inside another");
MODULE_LICENSE("GPL");
