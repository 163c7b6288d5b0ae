// SPDX-License-Identifier: GPL-2.0
/*
 * rwlock_race.c - request-line router of a DMA multiplexer, /dev/rwdmamux.
 *
 * Race test (case: rwlock_t, reader-reader and reader-writer). The routing
 * table is read far more often than written, so it sits under an rwlock:
 * the request interrupt and read() look it up with read_lock(), and two
 * readers never race even though both hold the lock shared. But the
 * RWRL_IOC_ROUTE ioctl updates the table under read_lock() too - a shared
 * hold excludes no reader - so it races with the irq handler, read() and
 * another ioctl. The fixed twin, rwlock_fixed.c, uses write_lock_irqsave().
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/spinlock.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWRL_NREQ		16
#define RWRL_REQ_SRC		0x00
#define RWRL_REQ_GRANT		0x04
#define RWRL_IOC_ROUTE		_IO('r', 0)	/* arg: request << 8 | channel */

struct rwrl_table {
	__u8 channel[RWRL_NREQ];
};

struct rwrl_dev {
	struct miscdevice misc;
	void __iomem *base;
	rwlock_t map_lock;		/* guards route[] */
	u8 route[RWRL_NREQ];
};

// @expect entry-point rwrl_irq irq devm_request_irq
static irqreturn_t rwrl_irq(int irq, void *data)
{
	struct rwrl_dev *dev = data;
	u32 src = ioread32(dev->base + RWRL_REQ_SRC) % RWRL_NREQ;
	u8 ch;

	read_lock(&dev->map_lock);
	ch = dev->route[src];	/* @racy */
	read_unlock(&dev->map_lock);
	iowrite32(ch, dev->base + RWRL_REQ_GRANT);
	return IRQ_HANDLED;
}

// @expect entry-point rwrl_read callback file_operations.read
static ssize_t rwrl_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwrl_dev *dev = container_of(file->private_data,
					    struct rwrl_dev, misc);
	struct rwrl_table t;
	unsigned long flags;
	int i;

	if (count < sizeof(t))
		return -EINVAL;
	read_lock_irqsave(&dev->map_lock, flags);
	for (i = 0; i < RWRL_NREQ; i++)
		t.channel[i] = dev->route[i];	/* @racy */
	read_unlock_irqrestore(&dev->map_lock, flags);
	return copy_to_user(buf, &t, sizeof(t)) ? -EFAULT : sizeof(t);
}

// @expect entry-point rwrl_ioctl callback file_operations.unlocked_ioctl
static long rwrl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwrl_dev *dev = container_of(file->private_data,
					    struct rwrl_dev, misc);
	unsigned int req = (arg >> 8) & 0xff;
	unsigned long flags;

	if (cmd != RWRL_IOC_ROUTE)
		return -ENOTTY;
	if (req >= RWRL_NREQ)
		return -EINVAL;
	read_lock_irqsave(&dev->map_lock, flags);	/* BUG: shared hold */
	dev->route[req] = arg & 0xff;	/* @racy */
	read_unlock_irqrestore(&dev->map_lock, flags);
	return 0;
}

/* Readers only: a shared hold on both sides is enough. */
// @expect proven rwrl_irq rwrl_read
// @expect proven rwrl_read rwrl_read
// @expect race rwrl_irq rwrl_ioctl "struct rwrl_dev.route"
// @expect confirmed rwrl_irq rwrl_ioctl "struct rwrl_dev.route"
// @expect race rwrl_read rwrl_ioctl "struct rwrl_dev.route"
// @expect confirmed rwrl_read rwrl_ioctl "struct rwrl_dev.route"
// @expect race rwrl_ioctl rwrl_ioctl "struct rwrl_dev.route"
// @expect confirmed rwrl_ioctl rwrl_ioctl "struct rwrl_dev.route"

static const struct file_operations rwrl_fops = {
	.owner		= THIS_MODULE,
	.read		= rwrl_read,
	.unlocked_ioctl	= rwrl_ioctl,
};

// @expect init rwrl_probe
// @expect entry-point rwrl_probe probe platform_driver.probe
static int rwrl_probe(struct platform_device *pdev)
{
	struct rwrl_dev *dev;
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
	rwlock_init(&dev->map_lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwdmamux";
	dev->misc.fops = &rwrl_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);

	ret = devm_request_irq(&pdev->dev, irq, rwrl_irq, 0, "rwdmamux", dev);
	if (ret)
		return ret;
	return misc_register(&dev->misc);
}

// @expect entry-point rwrl_remove remove platform_driver.remove
static void rwrl_remove(struct platform_device *pdev)
{
	struct rwrl_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwrl_driver = {
	.probe	= rwrl_probe,
	.remove	= rwrl_remove,
	.driver.name = "rwdmamux",
};

// @expect entry-point rwrl_driver_init module-init module_init
// @expect entry-point rwrl_driver_exit module-exit module_exit
module_platform_driver(rwrl_driver);

MODULE_DESCRIPTION("racewatch race corpus: table update under a read lock");
MODULE_LICENSE("GPL");
