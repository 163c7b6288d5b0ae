// SPDX-License-Identifier: GPL-2.0
/*
 * atomic_race.c - command mailbox of a motor controller, /dev/rwmotor.
 *
 * Race test (case: atomics). The irq counter is an atomic_t (atomic_inc()
 * in the handler, atomic_read() in read()): atomics never race with each
 * other. But the plain command fields are "protected" by an atomic_t busy
 * flag that write() checks with atomic_read() and then sets: two writers
 * can both see it clear, and the ioctl reads after its own check. Atomics
 * protect no plain access: write() races with write() and with the ioctl
 * on both fields. The fixed twin, atomic_fixed.c, uses a mutex instead.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/atomic.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWAF_CMD	0x00
#define RWAF_IOC_LAST	_IOR('m', 0, __u64)	/* seq << 32 | cmd */

struct rwaf_dev {
	struct miscdevice misc;
	void __iomem *base;
	atomic_t irqs;			/* step interrupts */
	atomic_t busy;			/* "protects" cmd and cmd_seq */
	u32 cmd, cmd_seq;
};

#define rwaf_from_file(f) container_of((f)->private_data, struct rwaf_dev, misc)

// @expect entry-point rwaf_irq irq devm_request_irq
static irqreturn_t rwaf_irq(int irq, void *data)
{
	struct rwaf_dev *dev = data;

	atomic_inc(&dev->irqs);
	return IRQ_HANDLED;
}

// @expect entry-point rwaf_read callback file_operations.read
static ssize_t rwaf_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	u32 n = atomic_read(&rwaf_from_file(file)->irqs);

	if (count < sizeof(n))
		return -EINVAL;
	return copy_to_user(buf, &n, sizeof(n)) ? -EFAULT : sizeof(n);
}

// @expect entry-point rwaf_write callback file_operations.write
static ssize_t rwaf_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct rwaf_dev *dev = rwaf_from_file(file);
	u32 v;

	if (count != sizeof(v) || copy_from_user(&v, buf, sizeof(v)))
		return -EINVAL;
	if (atomic_read(&dev->busy))		/* check ... */
		return -EBUSY;
	atomic_set(&dev->busy, 1);		/* ... then set: not a lock */
	dev->cmd = v;	/* @racy */
	dev->cmd_seq++;	/* @racy */
	iowrite32(v, dev->base + RWAF_CMD);
	atomic_set(&dev->busy, 0);
	return count;
}

// @expect entry-point rwaf_ioctl callback file_operations.unlocked_ioctl
static long rwaf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwaf_dev *dev = rwaf_from_file(file);
	u64 last;

	if (cmd != RWAF_IOC_LAST)
		return -ENOTTY;
	if (atomic_read(&dev->busy))
		return -EBUSY;
	last = (u64)dev->cmd_seq << 32 | dev->cmd;	/* @racy */
	return copy_to_user((void __user *)arg, &last, sizeof(last)) ? -EFAULT : 0;
}

// @expect proven rwaf_irq rwaf_read
// @expect proven rwaf_irq rwaf_write
// @expect race rwaf_write rwaf_write "struct rwaf_dev.cmd"
// @expect confirmed rwaf_write rwaf_write "struct rwaf_dev.cmd"
// @expect race rwaf_write rwaf_write "struct rwaf_dev.cmd_seq"
// @expect confirmed rwaf_write rwaf_write "struct rwaf_dev.cmd_seq"
// @expect race rwaf_write rwaf_ioctl "struct rwaf_dev.cmd"
// @expect confirmed rwaf_write rwaf_ioctl "struct rwaf_dev.cmd"
// @expect race rwaf_write rwaf_ioctl "struct rwaf_dev.cmd_seq"
// @expect confirmed rwaf_write rwaf_ioctl "struct rwaf_dev.cmd_seq"

static const struct file_operations rwaf_fops = {
	.owner		= THIS_MODULE,
	.read		= rwaf_read,
	.write		= rwaf_write,
	.unlocked_ioctl	= rwaf_ioctl,
};

// @expect init rwaf_probe
// @expect entry-point rwaf_probe probe platform_driver.probe
static int rwaf_probe(struct platform_device *pdev)
{
	struct rwaf_dev *dev;
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
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwmotor";
	dev->misc.fops = &rwaf_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);

	ret = devm_request_irq(&pdev->dev, irq, rwaf_irq, 0, "rwmotor", dev);
	if (ret)
		return ret;
	return misc_register(&dev->misc);
}

// @expect entry-point rwaf_remove remove platform_driver.remove
static void rwaf_remove(struct platform_device *pdev)
{
	struct rwaf_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwaf_driver = {
	.probe	= rwaf_probe,
	.remove	= rwaf_remove,
	.driver.name = "rwmotor",
};

// @expect entry-point rwaf_driver_init module-init module_init
// @expect entry-point rwaf_driver_exit module-exit module_exit
module_platform_driver(rwaf_driver);

MODULE_DESCRIPTION("racewatch race corpus: an atomic flag is not a lock");
MODULE_LICENSE("GPL");
