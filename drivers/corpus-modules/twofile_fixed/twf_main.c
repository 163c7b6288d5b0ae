// SPDX-License-Identifier: GPL-2.0
/*
 * twf_main.c - the fixed twin of drivers/corpus-modules/twofile_race:
 * read() takes the device's lock that twf_update() (twf_update.c, called
 * from the work item) holds, so the module is race-free.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include "twf.h"

struct twf_dev twf;
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
	spin_lock(&d->lock);
	ready = d->flags & TWF_READY;
	twf_works = 0;
	spin_unlock(&d->lock);
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

// @expect proven twf_work_fn twf_read
// @expect proven twf_read twf_read
// @expect proven twf_read twf_write

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
