// SPDX-License-Identifier: GPL-2.0
/*
 * pmfreeze_race.c - a memory-mapped dimmer whose level user space reads
 * and writes through a misc device, saved and restored across runtime
 * suspend.
 *
 * Race test (case: system sleep against user space). The system-sleep
 * callbacks run only while user space is frozen (rule
 * system-sleep-frozen-user-space), but the runtime-PM callbacks run at any
 * time: rpm_suspend and rpm_resume (drivers/base/power/runtime.c) are
 * started by the PM workqueue and by any pm_runtime_get, whatever user
 * space does. Here the save and restore of pmfreeze_fixed.c are runtime
 * callbacks; they take no lock, and read and write hold no usage count,
 * so they race with them on the level. Fixed twin: pmfreeze_fixed.c.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/pm_runtime.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/mutex.h>

#define PMFREEZE_LEVEL	0x00

struct pmfreeze_state {
	void __iomem *base;
	u32 level;		/* the level user space set */
};

static struct pmfreeze_state pmfreeze;
static DEFINE_MUTEX(pmfreeze_lock);

// @expect entry-point pmfreeze_write callback file_operations.write
static ssize_t pmfreeze_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	mutex_lock(&pmfreeze_lock);
	pmfreeze.level = count;	/* @racy: runtime PM may run */
	iowrite32(count, pmfreeze.base + PMFREEZE_LEVEL);
	mutex_unlock(&pmfreeze_lock);
	return count;
}

// @expect entry-point pmfreeze_read callback file_operations.read
static ssize_t pmfreeze_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	u32 v;

	mutex_lock(&pmfreeze_lock);
	v = pmfreeze.level;	/* @racy: runtime PM may run */
	mutex_unlock(&pmfreeze_lock);
	return v;
}

static const struct file_operations pmfreeze_fops = {
	.owner	= THIS_MODULE,
	.read	= pmfreeze_read,
	.write	= pmfreeze_write,
};

static struct miscdevice pmfreeze_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "pmfreeze",
	.fops	= &pmfreeze_fops,
};

// @expect entry-point pmfreeze_runtime_suspend callback dev_pm_ops.runtime_suspend
static int pmfreeze_runtime_suspend(struct device *dev)
{
	pmfreeze.level = ioread32(pmfreeze.base + PMFREEZE_LEVEL);	/* @racy */
	return 0;
}

// @expect entry-point pmfreeze_runtime_resume callback dev_pm_ops.runtime_resume
static int pmfreeze_runtime_resume(struct device *dev)
{
	iowrite32(pmfreeze.level, pmfreeze.base + PMFREEZE_LEVEL);	/* @racy */
	return 0;
}

// @expect race pmfreeze_write pmfreeze_runtime_suspend "struct pmfreeze_state.level"
// @expect confirmed pmfreeze_write pmfreeze_runtime_suspend "struct pmfreeze_state.level"
// @expect race pmfreeze_write pmfreeze_runtime_resume "struct pmfreeze_state.level"
// @expect confirmed pmfreeze_write pmfreeze_runtime_resume "struct pmfreeze_state.level"
// @expect race pmfreeze_read pmfreeze_runtime_suspend "struct pmfreeze_state.level"
// @expect confirmed pmfreeze_read pmfreeze_runtime_suspend "struct pmfreeze_state.level"
// @expect proven pmfreeze_write pmfreeze_write
// @expect proven pmfreeze_write pmfreeze_read

static const struct dev_pm_ops pmfreeze_pm_ops = {
	RUNTIME_PM_OPS(pmfreeze_runtime_suspend, pmfreeze_runtime_resume, NULL)
};

// @expect init pmfreeze_probe
// @expect entry-point pmfreeze_probe probe platform_driver.probe
static int pmfreeze_probe(struct platform_device *pdev)
{
	pmfreeze.base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(pmfreeze.base))
		return PTR_ERR(pmfreeze.base);
	pmfreeze.level = 0;
	pm_runtime_set_active(&pdev->dev);
	pm_runtime_enable(&pdev->dev);
	return misc_register(&pmfreeze_misc);
}

static struct platform_driver pmfreeze_driver = {
	.probe	= pmfreeze_probe,
	.driver	= {
		.name	= "pmfreeze",
		.pm	= pm_ptr(&pmfreeze_pm_ops),
	},
};

// @expect entry-point pmfreeze_driver_init module-init module_init
// @expect entry-point pmfreeze_driver_exit module-exit module_exit
module_platform_driver(pmfreeze_driver);

MODULE_DESCRIPTION("racewatch race corpus: runtime-PM callbacks against user space, which is not frozen for them");
MODULE_LICENSE("GPL");
