// SPDX-License-Identifier: GPL-2.0
/*
 * ptpcb_race.c - a software PTP clock.
 *
 * Race test (case: callbacks in a structure the models describe only
 * since issue 15, struct ptp_clock_info, kernel-models/entry-points/
 * net-core-ops.xml). The PTP core calls the clock's gettime64 and
 * settime64 from clock_gettime/clock_settime on the /dev/ptp device
 * (drivers/ptp/ptp_clock.c through the posix-clock layer, which takes its
 * rwsem only for reading), so two calls run at the same time. settime64
 * stores the offset without ptpcb_lock while gettime64 reads it under the
 * lock. The fixed twin (ptpcb_fixed.c) stores it under the lock.
 */
#include <linux/module.h>
#include <linux/ptp_clock_kernel.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

static DEFINE_SPINLOCK(ptpcb_lock);	/* guards ptpcb_offset */
static s64 ptpcb_offset;
static struct ptp_clock *ptpcb_clock;

// @expect entry-point ptpcb_gettime callback ptp_clock_info.gettime64
static int ptpcb_gettime(struct ptp_clock_info *info, struct timespec64 *ts)
{
	s64 ns;

	spin_lock(&ptpcb_lock);
	ns = ptpcb_offset;		/* @racy: settime stores it without the lock */
	spin_unlock(&ptpcb_lock);
	*ts = ns_to_timespec64(ns);
	return 0;
}

// @expect entry-point ptpcb_settime callback ptp_clock_info.settime64
static int ptpcb_settime(struct ptp_clock_info *info, const struct timespec64 *ts)
{
	ptpcb_offset = timespec64_to_ns(ts);	/* @racy: stored without ptpcb_lock */
	return 0;
}

// @expect race ptpcb_gettime ptpcb_settime "global ptpcb_offset"
// @expect confirmed ptpcb_gettime ptpcb_settime "global ptpcb_offset"
// @expect race ptpcb_settime ptpcb_settime "global ptpcb_offset"
// @expect confirmed ptpcb_settime ptpcb_settime "global ptpcb_offset"
// @expect proven ptpcb_gettime ptpcb_gettime

static struct ptp_clock_info ptpcb_info = {
	.owner		= THIS_MODULE,
	.name		= "ptpcb",
	.gettime64	= ptpcb_gettime,
	.settime64	= ptpcb_settime,
};

// @expect init ptpcb_init
// @expect entry-point ptpcb_init module-init module_init
static int __init ptpcb_init(void)
{
	ptpcb_clock = ptp_clock_register(&ptpcb_info, NULL);
	return PTR_ERR_OR_ZERO(ptpcb_clock);
}

// @expect entry-point ptpcb_exit module-exit module_exit
static void __exit ptpcb_exit(void)
{
	ptp_clock_unregister(ptpcb_clock);
}

module_init(ptpcb_init);
module_exit(ptpcb_exit);

MODULE_DESCRIPTION("racewatch race corpus: callbacks of a newly modelled structure");
MODULE_LICENSE("GPL");
