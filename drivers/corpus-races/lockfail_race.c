// SPDX-License-Identifier: GPL-2.0
/*
 * lockfail_race.c - an event counter with a sleeping lock, /dev/lfcount.
 *
 * Race test (case: the return value of mutex_lock_interruptible says
 * whether the mutex is held; Build 8 of issue 14). As in the fixed twin,
 * lockfail_fixed.c, the callbacks take the mutex with
 * `ret = mutex_lock_interruptible(&dev->lock); if (ret < 0) ...`, but the
 * write callback counts the interrupted attempt on its failure path, where
 * the mutex is not held: that store races with the read callback's reset
 * of the counter and with itself.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

struct lfcount_dev {
	struct miscdevice misc;
	struct mutex lock;		/* guards events and failures */
	u32 events;
	u32 failures;
};

// @expect entry-point lfcount_write callback file_operations.write
static ssize_t lfcount_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct lfcount_dev *dev = container_of(file->private_data,
					       struct lfcount_dev, misc);
	int ret;

	ret = mutex_lock_interruptible(&dev->lock);
	if (ret < 0) {
		dev->failures++;	/* @racy: BUG: the mutex is not held */
		return ret;
	}
	dev->events += count;
	mutex_unlock(&dev->lock);
	return count;
}

// @expect entry-point lfcount_read callback file_operations.read
static ssize_t lfcount_read(struct file *file, char __user *buf, size_t count,
			    loff_t *ppos)
{
	struct lfcount_dev *dev = container_of(file->private_data,
					       struct lfcount_dev, misc);
	u32 events;
	int ret;

	if (count < sizeof(events))
		return -EINVAL;
	ret = mutex_lock_killable(&dev->lock);
	if (ret < 0)
		return ret;
	events = dev->events;
	dev->events = 0;
	dev->failures = 0;	/* @racy */
	mutex_unlock(&dev->lock);
	if (copy_to_user(buf, &events, sizeof(events)))
		return -EFAULT;
	return sizeof(events);
}

// @expect race lfcount_write lfcount_write "struct lfcount_dev.failures"
// @expect confirmed lfcount_write lfcount_write "struct lfcount_dev.failures"
// @expect race lfcount_write lfcount_read "struct lfcount_dev.failures"
// @expect confirmed lfcount_write lfcount_read "struct lfcount_dev.failures"
/* events is only touched holding the mutex. */
// @expect proven lfcount_read lfcount_read

static const struct file_operations lfcount_fops = {
	.owner	= THIS_MODULE,
	.write	= lfcount_write,
	.read	= lfcount_read,
};

// @expect init lfcount_probe
// @expect entry-point lfcount_probe probe platform_driver.probe
static int lfcount_probe(struct platform_device *pdev)
{
	struct lfcount_dev *dev;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	mutex_init(&dev->lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "lfcount";
	dev->misc.fops = &lfcount_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	return misc_register(&dev->misc);
}

// @expect entry-point lfcount_remove remove platform_driver.remove
static void lfcount_remove(struct platform_device *pdev)
{
	struct lfcount_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver lfcount_driver = {
	.probe	= lfcount_probe,
	.remove	= lfcount_remove,
	.driver	= {
		.name	= "lfcount",
	},
};

// @expect entry-point lfcount_driver_init module-init module_init
// @expect entry-point lfcount_driver_exit module-exit module_exit
module_platform_driver(lfcount_driver);

MODULE_DESCRIPTION("racewatch race corpus: an access on the failure path of mutex_lock_interruptible");
MODULE_LICENSE("GPL");
