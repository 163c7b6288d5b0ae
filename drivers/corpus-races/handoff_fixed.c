// SPDX-License-Identifier: GPL-2.0
/*
 * handoff_fixed.c - sample-to-actuator loop of a servo controller.
 *
 * Fixed twin of handoff_race.c (case: a value-based guard). The interrupt
 * handler and the work item still hand one sample over through a one-slot
 * mailbox, but the slot and its "full" flag are now accessed under a
 * spinlock (spin_lock in the handler, spin_lock_irq in the work), which
 * the lockset phase can see without reasoning about the flag's value.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/spinlock.h>
#include <linux/io.h>

#define RWHO_SAMPLE	0x00
#define RWHO_DRIVE	0x04

struct rwho_dev {
	void __iomem *base;
	spinlock_t lock;		/* guards full and slot */
	bool full;
	u32 slot;
	unsigned long dropped;		/* irq only */
	struct work_struct work;
};

// @expect entry-point rwho_irq irq devm_request_irq
static irqreturn_t rwho_irq(int irq, void *data)
{
	struct rwho_dev *dev = data;
	u32 sample = ioread32(dev->base + RWHO_SAMPLE);

	spin_lock(&dev->lock);
	if (dev->full) {
		spin_unlock(&dev->lock);
		dev->dropped++;
		return IRQ_HANDLED;
	}
	dev->slot = sample;
	dev->full = true;
	spin_unlock(&dev->lock);
	schedule_work(&dev->work);
	return IRQ_HANDLED;
}

// @expect entry-point rwho_work work work_struct.func
static void rwho_work(struct work_struct *work)
{
	struct rwho_dev *dev = container_of(work, struct rwho_dev, work);
	u32 sample;

	spin_lock_irq(&dev->lock);
	if (!dev->full) {
		spin_unlock_irq(&dev->lock);
		return;
	}
	sample = dev->slot;
	dev->full = false;
	spin_unlock_irq(&dev->lock);
	iowrite32(clamp_val(sample, 100, 900), dev->base + RWHO_DRIVE);
}

// @expect proven rwho_irq rwho_work

// @expect init rwho_probe
// @expect entry-point rwho_probe probe platform_driver.probe
static int rwho_probe(struct platform_device *pdev)
{
	struct rwho_dev *dev;
	int irq;

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
	INIT_WORK(&dev->work, rwho_work);
	platform_set_drvdata(pdev, dev);
	return devm_request_irq(&pdev->dev, irq, rwho_irq, 0, "rwservo", dev);
}

// @expect entry-point rwho_remove remove platform_driver.remove
static void rwho_remove(struct platform_device *pdev)
{
	struct rwho_dev *dev = platform_get_drvdata(pdev);

	disable_irq(platform_get_irq(pdev, 0));
	cancel_work_sync(&dev->work);
}

static struct platform_driver rwho_driver = {
	.probe	= rwho_probe,
	.remove	= rwho_remove,
	.driver.name = "rwservo",
};

// @expect entry-point rwho_driver_init module-init module_init
// @expect entry-point rwho_driver_exit module-exit module_exit
module_platform_driver(rwho_driver);

MODULE_DESCRIPTION("racewatch race corpus: mailbox handoff under a spinlock");
MODULE_LICENSE("GPL");
