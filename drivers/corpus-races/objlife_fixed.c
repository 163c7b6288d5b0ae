// SPDX-License-Identifier: GPL-2.0
/*
 * objlife_fixed.c - two read-only sensor channels behind one character
 * device, /dev/rwsensN, with per-open state in the file.
 *
 * Fixed twin of objlife_race.c (case: global -> file->private_data).
 * open() stores the channel in the opened file's private_data and read()
 * takes it from its own file. The kernel gives each open a new struct file
 * and runs no other operation on it before open returns (do_dentry_open in
 * fs/open.c calls open before fd_install; kernel-models/lifetimes/), so an
 * open's store never meets another operation's access to the same file.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/cdev.h>
#include <linux/uaccess.h>

#define RWOL_CHANNELS	2

struct rwol_channel {
	u32 calibration;
};

static struct rwol_channel rwol_channels[RWOL_CHANNELS] = {
	{ .calibration = 1000 },
	{ .calibration = 2000 },
};

static struct cdev rwol_cdev;
static dev_t rwol_devt;

// @expect entry-point rwol_open callback file_operations.open
static int rwol_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode);

	if (minor >= RWOL_CHANNELS)
		return -ENODEV;
	file->private_data = &rwol_channels[minor];
	return 0;
}

// @expect entry-point rwol_read callback file_operations.read
static ssize_t rwol_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwol_channel *ch = file->private_data;
	u32 val;

	if (count < sizeof(val))
		return -EINVAL;
	val = ch->calibration;
	if (copy_to_user(buf, &val, sizeof(val)))
		return -EFAULT;
	return sizeof(val);
}

// @expect proven rwol_open rwol_open
// @expect proven rwol_open rwol_read
// @expect proven rwol_read rwol_read

static const struct file_operations rwol_fops = {
	.owner	= THIS_MODULE,
	.open	= rwol_open,
	.read	= rwol_read,
};

// @expect init rwol_init
// @expect entry-point rwol_init module-init module_init
static int __init rwol_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&rwol_devt, 0, RWOL_CHANNELS, "rwsens");
	if (ret)
		return ret;
	cdev_init(&rwol_cdev, &rwol_fops);
	ret = cdev_add(&rwol_cdev, rwol_devt, RWOL_CHANNELS);
	if (ret)
		unregister_chrdev_region(rwol_devt, RWOL_CHANNELS);
	return ret;
}

// @expect entry-point rwol_exit module-exit module_exit
static void __exit rwol_exit(void)
{
	cdev_del(&rwol_cdev);
	unregister_chrdev_region(rwol_devt, RWOL_CHANNELS);
}

module_init(rwol_init);
module_exit(rwol_exit);

MODULE_DESCRIPTION("racewatch race corpus: per-open state in file->private_data");
MODULE_LICENSE("GPL");
