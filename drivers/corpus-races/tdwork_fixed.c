// SPDX-License-Identifier: GPL-2.0
/*
 * tdwork_fixed.c - sensor hub whose readings are converted by a work item.
 *
 * Race test (case: work item not cancelled in remove). The interrupt
 * handler queues the conversion work; remove() frees the interrupt, so the
 * handler no longer queues it, but does not cancel or flush the work
 * already queued, and then clears the calibration table the work reads.
 * The fixed twin, tdwork_fixed.c, cancels the work (cancel_work_sync()
 * in a helper) after free_irq() and before clearing the table.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/io.h>

struct tdw_dev {
	void __iomem *base;
	int irq;
	const u16 *calib;		/* read by the work, cleared by remove */
	u32 value;
	struct work_struct convert;
};

static struct tdw_dev tdw_state;
static const u16 tdw_table[4] = { 1, 2, 4, 8 };

// @expect entry-point tdw_convert work work_struct.func
static void tdw_convert(struct work_struct *work)
{
	struct tdw_dev *dev = container_of(work, struct tdw_dev, convert);
	const u16 *calib = dev->calib;

	if (calib)
		dev->value = ioread32(dev->base) * calib[0];
}

// @expect entry-point tdw_irq irq request_irq
static irqreturn_t tdw_irq(int irq, void *data)
{
	struct tdw_dev *dev = data;

	schedule_work(&dev->convert);
	return IRQ_HANDLED;
}

// @expect init tdw_probe
// @expect entry-point tdw_probe probe platform_driver.probe
static int tdw_probe(struct platform_device *pdev)
{
	struct tdw_dev *dev = &tdw_state;

	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	dev->irq = platform_get_irq(pdev, 0);
	if (dev->irq < 0)
		return dev->irq;
	dev->calib = tdw_table;
	INIT_WORK(&dev->convert, tdw_convert);
	return request_irq(dev->irq, tdw_irq, 0, "tdwork", dev);
}

/* Stops everything that reads the device: the interrupt first, since its
 * handler queues the work, then the work. */
static void tdw_stop(struct tdw_dev *dev)
{
	free_irq(dev->irq, dev);
	cancel_work_sync(&dev->convert);
}

// @expect entry-point tdw_remove remove platform_driver.remove
static void tdw_remove(struct platform_device *pdev)
{
	struct tdw_dev *dev = &tdw_state;

	tdw_stop(dev);
	dev->calib = NULL;
}

static struct platform_driver tdw_driver = {
	.probe	= tdw_probe,
	.remove	= tdw_remove,
	.driver	= {
		.name	= "tdwork",
	},
};

// @expect entry-point tdw_driver_init module-init module_init
// @expect entry-point tdw_driver_exit module-exit module_exit
module_platform_driver(tdw_driver);

MODULE_DESCRIPTION("racewatch race corpus: a work item not cancelled in remove");
MODULE_LICENSE("GPL");
