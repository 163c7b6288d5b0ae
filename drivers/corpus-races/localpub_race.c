// SPDX-License-Identifier: GPL-2.0
/*
 * localpub_race.c - a request on the submitter's stack that a timer serves.
 *
 * Race test (case: an address-taken local published, then initialised,
 * issue 14). module_init starts the timer, then submits a request that
 * lives on its stack: lp_submit fills in the request's data (another
 * local, linked from the request before the request is published), then
 * publishes the request in pending under the lock and waits until the
 * timer has served it. It sets the request's id only after publishing
 * it: the timer may read the id through pending before it is written.
 * The writes before the publication are private (not reported), the
 * id's write after it is a race. The fixed twin (localpub_fixed.c) sets
 * the id before publishing.
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
		seen = pending->id + pending->data->drive;	/* @racy: may read the id before lp_submit writes it */
		complete(&pending->done);
		pending = NULL;
	}
	spin_unlock(&lp_lock);
	mod_timer(&lp_timer, jiffies + HZ);
}

// @expect race lp_tick lp_init "struct lp_req.id"
// @expect confirmed lp_tick lp_init "struct lp_req.id"

/* Publishes a request on the stack, then sets its id, then waits. */
static void lp_submit(int id)
{
	struct lp_req req;
	struct lp_data data;

	data.drive = id;
	req.data = &data;
	init_completion(&req.done);
	spin_lock_bh(&lp_lock);
	pending = &req;
	spin_unlock_bh(&lp_lock);
	req.id = id;			/* @racy: written after publication */
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

MODULE_DESCRIPTION("racewatch race corpus: a local request initialised after its publication");
MODULE_LICENSE("GPL");
