// SPDX-License-Identifier: GPL-2.0
/*
 * readonly_race.c - sensor calibration table, /dev/rwcalib (read/write).
 *
 * Race test (case: readers only -> one writer added). The same driver as
 * readonly_fixed.c, where read() and RWRO_IOC_GET only read the table
 * without locks, plus an RWRO_IOC_SET ioctl that rewrites one entry, also
 * without a lock. The readers were fine among themselves; now each of them
 * races with the setter on the table.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/property.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWRO_NCAL	8
#define RWRO_IOC_GET	_IOWR('r', 0, struct rwro_entry)
#define RWRO_IOC_SET	_IOW('r', 1, struct rwro_entry)

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
		snap.calib[i] = dev->calib[i];	/* @racy */
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

	if (cmd != RWRO_IOC_GET && cmd != RWRO_IOC_SET)
		return -ENOTTY;
	if (copy_from_user(&e, argp, sizeof(e)))
		return -EFAULT;
	if (e.index >= RWRO_NCAL)
		return -EINVAL;
	if (cmd == RWRO_IOC_SET) {
		dev->calib[e.index] = e.value;	/* @racy: unprotected write */
		return 0;
	}
	e.value = dev->calib[e.index];	/* @racy */
	if (copy_to_user(argp, &e, sizeof(e)))
		return -EFAULT;
	return 0;
}

/* Two readers still cannot race ... */
// @expect proven rwro_read rwro_read
/* ... but the setter races with every reader and with another setter. */
// @expect race rwro_read rwro_ioctl "struct rwro_dev.calib"
// @expect confirmed rwro_read rwro_ioctl "struct rwro_dev.calib"
// @expect race rwro_ioctl rwro_ioctl "struct rwro_dev.calib"
// @expect confirmed rwro_ioctl rwro_ioctl "struct rwro_dev.calib"

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

MODULE_DESCRIPTION("racewatch race corpus: readers and an unlocked writer");
MODULE_LICENSE("GPL");
