// SPDX-License-Identifier: GPL-2.0
/*
 * readonly_fixed.c - sensor calibration table, /dev/rwcalib (read only).
 *
 * Race test (case: readers only, no locks). probe() loads the calibration
 * table and the table version from firmware properties, and only then
 * registers the misc device. After that, read() and the RWRO_IOC_GET ioctl
 * only ever read the table: with no writer there is nothing to race on,
 * even though no lock is taken anywhere. Expected: every pair proven
 * race-free. Its racy counterpart, readonly_race.c, adds a setter ioctl.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/property.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWRO_NCAL	8
#define RWRO_IOC_GET	_IOWR('r', 0, struct rwro_entry)

struct rwro_entry {
	__u32 index;
	__u32 value;
};

struct rwro_snapshot {
	__u32 version;
	__u32 calib[RWRO_NCAL];
};

struct rwro_dev {
	struct miscdevice misc;
	u32 version;
	u32 calib[RWRO_NCAL];
};

static struct rwro_dev *rwro_from_file(struct file *file)
{
	return container_of(file->private_data, struct rwro_dev, misc);
}

// @expect entry-point rwro_read callback file_operations.read
static ssize_t rwro_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwro_dev *dev = rwro_from_file(file);
	struct rwro_snapshot snap;
	int i;

	if (count < sizeof(snap))
		return -EINVAL;
	snap.version = dev->version;
	for (i = 0; i < RWRO_NCAL; i++)
		snap.calib[i] = dev->calib[i];
	if (copy_to_user(buf, &snap, sizeof(snap)))
		return -EFAULT;
	return sizeof(snap);
}

// @expect entry-point rwro_ioctl callback file_operations.unlocked_ioctl
static long rwro_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwro_dev *dev = rwro_from_file(file);
	void __user *argp = (void __user *)arg;
	struct rwro_entry e;

	if (cmd != RWRO_IOC_GET)
		return -ENOTTY;
	if (copy_from_user(&e, argp, sizeof(e)))
		return -EFAULT;
	if (e.index >= RWRO_NCAL)
		return -EINVAL;
	e.value = dev->calib[e.index];
	if (copy_to_user(argp, &e, sizeof(e)))
		return -EFAULT;
	return 0;
}

/* Readers only: no pair can race, locks or not. */
// @expect proven rwro_read rwro_read
// @expect proven rwro_read rwro_ioctl
// @expect proven rwro_ioctl rwro_ioctl

static const struct file_operations rwro_fops = {
	.owner		= THIS_MODULE,
	.read		= rwro_read,
	.unlocked_ioctl	= rwro_ioctl,
};

// @expect init rwro_probe
// @expect entry-point rwro_probe probe platform_driver.probe
static int rwro_probe(struct platform_device *pdev)
{
	struct rwro_dev *dev;
	u32 cal[RWRO_NCAL], ver = 0;
	int i, ret;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	ret = device_property_read_u32_array(&pdev->dev, "calibration",
					     cal, RWRO_NCAL);
	if (ret)
		return ret;
	device_property_read_u32(&pdev->dev, "calibration-version", &ver);
	for (i = 0; i < RWRO_NCAL; i++)
		dev->calib[i] = cal[i];
	dev->version = ver;

	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwcalib";
	dev->misc.fops = &rwro_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	return misc_register(&dev->misc);
}

// @expect entry-point rwro_remove remove platform_driver.remove
static void rwro_remove(struct platform_device *pdev)
{
	struct rwro_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwro_driver = {
	.probe	= rwro_probe,
	.remove	= rwro_remove,
	.driver	= {
		.name	= "rwcalib",
	},
};

// @expect entry-point rwro_driver_init module-init module_init
// @expect entry-point rwro_driver_exit module-exit module_exit
module_platform_driver(rwro_driver);

MODULE_DESCRIPTION("racewatch race corpus: readers only, no locks");
MODULE_LICENSE("GPL");
