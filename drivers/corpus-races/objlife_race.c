// SPDX-License-Identifier: GPL-2.0
/*
 * objlife_race.c - two read-only sensor channels behind one character
 * device, /dev/rwsensN.
 *
 * Race test (case: per-open state kept in a global). open() picks the
 * channel of the minor number and remembers it in the global rwol_selected;
 * read() returns the remembered channel's calibration value. Two opens of
 * different minors overwrite each other's choice (a write/write race), and
 * an open races with a read of an already open file (which then reads the
 * other channel). The fixed twin (objlife_fixed.c) keeps the choice in the
 * opened file's private_data, which the kernel gives to each open alone:
 * do_dentry_open calls open before the file is installed in a descriptor,
 * so no other operation can reach that file until open returns.
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

static struct rwol_channel *rwol_selected;	/* the channel of the last open */
static struct cdev rwol_cdev;
static dev_t rwol_devt;

// @expect entry-point rwol_open callback file_operations.open
static int rwol_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode);

	if (minor >= RWOL_CHANNELS)
		return -ENODEV;
	rwol_selected = &rwol_channels[minor];	/* @racy: unprotected write */
	return 0;
}

// @expect entry-point rwol_read callback file_operations.read
static ssize_t rwol_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwol_channel *ch = rwol_selected;	/* @racy: unprotected read */
	u32 val;

	if (count < sizeof(val))
		return -EINVAL;
	val = ch->calibration;
	if (copy_to_user(buf, &val, sizeof(val)))
		return -EFAULT;
	return sizeof(val);
}

// @expect race rwol_open rwol_open "global rwol_selected"
// @expect confirmed rwol_open rwol_open "global rwol_selected"
// @expect race rwol_open rwol_read "global rwol_selected"
// @expect confirmed rwol_open rwol_read "global rwol_selected"
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

MODULE_DESCRIPTION("racewatch race corpus: per-open state kept in a global");
MODULE_LICENSE("GPL");
