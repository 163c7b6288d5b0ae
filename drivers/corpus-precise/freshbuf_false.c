// SPDX-License-Identifier: GPL-2.0
/*
 * freshbuf_false.c - ISA LED sign controller, /dev/rwsign.
 *
 * False-alarm test (case: separate objects that only a model without
 * memory separation lets alias). Every write() copies the user's message
 * into a buffer it allocates for itself, scrambles it in place, and
 * builds the frame it sends to the card in a local structure that a
 * helper fills through a pointer:
 *
 *	copy = kmalloc(RWFB_LEN, GFP_KERNEL);
 *	...
 *	copy[0] ^= RWFB_KEY;
 *	rwfb_fill(&frame, copy);
 *
 * Two concurrent write()s each have their own buffer (kmalloc returns
 * memory no live object uses, mm/slub.c) and their own frame (each call
 * runs on its own kernel stack). The lockset phase gives both threads'
 * buffers, and both threads' frames, one region each and may let them
 * share an address, so it reports write() racing with write() on the
 * scrambled byte and on the frame's fields. Those alarms are false; the
 * precise phase, which keeps distinct objects apart, must not find them.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#define RWFB_PORT	0x2c0
#define RWFB_LEN	16
#define RWFB_KEY	0x5a

struct rwfb_frame {
	u8 head;
	u8 sum;
};

static noinline void rwfb_fill(struct rwfb_frame *frame, const u8 *msg)
{
	frame->head = msg[0];
	frame->sum = msg[0] ^ msg[1];
}

// @expect entry-point rwfb_write callback file_operations.write
static ssize_t rwfb_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct rwfb_frame frame;
	u8 *copy;

	if (count < RWFB_LEN)
		return -EINVAL;
	copy = kmalloc(RWFB_LEN, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	if (copy_from_user(copy, buf, RWFB_LEN)) {
		kfree(copy);
		return -EFAULT;
	}
	copy[0] ^= RWFB_KEY;
	rwfb_fill(&frame, copy);
	outb(frame.head, RWFB_PORT);
	outb(frame.sum, RWFB_PORT + 1);
	kfree(copy);
	return RWFB_LEN;
}

// false alarms: each call writes its own buffer and its own frame.
// @expect race rwfb_write rwfb_write "unsigned char (pointee)"
// @expect race rwfb_write rwfb_write "struct rwfb_frame.head"
// @expect race rwfb_write rwfb_write "struct rwfb_frame.sum"
// @expect not-found rwfb_write rwfb_write "unsigned char (pointee)"
// @expect not-found rwfb_write rwfb_write "struct rwfb_frame.head"
// @expect not-found rwfb_write rwfb_write "struct rwfb_frame.sum"

static const struct file_operations rwfb_fops = {
	.owner	= THIS_MODULE,
	.write	= rwfb_write,
};

static struct miscdevice rwfb_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwsign",
	.fops	= &rwfb_fops,
};

// @expect init rwfb_init
// @expect entry-point rwfb_init module-init module_init
static int __init rwfb_init(void)
{
	return misc_register(&rwfb_misc);
}

// @expect entry-point rwfb_exit module-exit module_exit
static void __exit rwfb_exit(void)
{
	misc_deregister(&rwfb_misc);
}

module_init(rwfb_init);
module_exit(rwfb_exit);

MODULE_DESCRIPTION("racewatch precise corpus: per-call buffers and frames, a lockset false alarm");
MODULE_LICENSE("GPL");
