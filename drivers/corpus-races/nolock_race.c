// SPDX-License-Identifier: GPL-2.0
/*
 * nolock_race.c - a one-word mailbox exposed as /dev/rwmbox.
 *
 * Race test (case: no locks at all). A misc device whose write() stores a
 * 32-bit message and bumps a sequence number, and whose read() returns the
 * message with its sequence number and counts the reads. The shared state
 * is one static structure and nothing protects it: every pair of file
 * operations that writes a field races with every pair that touches it.
 * The fixed twin is nolock_fixed.c (the same driver with a mutex).
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

struct rwnl_msg {
	__u32 seq;
	__u32 value;
};

struct rwnl_dev {
	u32 value;		/* last message written */
	u32 seq;		/* bumped on every write */
	unsigned long reads;	/* statistics */
};

static struct rwnl_dev rwnl;

// @expect entry-point rwnl_read callback file_operations.read
static ssize_t rwnl_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwnl_msg msg;

	if (count < sizeof(msg))
		return -EINVAL;

	msg.seq = rwnl.seq;		/* @racy: unprotected read */
	msg.value = rwnl.value;		/* @racy: unprotected read */
	rwnl.reads++;			/* @racy: unprotected read-modify-write */

	if (copy_to_user(buf, &msg, sizeof(msg)))
		return -EFAULT;
	return sizeof(msg);
}

// @expect entry-point rwnl_write callback file_operations.write
static ssize_t rwnl_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	u32 v;

	if (count < sizeof(v))
		return -EINVAL;
	if (copy_from_user(&v, buf, sizeof(v)))
		return -EFAULT;

	rwnl.value = v;			/* @racy: unprotected write */
	rwnl.seq++;			/* @racy: unprotected read-modify-write */
	return sizeof(v);
}

/* Two readers: both bump the read counter. */
// @expect race rwnl_read rwnl_read "struct rwnl_dev.reads"
// @expect confirmed rwnl_read rwnl_read "struct rwnl_dev.reads"
/* A reader and a writer: the message and its sequence number. */
// @expect race rwnl_read rwnl_write "struct rwnl_dev.seq"
// @expect confirmed rwnl_read rwnl_write "struct rwnl_dev.seq"
// @expect race rwnl_read rwnl_write "struct rwnl_dev.value"
// @expect confirmed rwnl_read rwnl_write "struct rwnl_dev.value"
/* Two writers. */
// @expect race rwnl_write rwnl_write "struct rwnl_dev.seq"
// @expect confirmed rwnl_write rwnl_write "struct rwnl_dev.seq"
// @expect race rwnl_write rwnl_write "struct rwnl_dev.value"
// @expect confirmed rwnl_write rwnl_write "struct rwnl_dev.value"

static const struct file_operations rwnl_fops = {
	.owner	= THIS_MODULE,
	.read	= rwnl_read,
	.write	= rwnl_write,
};

static struct miscdevice rwnl_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwmbox",
	.fops	= &rwnl_fops,
};

// @expect init rwnl_misc_init
// @expect entry-point rwnl_misc_init module-init module_init
// @expect entry-point rwnl_misc_exit module-exit module_exit
module_misc_device(rwnl_misc);

MODULE_DESCRIPTION("racewatch race corpus: no locks at all");
MODULE_LICENSE("GPL");
