// SPDX-License-Identifier: GPL-2.0
/*
 * freshpub_fixed.c - a sampler of two sources whose timer reports the
 * newest one.
 *
 * Fixed twin of freshpub_race.c (case: a fresh allocation initialised
 * before its publication, issue 14). module_init adds a source, starts
 * the timer, then adds a second one with the same helper: fp_add
 * allocates a source, fills it in without a lock and only then publishes
 * it in cur under the lock. The timer reads the newest source's fields
 * through cur; while the second source is filled in, the timer can only
 * reach the first one. The object is published (so the flow-insensitive
 * rule never calls it private), but every write comes before the store
 * that publishes it on every path from the allocation: the flow-sensitive
 * rule of src/analyses/private.rs leaves them unchecked.
 * Expected: every pair proven race-free.
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
		seen = cur->val + cur->id;
	spin_unlock(&fp_lock);
	mod_timer(&fp_timer, jiffies + HZ);
}

// @expect proven fp_init fp_tick

/* Allocates and fills in a source, then publishes it. */
static struct fp_source *fp_add(int id)
{
	struct fp_source *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->id = id;
	s->val = 42;
	spin_lock_bh(&fp_lock);
	cur = s;
	spin_unlock_bh(&fp_lock);
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

MODULE_DESCRIPTION("racewatch race corpus: a fresh allocation initialised before its publication");
MODULE_LICENSE("GPL");
