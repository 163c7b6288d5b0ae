// SPDX-License-Identifier: GPL-2.0
/*
 * qloopin_fixed.c - a legacy block major with a table of unit sizes, read
 * by the major's probe and by a rescan work item the probe queues.
 *
 * Fixed twin of qloopin_race.c (case: a quiescing call inside a loop,
 * before the accesses of each iteration). module_exit unregisters the
 * major (unregister_blkdev: no probe runs or starts afterwards, and so
 * nothing queues the rescan again), then, for each unit, cancels the
 * rescan (cancel_work_sync) before it clears the unit's size. Every write
 * of the loop comes after a cancel_work_sync of the same iteration;
 * nothing after the loop writes the table.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#define QLOOPIN_MAJOR 244
#define QLOOPIN_UNITS 2

static int *qloopin_sizes;
static struct work_struct qloopin_rescan;

// @expect entry-point qloopin_rescan_fn work work_struct.func
static void qloopin_rescan_fn(struct work_struct *work)
{
	int *sizes = qloopin_sizes;

	if (sizes)
		pr_info("qloopin: unit 0 has %d sectors\n", sizes[0]);
}

// @expect entry-point qloopin_probe callback __register_blkdev
static void qloopin_probe(dev_t dev)
{
	int *sizes = qloopin_sizes;

	if (sizes && !sizes[MINOR(dev) % QLOOPIN_UNITS])
		schedule_work(&qloopin_rescan);
}

// @expect init qloopin_init
// @expect entry-point qloopin_init module-init module_init
static int __init qloopin_init(void)
{
	int *sizes;
	int err;

	sizes = kcalloc(QLOOPIN_UNITS, sizeof(*sizes), GFP_KERNEL);
	if (!sizes)
		return -ENOMEM;
	qloopin_sizes = sizes;
	INIT_WORK(&qloopin_rescan, qloopin_rescan_fn);
	/* The module fails to load on an error: nothing reads the table. */
	err = __register_blkdev(QLOOPIN_MAJOR, "qloopin", qloopin_probe);
	if (err)
		kfree(sizes);
	return err;
}

// @expect proven qloopin_probe qloopin_exit
// @expect proven qloopin_rescan_fn qloopin_exit

// @expect entry-point qloopin_exit module-exit module_exit
static void __exit qloopin_exit(void)
{
	int i;

	unregister_blkdev(QLOOPIN_MAJOR, "qloopin");
	for (i = 0; i < QLOOPIN_UNITS; i++) {
		cancel_work_sync(&qloopin_rescan);
		qloopin_sizes[i] = 0;
	}
	kfree(qloopin_sizes);
}

module_init(qloopin_init);
module_exit(qloopin_exit);

MODULE_DESCRIPTION("racewatch race corpus: a quiescing call inside a loop before its accesses");
MODULE_LICENSE("GPL");
