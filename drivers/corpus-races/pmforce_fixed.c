// SPDX-License-Identifier: GPL-2.0
/*
 * pmforce_fixed.c - a memory-mapped LED controller whose registers are
 * saved and restored across runtime suspend, and which reuses its
 * runtime-PM callbacks for system sleep.
 *
 * Fixed twin of pmforce_race.c (case: a usage count does not order forced
 * runtime-PM callbacks). pm_runtime_force_suspend and
 * pm_runtime_force_resume call the callbacks ignoring the usage count, so
 * the driver's mutex orders them against pmforce_write.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/pm_runtime.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/mutex.h>

#define PMFORCE_CTRL	0x00

struct pmforce_state {
	struct device *dev;
	void __iomem *base;
	u32 saved;		/* CTRL while suspended */
};

static struct pmforce_state pmforce;
static DEFINE_MUTEX(pmforce_lock);

// @expect entry-point pmforce_write callback file_operations.write
static ssize_t pmforce_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	// @mutation-protects-nothing pmforce_write runtime-pm: the driver registers pm_runtime_force_suspend/resume, which run the runtime-PM callbacks ignoring the usage count, so the rule runtime-pm-usage-count does not hold (its unless-called) and the count orders nothing here; the mutex protects saved
	int ret = pm_runtime_resume_and_get(pmforce.dev);

	if (ret < 0)
		return ret;
	mutex_lock(&pmforce_lock);
	pmforce.saved = count;
	mutex_unlock(&pmforce_lock);
	pm_runtime_put(pmforce.dev);
	return count;
}

// @expect entry-point pmforce_read callback file_operations.read
static ssize_t pmforce_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	u32 v;
	// @mutation-protects-nothing pmforce_read runtime-pm: the driver registers pm_runtime_force_suspend/resume, which run the runtime-PM callbacks ignoring the usage count, so the rule runtime-pm-usage-count does not hold (its unless-called) and the count orders nothing here; the mutex protects saved
	int ret = pm_runtime_resume_and_get(pmforce.dev);

	if (ret < 0)
		return ret;
	mutex_lock(&pmforce_lock);
	v = pmforce.saved;
	mutex_unlock(&pmforce_lock);
	pm_runtime_put(pmforce.dev);
	return v;
}

static const struct file_operations pmforce_fops = {
	.owner	= THIS_MODULE,
	.read	= pmforce_read,
	.write	= pmforce_write,
};

static struct miscdevice pmforce_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "pmforce",
	.fops	= &pmforce_fops,
};

// @expect entry-point pmforce_runtime_suspend callback dev_pm_ops.runtime_suspend
static int pmforce_runtime_suspend(struct device *dev)
{
	mutex_lock(&pmforce_lock);
	pmforce.saved = ioread32(pmforce.base + PMFORCE_CTRL);
	mutex_unlock(&pmforce_lock);
	return 0;
}

// @expect entry-point pmforce_runtime_resume callback dev_pm_ops.runtime_resume
static int pmforce_runtime_resume(struct device *dev)
{
	mutex_lock(&pmforce_lock);
	iowrite32(pmforce.saved, pmforce.base + PMFORCE_CTRL);
	mutex_unlock(&pmforce_lock);
	return 0;
}


// @expect proven pmforce_write pmforce_runtime_suspend
// @expect proven pmforce_write pmforce_runtime_resume
// @expect proven pmforce_read pmforce_runtime_suspend
// @expect proven pmforce_write pmforce_write
// @expect proven pmforce_write pmforce_read

// @expect external pm_runtime_force_suspend callback dev_pm_ops.suspend
// @expect external pm_runtime_force_suspend callback dev_pm_ops.freeze
// @expect external pm_runtime_force_suspend callback dev_pm_ops.poweroff
// @expect external pm_runtime_force_resume callback dev_pm_ops.resume
// @expect external pm_runtime_force_resume callback dev_pm_ops.thaw
// @expect external pm_runtime_force_resume callback dev_pm_ops.restore
static const struct dev_pm_ops pmforce_pm_ops = {
	SYSTEM_SLEEP_PM_OPS(pm_runtime_force_suspend, pm_runtime_force_resume)
	RUNTIME_PM_OPS(pmforce_runtime_suspend, pmforce_runtime_resume, NULL)
};

// @expect init pmforce_probe
// @expect entry-point pmforce_probe probe platform_driver.probe
static int pmforce_probe(struct platform_device *pdev)
{
	pmforce.base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(pmforce.base))
		return PTR_ERR(pmforce.base);
	pmforce.dev = &pdev->dev;
	pmforce.saved = 0;
	pm_runtime_set_active(&pdev->dev);
	pm_runtime_enable(&pdev->dev);
	return misc_register(&pmforce_misc);
}

static struct platform_driver pmforce_driver = {
	.probe	= pmforce_probe,
	.driver	= {
		.name	= "pmforce",
		.pm	= pm_ptr(&pmforce_pm_ops),
	},
};

// @expect entry-point pmforce_driver_init module-init module_init
// @expect entry-point pmforce_driver_exit module-exit module_exit
module_platform_driver(pmforce_driver);

MODULE_DESCRIPTION("racewatch race corpus: forced runtime-PM callbacks");
MODULE_LICENSE("GPL");
