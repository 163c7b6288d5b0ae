// SPDX-License-Identifier: GPL-2.0
/*
 * storedback_fixed.c - a sampler whose timer reports the newest source,
 * handed over through a holder object.
 *
 * Fixed twin of storedback_race.c (case: a fresh pointer stored into
 * another private object, read back and then published, issue 14).
 * sb_add fills the source in, then stores it into a holder, reads it
 * back and publishes it in cur under the lock. Every write to the source
 * comes before the first store of its pointer on every path from the
 * allocation, so the flow-sensitive rule leaves them unchecked.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

struct sb_source {
	int id;
	int val;
};

struct sb_holder {
	struct sb_source *p;
};

static DEFINE_SPINLOCK(sb_lock);	/* guards cur and seen */
static struct sb_source *cur;
static struct sb_source *first;
static int seen;
static struct timer_list sb_timer;

// @expect entry-point sb_tick timer timer_setup
static void sb_tick(struct timer_list *t)
{
	spin_lock(&sb_lock);
	if (cur)
		seen = cur->val + cur->id;
	spin_unlock(&sb_lock);
	mod_timer(&sb_timer, jiffies + HZ);
}

// @expect proven sb_init sb_tick

/* Allocates and fills in a source, then publishes it through a holder. */
static struct sb_source *sb_add(int id)
{
	struct sb_source *s, *x;
	struct sb_holder *h;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->id = id;
	s->val = 42;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		kfree(s);
		return NULL;
	}
	h->p = s;
	x = h->p;
	spin_lock_bh(&sb_lock);
	cur = x;
	spin_unlock_bh(&sb_lock);
	return x;
}

// @expect init sb_init
// @expect entry-point sb_init module-init module_init
static int __init sb_init(void)
{
	first = sb_add(0);
	if (!first)
		return -ENOMEM;
	timer_setup(&sb_timer, sb_tick, 0);
	mod_timer(&sb_timer, jiffies + HZ);
	if (!sb_add(1))
		return -ENOMEM;
	return 0;
}

// @expect entry-point sb_exit module-exit module_exit
static void __exit sb_exit(void)
{
	timer_shutdown_sync(&sb_timer);
	if (cur != first)
		kfree(cur);
	kfree(first);
}

module_init(sb_init);
module_exit(sb_exit);

MODULE_DESCRIPTION("racewatch race corpus: a fresh pointer filled in, then published through a private holder");
MODULE_LICENSE("GPL");
