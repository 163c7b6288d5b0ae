// SPDX-License-Identifier: GPL-2.0
/*
 * tasklet_race.c - receive statistics of a frame FIFO, /dev/rwrxstat.
 *
 * Race test (case: a tasklet and an ioctl). The interrupt handler only
 * schedules a tasklet; the tasklet drains the receive FIFO and counts
 * frames and bytes. The RWTK_IOC_GET ioctl reads the counters and
 * RWTK_IOC_RESET clears them, with no lock: the tasklet (softirq context,
 * any CPU) races with the ioctl on both counters, and two ioctls race with
 * each other (a reset against a reset or a get). The tasklet never runs
 * concurrently with itself. The fixed twin, tasklet_fixed.c, takes a
 * spinlock in the tasklet and spin_lock_bh() in the ioctl.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWTK_RX_LEN		0x00	/* 0: FIFO empty */
#define RWTK_RX_POP		0x04
#define RWTK_IOC_GET		_IOR('k', 0, struct rwtk_stats)
#define RWTK_IOC_RESET		_IO('k', 1)

struct rwtk_stats {
	__u64 frames;
	__u64 bytes;
};

struct rwtk_dev {
	struct miscdevice misc;
	void __iomem *base;
	struct tasklet_struct rx_tasklet;
	u64 rx_frames, rx_bytes;
};

// @expect entry-point rwtk_rx_tasklet tasklet tasklet_setup
static void rwtk_rx_tasklet(struct tasklet_struct *t)
{
	struct rwtk_dev *dev = from_tasklet(dev, t, rx_tasklet);
	u32 len;

	while ((len = ioread32(dev->base + RWTK_RX_LEN)) != 0) {
		dev->rx_frames++;	/* @racy */
		dev->rx_bytes += len;	/* @racy */
		iowrite32(1, dev->base + RWTK_RX_POP);
	}
}

// @expect entry-point rwtk_irq irq devm_request_irq
static irqreturn_t rwtk_irq(int irq, void *data)
{
	struct rwtk_dev *dev = data;

	tasklet_schedule(&dev->rx_tasklet);
	return IRQ_HANDLED;
}

// @expect entry-point rwtk_ioctl callback file_operations.unlocked_ioctl
static long rwtk_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwtk_dev *dev = container_of(file->private_data,
					    struct rwtk_dev, misc);
	struct rwtk_stats st;

	switch (cmd) {
	case RWTK_IOC_GET:
		st.frames = dev->rx_frames;	/* @racy */
		st.bytes = dev->rx_bytes;	/* @racy */
		return copy_to_user((void __user *)arg, &st, sizeof(st)) ? -EFAULT : 0;
	case RWTK_IOC_RESET:
		dev->rx_frames = 0;	/* @racy */
		dev->rx_bytes = 0;	/* @racy */
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect race rwtk_rx_tasklet rwtk_ioctl "struct rwtk_dev.rx_frames"
// @expect confirmed rwtk_rx_tasklet rwtk_ioctl "struct rwtk_dev.rx_frames"
// @expect race rwtk_rx_tasklet rwtk_ioctl "struct rwtk_dev.rx_bytes"
// @expect confirmed rwtk_rx_tasklet rwtk_ioctl "struct rwtk_dev.rx_bytes"
// @expect race rwtk_ioctl rwtk_ioctl "struct rwtk_dev.rx_frames"
// @expect confirmed rwtk_ioctl rwtk_ioctl "struct rwtk_dev.rx_frames"
// @expect race rwtk_ioctl rwtk_ioctl "struct rwtk_dev.rx_bytes"
// @expect confirmed rwtk_ioctl rwtk_ioctl "struct rwtk_dev.rx_bytes"
// @expect proven rwtk_rx_tasklet rwtk_irq

static const struct file_operations rwtk_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwtk_ioctl,
};

// @expect init rwtk_probe
// @expect entry-point rwtk_probe probe platform_driver.probe
static int rwtk_probe(struct platform_device *pdev)
{
	struct rwtk_dev *dev;
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
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwrxstat";
	dev->misc.fops = &rwtk_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	tasklet_setup(&dev->rx_tasklet, rwtk_rx_tasklet);

	ret = devm_request_irq(&pdev->dev, irq, rwtk_irq, 0, "rwrxstat", dev);
	if (ret)
		return ret;
	return misc_register(&dev->misc);
}

// @expect entry-point rwtk_remove remove platform_driver.remove
static void rwtk_remove(struct platform_device *pdev)
{
	struct rwtk_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
	tasklet_kill(&dev->rx_tasklet);
}

static struct platform_driver rwtk_driver = {
	.probe	= rwtk_probe,
	.remove	= rwtk_remove,
	.driver.name = "rwrxstat",
};

// @expect entry-point rwtk_driver_init module-init module_init
// @expect entry-point rwtk_driver_exit module-exit module_exit
module_platform_driver(rwtk_driver);

MODULE_DESCRIPTION("racewatch race corpus: tasklet against an unlocked ioctl");
MODULE_LICENSE("GPL");
