// SPDX-License-Identifier: GPL-2.0
/*
 * freshinit_fixed.c - a sampler whose timer reports the newest source;
 * each source keeps a list of pending samples.
 *
 * Fixed twin of freshinit_race.c (case: initialisers that link an
 * object nowhere do not publish it, issue 14 Build 2). fi_add allocates a
 * source, initialises its sample list (INIT_LIST_HEAD stores the list's
 * own address into it, which only a thread that reaches the source can
 * read), sets its id and its value, and only then publishes it in cur
 * under the lock: every write to the new source comes before any thread
 * can reach it. Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

struct fi_source {
	struct list_head samples;
	int id;
	int val;
};

static DEFINE_SPINLOCK(fi_lock);	/* guards cur and seen */
static struct fi_source *cur;
static struct fi_source *first;
static int seen;
static struct timer_list fi_timer;

// @expect entry-point fi_tick timer timer_setup
static void fi_tick(struct timer_list *t)
{
	spin_lock(&fi_lock);
	if (cur && list_empty(&cur->samples))
		seen = cur->val;
	spin_unlock(&fi_lock);
	mod_timer(&fi_timer, jiffies + HZ);
}

// @expect proven fi_tick fi_init

/* Allocates and initialises a source, then publishes it. */
static struct fi_source *fi_add(int id)
{
	struct fi_source *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	INIT_LIST_HEAD(&s->samples);
	s->id = id;
	s->val = 42;
	spin_lock_bh(&fi_lock);
	cur = s;
	spin_unlock_bh(&fi_lock);
	return s;
}

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
	if (cur != first)
		kfree(cur);
	kfree(first);
}

module_init(fi_init);
module_exit(fi_exit);

MODULE_DESCRIPTION("racewatch race corpus: a fresh allocation initialised before its publication");
MODULE_LICENSE("GPL");
