// SPDX-License-Identifier: GPL-2.0
/*
 * pci_pm.c - PCI data-acquisition card with system-sleep support.
 *
 * A pci_driver with probe/remove registered by hand-written module_init /
 * module_exit functions (pci_register_driver). Its dev_pm_ops come from
 * DEFINE_SIMPLE_DEV_PM_OPS and reach the driver core through the embedded
 * device_driver: `.driver.pm = pm_sleep_ptr(&rwdaq_pm)`, a nested designator
 * wrapped in a conditional macro, as current drivers write it. The probe
 * allocates one MSI/INTx vector and requests it with request_irq. The
 * acquisition configuration and the sample counters are shared by the
 * interrupt handler, the PM callbacks and remove, under a spinlock.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/spinlock.h>
#include <linux/pm.h>

#define DRV_NAME		"rwdaq"

#define RWDAQ_CTRL		0x00
#define  RWDAQ_CTRL_RUN		BIT(0)
#define  RWDAQ_CTRL_IRQ_EN	BIT(1)
#define RWDAQ_STATUS		0x04
#define  RWDAQ_STATUS_FIFO_HALF	BIT(0)
#define  RWDAQ_STATUS_OVERRUN	BIT(1)
#define RWDAQ_RATE		0x08
#define RWDAQ_GAIN		0x0c
#define RWDAQ_FIFO		0x10
#define RWDAQ_FIFO_HALF		256

struct rwdaq {
	struct pci_dev *pdev;
	void __iomem *regs;
	int irq;
	spinlock_t lock;		/* guards ctrl/rate/gain and counters */
	u32 ctrl;
	u32 rate;
	u32 gain;
	u64 samples;
	u32 overruns;
	u32 ring[RWDAQ_FIFO_HALF];
};

// @expect entry-point rwdaq_irq irq request_irq
static irqreturn_t rwdaq_irq(int irq, void *data)
{
	struct rwdaq *daq = data;
	u32 status = ioread32(daq->regs + RWDAQ_STATUS);

	if (!(status & (RWDAQ_STATUS_FIFO_HALF | RWDAQ_STATUS_OVERRUN)))
		return IRQ_NONE;
	iowrite32(status, daq->regs + RWDAQ_STATUS);

	// @mutation-protects-nothing rwdaq_irq &daq->lock: overruns, samples and
	// ring are used only by this handler, which never runs concurrently with
	// itself, and by remove, which runs after it (free_irq).
	spin_lock(&daq->lock);
	if (status & RWDAQ_STATUS_OVERRUN)
		daq->overruns++;
	if (status & RWDAQ_STATUS_FIFO_HALF) {
		ioread32_rep(daq->regs + RWDAQ_FIFO, daq->ring, RWDAQ_FIFO_HALF);
		daq->samples += RWDAQ_FIFO_HALF;
	}
	spin_unlock(&daq->lock);
	return IRQ_HANDLED;
}

static void rwdaq_hw_setup(struct rwdaq *daq)
{
	iowrite32(daq->rate, daq->regs + RWDAQ_RATE);
	iowrite32(daq->gain, daq->regs + RWDAQ_GAIN);
	iowrite32(daq->ctrl, daq->regs + RWDAQ_CTRL);
}

// @expect entry-point rwdaq_suspend callback dev_pm_ops.suspend
// @expect entry-point rwdaq_suspend callback dev_pm_ops.freeze
// @expect entry-point rwdaq_suspend callback dev_pm_ops.poweroff
static int rwdaq_suspend(struct device *dev)
{
	struct rwdaq *daq = dev_get_drvdata(dev);
	unsigned long flags;

	// @mutation-protects-nothing rwdaq_suspend &daq->lock: rate and gain are
	// shared only with resume and probe, which the device lock serialises with
	// suspend; the handler does not use them.
	spin_lock_irqsave(&daq->lock, flags);
	daq->rate = ioread32(daq->regs + RWDAQ_RATE);
	daq->gain = ioread32(daq->regs + RWDAQ_GAIN);
	iowrite32(0, daq->regs + RWDAQ_CTRL);
	spin_unlock_irqrestore(&daq->lock, flags);
	synchronize_irq(daq->irq);
	return 0;
}

// @expect entry-point rwdaq_resume callback dev_pm_ops.resume
// @expect entry-point rwdaq_resume callback dev_pm_ops.thaw
// @expect entry-point rwdaq_resume callback dev_pm_ops.restore
static int rwdaq_resume(struct device *dev)
{
	struct rwdaq *daq = dev_get_drvdata(dev);
	unsigned long flags;

	// @mutation-protects-nothing rwdaq_resume &daq->lock: it only reads rate,
	// gain and ctrl, written only by suspend and probe, which the device lock
	// serialises with resume; the handler does not use them.
	spin_lock_irqsave(&daq->lock, flags);
	rwdaq_hw_setup(daq);
	spin_unlock_irqrestore(&daq->lock, flags);
	return 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(rwdaq_pm, rwdaq_suspend, rwdaq_resume);

// @expect init rwdaq_probe
// @expect entry-point rwdaq_probe probe pci_driver.probe
static int rwdaq_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct rwdaq *daq;
	int ret;

	daq = devm_kzalloc(&pdev->dev, sizeof(*daq), GFP_KERNEL);
	if (!daq)
		return -ENOMEM;
	daq->pdev = pdev;
	spin_lock_init(&daq->lock);
	daq->rate = 1000;
	daq->gain = 1;
	daq->ctrl = RWDAQ_CTRL_RUN | RWDAQ_CTRL_IRQ_EN;

	ret = pci_enable_device(pdev);
	if (ret)
		return ret;
	ret = pci_request_regions(pdev, DRV_NAME);
	if (ret)
		goto err_disable;
	daq->regs = pci_iomap(pdev, 0, 0);
	if (!daq->regs) {
		ret = -ENOMEM;
		goto err_release;
	}

	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSI | PCI_IRQ_INTX);
	if (ret < 0)
		goto err_unmap;
	daq->irq = pci_irq_vector(pdev, 0);
	pci_set_drvdata(pdev, daq);

	ret = request_irq(daq->irq, rwdaq_irq, IRQF_SHARED, DRV_NAME, daq);
	if (ret)
		goto err_vectors;

	rwdaq_hw_setup(daq);
	return 0;

err_vectors:
	pci_free_irq_vectors(pdev);
err_unmap:
	pci_iounmap(pdev, daq->regs);
err_release:
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
	return ret;
}

// @expect entry-point rwdaq_remove remove pci_driver.remove
static void rwdaq_remove(struct pci_dev *pdev)
{
	struct rwdaq *daq = pci_get_drvdata(pdev);

	iowrite32(0, daq->regs + RWDAQ_CTRL);
	free_irq(daq->irq, daq);
	pci_free_irq_vectors(pdev);
	pci_iounmap(pdev, daq->regs);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	dev_info(&pdev->dev, "%llu samples, %u overruns\n",
		 daq->samples, daq->overruns);
}

static const struct pci_device_id rwdaq_ids[] = {
	{ PCI_DEVICE(0x1d0f, 0xda00) },
	{ }
};
MODULE_DEVICE_TABLE(pci, rwdaq_ids);

static struct pci_driver rwdaq_driver = {
	.name		= DRV_NAME,
	.id_table	= rwdaq_ids,
	.probe		= rwdaq_probe,
	.remove		= rwdaq_remove,
	.driver.pm	= pm_sleep_ptr(&rwdaq_pm),
};

// @expect entry-point rwdaq_init module-init module_init
static int __init rwdaq_init(void)
{
	return pci_register_driver(&rwdaq_driver);
}

// @expect entry-point rwdaq_exit module-exit module_exit
static void __exit rwdaq_exit(void)
{
	pci_unregister_driver(&rwdaq_driver);
}

module_init(rwdaq_init);
module_exit(rwdaq_exit);

MODULE_DESCRIPTION("racewatch corpus: PCI driver with dev_pm_ops");
MODULE_LICENSE("GPL");
