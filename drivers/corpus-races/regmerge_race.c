// SPDX-License-Identifier: GPL-2.0
/*
 * regmerge_race.c - event latch of a door sensor, /dev/rwdoor.
 *
 * Race test (case: region merging). The interrupt handler latches events
 * with set_bit() on dev->events; write() records the requested modes with
 * __set_bit() on dev->modes and the caller's label with strscpy() into
 * dev->label, under dev->lock. Both bitmaps are unsigned long fields whose
 * addresses are passed to bit operations, and the label is a char array
 * passed to a string function: those functions keep no pointer, so each
 * field stays its own region and the handler's atomic set_bit() never
 * meets write()'s plain __set_bit(). The real race: the ioctl clears a
 * mode (against write() and against another ioctl) and copies the label
 * without taking dev->lock. The fixed twin,
 * regmerge_fixed.c, takes the lock there.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/bitops.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWRM_IOC_CLEAR	_IOR('d', 0, char[16])	/* clear mode 1, get the label */

struct rwrm_dev {
	struct miscdevice misc;
	unsigned long events;		/* set_bit from the handler */
	struct mutex lock;		/* guards modes and label */
	unsigned long modes;
	char label[16];
};

#define rwrm_from_file(f) container_of((f)->private_data, struct rwrm_dev, misc)

// @expect entry-point rwrm_irq irq devm_request_irq
static irqreturn_t rwrm_irq(int irq, void *data)
{
	struct rwrm_dev *dev = data;

	set_bit(0, &dev->events);
	return IRQ_HANDLED;
}

// @expect entry-point rwrm_read callback file_operations.read
static ssize_t rwrm_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwrm_dev *dev = rwrm_from_file(file);
	u8 opened = test_and_clear_bit(0, &dev->events);

	if (count < 1)
		return -EINVAL;
	return copy_to_user(buf, &opened, 1) ? -EFAULT : 1;
}

// @expect entry-point rwrm_write callback file_operations.write
static ssize_t rwrm_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct rwrm_dev *dev = rwrm_from_file(file);
	char label[16];

	if (count >= sizeof(label) || copy_from_user(label, buf, count))
		return -EINVAL;
	label[count] = 0;
	mutex_lock(&dev->lock);
	__set_bit(1, &dev->modes);	/* @racy */
	strscpy(dev->label, label, sizeof(dev->label));	/* @racy */
	mutex_unlock(&dev->lock);
	return count;
}

// @expect entry-point rwrm_ioctl callback file_operations.unlocked_ioctl
static long rwrm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwrm_dev *dev = rwrm_from_file(file);
	char label[16];

	if (cmd != RWRM_IOC_CLEAR)
		return -ENOTTY;
	__clear_bit(1, &dev->modes);	/* @racy */
	strscpy(label, dev->label, sizeof(label));	/* @racy */
	return copy_to_user((void __user *)arg, label, sizeof(label)) ? -EFAULT : 0;
}

// @expect proven rwrm_irq rwrm_write
// @expect proven rwrm_irq rwrm_ioctl
// @expect proven rwrm_read rwrm_write
// @expect race rwrm_write rwrm_ioctl "struct rwrm_dev.modes"
// @expect confirmed rwrm_write rwrm_ioctl "struct rwrm_dev.modes"
// @expect race rwrm_write rwrm_ioctl "struct rwrm_dev.label"
// @expect confirmed rwrm_write rwrm_ioctl "struct rwrm_dev.label"
// @expect race rwrm_ioctl rwrm_ioctl "struct rwrm_dev.modes"
// @expect confirmed rwrm_ioctl rwrm_ioctl "struct rwrm_dev.modes"

static const struct file_operations rwrm_fops = {
	.owner		= THIS_MODULE,
	.read		= rwrm_read,
	.write		= rwrm_write,
	.unlocked_ioctl	= rwrm_ioctl,
};

// @expect init rwrm_probe
// @expect entry-point rwrm_probe probe platform_driver.probe
static int rwrm_probe(struct platform_device *pdev)
{
	struct rwrm_dev *dev;
	int irq, ret;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	mutex_init(&dev->lock);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwdoor";
	dev->misc.fops = &rwrm_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);

	ret = devm_request_irq(&pdev->dev, irq, rwrm_irq, 0, "rwdoor", dev);
	if (ret)
		return ret;
	return misc_register(&dev->misc);
}

// @expect entry-point rwrm_remove remove platform_driver.remove
static void rwrm_remove(struct platform_device *pdev)
{
	struct rwrm_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwrm_driver = {
	.probe	= rwrm_probe,
	.remove	= rwrm_remove,
	.driver.name = "rwdoor",
};

// @expect entry-point rwrm_driver_init module-init module_init
// @expect entry-point rwrm_driver_exit module-exit module_exit
module_platform_driver(rwrm_driver);

MODULE_DESCRIPTION("racewatch race corpus: fields passed to bit and string functions stay apart");
MODULE_LICENSE("GPL");
