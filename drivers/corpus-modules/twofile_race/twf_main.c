// SPDX-License-Identifier: GPL-2.0
/*
 * twf_main.c - a device of two files (case: a function of the second file
 * called from a work item of the first; the shape of drivers/block/aoe,
 * whose aoecmd.c work item calls aoeblk.c's aoeblk_gdalloc).
 *
 * write() schedules a work item; the work item calls twf_update(), which
 * twf_update.c defines and which sets the ready flag; read() reports the
 * flag without the lock. Analysed one file at a time, twf_update() is an
 * external call and the race cannot be seen; analysed as the module that
 * kbuild links (Makefile), it is. The fixed twin is
 * drivers/corpus-modules/twofile_fixed (read() takes the lock).
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include "twf.h"

struct twf_dev twf;

/*
 * Statistics of this file. twf_update.c has a static lock of the same
 * name, a different lock: the linker keeps one per file.
 */
static DEFINE_SPINLOCK(twf_stat_lock);
static unsigned int twf_works;	/* works run, counted by twf_update() */

// @expect entry-point twf_work_fn work work_struct.func
static void twf_work_fn(struct work_struct *work)
{
	struct twf_dev *d = container_of(work, struct twf_dev, work);

	twf_update(d, &twf_works);
}

// @expect entry-point twf_read callback file_operations.read
static ssize_t twf_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct twf_dev *d = &twf;
	u8 ready;

	if (count < 1)
		return -EINVAL;
	ready = d->flags & TWF_READY;	/* @racy: read without the lock */
	spin_lock(&twf_stat_lock);
	twf_works = 0;			/* @racy: under this file's twf_stat_lock only */
	spin_unlock(&twf_stat_lock);
	if (copy_to_user(buf, &ready, 1))
		return -EFAULT;
	return 1;
}

// @expect entry-point twf_write callback file_operations.write
static ssize_t twf_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	schedule_work(&twf.work);
	return count;
}

/* The work item's update against the unlocked read of the flag. */
// @expect race twf_work_fn twf_read "struct twf_dev.flags"
// @expect confirmed twf_work_fn twf_read "struct twf_dev.flags"
/* The count, under two different locks that share a name. */
// @expect race twf_work_fn twf_read "global twf_works | unsigned int (pointee)"
// @expect confirmed twf_work_fn twf_read "global twf_works | unsigned int (pointee)"

static const struct file_operations twf_fops = {
	.owner = THIS_MODULE,
	.read = twf_read,
	.write = twf_write,
};

static struct miscdevice twf_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "twofile",
	.fops = &twf_fops,
};

// @expect entry-point twf_init module-init module_init
// @expect init twf_init
static int __init twf_init(void)
{
	spin_lock_init(&twf.lock);
	INIT_WORK(&twf.work, twf_work_fn);
	return misc_register(&twf_misc);
}

// @expect entry-point twf_exit module-exit module_exit
static void __exit twf_exit(void)
{
	misc_deregister(&twf_misc);
	cancel_work_sync(&twf.work);
}

module_init(twf_init);
module_exit(twf_exit);
MODULE_LICENSE("GPL");
