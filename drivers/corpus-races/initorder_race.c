// SPDX-License-Identifier: GPL-2.0
/*
 * initorder_race.c - light barrier with an interrupt per crossing.
 *
 * Race test (case: initialised after the registration that makes its
 * reader live). probe() requests the interrupt and only then reads the
 * gain from the firmware into the device structure. From the moment
 * devm_request_irq() returns, the handler may run on another CPU and it
 * reads the gain while probe is still writing it. The calibration work
 * item queued earlier never touches the gain. The fixed twin,
 * initorder_fixed.c, writes the gain before requesting the interrupt.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/io.h>

#define RWIO_COUNT	0x00
#define RWIO_CALIB	0x04

struct rwio_dev {
	void __iomem *base;
	u32 gain;			/* read by the interrupt handler */
	u32 calib;			/* the calibration work's only */
	struct work_struct calib_work;
};

static struct rwio_dev rwio_state;

// @expect entry-point rwio_irq irq devm_request_irq
static irqreturn_t rwio_irq(int irq, void *data)
{
	struct rwio_dev *dev = data;

	iowrite32(dev->gain, dev->base + RWIO_COUNT);	/* @racy */
	return IRQ_HANDLED;
}

// @expect entry-point rwio_calibrate work work_struct.func
static void rwio_calibrate(struct work_struct *work)
{
	struct rwio_dev *dev = container_of(work, struct rwio_dev, calib_work);

	dev->calib = ioread32(dev->base + RWIO_CALIB);
}

// @expect init rwio_probe
// @expect entry-point rwio_probe probe platform_driver.probe
static int rwio_probe(struct platform_device *pdev)
{
	struct rwio_dev *dev;
	u32 gain = 1;
	int irq, ret;

	dev = &rwio_state;	/* one device: the state is static */
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	INIT_WORK(&dev->calib_work, rwio_calibrate);
	schedule_work(&dev->calib_work);
	ret = devm_request_irq(&pdev->dev, irq, rwio_irq, 0, "rwio", dev);	/* BUG: live from here on */
	if (ret)
		return ret;
	device_property_read_u32(&pdev->dev, "racewatch,gain", &gain);
	dev->gain = gain;	/* @racy */
	platform_set_drvdata(pdev, dev);
	return 0;
}

// @expect race rwio_irq rwio_probe "struct rwio_dev.gain"
// @expect confirmed rwio_irq rwio_probe "struct rwio_dev.gain"
// @expect proven rwio_calibrate rwio_probe
// @expect proven rwio_irq rwio_calibrate

// @expect entry-point rwio_remove remove platform_driver.remove
static void rwio_remove(struct platform_device *pdev)
{
	struct rwio_dev *dev = platform_get_drvdata(pdev);

	cancel_work_sync(&dev->calib_work);
}

static struct platform_driver rwio_driver = {
	.probe	= rwio_probe,
	.remove	= rwio_remove,
	.driver	= {
		.name	= "rwio",
	},
};

// @expect entry-point rwio_driver_init module-init module_init
// @expect entry-point rwio_driver_exit module-exit module_exit
module_platform_driver(rwio_driver);

MODULE_DESCRIPTION("racewatch race corpus: state initialised after the registration of its reader");
MODULE_LICENSE("GPL");
