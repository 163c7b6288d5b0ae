// SPDX-License-Identifier: GPL-2.0
/*
 * pmrt_fixed.c - a memory-mapped LED controller whose registers are saved
 * and restored across runtime suspend.
 *
 * Fixed twin of pmrt_race.c (case: the runtime-PM usage count). The
 * runtime-PM core never runs runtime_suspend or runtime_resume while a
 * thread holds a usage count on an active device
 * (drivers/base/power/runtime.c: rpm_suspend refuses while
 * dev->power.usage_count is above zero; rule runtime-pm-usage-count).
 * pmrt_write and pmrt_read take the usage count and return when the
 * resume failed; the mutex orders them against each other.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/pm_runtime.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/mutex.h>

#define PMRT_CTRL	0x00

struct pmrt_state {
	struct device *dev;
	void __iomem *base;
	u32 saved;		/* CTRL while suspended */
};

static struct pmrt_state pmrt;
static DEFINE_MUTEX(pmrt_lock);

// @expect entry-point pmrt_write callback file_operations.write
static ssize_t pmrt_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	int ret = pm_runtime_resume_and_get(pmrt.dev);

	if (ret < 0)
		return ret;
	mutex_lock(&pmrt_lock);
	pmrt.saved = count;
	mutex_unlock(&pmrt_lock);
	pm_runtime_put(pmrt.dev);
	return count;
}

// @expect entry-point pmrt_read callback file_operations.read
static ssize_t pmrt_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	u32 v;
	int ret = pm_runtime_resume_and_get(pmrt.dev);

	if (ret < 0)
		return ret;
	mutex_lock(&pmrt_lock);
	v = pmrt.saved;
	mutex_unlock(&pmrt_lock);
	pm_runtime_put(pmrt.dev);
	return v;
}

static const struct file_operations pmrt_fops = {
	.owner	= THIS_MODULE,
	.read	= pmrt_read,
	.write	= pmrt_write,
};

static struct miscdevice pmrt_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "pmrt",
	.fops	= &pmrt_fops,
};

// @expect entry-point pmrt_runtime_suspend callback dev_pm_ops.runtime_suspend
static int pmrt_runtime_suspend(struct device *dev)
{
	pmrt.saved = ioread32(pmrt.base + PMRT_CTRL);
	return 0;
}

// @expect entry-point pmrt_runtime_resume callback dev_pm_ops.runtime_resume
static int pmrt_runtime_resume(struct device *dev)
{
	iowrite32(pmrt.saved, pmrt.base + PMRT_CTRL);
	return 0;
}


// @expect proven pmrt_write pmrt_runtime_suspend
// @expect proven pmrt_write pmrt_runtime_resume
// @expect proven pmrt_read pmrt_runtime_suspend
// @expect proven pmrt_write pmrt_write
// @expect proven pmrt_write pmrt_read

static const struct dev_pm_ops pmrt_pm_ops = {
	RUNTIME_PM_OPS(pmrt_runtime_suspend, pmrt_runtime_resume, NULL)
};

// @expect init pmrt_probe
// @expect entry-point pmrt_probe probe platform_driver.probe
static int pmrt_probe(struct platform_device *pdev)
{
	pmrt.base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(pmrt.base))
		return PTR_ERR(pmrt.base);
	pmrt.dev = &pdev->dev;
	pmrt.saved = 0;
	pm_runtime_set_active(&pdev->dev);
	pm_runtime_enable(&pdev->dev);
	return misc_register(&pmrt_misc);
}

static struct platform_driver pmrt_driver = {
	.probe	= pmrt_probe,
	.driver	= {
		.name	= "pmrt",
		.pm	= pm_ptr(&pmrt_pm_ops),
	},
};

// @expect entry-point pmrt_driver_init module-init module_init
// @expect entry-point pmrt_driver_exit module-exit module_exit
module_platform_driver(pmrt_driver);

MODULE_DESCRIPTION("racewatch race corpus: runtime-PM callbacks against code holding a usage count");
MODULE_LICENSE("GPL");
