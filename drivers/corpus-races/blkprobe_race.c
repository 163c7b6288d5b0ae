// SPDX-License-Identifier: GPL-2.0
/*
 * blkprobe_race.c - a legacy block major whose probe reports the size
 * table module_init allocated.
 *
 * Race test (case: unregister_blkdev and the probe __register_blkdev
 * registers). blk_probe_dev (block/genhd.c) calls the major's probe with
 * major_names_lock held, and unregister_blkdev takes major_names_lock and
 * unlinks the major, so once unregister_blkdev has returned no probe runs
 * or can start. Here module_exit frees and clears the size table before
 * unregistering the major, while a probe (an open of a device number of
 * the major without a disk) may be reading it: a race. The fixed twin,
 * blkprobe_fixed.c, unregisters first and is proven.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/slab.h>

#define BLKPROBE_MAJOR 240

static int *blkprobe_sizes;

// @expect entry-point blkprobe_probe callback __register_blkdev
static void blkprobe_probe(dev_t dev)
{
	int *sizes = blkprobe_sizes; // @racy

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

// @expect race blkprobe_probe blkprobe_exit "global blkprobe_sizes"
// @expect confirmed blkprobe_probe blkprobe_exit "global blkprobe_sizes"

// @expect entry-point blkprobe_exit module-exit module_exit
static void __exit blkprobe_exit(void)
{
	kfree(blkprobe_sizes);
	blkprobe_sizes = NULL; // @racy
	unregister_blkdev(BLKPROBE_MAJOR, "blkprobe");
}

module_init(blkprobe_init);
module_exit(blkprobe_exit);

MODULE_DESCRIPTION("racewatch race corpus: a block major's probe against module_exit before unregister_blkdev");
MODULE_LICENSE("GPL");
