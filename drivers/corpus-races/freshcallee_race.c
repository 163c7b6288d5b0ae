// SPDX-License-Identifier: GPL-2.0
/*
 * freshcallee_race.c - a sampler of two sources whose timer reports and
 * refreshes the newest one.
 *
 * Race test (case: a fresh allocation published, then filled in by a
 * helper, issue 14). module_init adds a source, starts the timer, then
 * adds a second one: fc_add allocates a source and publishes it in cur
 * under the lock, and only then has fc_fill fill it in without the lock:
 * the timer may read the second source through cur while fc_fill writes
 * it. The same helper called before the publication would write a private
 * object (freshcallee_fixed.c); after it, its writes are checked.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

struct fc_source {
	int id;
	int val;
};

static DEFINE_SPINLOCK(fc_lock);	/* guards cur, seen and the published sources */
static struct fc_source *cur;
static struct fc_source *first;
static int seen;
static struct timer_list fc_timer;

/* Fills in a source: the caller holds fc_lock or owns the source alone. */
static void fc_fill(struct fc_source *s, int id, int val)
{
	s->id = id;		/* @racy: written after fc_add published s */
	s->val = val;		/* @racy: written after fc_add published s */
}

// @expect entry-point fc_tick timer timer_setup
static void fc_tick(struct timer_list *t)
{
	spin_lock(&fc_lock);
	if (cur) {
		seen = cur->val + cur->id;	/* @racy: may read the source while fc_add's fc_fill writes it */
		fc_fill(cur, cur->id, seen);	/* @racy: reads the id fc_add's fc_fill may be writing */
	}
	spin_unlock(&fc_lock);
	mod_timer(&fc_timer, jiffies + HZ);
}

// @expect race fc_tick fc_init "struct fc_source.val"
// @expect confirmed fc_tick fc_init "struct fc_source.val"
// @expect race fc_tick fc_init "struct fc_source.id"
// @expect confirmed fc_tick fc_init "struct fc_source.id"

/* Allocates a source, publishes it, then fills it in. */
static struct fc_source *fc_add(int id)
{
	struct fc_source *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	spin_lock_bh(&fc_lock);
	cur = s;
	spin_unlock_bh(&fc_lock);
	fc_fill(s, id, 42);		/* @racy: fills in a published source without the lock */
	return s;
}

// @expect init fc_init
// @expect entry-point fc_init module-init module_init
static int __init fc_init(void)
{
	first = fc_add(0);
	if (!first)
		return -ENOMEM;
	timer_setup(&fc_timer, fc_tick, 0);
	mod_timer(&fc_timer, jiffies + HZ);
	if (!fc_add(1))
		return -ENOMEM;
	return 0;
}

// @expect entry-point fc_exit module-exit module_exit
static void __exit fc_exit(void)
{
	timer_shutdown_sync(&fc_timer);
	if (cur != first)
		kfree(cur);
	kfree(first);
}

module_init(fc_init);
module_exit(fc_exit);

MODULE_DESCRIPTION("racewatch race corpus: a fresh allocation filled in by a helper after its publication");
MODULE_LICENSE("GPL");
