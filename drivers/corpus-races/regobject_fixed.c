// SPDX-License-Identifier: GPL-2.0
/*
 * regobject_fixed.c - a legacy sensor module that registers its platform
 * driver and device, then its character device.
 *
 * Race test (case: what registering a driver structure makes live).
 * platform_driver_register() hands the bus core the driver structure,
 * and the core reaches the driver only through the pointers that
 * structure holds: probe, remove, driver.pm (drivers/base/dd.c
 * really_probe, drivers/base/power/main.c). platform_device_register()
 * binds the device to it. Neither makes the misc device's file
 * operations callable: that is misc_register(), called last. Here only
 * the file operations read the calibration that init writes after
 * registering the driver and the device; the resume callback restores a
 * fixed mode. misc_register() makes the file operations live after the
 * write, so the pair is proven. The racy twin, regobject_race.c, reads the
 * calibration in the resume callback too.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/uaccess.h>

static void __iomem *rob_base;
static int rob_calibration;
static struct platform_device *rob_pdev;

// @expect entry-point rob_read callback file_operations.read
static ssize_t rob_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	int value = rob_calibration;

	if (count < sizeof(value))
		return -EINVAL;
	if (copy_to_user(buf, &value, sizeof(value)))
		return -EFAULT;
	return sizeof(value);
}

static const struct file_operations rob_fops = {
	.owner	= THIS_MODULE,
	.read	= rob_read,
};

static struct miscdevice rob_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "regobject",
	.fops	= &rob_fops,
};

// @expect init rob_probe
// @expect entry-point rob_probe probe platform_driver.probe
static int rob_probe(struct platform_device *pdev)
{
	rob_base = devm_platform_ioremap_resource(pdev, 0);
	return PTR_ERR_OR_ZERO(rob_base);
}

// @expect entry-point rob_resume callback dev_pm_ops.resume
static int rob_resume(struct device *dev)
{
	iowrite32(1, rob_base);
	return 0;
}

static const struct dev_pm_ops rob_pm_ops = {
	.resume	= rob_resume,
};

static struct platform_driver rob_driver = {
	.probe	= rob_probe,
	.driver	= {
		.name	= "regobject",
		.pm	= &rob_pm_ops,
	},
};

// @expect entry-point rob_init module-init module_init
static int __init rob_init(void)
{
	int err;

	err = platform_driver_register(&rob_driver);
	if (err)
		return err;
	rob_pdev = platform_device_register_simple("regobject", -1, NULL, 0);
	if (IS_ERR(rob_pdev)) {
		platform_driver_unregister(&rob_driver);
		return PTR_ERR(rob_pdev);
	}
	rob_calibration = 42;
	err = misc_register(&rob_misc);
	if (err) {
		platform_device_unregister(rob_pdev);
		platform_driver_unregister(&rob_driver);
	}
	return err;
}
// @expect proven rob_init rob_resume
// @expect proven rob_init rob_read

// @expect entry-point rob_exit module-exit module_exit
static void __exit rob_exit(void)
{
	misc_deregister(&rob_misc);
	platform_device_unregister(rob_pdev);
	platform_driver_unregister(&rob_driver);
}

module_init(rob_init);
module_exit(rob_exit);

MODULE_DESCRIPTION("racewatch race corpus: a value written after driver registration, read only by the file operations registered after it");
MODULE_LICENSE("GPL");
