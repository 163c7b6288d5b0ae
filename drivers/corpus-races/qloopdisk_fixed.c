// SPDX-License-Identifier: GPL-2.0
/*
 * qloopdisk_fixed.c - a legacy block major whose probe reports the size
 * of a unit, from a table module_init allocated with the units' disks.
 *
 * Fixed twin of qloopdisk_race.c (case: a call without model in module
 * exit after the quiescing call). blk_probe_dev (block/genhd.c) calls the
 * probe with major_names_lock held, and unregister_blkdev takes it and
 * unlinks the major. module_exit unregisters the major first, then, in a
 * loop over the units, deletes each disk (del_gendisk, a call the models
 * do not describe) and clears the unit's size. A call without model may
 * make live any callback whose address is not sealed, and module_init is
 * one of them, whose body registers the probe; but module_init has
 * returned before module_exit runs and does not run again (docs/soundness.md,
 * the standing assumption of the quiesce analysis), so the probe stays
 * quiesced through the loop and after it.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/slab.h>

#define QLOOPDISK_MAJOR 242
#define QLOOPDISK_UNITS 2

static int *qloopdisk_sizes;
static struct gendisk *qloopdisk_disks[QLOOPDISK_UNITS];

// @expect entry-point qloopdisk_probe callback __register_blkdev
static void qloopdisk_probe(dev_t dev)
{
	unsigned int unit = MINOR(dev) % QLOOPDISK_UNITS;
	int *sizes = qloopdisk_sizes;

	if (sizes)
		pr_info("qloopdisk: unit %u has %d sectors\n", unit, sizes[unit]);
}

// @expect init qloopdisk_init
// @expect entry-point qloopdisk_init module-init module_init
static int __init qloopdisk_init(void)
{
	int *sizes;
	int err;

	sizes = kcalloc(QLOOPDISK_UNITS, sizeof(*sizes), GFP_KERNEL);
	if (!sizes)
		return -ENOMEM;
	qloopdisk_sizes = sizes;
	qloopdisk_disks[0] = blk_alloc_disk(NULL, NUMA_NO_NODE);
	/* The module fails to load on an error: nothing reads the table. */
	err = __register_blkdev(QLOOPDISK_MAJOR, "qloopdisk", qloopdisk_probe);
	if (err)
		kfree(sizes);
	return err;
}

// @expect proven qloopdisk_probe qloopdisk_exit

// @expect entry-point qloopdisk_exit module-exit module_exit
static void __exit qloopdisk_exit(void)
{
	int i;

	unregister_blkdev(QLOOPDISK_MAJOR, "qloopdisk");
	for (i = 0; i < QLOOPDISK_UNITS; i++) {
		if (!IS_ERR_OR_NULL(qloopdisk_disks[i]))
			del_gendisk(qloopdisk_disks[i]);
		qloopdisk_sizes[i] = 0;
	}
	kfree(qloopdisk_sizes);
	qloopdisk_sizes = NULL;
}

module_init(qloopdisk_init);
module_exit(qloopdisk_exit);

MODULE_DESCRIPTION("racewatch race corpus: a call without model in a loop after unregister_blkdev");
MODULE_LICENSE("GPL");
