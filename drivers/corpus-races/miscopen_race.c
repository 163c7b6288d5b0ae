// SPDX-License-Identifier: GPL-2.0
/*
 * miscopen_race.c - a status device: /dev/miscopen is a misc device whose
 * open hands each file the device's state.
 *
 * Race test (case: misc_deregister and the misc device's open). misc_open
 * (drivers/char/misc.c) calls the device's fops->open with misc_mtx held,
 * and misc_deregister takes misc_mtx and unlists the device, so once
 * misc_deregister has returned no open runs or can start; the other file
 * operations of files already open go on. Here remove clears the state
 * pointer before misc_deregister, while an open may be reading it: a race.
 * The fixed twin, miscopen_fixed.c, deregisters first and is proven.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/slab.h>

struct miscopen_state {
	u32 status;
};

static struct miscopen_state *miscopen_dev;

// @expect entry-point miscopen_open callback file_operations.open
static int miscopen_open(struct inode *inode, struct file *file)
{
	struct miscopen_state *st = miscopen_dev; // @racy

	if (!st)
		return -ENODEV;
	file->private_data = st;
	return 0;
}

// @expect entry-point miscopen_read callback file_operations.read
static ssize_t miscopen_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct miscopen_state *st = file->private_data;
	u32 status = READ_ONCE(st->status);

	if (count < sizeof(status))
		return -EINVAL;
	if (copy_to_user(buf, &status, sizeof(status)))
		return -EFAULT;
	return sizeof(status);
}

static const struct file_operations miscopen_fops = {
	.owner	= THIS_MODULE,
	.open	= miscopen_open,
	.read	= miscopen_read,
};

static struct miscdevice miscopen_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "miscopen",
	.fops	= &miscopen_fops,
};

// @expect init miscopen_probe
// @expect entry-point miscopen_probe probe platform_driver.probe
static int miscopen_probe(struct platform_device *pdev)
{
	struct miscopen_state *st;

	st = devm_kzalloc(&pdev->dev, sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	miscopen_dev = st;
	return misc_register(&miscopen_misc);
}

// @expect entry-point miscopen_remove remove platform_driver.remove
static void miscopen_remove(struct platform_device *pdev)
{
	miscopen_dev = NULL; // @racy
	misc_deregister(&miscopen_misc);
}
// @expect race miscopen_open miscopen_remove "global miscopen_dev"
// @expect confirmed miscopen_open miscopen_remove "global miscopen_dev"

static struct platform_driver miscopen_driver = {
	.probe	= miscopen_probe,
	.remove	= miscopen_remove,
	.driver	= {
		.name	= "miscopen",
	},
};

// @expect entry-point miscopen_driver_init module-init module_init
// @expect entry-point miscopen_driver_exit module-exit module_exit
module_platform_driver(miscopen_driver);

MODULE_DESCRIPTION("racewatch race corpus: state cleared before misc_deregister");
MODULE_LICENSE("GPL");
