// SPDX-License-Identifier: GPL-2.0
/*
 * claimlock_false.c - CRC offload engine with one bounce buffer, /dev/rwcrc.
 *
 * False-alarm test (case: a handoff through a lock-protected state
 * variable). The engine reads its input from one DMA bounce buffer that
 * belongs to the device. write() (CRC of the caller's data) and the
 * RWCL_IOC_SELFTEST ioctl (CRC of a known pattern) both need it, and both
 * copy into it from user space or wait for the engine, so they cannot
 * hold a spinlock while they use it, and the driver answers -EBUSY rather
 * than queue callers. So ownership of the engine is claimed under the
 * spinlock, and the buffer is used outside it:
 *
 *	spin_lock(&dev->lock);
 *	if (dev->owned) {
 *		spin_unlock(&dev->lock);
 *		return -EBUSY;
 *	}
 *	dev->owned = true;
 *	spin_unlock(&dev->lock);
 *	... fill dev->bounce, set dev->len, run the engine ...
 *	spin_lock(&dev->lock); dev->owned = false; spin_unlock(&dev->lock);
 *
 * dev->owned (and the result, dev->last_crc, which the RWCL_IOC_LAST_CRC
 * ioctl returns) is only touched under the lock. Only the thread that
 * found it false and set it touches the buffer and the length, until it
 * clears it again under the lock: they are never used concurrently.
 *
 * The lockset phase sees the buffer and the length accessed with no lock
 * held, and reads of dev->owned give arbitrary values, so it reports write()
 * and the ioctl racing with themselves and with each other on both. Those
 * alarms are false; the precise phase, which runs the spinlock and the
 * flag with their real values, must not find them.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/uaccess.h>

#define RWCL_LEN		0x00
#define RWCL_GO			0x04
#define RWCL_CRC		0x08
#define RWCL_BUF_SIZE		512
#define RWCL_SELFTEST_CRC	0x2144df1c	/* CRC-32 of 512 zero bytes */
#define RWCL_IOC_SELFTEST	_IO('c', 0)
#define RWCL_IOC_LAST_CRC	_IOR('c', 1, __u32)

struct rwcl_dev {
	struct miscdevice misc;
	void __iomem *base;
	spinlock_t lock;		/* guards owned and last_crc */
	bool owned;			/* a caller owns the engine and bounce */
	u32 last_crc;
	u32 len;			/* owner only */
	u8 bounce[RWCL_BUF_SIZE];	/* owner only: the engine's input */
};

/* One engine per system: the device's state is static. */
static struct rwcl_dev rwcl_the_dev;

#define rwcl_from_file(f) (&rwcl_the_dev)

static bool rwcl_claim(struct rwcl_dev *dev)
{
	spin_lock(&dev->lock);
	if (dev->owned) {
		spin_unlock(&dev->lock);
		return false;
	}
	dev->owned = true;
	spin_unlock(&dev->lock);
	return true;
}

static void rwcl_unclaim(struct rwcl_dev *dev, u32 crc)
{
	spin_lock(&dev->lock);
	dev->last_crc = crc;
	dev->owned = false;
	spin_unlock(&dev->lock);
}

/* Runs the engine over the first dev->len bytes of the bounce buffer. */
static u32 rwcl_run(struct rwcl_dev *dev)
{
	iowrite32(dev->len, dev->base + RWCL_LEN);
	iowrite32(1, dev->base + RWCL_GO);
	usleep_range(50, 100);
	return ioread32(dev->base + RWCL_CRC);
}

// @expect entry-point rwcl_write callback file_operations.write
static ssize_t rwcl_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct rwcl_dev *dev = rwcl_from_file(file);
	ssize_t ret;
	u32 crc = 0;

	if (count > RWCL_BUF_SIZE)
		count = RWCL_BUF_SIZE;
	if (!rwcl_claim(dev))
		return -EBUSY;
	if (copy_from_user(dev->bounce, buf, count)) {
		ret = -EFAULT;
	} else {
		dev->len = count;
		crc = rwcl_run(dev);
		ret = count;
	}
	rwcl_unclaim(dev, crc);
	return ret;
}

// @expect entry-point rwcl_ioctl callback file_operations.unlocked_ioctl
static long rwcl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwcl_dev *dev = rwcl_from_file(file);
	u32 crc;

	switch (cmd) {
	case RWCL_IOC_LAST_CRC:
		spin_lock(&dev->lock);
		crc = dev->last_crc;
		spin_unlock(&dev->lock);
		return put_user(crc, (u32 __user *)arg);
	case RWCL_IOC_SELFTEST:
		break;
	default:
		return -ENOTTY;
	}
	if (!rwcl_claim(dev))
		return -EBUSY;
	memset(dev->bounce, 0, RWCL_BUF_SIZE);
	dev->len = RWCL_BUF_SIZE;
	crc = rwcl_run(dev);
	rwcl_unclaim(dev, crc);
	return crc == RWCL_SELFTEST_CRC ? 0 : -EIO;
}

// false alarms: the buffer and the length are only used by the caller that
// claimed the engine under dev->lock.
// @expect race rwcl_write rwcl_write "struct rwcl_dev.len"
// @expect race rwcl_write rwcl_write "struct rwcl_dev.bounce | unsigned char (pointee)"
// @expect race rwcl_write rwcl_ioctl "struct rwcl_dev.len"
// @expect race rwcl_write rwcl_ioctl "struct rwcl_dev.bounce | unsigned char (pointee)"
// @expect race rwcl_ioctl rwcl_ioctl "struct rwcl_dev.len"
// @expect race rwcl_ioctl rwcl_ioctl "struct rwcl_dev.bounce | unsigned char (pointee)"
// @expect not-found rwcl_write rwcl_write "struct rwcl_dev.len"
// @expect not-found rwcl_write rwcl_write "struct rwcl_dev.bounce | unsigned char (pointee)"
// @expect not-found rwcl_write rwcl_ioctl "struct rwcl_dev.len"
// @expect not-found rwcl_write rwcl_ioctl "struct rwcl_dev.bounce | unsigned char (pointee)"
// @expect not-found rwcl_ioctl rwcl_ioctl "struct rwcl_dev.len"
// @expect not-found rwcl_ioctl rwcl_ioctl "struct rwcl_dev.bounce | unsigned char (pointee)"

static const struct file_operations rwcl_fops = {
	.owner		= THIS_MODULE,
	.write		= rwcl_write,
	.unlocked_ioctl	= rwcl_ioctl,
};

// @expect init rwcl_probe
// @expect entry-point rwcl_probe probe platform_driver.probe
static int rwcl_probe(struct platform_device *pdev)
{
	struct rwcl_dev *dev;

	dev = &rwcl_the_dev;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	spin_lock_init(&dev->lock);
	dev->owned = false;
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwcrc";
	dev->misc.fops = &rwcl_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	return misc_register(&dev->misc);
}

// @expect entry-point rwcl_remove remove platform_driver.remove
static void rwcl_remove(struct platform_device *pdev)
{
	misc_deregister(&rwcl_the_dev.misc);
}

static struct platform_driver rwcl_driver = {
	.probe	= rwcl_probe,
	.remove	= rwcl_remove,
	.driver	= {
		.name	= "rwcrc",
	},
};

// @expect entry-point rwcl_driver_init module-init module_init
// @expect entry-point rwcl_driver_exit module-exit module_exit
module_platform_driver(rwcl_driver);

MODULE_DESCRIPTION("racewatch precise corpus: ownership claimed under a spinlock, a lockset false alarm");
MODULE_LICENSE("GPL");
