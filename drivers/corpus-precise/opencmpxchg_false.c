// SPDX-License-Identifier: GPL-2.0
/*
 * opencmpxchg_false.c - infrared transmitter of a set-top box, /dev/rwirtx.
 *
 * False-alarm test (case: single-open state taken with atomic_cmpxchg).
 * The transmitter has one LED and is handed to one process at a time:
 * open() moves the device from RWCX_FREE to RWCX_OWNED with
 *
 *	if (atomic_cmpxchg(&dev->state, RWCX_FREE, RWCX_OWNED) != RWCX_FREE)
 *		return -EBUSY;
 *
 * and only the opener that made that transition goes on to power the LED
 * driver and reprogram the carrier generator, whose last programmed
 * frequency it caches in dev->carrier_hz, and to count the session in
 * dev->sessions. release() powers the LED down and sets the state back to
 * RWCX_FREE; write() only feeds pulse widths to the hardware FIFO. So the
 * two fields are only used by the one open() that owns the device: a
 * second open() fails the cmpxchg and touches nothing, and the next owner
 * can only win the cmpxchg after the previous owner's release(), by which
 * time the previous owner's open() has long returned.
 *
 * The lockset phase gives every atomic result an arbitrary value, so both
 * open() calls may "win", and it reports open() racing with open() on
 * both fields. That alarm is false; the precise phase, which runs
 * atomic_cmpxchg with its real semantics, must not find it.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/atomic.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWCX_POWER		0x00
#define RWCX_CARRIER		0x04	/* carrier divider */
#define RWCX_FIFO		0x08	/* pulse widths, in microseconds */
#define RWCX_CLK_HZ		24000000
#define RWCX_DEFAULT_CARRIER	38000

enum { RWCX_FREE, RWCX_OWNED };

struct rwcx_dev {
	struct miscdevice misc;
	void __iomem *base;
	atomic_t state;			/* RWCX_FREE or RWCX_OWNED */
	u32 carrier_hz;			/* owner only: last programmed carrier */
	unsigned long sessions;		/* owner only: statistics */
};

#define rwcx_from_file(f) container_of((f)->private_data, struct rwcx_dev, misc)

// @expect entry-point rwcx_open callback file_operations.open
static int rwcx_open(struct inode *inode, struct file *file)
{
	struct rwcx_dev *dev = rwcx_from_file(file);

	if (atomic_cmpxchg(&dev->state, RWCX_FREE, RWCX_OWNED) != RWCX_FREE)
		return -EBUSY;
	/* This open() owns the transmitter until its release(). */
	dev->sessions++;
	iowrite32(1, dev->base + RWCX_POWER);
	if (dev->carrier_hz != RWCX_DEFAULT_CARRIER) {
		iowrite32(RWCX_CLK_HZ / RWCX_DEFAULT_CARRIER,
			  dev->base + RWCX_CARRIER);
		dev->carrier_hz = RWCX_DEFAULT_CARRIER;
	}
	return 0;
}

// @expect entry-point rwcx_release callback file_operations.release
static int rwcx_release(struct inode *inode, struct file *file)
{
	struct rwcx_dev *dev = rwcx_from_file(file);

	iowrite32(0, dev->base + RWCX_POWER);
	atomic_set(&dev->state, RWCX_FREE);
	return 0;
}

// @expect entry-point rwcx_write callback file_operations.write
static ssize_t rwcx_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct rwcx_dev *dev = rwcx_from_file(file);
	u32 width;
	size_t done;

	for (done = 0; done + sizeof(width) <= count; done += sizeof(width)) {
		if (get_user(width, (const u32 __user *)(buf + done)))
			return done ? done : -EFAULT;
		iowrite32(width, dev->base + RWCX_FIFO);
	}
	return done;
}

// false alarm: only the open() that moved the state to RWCX_OWNED touches
// the two fields.
// @expect race rwcx_open rwcx_open "struct rwcx_dev.sessions"
// @expect race rwcx_open rwcx_open "struct rwcx_dev.carrier_hz"
// @expect not-found rwcx_open rwcx_open "struct rwcx_dev.sessions"
// @expect not-found rwcx_open rwcx_open "struct rwcx_dev.carrier_hz"

static const struct file_operations rwcx_fops = {
	.owner		= THIS_MODULE,
	.open		= rwcx_open,
	.release	= rwcx_release,
	.write		= rwcx_write,
};

// @expect init rwcx_probe
// @expect entry-point rwcx_probe probe platform_driver.probe
static int rwcx_probe(struct platform_device *pdev)
{
	struct rwcx_dev *dev;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	atomic_set(&dev->state, RWCX_FREE);
	dev->carrier_hz = 0;		/* carrier generator not programmed */
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwirtx";
	dev->misc.fops = &rwcx_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	return misc_register(&dev->misc);
}

// @expect entry-point rwcx_remove remove platform_driver.remove
static void rwcx_remove(struct platform_device *pdev)
{
	struct rwcx_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwcx_driver = {
	.probe	= rwcx_probe,
	.remove	= rwcx_remove,
	.driver	= {
		.name	= "rwirtx",
	},
};

// @expect entry-point rwcx_driver_init module-init module_init
// @expect entry-point rwcx_driver_exit module-exit module_exit
module_platform_driver(rwcx_driver);

MODULE_DESCRIPTION("racewatch precise corpus: single-open cmpxchg, a lockset false alarm");
MODULE_LICENSE("GPL");
