// SPDX-License-Identifier: GPL-2.0
/*
 * qobject_race.c - a sensor hub with two work items: one polls the
 * sensors, one uploads firmware blocks.
 *
 * Race test (case: which object a quiescing call stops). The two work
 * items are two fields of the private structure, each bound to its own
 * function by INIT_WORK. cancel_work_sync() names one of them, and stops
 * only the function bound to that object (kernel/workqueue.c
 * __cancel_work: it waits for and dequeues that work_struct alone). Here
 * remove cancels the firmware work but then frees the poll work's sample
 * buffer while the poll work may still run: a race. The fixed twin,
 * qobject_fixed.c, cancels the poll work before it frees the buffer and
 * is proven, although the file registers two work items.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/workqueue.h>
#include <linux/slab.h>
#include <linux/io.h>

struct qob_dev {
	void __iomem *base;
	u32 *samples;			/* the poll work's */
	unsigned int nsamples;
	u32 fw_block;			/* the firmware work's */
	struct work_struct poll_work;
	struct work_struct fw_work;
};

static struct qob_dev *qob_hub;

// @expect entry-point qob_poll work work_struct.func
static void qob_poll(struct work_struct *work)
{
	struct qob_dev *dev = container_of(work, struct qob_dev, poll_work);
	u32 *buf = dev->samples; // @racy

	if (buf)
		buf[0] = ioread32(dev->base);
}

// @expect entry-point qob_fw work work_struct.func
static void qob_fw(struct work_struct *work)
{
	struct qob_dev *dev = container_of(work, struct qob_dev, fw_work);

	iowrite32(dev->fw_block, dev->base + 4);
}

// @expect init qob_probe
// @expect entry-point qob_probe probe platform_driver.probe
static int qob_probe(struct platform_device *pdev)
{
	struct qob_dev *dev;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	dev->samples = devm_kcalloc(&pdev->dev, 16, sizeof(u32), GFP_KERNEL);
	if (!dev->samples)
		return -ENOMEM;
	dev->nsamples = 16;
	INIT_WORK(&dev->poll_work, qob_poll);
	INIT_WORK(&dev->fw_work, qob_fw);
	qob_hub = dev;
	schedule_work(&dev->poll_work);
	schedule_work(&dev->fw_work);
	return 0;
}

// @expect entry-point qob_remove remove platform_driver.remove
static void qob_remove(struct platform_device *pdev)
{
	struct qob_dev *dev = qob_hub;

	cancel_work_sync(&dev->fw_work);
	dev->samples = NULL; // @racy
	cancel_work_sync(&dev->poll_work);
}
// @expect race qob_poll qob_remove "struct qob_dev.samples"
// @expect confirmed qob_poll qob_remove "struct qob_dev.samples"

static struct platform_driver qob_driver = {
	.probe	= qob_probe,
	.remove	= qob_remove,
	.driver	= {
		.name	= "qobject",
	},
};

// @expect entry-point qob_driver_init module-init module_init
// @expect entry-point qob_driver_exit module-exit module_exit
module_platform_driver(qob_driver);

MODULE_DESCRIPTION("racewatch race corpus: the work item a cancel names");
MODULE_LICENSE("GPL");
