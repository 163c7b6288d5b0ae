// SPDX-License-Identifier: GPL-2.0
/*
 * condlock_race.c - transfer counter of a DMA test engine, /dev/rwdmatest.
 *
 * Race test (case: conditional locking). The driver skips its mutex when
 * the device was described as "single-user" in firmware, so write() does
 *	if (dev->use_lock) mutex_lock(); dev->transfers++; if (dev->use_lock) unlock;
 * The flag is read from shared memory (an arbitrary value for the lockset
 * analysis) and, on a single-user device, nothing at all excludes two
 * writers or a writer and the reader. Races on transfers: write with write
 * and read with write. The fixed twin, condlock_fixed.c, locks always.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/property.h>
#include <linux/mutex.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

struct rwcl_dev {
	struct miscdevice misc;
	struct mutex lock;
	bool use_lock;		/* set once in probe */
	u64 transfers;
};

static struct rwcl_dev *rwcl_from_file(struct file *file)
{
	return container_of(file->private_data, struct rwcl_dev, misc);
}

// @expect entry-point rwcl_write callback file_operations.write
static ssize_t rwcl_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct rwcl_dev *dev = rwcl_from_file(file);

	if (dev->use_lock)
		mutex_lock(&dev->lock);
	dev->transfers++;	/* @racy */
	if (dev->use_lock)
		mutex_unlock(&dev->lock);
	return count;
}

// @expect entry-point rwcl_read callback file_operations.read
static ssize_t rwcl_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwcl_dev *dev = rwcl_from_file(file);
	u64 n;

	if (count < sizeof(n))
		return -EINVAL;
	mutex_lock(&dev->lock);
	n = dev->transfers;	/* @racy */
	mutex_unlock(&dev->lock);
	if (copy_to_user(buf, &n, sizeof(n)))
		return -EFAULT;
	return sizeof(n);
}

// @expect race rwcl_write rwcl_write "struct rwcl_dev.transfers"
// @expect confirmed rwcl_write rwcl_write "struct rwcl_dev.transfers"
// @expect race rwcl_write rwcl_read "struct rwcl_dev.transfers"
// @expect confirmed rwcl_write rwcl_read "struct rwcl_dev.transfers"
// @expect proven rwcl_read rwcl_read

static const struct file_operations rwcl_fops = {
	.owner	= THIS_MODULE,
	.write	= rwcl_write,
	.read	= rwcl_read,
};

// @expect init rwcl_probe
// @expect entry-point rwcl_probe probe platform_driver.probe
static int rwcl_probe(struct platform_device *pdev)
{
	struct rwcl_dev *dev;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	mutex_init(&dev->lock);
	dev->use_lock = !device_property_read_bool(&pdev->dev, "single-user");
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwdmatest";
	dev->misc.fops = &rwcl_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	return misc_register(&dev->misc);
}

// @expect entry-point rwcl_remove remove platform_driver.remove
static void rwcl_remove(struct platform_device *pdev)
{
	struct rwcl_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwcl_driver = {
	.probe	= rwcl_probe,
	.remove	= rwcl_remove,
	.driver	= {
		.name	= "rwdmatest",
	},
};

// @expect entry-point rwcl_driver_init module-init module_init
// @expect entry-point rwcl_driver_exit module-exit module_exit
module_platform_driver(rwcl_driver);

MODULE_DESCRIPTION("racewatch race corpus: conditional locking");
MODULE_LICENSE("GPL");
