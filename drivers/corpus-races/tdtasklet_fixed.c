// SPDX-License-Identifier: GPL-2.0
/*
 * tdtasklet_fixed.c - event counter whose interrupt defers to a tasklet.
 *
 * Race test (case: tasklet not killed in remove). The interrupt handler
 * schedules the tasklet; remove() frees the interrupt, so no new
 * scheduling comes from it, but a tasklet already scheduled or running
 * still reads the event log that remove() then clears. The fixed twin,
 * tdtasklet_fixed.c, calls tasklet_kill() after free_irq().
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/interrupt.h>
#include <linux/io.h>

struct tdk_dev {
	void __iomem *base;
	int irq;
	u32 *log;			/* the tasklet's, cleared by remove */
	struct tasklet_struct bh;
};

static struct tdk_dev tdk_state;
static u32 tdk_events[16];

// @expect entry-point tdk_bh tasklet tasklet_setup
static void tdk_bh(struct tasklet_struct *t)
{
	struct tdk_dev *dev = from_tasklet(dev, t, bh);
	u32 *log = dev->log;

	if (log)
		log[0] += ioread32(dev->base);
}

// @expect entry-point tdk_irq irq request_irq
static irqreturn_t tdk_irq(int irq, void *data)
{
	struct tdk_dev *dev = data;

	tasklet_schedule(&dev->bh);
	return IRQ_HANDLED;
}

// @expect init tdk_probe
// @expect entry-point tdk_probe probe platform_driver.probe
static int tdk_probe(struct platform_device *pdev)
{
	struct tdk_dev *dev = &tdk_state;

	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	dev->irq = platform_get_irq(pdev, 0);
	if (dev->irq < 0)
		return dev->irq;
	dev->log = tdk_events;
	tasklet_setup(&dev->bh, tdk_bh);
	return request_irq(dev->irq, tdk_irq, 0, "tdtasklet", dev);
}

// @expect entry-point tdk_remove remove platform_driver.remove
static void tdk_remove(struct platform_device *pdev)
{
	struct tdk_dev *dev = &tdk_state;

	free_irq(dev->irq, dev);	/* no new scheduling from the handler */
	tasklet_kill(&dev->bh);		/* waits for a scheduled or running tasklet */
	dev->log = NULL;
}

static struct platform_driver tdk_driver = {
	.probe	= tdk_probe,
	.remove	= tdk_remove,
	.driver	= {
		.name	= "tdtasklet",
	},
};

// @expect entry-point tdk_driver_init module-init module_init
// @expect entry-point tdk_driver_exit module-exit module_exit
module_platform_driver(tdk_driver);

MODULE_DESCRIPTION("racewatch race corpus: a tasklet not killed in remove");
MODULE_LICENSE("GPL");
