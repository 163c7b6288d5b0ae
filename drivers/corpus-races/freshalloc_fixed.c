// SPDX-License-Identifier: GPL-2.0
/*
 * freshalloc_fixed.c - a sampler whose timer reports the last sample.
 *
 * Fixed twin of freshalloc_race.c (case: a fresh allocation). module_init
 * starts the timer, then fills in a sample it has just allocated, without
 * a lock: no pointer to it is stored anywhere another thread can read, so
 * the allocation is private to init (kzalloc, an allocator model). The
 * value reaches the timer through the global sample, under the lock.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

struct fa_sample {
	int val;
};

static DEFINE_SPINLOCK(fa_lock);	/* guards last and seen */
static struct fa_sample last;
static int seen;
static struct timer_list fa_timer;

// @expect entry-point fa_tick timer timer_setup
static void fa_tick(struct timer_list *t)
{
	spin_lock(&fa_lock);
	seen = last.val;
	spin_unlock(&fa_lock);
	mod_timer(&fa_timer, jiffies + HZ);
}

// @expect proven fa_init fa_tick

// @expect init fa_init
// @expect entry-point fa_init module-init module_init
static int __init fa_init(void)
{
	struct fa_sample *s;

	timer_setup(&fa_timer, fa_tick, 0);
	mod_timer(&fa_timer, jiffies + HZ);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->val = 42;
	spin_lock_bh(&fa_lock);
	last.val = s->val;
	spin_unlock_bh(&fa_lock);
	kfree(s);
	return 0;
}

// @expect entry-point fa_exit module-exit module_exit
static void __exit fa_exit(void)
{
	timer_shutdown_sync(&fa_timer);
}

module_init(fa_init);
module_exit(fa_exit);

MODULE_DESCRIPTION("racewatch race corpus: a fresh allocation initialised before it is shared");
MODULE_LICENSE("GPL");
