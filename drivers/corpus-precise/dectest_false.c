// SPDX-License-Identifier: GPL-2.0
/*
 * dectest_false.c - satellite receiver module on a UART-less bus, /dev/rwgnss.
 *
 * False-alarm test (case: a path only one thread can take). The receiver
 * powers up speaking NMEA and must be switched to its binary protocol,
 * once, by a configuration sequence that takes a while. The driver does
 * not delay probe() with it: the first read() or ioctl() does it, the one
 * that brings the one-shot counter dev->cfg_pending from 1 to 0:
 *
 *	if (atomic_read(&dev->cfg_pending) > 0 &&
 *	    atomic_dec_and_test(&dev->cfg_pending))
 *		rwdt_configure(dev);
 *
 * probe() sets the counter to 1 and nothing ever increments it, so
 * exactly one call of rwdt_configure() ever happens (the atomic_read()
 * keeps the counter from wrapping around after 2^32 calls). Only
 * rwdt_configure() touches the configuration bookkeeping (dev->cfg_seq,
 * dev->cfg_jiffies), so no two threads ever touch it.
 *
 * The lockset phase gives every atomic result an arbitrary value, so any
 * caller may configure, and it reports read() and the ioctl racing with
 * themselves and with each other on both fields. Those alarms are false;
 * the precise phase, which runs atomic_dec_and_test with its real value,
 * must not find them.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/uaccess.h>

#define RWDT_TX			0x00
#define RWDT_RX			0x04
#define RWDT_IOC_FIX		_IOR('n', 0, __u32)
#define RWDT_MSG_BINARY		0xb562		/* "switch to binary protocol" */

struct rwdt_dev {
	struct miscdevice misc;
	void __iomem *base;
	atomic_t cfg_pending;		/* 1 until the first user configures */
	u16 cfg_seq;			/* rwdt_configure() only */
	unsigned long cfg_jiffies;	/* rwdt_configure() only; for crash dumps */
};

#define rwdt_from_file(f) container_of((f)->private_data, struct rwdt_dev, misc)

/* Runs once in the life of the device: see rwdt_first_use(). */
static void rwdt_configure(struct rwdt_dev *dev)
{
	dev->cfg_seq++;
	iowrite32(RWDT_MSG_BINARY << 16 | dev->cfg_seq, dev->base + RWDT_TX);
	dev->cfg_jiffies = jiffies;
}

static void rwdt_first_use(struct rwdt_dev *dev)
{
	if (atomic_read(&dev->cfg_pending) > 0 &&
	    atomic_dec_and_test(&dev->cfg_pending))
		rwdt_configure(dev);
}

// @expect entry-point rwdt_read callback file_operations.read
static ssize_t rwdt_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwdt_dev *dev = rwdt_from_file(file);
	u32 word;

	if (count < sizeof(word))
		return -EINVAL;
	rwdt_first_use(dev);
	word = ioread32(dev->base + RWDT_RX);
	return copy_to_user(buf, &word, sizeof(word)) ? -EFAULT : sizeof(word);
}

// @expect entry-point rwdt_ioctl callback file_operations.unlocked_ioctl
static long rwdt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwdt_dev *dev = rwdt_from_file(file);
	u32 fix;

	if (cmd != RWDT_IOC_FIX)
		return -ENOTTY;
	rwdt_first_use(dev);
	fix = ioread32(dev->base + RWDT_RX) >> 24;
	return put_user(fix, (u32 __user *)arg);
}

// false alarms: rwdt_configure() runs once, in the caller that took the
// counter to 0.
// @expect race rwdt_read rwdt_read "struct rwdt_dev.cfg_seq"
// @expect race rwdt_read rwdt_read "struct rwdt_dev.cfg_jiffies"
// @expect race rwdt_read rwdt_ioctl "struct rwdt_dev.cfg_seq"
// @expect race rwdt_read rwdt_ioctl "struct rwdt_dev.cfg_jiffies"
// @expect race rwdt_ioctl rwdt_ioctl "struct rwdt_dev.cfg_seq"
// @expect race rwdt_ioctl rwdt_ioctl "struct rwdt_dev.cfg_jiffies"
// @expect not-found rwdt_read rwdt_read "struct rwdt_dev.cfg_seq"
// @expect not-found rwdt_read rwdt_read "struct rwdt_dev.cfg_jiffies"
// @expect not-found rwdt_read rwdt_ioctl "struct rwdt_dev.cfg_seq"
// @expect not-found rwdt_read rwdt_ioctl "struct rwdt_dev.cfg_jiffies"
// @expect not-found rwdt_ioctl rwdt_ioctl "struct rwdt_dev.cfg_seq"
// @expect not-found rwdt_ioctl rwdt_ioctl "struct rwdt_dev.cfg_jiffies"

static const struct file_operations rwdt_fops = {
	.owner		= THIS_MODULE,
	.read		= rwdt_read,
	.unlocked_ioctl	= rwdt_ioctl,
};

// @expect init rwdt_probe
// @expect entry-point rwdt_probe probe platform_driver.probe
static int rwdt_probe(struct platform_device *pdev)
{
	struct rwdt_dev *dev;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	atomic_set(&dev->cfg_pending, 1);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwgnss";
	dev->misc.fops = &rwdt_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	return misc_register(&dev->misc);
}

// @expect entry-point rwdt_remove remove platform_driver.remove
static void rwdt_remove(struct platform_device *pdev)
{
	struct rwdt_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwdt_driver = {
	.probe	= rwdt_probe,
	.remove	= rwdt_remove,
	.driver	= {
		.name	= "rwgnss",
	},
};

// @expect entry-point rwdt_driver_init module-init module_init
// @expect entry-point rwdt_driver_exit module-exit module_exit
module_platform_driver(rwdt_driver);

MODULE_DESCRIPTION("racewatch precise corpus: one-shot atomic_dec_and_test, a lockset false alarm");
MODULE_LICENSE("GPL");
