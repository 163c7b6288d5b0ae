// SPDX-License-Identifier: GPL-2.0
/*
 * nested_fixed.c - ADC with selectable input mode, /dev/rwadc.
 *
 * Fixed twin of nested_race.c (case: nested locks). The configuration
 * mutex cfg_lock is the outer lock, the irq-shared spinlock hw_lock the
 * inner one. RWNEST_IOC_SET_MODE now clears the overrun count inside the
 * inner section, so every access to overruns holds hw_lock: the ioctl's
 * accesses hold {cfg_lock, hw_lock}, the handler's {hw_lock}, and hw_lock
 * is common. Expected: every pair proven race-free.
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
		dev->overruns++;
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

	// @mutation-protects-nothing rwnest_ioctl &dev->cfg_lock: every access in
	// its section also holds the inner hw_lock, which alone orders it with the
	// handler and the other ioctls.
	mutex_lock(&dev->cfg_lock);
	switch (cmd) {
	case RWNEST_IOC_SET_MODE:
		spin_lock_irq(&dev->hw_lock);
		dev->mode = arg & 3;
		iowrite32(dev->mode, dev->base + RWNEST_CTRL);
		dev->overruns = 0;
		spin_unlock_irq(&dev->hw_lock);
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

/* Everything: {cfg_lock, hw_lock} against {hw_lock}. */
// @expect proven rwnest_irq rwnest_ioctl
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

MODULE_DESCRIPTION("racewatch race corpus: nested locks, accesses under the inner one");
MODULE_LICENSE("GPL");
