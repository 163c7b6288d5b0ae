// SPDX-License-Identifier: GPL-2.0
/*
 * blkprobe_fixed.c - a legacy block major whose probe reports the size
 * table module_init allocated.
 *
 * Fixed twin of blkprobe_race.c (case: unregister_blkdev and the probe
 * __register_blkdev registers). blk_probe_dev (block/genhd.c) calls the
 * major's probe with major_names_lock held, and unregister_blkdev takes
 * major_names_lock and unlinks the major, so once unregister_blkdev has
 * returned no probe runs or can start (the probe's address goes only to
 * __register_blkdev, so nothing else can make it live again). module_exit
 * unregisters the major first, then frees and clears the size table.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/slab.h>

#define BLKPROBE_MAJOR 240

static int *blkprobe_sizes;

// @expect entry-point blkprobe_probe callback __register_blkdev
static void blkprobe_probe(dev_t dev)
{
	int *sizes = blkprobe_sizes;

	if (sizes)
		pr_info("blkprobe: minor %u size %d\n", MINOR(dev), sizes[MINOR(dev) & 3]);
}

// @expect init blkprobe_init
// @expect entry-point blkprobe_init module-init module_init
static int __init blkprobe_init(void)
{
	int *sizes;
	int err;

	sizes = kcalloc(4, sizeof(*sizes), GFP_KERNEL);
	if (!sizes)
		return -ENOMEM;
	blkprobe_sizes = sizes;
	/* The module fails to load on an error: nothing reads the table. */
	err = __register_blkdev(BLKPROBE_MAJOR, "blkprobe", blkprobe_probe);
	if (err)
		kfree(sizes);
	return err;
}

// @expect proven blkprobe_probe blkprobe_exit

// @expect entry-point blkprobe_exit module-exit module_exit
static void __exit blkprobe_exit(void)
{
	unregister_blkdev(BLKPROBE_MAJOR, "blkprobe");
	kfree(blkprobe_sizes);
	blkprobe_sizes = NULL;
}

module_init(blkprobe_init);
module_exit(blkprobe_exit);

MODULE_DESCRIPTION("racewatch race corpus: a block major's probe against module_exit after unregister_blkdev");
MODULE_LICENSE("GPL");
