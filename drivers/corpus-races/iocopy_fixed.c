// SPDX-License-Identifier: GPL-2.0
/*
 * iocopy_fixed.c - a register-dump device: reading /dev/iocopy returns a
 * snapshot of the device's sixteen status registers.
 *
 * Race test (case: copies between device memory and driver buffers).
 * memcpy_fromio writes the buffer it is given and keeps no pointer to it
 * (arch/x86/lib/iomem.c), so a buffer private to the call stays private.
 * Fixed twin of iocopy_race.c: read snapshots the registers into a
 * buffer on its own stack, which memcpy_fromio and
 * simple_read_from_buffer only use during the call.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/io.h>

#define IOC_REGS	16

static void __iomem *ioc_base;

// @expect entry-point ioc_read callback file_operations.read
static ssize_t ioc_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	u8 snap[IOC_REGS];

	memcpy_fromio(snap, ioc_base, sizeof(snap));
	return simple_read_from_buffer(buf, count, ppos, snap, sizeof(snap));
}

/* The sysfs attribute copies into the page sysfs gives this call. */
// @expect entry-point regs_show callback device_attribute.show
static ssize_t regs_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	memcpy_fromio(buf, ioc_base, IOC_REGS);
	return IOC_REGS;
}
static DEVICE_ATTR_RO(regs);

// @expect proven ioc_read ioc_read
// @expect proven regs_show regs_show

static const struct file_operations ioc_fops = {
	.owner	= THIS_MODULE,
	.read	= ioc_read,
};

static struct miscdevice ioc_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "iocopy",
	.fops	= &ioc_fops,
};

// @expect init ioc_probe
// @expect entry-point ioc_probe probe platform_driver.probe
static int ioc_probe(struct platform_device *pdev)
{
	int ret;

	ioc_base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(ioc_base))
		return PTR_ERR(ioc_base);
	ret = device_create_file(&pdev->dev, &dev_attr_regs);
	if (ret)
		return ret;
	return misc_register(&ioc_misc);
}

// @expect entry-point ioc_remove remove platform_driver.remove
static void ioc_remove(struct platform_device *pdev)
{
	misc_deregister(&ioc_misc);
	device_remove_file(&pdev->dev, &dev_attr_regs);
}

static struct platform_driver ioc_driver = {
	.probe	= ioc_probe,
	.remove	= ioc_remove,
	.driver.name = "iocopy",
};

// @expect entry-point ioc_driver_init module-init module_init
// @expect entry-point ioc_driver_exit module-exit module_exit
module_platform_driver(ioc_driver);

MODULE_DESCRIPTION("racewatch race corpus: a register snapshot in a buffer private to the call");
MODULE_LICENSE("GPL");
