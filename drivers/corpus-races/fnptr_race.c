// SPDX-License-Identifier: GPL-2.0
/*
 * fnptr_race.c - gain control of two amplifier generations, /dev/rwamp.
 *
 * Race test (case: function pointers). The driver supports two chip
 * revisions through an internal ops table (struct rwfp_chip_ops, chosen
 * from a firmware property); the callers reach the gain field only through
 * dev->ops->set_gain() / get_gain(). RWFP_IOC_GET calls get_gain() with
 * the mutex held, but RWFP_IOC_SET calls set_gain() without it: the
 * callees' write of gain races with other ioctls (a get or a set). The
 * fixed twin, fnptr_fixed.c, holds the mutex around the indirect call.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/property.h>
#include <linux/mutex.h>
#include <linux/io.h>
#include <linux/fs.h>

#define RWFP_V1_GAIN	0x10
#define RWFP_V2_GAIN	0x24
#define RWFP_IOC_SET	_IO('f', 0)
#define RWFP_IOC_GET	_IO('f', 1)

struct rwfp_dev;

struct rwfp_chip_ops {			/* driver-internal, not a kernel hook */
	void (*set_gain)(struct rwfp_dev *dev, u32 gain);
	u32 (*get_gain)(struct rwfp_dev *dev);
};

struct rwfp_dev {
	struct miscdevice misc;
	void __iomem *base;
	const struct rwfp_chip_ops *ops;
	struct mutex lock;		/* guards gain */
	u32 gain;
};

static void rwfp_v1_set_gain(struct rwfp_dev *dev, u32 gain)
{
	dev->gain = gain;	/* @racy */
	iowrite32(gain, dev->base + RWFP_V1_GAIN);
}

static void rwfp_v2_set_gain(struct rwfp_dev *dev, u32 gain)
{
	dev->gain = clamp_val(gain, 1, 64);	/* @racy */
	iowrite16(dev->gain, dev->base + RWFP_V2_GAIN);	/* @racy */
}

static u32 rwfp_get_gain(struct rwfp_dev *dev)
{
	return dev->gain;	/* @racy */
}

static const struct rwfp_chip_ops rwfp_v1_ops = {
	.set_gain = rwfp_v1_set_gain,
	.get_gain = rwfp_get_gain,
};

static const struct rwfp_chip_ops rwfp_v2_ops = {
	.set_gain = rwfp_v2_set_gain,
	.get_gain = rwfp_get_gain,
};

#define rwfp_from_file(f) container_of((f)->private_data, struct rwfp_dev, misc)

// @expect entry-point rwfp_ioctl callback file_operations.unlocked_ioctl
static long rwfp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwfp_dev *dev = rwfp_from_file(file);
	long ret;

	switch (cmd) {
	case RWFP_IOC_SET:
		dev->ops->set_gain(dev, arg);	/* BUG: mutex not held */
		return 0;
	case RWFP_IOC_GET:
		mutex_lock(&dev->lock);
		ret = dev->ops->get_gain(dev);
		mutex_unlock(&dev->lock);
		return ret;
	default:
		return -ENOTTY;
	}
}

// @expect race rwfp_ioctl rwfp_ioctl "struct rwfp_dev.gain"
// @expect confirmed rwfp_ioctl rwfp_ioctl "struct rwfp_dev.gain"

static const struct file_operations rwfp_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwfp_ioctl,
};

// @expect init rwfp_probe
// @expect entry-point rwfp_probe probe platform_driver.probe
static int rwfp_probe(struct platform_device *pdev)
{
	struct rwfp_dev *dev;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	if (device_property_read_bool(&pdev->dev, "racewatch,second-gen"))
		dev->ops = &rwfp_v2_ops;
	else
		dev->ops = &rwfp_v1_ops;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	mutex_init(&dev->lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwamp";
	dev->misc.fops = &rwfp_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	return misc_register(&dev->misc);
}

// @expect entry-point rwfp_remove remove platform_driver.remove
static void rwfp_remove(struct platform_device *pdev)
{
	struct rwfp_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwfp_driver = {
	.probe	= rwfp_probe,
	.remove	= rwfp_remove,
	.driver	= {
		.name	= "rwamp",
	},
};

// @expect entry-point rwfp_driver_init module-init module_init
// @expect entry-point rwfp_driver_exit module-exit module_exit
module_platform_driver(rwfp_driver);

MODULE_DESCRIPTION("racewatch race corpus: callee of an internal ops table");
MODULE_LICENSE("GPL");
