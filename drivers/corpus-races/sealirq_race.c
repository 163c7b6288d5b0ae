// SPDX-License-Identifier: GPL-2.0
/*
 * sealirq_race.c - a button panel whose interrupt handler reports keys to
 * the input core.
 *
 * Race test (case: a quiesced IRQ handler that calls a kernel function
 * without model). The handler calls input_event() (through
 * input_report_key), which racewatch has no model of: such a call may
 * register callbacks, but it cannot request this handler again, because
 * only the IRQ request functions install a handler and they take the
 * handler itself (kernel/irq/manage.c __setup_irq), which the driver
 * passes to nothing else. The work item that reports the keys calls it
 * too, and may still run while remove frees the interrupt. So free_irq() in remove stops the handler for
 * good. Here remove clears the handler's buffer pointer before free_irq(),
 * while the handler may run on another CPU: a race. The fixed twin,
 * sealirq_fixed.c, calls free_irq() first and is proven.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/interrupt.h>
#include <linux/input.h>
#include <linux/io.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

struct sei_dev {
	void __iomem *base;
	int irq;
	struct input_dev *input;
	u8 *keymap;			/* the handler's, cleared by remove */
	spinlock_t lock;		/* protects pending */
	unsigned int pending;		/* key codes for the work item */
	struct work_struct report;
};

static struct sei_dev sei_state;
static u8 sei_keys[16] = { KEY_A, KEY_B, KEY_C, KEY_D };

// @expect entry-point sei_irq irq request_irq
static irqreturn_t sei_irq(int irq, void *data)
{
	struct sei_dev *dev = data;
	u8 *map = dev->keymap; // @racy
	u8 code;

	if (!map)
		return IRQ_NONE;
	code = ioread8(dev->base) & 15;
	spin_lock(&dev->lock);
	dev->pending = map[code];
	spin_unlock(&dev->lock);
	schedule_work(&dev->report);
	return IRQ_HANDLED;
}

// @expect entry-point sei_report work work_struct.func
static void sei_report(struct work_struct *work)
{
	struct sei_dev *dev = container_of(work, struct sei_dev, report);
	unsigned int code;

	spin_lock_irq(&dev->lock);
	code = dev->pending;
	spin_unlock_irq(&dev->lock);
	input_report_key(dev->input, code, 1);
	input_sync(dev->input);
}

// @expect init sei_probe
// @expect entry-point sei_probe probe platform_driver.probe
static int sei_probe(struct platform_device *pdev)
{
	struct sei_dev *dev = &sei_state;
	int err;

	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	dev->irq = platform_get_irq(pdev, 0);
	if (dev->irq < 0)
		return dev->irq;
	dev->input = devm_input_allocate_device(&pdev->dev);
	if (!dev->input)
		return -ENOMEM;
	dev->keymap = sei_keys;
	spin_lock_init(&dev->lock);
	INIT_WORK(&dev->report, sei_report);
	err = input_register_device(dev->input);
	if (err)
		return err;
	return request_irq(dev->irq, sei_irq, 0, "sealirq", dev);
}

// @expect entry-point sei_remove remove platform_driver.remove
static void sei_remove(struct platform_device *pdev)
{
	struct sei_dev *dev = &sei_state;

	dev->keymap = NULL; // @racy
	free_irq(dev->irq, dev);
	cancel_work_sync(&dev->report);
}
// @expect race sei_irq sei_remove "struct sei_dev.keymap"
// @expect confirmed sei_irq sei_remove "struct sei_dev.keymap"

static struct platform_driver sei_driver = {
	.probe	= sei_probe,
	.remove	= sei_remove,
	.driver	= {
		.name	= "sealirq",
	},
};

// @expect entry-point sei_driver_init module-init module_init
// @expect entry-point sei_driver_exit module-exit module_exit
module_platform_driver(sei_driver);

MODULE_DESCRIPTION("racewatch race corpus: an IRQ handler calling an unmodelled function, cleared before free_irq");
MODULE_LICENSE("GPL");
