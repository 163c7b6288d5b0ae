// SPDX-License-Identifier: GPL-2.0
/*
 * bioread_fixed.c - an ioctl that reads a sector with a bio on its stack.
 *
 * Fixed twin of bioread_race.c (case: an address-taken local initialised
 * before submit_bio hands it on, issue 14 item 2). The ioctl builds a bio
 * on its stack (bio_init, __bio_add_page, bi_end_io, bi_private pointing
 * to its local completion data, the data's tag), submits it and waits for
 * the completion, whose callback reads the bio and the data. Both locals
 * are published (the bio by submit_bio, the data with it), but every
 * write comes before submit_bio: bio_init and __bio_add_page keep no
 * pointer to the bio, and submit_bio (keeps-last) publishes it after its
 * own accesses, so the flow-sensitive rule of src/analyses/private.rs
 * leaves the writes unchecked.
 * Expected: every pair proven race-free.
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

	if (w->tag < 0)
		pr_info("bioread: negative tag\n");
	complete(&w->done);
}

// @expect proven br_end_io br_ioctl

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
	w.tag = (int)arg;
	init_completion(&w.done);
	submit_bio(&bio);
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

MODULE_DESCRIPTION("racewatch race corpus: a stack bio's data written before submit_bio");
MODULE_LICENSE("GPL");
