// SPDX-License-Identifier: GPL-2.0
/*
 * tdirq_fixed.c - receive-only serial sensor with an interrupt per byte.
 *
 * Race test (case: remove clears what the interrupt handler uses before
 * freeing the interrupt). remove() clears the receive buffer pointer and
 * only then calls free_irq(); until free_irq() returns, the handler may
 * run on another CPU and use the buffer. The fixed twin, tdirq_fixed.c,
 * frees the interrupt first: free_irq() waits for a running handler and
 * no new one starts.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/interrupt.h>
#include <linux/io.h>

struct tdi_dev {
	void __iomem *base;
	int irq;
	u8 *rxbuf;			/* the handler's, cleared by remove */
	unsigned int head;
};

static struct tdi_dev tdi_state;
static u8 tdi_ring[64];

// @expect entry-point tdi_irq irq request_irq
static irqreturn_t tdi_irq(int irq, void *data)
{
	struct tdi_dev *dev = data;
	u8 *buf = dev->rxbuf;

	if (!buf)
		return IRQ_NONE;
	buf[dev->head++ & 63] = ioread8(dev->base);
	return IRQ_HANDLED;
}

// @expect init tdi_probe
// @expect entry-point tdi_probe probe platform_driver.probe
static int tdi_probe(struct platform_device *pdev)
{
	struct tdi_dev *dev = &tdi_state;

	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	dev->irq = platform_get_irq(pdev, 0);
	if (dev->irq < 0)
		return dev->irq;
	dev->rxbuf = tdi_ring;
	dev->head = 0;
	return request_irq(dev->irq, tdi_irq, 0, "tdirq", dev);
}

// @expect entry-point tdi_remove remove platform_driver.remove
static void tdi_remove(struct platform_device *pdev)
{
	struct tdi_dev *dev = &tdi_state;

	free_irq(dev->irq, dev);	/* waits for a running handler */
	dev->rxbuf = NULL;
}

static struct platform_driver tdi_driver = {
	.probe	= tdi_probe,
	.remove	= tdi_remove,
	.driver	= {
		.name	= "tdirq",
	},
};

// @expect entry-point tdi_driver_init module-init module_init
// @expect entry-point tdi_driver_exit module-exit module_exit
module_platform_driver(tdi_driver);

MODULE_DESCRIPTION("racewatch race corpus: state cleared before free_irq in remove");
MODULE_LICENSE("GPL");
