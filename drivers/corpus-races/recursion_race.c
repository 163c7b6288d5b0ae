// SPDX-License-Identifier: GPL-2.0
/*
 * recursion_race.c - per-zone hit counters of a touch controller, /dev/rwzones.
 *
 * Race test (case: recursion). The zones form a tree fixed at probe time.
 * The irq handler counts hits under the device spinlock; RWRC_IOC_CLEAR
 * clears a subtree with the recursive helper rwrc_clear(), which takes
 * the lock at each level but clears the counter after releasing it: that
 * write races with the handler and with other ioctls (clear or get). The
 * fixed twin, recursion_fixed.c, clears inside the locked section.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/spinlock.h>
#include <linux/io.h>
#include <linux/fs.h>

#define RWRC_NZONES		8
#define RWRC_ZONE_REG		0x00
#define RWRC_IOC_CLEAR		_IO('z', 0)
#define RWRC_IOC_GET		_IO('z', 1)

struct rwrc_zone {
	u8 first_child, next_sibling;	/* topology: set in probe only */
	u32 hits;			/* guarded by rwrc_dev.lock */
};

struct rwrc_dev {
	struct miscdevice misc;
	void __iomem *base;
	spinlock_t lock;
	unsigned long clears;
	struct rwrc_zone zones[RWRC_NZONES];
};

static void rwrc_clear(struct rwrc_dev *dev, unsigned int idx, unsigned int depth)
{
	struct rwrc_zone *z;

	if (idx >= RWRC_NZONES || depth > RWRC_NZONES)
		return;
	z = &dev->zones[idx];
	spin_lock_irq(&dev->lock);
	dev->clears++;
	spin_unlock_irq(&dev->lock);
	z->hits = 0;			/* @racy: BUG: outside the locked section */
	rwrc_clear(dev, z->first_child, depth + 1);
	rwrc_clear(dev, z->next_sibling, depth + 1);
}

// @expect entry-point rwrc_irq irq devm_request_irq
static irqreturn_t rwrc_irq(int irq, void *data)
{
	struct rwrc_dev *dev = data;
	u32 zone = ioread32(dev->base + RWRC_ZONE_REG) % RWRC_NZONES;

	spin_lock(&dev->lock);
	dev->zones[zone].hits++;	/* @racy */
	spin_unlock(&dev->lock);
	return IRQ_HANDLED;
}

// @expect entry-point rwrc_ioctl callback file_operations.unlocked_ioctl
static long rwrc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwrc_dev *dev = container_of(file->private_data,
					    struct rwrc_dev, misc);
	long ret;

	if (arg >= RWRC_NZONES)
		return -EINVAL;
	switch (cmd) {
	case RWRC_IOC_CLEAR:
		rwrc_clear(dev, arg, 0);
		return 0;
	case RWRC_IOC_GET:
		spin_lock_irq(&dev->lock);
		ret = dev->zones[arg].hits;	/* @racy */
		spin_unlock_irq(&dev->lock);
		return ret;
	default:
		return -ENOTTY;
	}
}

// @expect race rwrc_irq rwrc_ioctl "struct rwrc_zone.hits"
// @expect confirmed rwrc_irq rwrc_ioctl "struct rwrc_zone.hits"
// @expect race rwrc_ioctl rwrc_ioctl "struct rwrc_zone.hits"
// @expect confirmed rwrc_ioctl rwrc_ioctl "struct rwrc_zone.hits"

static const struct file_operations rwrc_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwrc_ioctl,
};

// @expect init rwrc_probe
// @expect entry-point rwrc_probe probe platform_driver.probe
static int rwrc_probe(struct platform_device *pdev)
{
	struct rwrc_dev *dev;
	int i, irq, ret;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	for (i = 0; i < RWRC_NZONES; i++) {	/* a binary tree in an array */
		dev->zones[i].first_child = 2 * i + 1;
		dev->zones[i].next_sibling = (i & 1) ? i + 1 : U8_MAX;
	}
	spin_lock_init(&dev->lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwzones";
	dev->misc.fops = &rwrc_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);

	ret = devm_request_irq(&pdev->dev, irq, rwrc_irq, 0, "rwzones", dev);
	if (ret)
		return ret;
	return misc_register(&dev->misc);
}

// @expect entry-point rwrc_remove remove platform_driver.remove
static void rwrc_remove(struct platform_device *pdev)
{
	struct rwrc_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwrc_driver = {
	.probe	= rwrc_probe,
	.remove	= rwrc_remove,
	.driver	= {
		.name	= "rwzones",
	},
};

// @expect entry-point rwrc_driver_init module-init module_init
// @expect entry-point rwrc_driver_exit module-exit module_exit
module_platform_driver(rwrc_driver);

MODULE_DESCRIPTION("racewatch race corpus: recursive helper writes outside its lock");
MODULE_LICENSE("GPL");
