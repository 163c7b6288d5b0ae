// SPDX-License-Identifier: GPL-2.0
/*
 * bioread_race.c - an ioctl that reads a sector with a bio on its stack.
 *
 * Race test (case: an address-taken local handed to submit_bio, then
 * written, issue 14 item 2). The ioctl builds a bio on its stack
 * (bio_init, bi_end_io, bi_private pointing to its local completion data),
 * submits it and waits for the completion. It sets the data's tag only
 * after submit_bio: the bio's completion callback may already read it.
 * The writes before submit_bio are private (bio_init and __bio_add_page
 * keep no pointer to the bio; submit_bio publishes it after its own
 * accesses), the tag's write after it is a race. The ioctls serialise on
 * br_mutex; the callback takes no lock. The fixed twin (bioread_fixed.c)
 * sets the tag before submitting.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>

struct br_wait {
	int tag;
	struct completion done;
};

static DEFINE_MUTEX(br_mutex);	/* serialises the ioctls, guards br_reads */
static unsigned int br_reads;
static struct block_device *br_bdev;
static struct page *br_page;	/* the buffer page, set up elsewhere */

// @expect entry-point br_end_io callback bio.bi_end_io
static void br_end_io(struct bio *bio)
{
	struct br_wait *w = bio->bi_private;

	if (w->tag < 0)	/* @racy: may read the tag before the ioctl writes it */
		pr_info("bioread: negative tag\n");
	complete(&w->done);
}

// @expect race br_end_io br_ioctl "struct br_wait.tag"
// @expect not-found br_end_io br_ioctl "struct br_wait.tag"
/*
 * The race is real, but the precise phase does not find it (a known gap,
 * docs/soundness.md, the precise phase's entry-point arguments): it never
 * lets a callback's argument point into an object the other thread
 * created, such as this ioctl's stack bio handed to br_end_io by the block
 * layer. Upgrade the line to confirmed once that is fixed.
 */

// @expect entry-point br_ioctl callback file_operations.unlocked_ioctl
static long br_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct bio bio;
	struct bio_vec vec;
	struct br_wait w;

	mutex_lock(&br_mutex);
	br_reads++;
	bio_init(&bio, br_bdev, &vec, 1, REQ_OP_READ);
	__bio_add_page(&bio, br_page, PAGE_SIZE, 0);
	bio.bi_iter.bi_sector = 0;
	bio.bi_end_io = br_end_io;
	bio.bi_private = &w;
	init_completion(&w.done);
	submit_bio(&bio);
	w.tag = (int)arg;	/* @racy: written after submit_bio */
	wait_for_completion(&w.done);
	mutex_unlock(&br_mutex);
	return 0;
}

static const struct file_operations br_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= br_ioctl,
};

static struct miscdevice br_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "bioread",
	.fops	= &br_fops,
};

// @expect init br_init
// @expect entry-point br_init module-init module_init
static int __init br_init(void)
{
	return misc_register(&br_misc);
}

// @expect entry-point br_exit module-exit module_exit
static void __exit br_exit(void)
{
	misc_deregister(&br_misc);
}

module_init(br_init);
module_exit(br_exit);

MODULE_DESCRIPTION("racewatch race corpus: a stack bio's data written after submit_bio");
MODULE_LICENSE("GPL");
