// SPDX-License-Identifier: GPL-2.0
/*
 * regearly_race.c - ambient light sensor, /dev/rwlux.
 *
 * Race test (case: registered before initialised). probe() calls
 * misc_register() and only then reads the calibration (scale and offset)
 * into the device structure. From the moment misc_register() returns,
 * read() and the RWRE_IOC_SET_SCALE ioctl may run, and they use the
 * calibration while probe is still writing it, without the mutex (which
 * probe does not take). The analysis pairs the part of probe after the
 * registration call with the file operations it made live: probe races
 * with read() on scale and offset, and with the ioctl on scale. The fixed
 * twin, regearly_fixed.c, initialises everything before registering.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/property.h>
#include <linux/mutex.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWRE_RAW		0x00
#define RWRE_IOC_SET_SCALE	_IO('l', 0)

struct rwre_dev {
	struct miscdevice misc;
	void __iomem *base;
	struct mutex lock;		/* guards scale and offset */
	u32 scale;			/* milli-lux per count */
	s32 offset;
};

// @expect entry-point rwre_read callback file_operations.read
static ssize_t rwre_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwre_dev *dev = container_of(file->private_data,
					    struct rwre_dev, misc);
	s64 mlux;

	if (count < sizeof(mlux))
		return -EINVAL;
	mutex_lock(&dev->lock);
	mlux = (s64)ioread32(dev->base + RWRE_RAW) * dev->scale + dev->offset;	/* @racy */
	mutex_unlock(&dev->lock);
	return copy_to_user(buf, &mlux, sizeof(mlux)) ? -EFAULT : sizeof(mlux);
}

// @expect entry-point rwre_ioctl callback file_operations.unlocked_ioctl
static long rwre_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwre_dev *dev = container_of(file->private_data,
					    struct rwre_dev, misc);

	if (cmd != RWRE_IOC_SET_SCALE)
		return -ENOTTY;
	if (!arg || arg > 100000)
		return -EINVAL;
	mutex_lock(&dev->lock);
	dev->scale = arg;	/* @racy */
	mutex_unlock(&dev->lock);
	return 0;
}

static const struct file_operations rwre_fops = {
	.owner		= THIS_MODULE,
	.read		= rwre_read,
	.unlocked_ioctl	= rwre_ioctl,
};

// @expect init rwre_probe
// @expect entry-point rwre_probe probe platform_driver.probe
static int rwre_probe(struct platform_device *pdev)
{
	struct rwre_dev *dev;
	u32 scale = 1000, offset = 0;
	int ret;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	mutex_init(&dev->lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwlux";
	dev->misc.fops = &rwre_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);

	ret = misc_register(&dev->misc);	/* BUG: live from here on */
	if (ret)
		return ret;
	device_property_read_u32(&pdev->dev, "racewatch,scale", &scale);
	device_property_read_u32(&pdev->dev, "racewatch,offset", &offset);
	dev->scale = scale;	/* @racy */
	dev->offset = offset;	/* @racy */
	return 0;
}

// @expect race rwre_read rwre_probe "struct rwre_dev.scale"
// @expect confirmed rwre_read rwre_probe "struct rwre_dev.scale"
// @expect race rwre_read rwre_probe "struct rwre_dev.offset"
// @expect confirmed rwre_read rwre_probe "struct rwre_dev.offset"
// @expect race rwre_ioctl rwre_probe "struct rwre_dev.scale"
// @expect confirmed rwre_ioctl rwre_probe "struct rwre_dev.scale"
// @expect proven rwre_read rwre_ioctl

// @expect entry-point rwre_remove remove platform_driver.remove
static void rwre_remove(struct platform_device *pdev)
{
	struct rwre_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwre_driver = {
	.probe	= rwre_probe,
	.remove	= rwre_remove,
	.driver	= {
		.name	= "rwlux",
	},
};

// @expect entry-point rwre_driver_init module-init module_init
// @expect entry-point rwre_driver_exit module-exit module_exit
module_platform_driver(rwre_driver);

MODULE_DESCRIPTION("racewatch race corpus: misc device registered before its calibration");
MODULE_LICENSE("GPL");
