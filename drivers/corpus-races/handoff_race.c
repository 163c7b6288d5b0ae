// SPDX-License-Identifier: GPL-2.0
/*
 * handoff_race.c - sample-to-actuator loop of a servo controller.
 *
 * Race test (case: a value-based guard, expected false alarm). The
 * interrupt handler (the only producer) and a work item (the only
 * consumer) hand one sample over through a one-slot mailbox: the handler
 * writes the slot only while the atomic flag says "empty" and then marks
 * it full with release ordering; the work reads the slot only while the
 * flag says "full" and then marks it empty. An irq handler and a work item
 * never run concurrently with themselves, so this is correct - but no
 * lock is held at either access, and the lockset phase, which gives shared
 * reads (the flag) arbitrary values, reports a race on the slot. The fixed
 * twin, handoff_fixed.c, uses a spinlock, which the lockset phase proves.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/atomic.h>
#include <linux/io.h>

#define RWHO_SAMPLE	0x00
#define RWHO_DRIVE	0x04

struct rwho_dev {
	void __iomem *base;
	atomic_t full;			/* owner of slot: 0 irq, 1 work */
	u32 slot;
	unsigned long dropped;		/* irq only */
	struct work_struct work;
};

// @expect entry-point rwho_irq irq devm_request_irq
static irqreturn_t rwho_irq(int irq, void *data)
{
	struct rwho_dev *dev = data;
	u32 sample = ioread32(dev->base + RWHO_SAMPLE);

	if (atomic_read_acquire(&dev->full)) {
		dev->dropped++;
		return IRQ_HANDLED;
	}
	dev->slot = sample;
	atomic_set_release(&dev->full, 1);
	schedule_work(&dev->work);
	return IRQ_HANDLED;
}

// @expect entry-point rwho_work work work_struct.func
static void rwho_work(struct work_struct *work)
{
	struct rwho_dev *dev = container_of(work, struct rwho_dev, work);
	u32 sample;

	if (!atomic_read_acquire(&dev->full))
		return;
	sample = dev->slot;
	atomic_set_release(&dev->full, 0);
	iowrite32(clamp_val(sample, 100, 900), dev->base + RWHO_DRIVE);
}

// false alarm: the flag hands the slot from the single producer to the
// single consumer; the precise phase should refute this report.
// @expect race rwho_irq rwho_work "struct rwho_dev.slot"
// @expect not-found rwho_irq rwho_work "struct rwho_dev.slot"

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
	atomic_set(&dev->full, 0);
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

MODULE_DESCRIPTION("racewatch race corpus: flag handoff, a lockset false alarm");
MODULE_LICENSE("GPL");
