// SPDX-License-Identifier: GPL-2.0
/*
 * storedback_race.c - a sampler whose timer reports the newest source,
 * handed over through a holder object.
 *
 * Race test (case: a fresh pointer stored into another private object,
 * read back and then published, issue 14). sb_add allocates a holder and
 * a source, stores the source into the holder, reads it back from there
 * and publishes what it read in cur under the lock; then it writes the
 * source's value through its own pointer, while the timer may read it
 * through cur. The source escapes only through the value loaded from the
 * holder: the escape analysis must follow what a load from a private
 * object may give back (src/analyses/private.rs, `contents`), or it calls
 * the late write private and proves the pair. The fixed twin
 * (storedback_fixed.c) writes the value before storing the source.
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
		seen = cur->val;	/* @racy: may read the value before sb_add writes it */
	spin_unlock(&sb_lock);
	mod_timer(&sb_timer, jiffies + HZ);
}

// @expect race sb_tick sb_init "struct sb_source.val"
// @expect confirmed sb_tick sb_init "struct sb_source.val"

/* Allocates a source, publishes it through a holder, then fills in its value. */
static struct sb_source *sb_add(int id)
{
	struct sb_source *s, *x;
	struct sb_holder *h;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->id = id;
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
	s->val = 42;			/* @racy: written after publication */
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

MODULE_DESCRIPTION("racewatch race corpus: a fresh pointer published through a value read back from a private holder");
MODULE_LICENSE("GPL");
