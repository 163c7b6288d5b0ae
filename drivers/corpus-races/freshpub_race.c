// SPDX-License-Identifier: GPL-2.0
/*
 * freshpub_race.c - a sampler of two sources whose timer reports the
 * newest one.
 *
 * Race test (case: a fresh allocation published, then initialised, issue
 * 14). module_init adds a source, starts the timer, then adds a second
 * one with the same helper: fp_add allocates a source and sets its id
 * before publishing it in cur under the lock, but fills in its value only
 * after: the timer may read the second source's value through cur before
 * it is written. The id's write comes before the publication on every
 * path, so it is private (not reported); the value's write after it is a
 * race. The fixed twin (freshpub_fixed.c) writes both before publishing.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

struct fp_source {
	int id;
	int val;
};

static DEFINE_SPINLOCK(fp_lock);	/* guards cur and seen */
static struct fp_source *cur;
static struct fp_source *first;
static int seen;
static struct timer_list fp_timer;

// @expect entry-point fp_tick timer timer_setup
static void fp_tick(struct timer_list *t)
{
	spin_lock(&fp_lock);
	if (cur)
		seen = cur->val;	/* @racy: may read the value before fp_add writes it */
	spin_unlock(&fp_lock);
	mod_timer(&fp_timer, jiffies + HZ);
}

// @expect race fp_tick fp_init "struct fp_source.val"
// @expect confirmed fp_tick fp_init "struct fp_source.val"

/* Allocates a source, publishes it, then fills in its value. */
static struct fp_source *fp_add(int id)
{
	struct fp_source *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->id = id;
	spin_lock_bh(&fp_lock);
	cur = s;
	spin_unlock_bh(&fp_lock);
	s->val = 42;			/* @racy: written after publication */
	return s;
}

// @expect init fp_init
// @expect entry-point fp_init module-init module_init
static int __init fp_init(void)
{
	first = fp_add(0);
	if (!first)
		return -ENOMEM;
	timer_setup(&fp_timer, fp_tick, 0);
	mod_timer(&fp_timer, jiffies + HZ);
	if (!fp_add(1))
		return -ENOMEM;
	return 0;
}

// @expect entry-point fp_exit module-exit module_exit
static void __exit fp_exit(void)
{
	timer_shutdown_sync(&fp_timer);
	if (cur != first)
		kfree(cur);
	kfree(first);
}

module_init(fp_init);
module_exit(fp_exit);

MODULE_DESCRIPTION("racewatch race corpus: a fresh allocation initialised after its publication");
MODULE_LICENSE("GPL");
