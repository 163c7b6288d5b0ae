// SPDX-License-Identifier: GPL-2.0
/*
 * bitlock_race.c - a calibration engine with one job slot, /dev/blcal.
 *
 * Race test (case: a bit of a flags word used as a lock, cleared by a path
 * that does not hold it; Build 6 of issue 14). As in the fixed twin,
 * bitlock_fixed.c, the job slot is claimed with test_and_set_bit,
 * wait_event(..., !test_and_set_bit(...)) and test_and_set_bit_lock, and
 * every holder clears it when done. But BLCAL_IOC_FORCE "unsticks" the
 * engine by clearing BLCAL_BUSY without owning it before it claims the
 * slot: it takes the slot while another caller still runs its job, so the
 * bit protects nothing and the job state races between every pair of
 * callbacks that touch it.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/bitops.h>
#include <linux/wait.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define BLCAL_BUSY		0
#define BLCAL_DIRTY		1
#define BLCAL_GO		0x04
#define BLCAL_IOC_START		_IOW('c', 0, __u32)
#define BLCAL_IOC_FORCE		_IOW('c', 1, __u32)

struct blcal_dev {
	struct miscdevice misc;
	void __iomem *base;
	unsigned long flags;		/* BLCAL_BUSY guards jobs and target */
	wait_queue_head_t wait;
	u32 jobs;
	u32 target;
};

// @expect entry-point blcal_ioctl callback file_operations.unlocked_ioctl
static long blcal_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct blcal_dev *dev = container_of(file->private_data,
					     struct blcal_dev, misc);

	if (cmd == BLCAL_IOC_FORCE)
		/* BUG: drops the claim of whoever owns the slot. */
		clear_bit(BLCAL_BUSY, &dev->flags);
	else if (cmd != BLCAL_IOC_START)
		return -ENOTTY;
	set_bit(BLCAL_DIRTY, &dev->flags);
	if (test_and_set_bit(BLCAL_BUSY, &dev->flags))
		return -EBUSY;
	dev->target = (u32)arg;	/* @racy */
	dev->jobs++;		/* @racy */
	iowrite32(dev->target, dev->base + BLCAL_GO);	/* @racy */
	clear_bit(BLCAL_BUSY, &dev->flags);
	wake_up(&dev->wait);
	return 0;
}

// @expect entry-point blcal_write callback file_operations.write
static ssize_t blcal_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	struct blcal_dev *dev = container_of(file->private_data,
					     struct blcal_dev, misc);

	wait_event(dev->wait, !test_and_set_bit(BLCAL_BUSY, &dev->flags));
	dev->target = 0;	/* @racy */
	dev->jobs++;		/* @racy */
	clear_bit(BLCAL_BUSY, &dev->flags);
	wake_up(&dev->wait);
	clear_bit(BLCAL_DIRTY, &dev->flags);
	return count;
}

// @expect entry-point blcal_read callback file_operations.read
static ssize_t blcal_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct blcal_dev *dev = container_of(file->private_data,
					     struct blcal_dev, misc);
	u32 jobs;

	if (count < sizeof(jobs))
		return -EINVAL;
	if (test_and_set_bit_lock(BLCAL_BUSY, &dev->flags))
		return -EAGAIN;
	jobs = dev->jobs;	/* @racy */
	clear_bit_unlock(BLCAL_BUSY, &dev->flags);
	if (copy_to_user(buf, &jobs, sizeof(jobs)))
		return -EFAULT;
	return sizeof(jobs);
}

// @expect race blcal_ioctl blcal_ioctl "struct blcal_dev.jobs"
// @expect race blcal_ioctl blcal_ioctl "struct blcal_dev.target"
// @expect race blcal_ioctl blcal_write "struct blcal_dev.jobs"
// @expect race blcal_ioctl blcal_write "struct blcal_dev.target"
// @expect race blcal_ioctl blcal_read "struct blcal_dev.jobs"
// @expect race blcal_write blcal_write "struct blcal_dev.jobs"
// @expect race blcal_write blcal_write "struct blcal_dev.target"
// @expect race blcal_write blcal_read "struct blcal_dev.jobs"
// @expect confirmed blcal_ioctl blcal_ioctl "struct blcal_dev.jobs"
// @expect confirmed blcal_ioctl blcal_ioctl "struct blcal_dev.target"
// @expect confirmed blcal_ioctl blcal_write "struct blcal_dev.jobs"
// @expect confirmed blcal_ioctl blcal_read "struct blcal_dev.jobs"
// @expect confirmed blcal_ioctl blcal_write "struct blcal_dev.target"
// Two writers (or a writer and a reader) race only when a third thread,
// the FORCE ioctl, clears the bit between them: the precise phase searches
// two threads, so it finds none within its bounds.
// @expect not-found blcal_write blcal_write "struct blcal_dev.jobs"
// @expect not-found blcal_write blcal_write "struct blcal_dev.target"
// @expect not-found blcal_write blcal_read "struct blcal_dev.jobs"
/* Two reads of jobs never conflict. */
// @expect proven blcal_read blcal_read

static const struct file_operations blcal_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= blcal_ioctl,
	.write		= blcal_write,
	.read		= blcal_read,
};

// @expect init blcal_probe
// @expect entry-point blcal_probe probe platform_driver.probe
static int blcal_probe(struct platform_device *pdev)
{
	struct blcal_dev *dev;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	init_waitqueue_head(&dev->wait);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "blcal";
	dev->misc.fops = &blcal_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);
	return misc_register(&dev->misc);
}

// @expect entry-point blcal_remove remove platform_driver.remove
static void blcal_remove(struct platform_device *pdev)
{
	struct blcal_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver blcal_driver = {
	.probe	= blcal_probe,
	.remove	= blcal_remove,
	.driver	= {
		.name	= "blcal",
	},
};

// @expect entry-point blcal_driver_init module-init module_init
// @expect entry-point blcal_driver_exit module-exit module_exit
module_platform_driver(blcal_driver);

MODULE_DESCRIPTION("racewatch race corpus: a bit lock cleared by a path that does not own it");
MODULE_LICENSE("GPL");
