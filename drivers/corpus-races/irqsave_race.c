// SPDX-License-Identifier: GPL-2.0
/*
 * irqsave_race.c - pulse counter with an interrupt per pulse, /dev/rwpulse.
 *
 * Race test (case: spin_lock_irqsave between a file operation and an
 * interrupt handler; IRQ disabling alone protects nothing). The interrupt
 * handler counts pulses with the device spinlock held. read() returns the
 * count and clears it, but "protects" that with local_irq_save() only,
 * which keeps the handler off this CPU and nothing else: on SMP the handler
 * runs on another CPU meanwhile, and two readers run at once. Races: read
 * with the handler and read with read on the count. The fixed twin,
 * irqsave_fixed.c, uses spin_lock_irqsave().
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/spinlock.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWIS_STATUS	0x00
#define RWIS_ACK	0x04

struct rwis_dev {
	struct miscdevice misc;
	void __iomem *base;
	spinlock_t lock;		/* guards pulses */
	u64 pulses;
};

// @expect entry-point rwis_irq irq devm_request_irq
static irqreturn_t rwis_irq(int irq, void *data)
{
	struct rwis_dev *dev = data;
	u32 st = ioread32(dev->base + RWIS_STATUS);

	if (!st)
		return IRQ_NONE;
	iowrite32(st, dev->base + RWIS_ACK);
	spin_lock(&dev->lock);
	dev->pulses++;	/* @racy */
	spin_unlock(&dev->lock);
	return IRQ_HANDLED;
}

// @expect entry-point rwis_read callback file_operations.read
static ssize_t rwis_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwis_dev *dev = container_of(file->private_data,
					    struct rwis_dev, misc);
	unsigned long flags;
	u64 n;

	if (count < sizeof(n))
		return -EINVAL;
	local_irq_save(flags);		/* this CPU only: not a lock */
	n = dev->pulses;	/* @racy */
	dev->pulses = 0;	/* @racy */
	local_irq_restore(flags);
	if (copy_to_user(buf, &n, sizeof(n)))
		return -EFAULT;
	return sizeof(n);
}

// @expect race rwis_irq rwis_read "struct rwis_dev.pulses"
// @expect confirmed rwis_irq rwis_read "struct rwis_dev.pulses"
// @expect race rwis_read rwis_read "struct rwis_dev.pulses"
// @expect confirmed rwis_read rwis_read "struct rwis_dev.pulses"

static const struct file_operations rwis_fops = {
	.owner	= THIS_MODULE,
	.read	= rwis_read,
};

// @expect init rwis_probe
// @expect entry-point rwis_probe probe platform_driver.probe
static int rwis_probe(struct platform_device *pdev)
{
	struct rwis_dev *dev;
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
	spin_lock_init(&dev->lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwpulse";
	dev->misc.fops = &rwis_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);

	ret = devm_request_irq(&pdev->dev, irq, rwis_irq, 0, "rwpulse", dev);
	if (ret)
		return ret;
	return misc_register(&dev->misc);
}

// @expect entry-point rwis_remove remove platform_driver.remove
static void rwis_remove(struct platform_device *pdev)
{
	struct rwis_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwis_driver = {
	.probe	= rwis_probe,
	.remove	= rwis_remove,
	.driver	= {
		.name	= "rwpulse",
	},
};

// @expect entry-point rwis_driver_init module-init module_init
// @expect entry-point rwis_driver_exit module-exit module_exit
module_platform_driver(rwis_driver);

MODULE_DESCRIPTION("racewatch race corpus: local_irq_save is not a lock");
MODULE_LICENSE("GPL");
