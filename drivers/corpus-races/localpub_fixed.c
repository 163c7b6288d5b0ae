// SPDX-License-Identifier: GPL-2.0
/*
 * localpub_fixed.c - a request on the submitter's stack that a timer serves.
 *
 * Fixed twin of localpub_race.c (case: an address-taken local initialised
 * before its publication, issue 14). module_init starts the timer, then
 * submits a request that lives on its stack: lp_submit fills in the
 * request and its data (another local, linked from the request) without
 * a lock, then publishes the request in pending under the lock and waits
 * until the timer has served it. Both locals are published (the request
 * by the store to pending, the data with it), so the flow-insensitive
 * rule never calls them private, but every write comes before the store
 * that publishes them: the flow-sensitive rule of src/analyses/private.rs
 * leaves them unchecked.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

struct lp_data {
	int drive;
};

struct lp_req {
	int id;
	struct lp_data *data;
	struct completion done;
};

static DEFINE_SPINLOCK(lp_lock);	/* guards pending and seen */
static struct lp_req *pending;
static int seen;
static struct timer_list lp_timer;

// @expect entry-point lp_tick timer timer_setup
static void lp_tick(struct timer_list *t)
{
	spin_lock(&lp_lock);
	if (pending) {
		seen = pending->id + pending->data->drive;
		complete(&pending->done);
		pending = NULL;
	}
	spin_unlock(&lp_lock);
	mod_timer(&lp_timer, jiffies + HZ);
}

// @expect proven lp_init lp_tick

/* Fills in a request on the stack, publishes it, then waits. */
static void lp_submit(int id)
{
	struct lp_req req;
	struct lp_data data;

	data.drive = id;
	req.id = id;
	req.data = &data;
	init_completion(&req.done);
	spin_lock_bh(&lp_lock);
	pending = &req;
	spin_unlock_bh(&lp_lock);
	wait_for_completion(&req.done);
}

// @expect init lp_init
// @expect entry-point lp_init module-init module_init
static int __init lp_init(void)
{
	timer_setup(&lp_timer, lp_tick, 0);
	mod_timer(&lp_timer, jiffies + HZ);
	lp_submit(1);
	return 0;
}

// @expect entry-point lp_exit module-exit module_exit
static void __exit lp_exit(void)
{
	timer_shutdown_sync(&lp_timer);
}

module_init(lp_init);
module_exit(lp_exit);

MODULE_DESCRIPTION("racewatch race corpus: a local request initialised before its publication");
MODULE_LICENSE("GPL");
