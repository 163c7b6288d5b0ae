// SPDX-License-Identifier: GPL-2.0
/*
 * freshalloc_race.c - a sampler whose timer reports the last sample.
 *
 * Race test (case: a fresh allocation initialised after publication).
 * module_init starts the timer, allocates a sample, publishes it in cur
 * under the lock and only then fills it in, without the lock: the timer
 * may already read the sample through cur. The fixed twin
 * (freshalloc_fixed.c) fills in a sample that it never publishes; an
 * allocation nobody else can reach is private and proven.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

struct fa_sample {
	int val;
};

static DEFINE_SPINLOCK(fa_lock);	/* guards cur and seen */
static struct fa_sample *cur;
static int seen;
static struct timer_list fa_timer;

// @expect entry-point fa_tick timer timer_setup
static void fa_tick(struct timer_list *t)
{
	spin_lock(&fa_lock);
	if (cur)
		seen = cur->val;	/* @racy: may read the sample before init fills it in */
	spin_unlock(&fa_lock);
	mod_timer(&fa_timer, jiffies + HZ);
}

// @expect race fa_tick fa_init "struct fa_sample.val"
// @expect confirmed fa_tick fa_init "struct fa_sample.val"

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
	spin_lock_bh(&fa_lock);
	cur = s;
	spin_unlock_bh(&fa_lock);
	s->val = 42;			/* @racy: written after publication */
	return 0;
}

// @expect entry-point fa_exit module-exit module_exit
static void __exit fa_exit(void)
{
	timer_shutdown_sync(&fa_timer);
	kfree(cur);
}

module_init(fa_init);
module_exit(fa_exit);

MODULE_DESCRIPTION("racewatch race corpus: a fresh allocation initialised after publication");
MODULE_LICENSE("GPL");
