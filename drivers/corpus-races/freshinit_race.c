// SPDX-License-Identifier: GPL-2.0
/*
 * freshinit_race.c - a sampler whose timer reports the newest source;
 * each source keeps a list of pending samples.
 *
 * Racy twin of freshinit_fixed.c (case: initialisers that link an object
 * nowhere do not publish it, issue 14 Build 2). fi_add allocates a
 * source, initialises its sample list (INIT_LIST_HEAD stores the list's
 * own address into it, which only a thread that reaches the source can
 * read) and sets its id, publishes it in cur under the lock, and only then
 * sets its value: the timer may read the value through cur before it is
 * written. Expected: a race between the timer and module_init on the
 * value, confirmed; the id and the list, written before the publication,
 * are private.
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
		seen = cur->val;	/* @racy: may read the value before fi_add writes it */
	spin_unlock(&fi_lock);
	mod_timer(&fi_timer, jiffies + HZ);
}

// @expect race fi_tick fi_init "struct fi_source.val"
// @expect confirmed fi_tick fi_init "struct fi_source.val"

/* Allocates and initialises a source, publishes it, then sets its value. */
static struct fi_source *fi_add(int id)
{
	struct fi_source *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	INIT_LIST_HEAD(&s->samples);
	s->id = id;
	spin_lock_bh(&fi_lock);
	cur = s;
	spin_unlock_bh(&fi_lock);
	s->val = 42;			/* @racy: written after publication */
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

MODULE_DESCRIPTION("racewatch race corpus: a fresh allocation initialised after its publication");
MODULE_LICENSE("GPL");
