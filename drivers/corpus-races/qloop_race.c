// SPDX-License-Identifier: GPL-2.0
/*
 * qloop_race.c - a legacy block major with a table of unit sizes, read
 * by the major's probe and by a rescan work item the probe queues.
 *
 * Race test (case: a loop after the quiescing calls that makes a quiesced
 * callback live again). module_exit unregisters the major
 * (unregister_blkdev: no probe runs or starts afterwards) and cancels the
 * rescan (cancel_work_sync), but then, resetting each unit in a loop,
 * queues the rescan again before clearing the unit's size: the rescan may
 * run while the loop clears the sizes and while the table is freed and
 * cleared after the loop. The probe stays quiesced (nothing in the
 * loop makes it live again). The fixed twin, qloop_fixed.c, does not
 * queue the rescan in the loop and is proven.
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
	int *sizes = qloop_sizes; // @racy

	if (sizes)
		pr_info("qloop: unit 0 has %d sectors\n", sizes[0]); // @racy
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
// @expect race qloop_rescan_fn qloop_exit "global qloop_sizes"
// @expect race qloop_rescan_fn qloop_exit "int (pointee)"
// @expect confirmed qloop_rescan_fn qloop_exit "global qloop_sizes"
// @expect confirmed qloop_rescan_fn qloop_exit "int (pointee)"

// @expect entry-point qloop_exit module-exit module_exit
static void __exit qloop_exit(void)
{
	int i;

	unregister_blkdev(QLOOP_MAJOR, "qloop");
	cancel_work_sync(&qloop_rescan);
	for (i = 0; i < QLOOP_UNITS; i++) {
		schedule_work(&qloop_rescan);
		qloop_sizes[i] = 0; // @racy
	}
	kfree(qloop_sizes);
	qloop_sizes = NULL; // @racy
}

module_init(qloop_init);
module_exit(qloop_exit);

MODULE_DESCRIPTION("racewatch race corpus: a loop after the quiescing calls that queues the cancelled work again");
MODULE_LICENSE("GPL");
