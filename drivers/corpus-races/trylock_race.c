// SPDX-License-Identifier: GPL-2.0
/*
 * trylock_race.c - non-blocking status poll of a battery gauge, /dev/rwgauge.
 *
 * Race test (case: mutex_trylock success and failure paths). The
 * RWTRY_IOC_POLL ioctl must not sleep, so it uses mutex_trylock(): on
 * success it samples the gauge and counts the poll with the mutex held;
 * on failure it still counts the poll, without the mutex. The failure path
 * races with every other access to the poll counter: ioctl with ioctl and
 * read with ioctl. The fixed twin, trylock_fixed.c, touches the counter
 * only on the success path.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWTRY_CHARGE		0x10
#define RWTRY_IOC_POLL		_IOR('b', 0, __u32)

struct rwtry_report {
	__u32 charge;
	__u32 polls;
};

struct rwtry_dev {
	struct miscdevice misc;
	void __iomem *base;
	struct mutex lock;		/* guards charge and polls */
	u32 charge;
	u32 polls;
};

// @expect entry-point rwtry_ioctl callback file_operations.unlocked_ioctl
static long rwtry_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwtry_dev *dev = container_of(file->private_data,
					     struct rwtry_dev, misc);
	u32 charge;

	if (cmd != RWTRY_IOC_POLL)
		return -ENOTTY;
	if (mutex_trylock(&dev->lock)) {
		dev->charge = ioread32(dev->base + RWTRY_CHARGE);
		charge = dev->charge;
		dev->polls++;	/* @racy */
		mutex_unlock(&dev->lock);
	} else {
		charge = U32_MAX;	/* "busy, try again" */
		dev->polls++;		/* @racy: BUG: the mutex is not held here */
	}
	return copy_to_user((void __user *)arg, &charge, sizeof(charge)) ?
		-EFAULT : 0;
}

// @expect entry-point rwtry_read callback file_operations.read
static ssize_t rwtry_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct rwtry_dev *dev = container_of(file->private_data,
					     struct rwtry_dev, misc);
	struct rwtry_report rep;

	if (count < sizeof(rep))
		return -EINVAL;
	mutex_lock(&dev->lock);
	rep.charge = dev->charge;
	rep.polls = dev->polls;	/* @racy */
	mutex_unlock(&dev->lock);
	if (copy_to_user(buf, &rep, sizeof(rep)))
		return -EFAULT;
	return sizeof(rep);
}

// @expect race rwtry_ioctl rwtry_ioctl "struct rwtry_dev.polls"
// @expect confirmed rwtry_ioctl rwtry_ioctl "struct rwtry_dev.polls"
// @expect race rwtry_ioctl rwtry_read "struct rwtry_dev.polls"
// @expect confirmed rwtry_ioctl rwtry_read "struct rwtry_dev.polls"
/* charge is only touched on the success path, so it races nowhere. */
// @expect proven rwtry_read rwtry_read

static const struct file_operations rwtry_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwtry_ioctl,
	.read		= rwtry_read,
};

// @expect init rwtry_probe
// @expect entry-point rwtry_probe probe platform_driver.probe
static int rwtry_probe(struct platform_device *pdev)
{
	struct rwtry_dev *dev;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	mutex_init(&dev->lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwgauge";
	dev->misc.fops = &rwtry_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	return misc_register(&dev->misc);
}

// @expect entry-point rwtry_remove remove platform_driver.remove
static void rwtry_remove(struct platform_device *pdev)
{
	struct rwtry_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwtry_driver = {
	.probe	= rwtry_probe,
	.remove	= rwtry_remove,
	.driver	= {
		.name	= "rwgauge",
	},
};

// @expect entry-point rwtry_driver_init module-init module_init
// @expect entry-point rwtry_driver_exit module-exit module_exit
module_platform_driver(rwtry_driver);

MODULE_DESCRIPTION("racewatch race corpus: mutex_trylock failure path");
MODULE_LICENSE("GPL");
