// SPDX-License-Identifier: GPL-2.0
/*
 * tasklet_fixed.c - receive statistics of a frame FIFO, /dev/rwrxstat.
 *
 * Fixed twin of tasklet_race.c (case: a tasklet and an ioctl). The
 * tasklet counts received frames and bytes under the device spinlock, and
 * the ioctl reads or clears them under the same lock taken with
 * spin_lock_bh(), which also keeps the tasklet from interrupting it on its
 * own CPU. Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/spinlock.h>
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
	spinlock_t lock;		/* guards the counters */
	u64 rx_frames, rx_bytes;
};

// @expect entry-point rwtk_rx_tasklet tasklet tasklet_setup
static void rwtk_rx_tasklet(struct tasklet_struct *t)
{
	struct rwtk_dev *dev = from_tasklet(dev, t, rx_tasklet);
	u32 len;

	while ((len = ioread32(dev->base + RWTK_RX_LEN)) != 0) {
		spin_lock(&dev->lock);
		dev->rx_frames++;
		dev->rx_bytes += len;
		spin_unlock(&dev->lock);
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
		spin_lock_bh(&dev->lock);
		st.frames = dev->rx_frames;
		st.bytes = dev->rx_bytes;
		spin_unlock_bh(&dev->lock);
		return copy_to_user((void __user *)arg, &st, sizeof(st)) ? -EFAULT : 0;
	case RWTK_IOC_RESET:
		spin_lock_bh(&dev->lock);
		dev->rx_frames = 0;
		dev->rx_bytes = 0;
		spin_unlock_bh(&dev->lock);
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect proven rwtk_rx_tasklet rwtk_ioctl
// @expect proven rwtk_ioctl rwtk_ioctl
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
	spin_lock_init(&dev->lock);
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

MODULE_DESCRIPTION("racewatch race corpus: tasklet and ioctl under one spinlock");
MODULE_LICENSE("GPL");
