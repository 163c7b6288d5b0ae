// SPDX-License-Identifier: GPL-2.0
/*
 * twolocks_race.c - over-threshold alarm of a sampling front end, /dev/rwthr.
 *
 * Race test (case: two locks with only one in common). The threshold is
 * meant to be written under both the config mutex and the irq spinlock
 * and read under either: write() does so, RWTL_IOC_GET reads under the
 * mutex, the irq under the spinlock - but RWTL_IOC_SET writes under the
 * mutex alone. Locksets {cfg_lock, lock}, {cfg_lock}, {lock}: only ioctl
 * and irq share none, and race. Fixed twin: twolocks_fixed.c.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWTL_SAMPLE	0x00
#define RWTL_IOC_GET	_IOR('t', 0, __u32)
#define RWTL_IOC_SET	_IOW('t', 1, __u32)

struct rwtl_dev {
	struct miscdevice misc;
	void __iomem *base;
	struct mutex cfg_lock;
	spinlock_t lock;		/* shared with the irq */
	u32 threshold;			/* written under both, read under either */
	unsigned long alarms;		/* irq only */
};

// @expect entry-point rwtl_irq irq devm_request_irq
static irqreturn_t rwtl_irq(int irq, void *data)
{
	struct rwtl_dev *dev = data;
	u32 sample = ioread32(dev->base + RWTL_SAMPLE);

	spin_lock(&dev->lock);
	if (sample > dev->threshold)	/* @racy */
		dev->alarms++;
	spin_unlock(&dev->lock);
	return IRQ_HANDLED;
}

// @expect entry-point rwtl_write callback file_operations.write
static ssize_t rwtl_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct rwtl_dev *dev = container_of(file->private_data,
					    struct rwtl_dev, misc);
	u32 v;

	if (count != sizeof(v) || copy_from_user(&v, buf, sizeof(v)))
		return -EINVAL;
	mutex_lock(&dev->cfg_lock);
	spin_lock_irq(&dev->lock);
	dev->threshold = v;
	spin_unlock_irq(&dev->lock);
	mutex_unlock(&dev->cfg_lock);
	return count;
}

// @expect entry-point rwtl_ioctl callback file_operations.unlocked_ioctl
static long rwtl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwtl_dev *dev = container_of(file->private_data,
					    struct rwtl_dev, misc);
	u32 v;

	switch (cmd) {
	case RWTL_IOC_GET:
		mutex_lock(&dev->cfg_lock);
		v = dev->threshold;
		mutex_unlock(&dev->cfg_lock);
		return copy_to_user((void __user *)arg, &v, sizeof(v)) ? -EFAULT : 0;
	case RWTL_IOC_SET:
		if (copy_from_user(&v, (void __user *)arg, sizeof(v)))
			return -EFAULT;
		mutex_lock(&dev->cfg_lock);
		dev->threshold = v;	/* @racy: BUG: the irq only takes dev->lock */
		mutex_unlock(&dev->cfg_lock);
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect race rwtl_irq rwtl_ioctl "struct rwtl_dev.threshold"
// @expect confirmed rwtl_irq rwtl_ioctl "struct rwtl_dev.threshold"
// @expect proven rwtl_irq rwtl_write
// @expect proven rwtl_write rwtl_ioctl

static const struct file_operations rwtl_fops = {
	.owner		= THIS_MODULE,
	.write		= rwtl_write,
	.unlocked_ioctl	= rwtl_ioctl,
};

// @expect init rwtl_probe
// @expect entry-point rwtl_probe probe platform_driver.probe
static int rwtl_probe(struct platform_device *pdev)
{
	struct rwtl_dev *dev;
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
	spin_lock_init(&dev->lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwthr";
	dev->misc.fops = &rwtl_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);

	ret = devm_request_irq(&pdev->dev, irq, rwtl_irq, 0, "rwthr", dev);
	if (ret)
		return ret;
	return misc_register(&dev->misc);
}

// @expect entry-point rwtl_remove remove platform_driver.remove
static void rwtl_remove(struct platform_device *pdev)
{
	struct rwtl_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwtl_driver = {
	.probe	= rwtl_probe,
	.remove	= rwtl_remove,
	.driver.name = "rwthr",
};

// @expect entry-point rwtl_driver_init module-init module_init
// @expect entry-point rwtl_driver_exit module-exit module_exit
module_platform_driver(rwtl_driver);

MODULE_DESCRIPTION("racewatch race corpus: two locks, one in common");
MODULE_LICENSE("GPL");
