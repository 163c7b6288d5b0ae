// SPDX-License-Identifier: GPL-2.0
/*
 * qloop_fixed.c - a legacy block major with a table of unit sizes, read
 * by the major's probe and by a rescan work item the probe queues.
 *
 * Fixed twin of qloop_race.c (case: accesses in and after a loop that
 * follows the quiescing calls). module_exit unregisters the major
 * (unregister_blkdev: no probe runs or starts afterwards, and so nothing
 * queues the rescan again), then cancels the rescan (cancel_work_sync),
 * then clears each unit's size in a loop and frees the table. Every
 * access of module_exit comes after both quiescing calls, and nothing in
 * the loop makes either callback live again.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#define QLOOP_MAJOR 241
#define QLOOP_UNITS 2

static int *qloop_sizes;
static struct work_struct qloop_rescan;

// @expect entry-point qloop_rescan_fn work work_struct.func
static void qloop_rescan_fn(struct work_struct *work)
{
	int *sizes = qloop_sizes;

	if (sizes)
		pr_info("qloop: unit 0 has %d sectors\n", sizes[0]);
}

// @expect entry-point qloop_probe callback __register_blkdev
static void qloop_probe(dev_t dev)
{
	int *sizes = qloop_sizes;

	if (sizes && !sizes[MINOR(dev) % QLOOP_UNITS])
		schedule_work(&qloop_rescan);
}

// @expect init qloop_init
// @expect entry-point qloop_init module-init module_init
static int __init qloop_init(void)
{
	int *sizes;
	int err;

	sizes = kcalloc(QLOOP_UNITS, sizeof(*sizes), GFP_KERNEL);
	if (!sizes)
		return -ENOMEM;
	qloop_sizes = sizes;
	INIT_WORK(&qloop_rescan, qloop_rescan_fn);
	/* The module fails to load on an error: nothing reads the table. */
	err = __register_blkdev(QLOOP_MAJOR, "qloop", qloop_probe);
	if (err)
		kfree(sizes);
	return err;
}

// @expect proven qloop_probe qloop_exit
// @expect proven qloop_rescan_fn qloop_exit

// @expect entry-point qloop_exit module-exit module_exit
static void __exit qloop_exit(void)
{
	int i;

	unregister_blkdev(QLOOP_MAJOR, "qloop");
	cancel_work_sync(&qloop_rescan);
	for (i = 0; i < QLOOP_UNITS; i++)
		qloop_sizes[i] = 0;
	kfree(qloop_sizes);
	qloop_sizes = NULL;
}

module_init(qloop_init);
module_exit(qloop_exit);

MODULE_DESCRIPTION("racewatch race corpus: accesses in and after a loop after the quiescing calls");
MODULE_LICENSE("GPL");
