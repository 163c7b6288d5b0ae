// SPDX-License-Identifier: GPL-2.0
/*
 * nested_race.c - ADC with selectable input mode, /dev/rwadc.
 *
 * Race test (case: nested locks). The configuration mutex cfg_lock is the
 * outer lock; the spinlock hw_lock, shared with the conversion-done
 * interrupt, is taken inside it. RWNEST_IOC_SET_MODE changes the mode with
 * both held, then clears the overrun count after dropping hw_lock while
 * still holding cfg_lock. The handler updates the overrun count under
 * hw_lock only: {cfg_lock} and {hw_lock} have no lock in common, so the
 * ioctl races with the handler on overruns. The mode itself is written
 * under {cfg_lock, hw_lock} and read under {hw_lock}: protected. The fixed
 * twin (nested_fixed.c) clears the count inside the inner section.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/io.h>
#include <linux/fs.h>

#define RWNEST_DATA		0x00
#define RWNEST_CTRL		0x04
#define RWNEST_IOC_SET_MODE	_IO('a', 0)
#define RWNEST_IOC_GET_OVR	_IOR('a', 1, __u32)

struct rwnest_dev {
	struct miscdevice misc;
	void __iomem *base;
	struct mutex cfg_lock;		/* outer: configuration changes */
	spinlock_t hw_lock;		/* inner: shared with the irq */
	u32 mode;
	u32 overruns;
	u32 last;
};

// @expect entry-point rwnest_irq irq devm_request_irq
static irqreturn_t rwnest_irq(int irq, void *data)
{
	struct rwnest_dev *dev = data;

	spin_lock(&dev->hw_lock);
	if (dev->mode == 0)
		dev->overruns++;	/* @racy */
	dev->last = ioread32(dev->base + RWNEST_DATA);
	spin_unlock(&dev->hw_lock);
	return IRQ_HANDLED;
}

// @expect entry-point rwnest_ioctl callback file_operations.unlocked_ioctl
static long rwnest_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwnest_dev *dev = container_of(file->private_data,
					      struct rwnest_dev, misc);
	long ret = 0;

	mutex_lock(&dev->cfg_lock);
	switch (cmd) {
	case RWNEST_IOC_SET_MODE:
		spin_lock_irq(&dev->hw_lock);
		dev->mode = arg & 3;
		iowrite32(dev->mode, dev->base + RWNEST_CTRL);
		spin_unlock_irq(&dev->hw_lock);
		dev->overruns = 0;	/* @racy: cfg_lock only: the irq does not take it */
		break;
	case RWNEST_IOC_GET_OVR:
		spin_lock_irq(&dev->hw_lock);
		ret = dev->overruns;
		spin_unlock_irq(&dev->hw_lock);
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&dev->cfg_lock);
	return ret;
}

// @expect race rwnest_irq rwnest_ioctl "struct rwnest_dev.overruns"
// @expect confirmed rwnest_irq rwnest_ioctl "struct rwnest_dev.overruns"
/* mode: {cfg_lock, hw_lock} against {hw_lock}; two ioctls share cfg_lock. */
// @expect proven rwnest_ioctl rwnest_ioctl

static const struct file_operations rwnest_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwnest_ioctl,
};

// @expect init rwnest_probe
// @expect entry-point rwnest_probe probe platform_driver.probe
static int rwnest_probe(struct platform_device *pdev)
{
	struct rwnest_dev *dev;
	int irq, ret;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	mutex_init(&dev->cfg_lock);
	spin_lock_init(&dev->hw_lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwadc";
	dev->misc.fops = &rwnest_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);

	ret = devm_request_irq(&pdev->dev, irq, rwnest_irq, 0, "rwadc", dev);
	if (ret)
		return ret;
	return misc_register(&dev->misc);
}

// @expect entry-point rwnest_remove remove platform_driver.remove
static void rwnest_remove(struct platform_device *pdev)
{
	struct rwnest_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwnest_driver = {
	.probe	= rwnest_probe,
	.remove	= rwnest_remove,
	.driver	= {
		.name	= "rwadc",
	},
};

// @expect entry-point rwnest_driver_init module-init module_init
// @expect entry-point rwnest_driver_exit module-exit module_exit
module_platform_driver(rwnest_driver);

MODULE_DESCRIPTION("racewatch race corpus: nested locks, access under the outer one only");
MODULE_LICENSE("GPL");
