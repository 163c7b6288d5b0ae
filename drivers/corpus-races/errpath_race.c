// SPDX-License-Identifier: GPL-2.0
/*
 * errpath_race.c - register window of a write-only block, /dev/rwregs.
 *
 * Race test (case: early returns and goto error paths). The
 * RWEP_IOC_WRITE ioctl validates its argument with early returns before
 * taking the mutex, then leaves through a single out_unlock label from
 * two places (nothing to do, success). The hardware-error path is the
 * exception: it unlocks by itself and only then counts the error, so
 * errors is written without the lock there and races with other ioctls
 * and with read(). The fixed twin, errpath_fixed.c, sends the error path
 * through out_unlock as well.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWEP_NREGS	16
#define RWEP_ADDR	0x00
#define RWEP_DATA	0x04
#define RWEP_STATUS	0x08
#define RWEP_IOC_WRITE	_IOW('e', 0, struct rwep_req)

struct rwep_req {
	__u32 reg;
	__u32 val;
};

struct rwep_dev {
	struct miscdevice misc;
	void __iomem *base;
	struct mutex lock;		/* guards everything below */
	u32 shadow[RWEP_NREGS];
	u32 writes, errors;
};

static int rwep_hw_write(struct rwep_dev *dev, u32 reg, u32 val)
{
	iowrite32(reg, dev->base + RWEP_ADDR);
	iowrite32(val, dev->base + RWEP_DATA);
	return (ioread32(dev->base + RWEP_STATUS) & 1) ? -EIO : 0;
}

// @expect entry-point rwep_ioctl callback file_operations.unlocked_ioctl
static long rwep_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwep_dev *dev = container_of(file->private_data,
					    struct rwep_dev, misc);
	struct rwep_req req;
	int ret;

	if (cmd != RWEP_IOC_WRITE)
		return -ENOTTY;
	if (copy_from_user(&req, (void __user *)arg, sizeof(req)))
		return -EFAULT;
	if (req.reg >= RWEP_NREGS)
		return -EINVAL;

	mutex_lock(&dev->lock);
	ret = 0;
	if (dev->shadow[req.reg] == req.val)
		goto out_unlock;	/* nothing to do */
	ret = rwep_hw_write(dev, req.reg, req.val);
	if (ret) {
		mutex_unlock(&dev->lock);
		dev->errors++;		/* @racy: BUG: counted after the unlock */
		return ret;
	}
	dev->shadow[req.reg] = req.val;
	dev->writes++;
out_unlock:
	mutex_unlock(&dev->lock);
	return ret;
}

// @expect entry-point rwep_read callback file_operations.read
static ssize_t rwep_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwep_dev *dev = container_of(file->private_data,
					    struct rwep_dev, misc);
	u32 errors;

	if (count < sizeof(errors))
		return -EINVAL;
	mutex_lock(&dev->lock);
	errors = dev->errors;	/* @racy */
	mutex_unlock(&dev->lock);
	return copy_to_user(buf, &errors, 4) ? -EFAULT : sizeof(errors);
}

// @expect race rwep_ioctl rwep_ioctl "struct rwep_dev.errors"
// @expect confirmed rwep_ioctl rwep_ioctl "struct rwep_dev.errors"
// @expect race rwep_ioctl rwep_read "struct rwep_dev.errors"
// @expect confirmed rwep_ioctl rwep_read "struct rwep_dev.errors"
// @expect proven rwep_read rwep_read

static const struct file_operations rwep_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwep_ioctl,
	.read		= rwep_read,
};

// @expect init rwep_probe
// @expect entry-point rwep_probe probe platform_driver.probe
static int rwep_probe(struct platform_device *pdev)
{
	struct rwep_dev *dev;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	mutex_init(&dev->lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwregs";
	dev->misc.fops = &rwep_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	return misc_register(&dev->misc);
}

// @expect entry-point rwep_remove remove platform_driver.remove
static void rwep_remove(struct platform_device *pdev)
{
	struct rwep_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwep_driver = {
	.probe	= rwep_probe,
	.remove	= rwep_remove,
	.driver	= {
		.name	= "rwregs",
	},
};

// @expect entry-point rwep_driver_init module-init module_init
// @expect entry-point rwep_driver_exit module-exit module_exit
module_platform_driver(rwep_driver);

MODULE_DESCRIPTION("racewatch race corpus: error path unlocks too early");
MODULE_LICENSE("GPL");
