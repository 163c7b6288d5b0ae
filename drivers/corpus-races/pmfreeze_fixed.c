// SPDX-License-Identifier: GPL-2.0
/*
 * pmfreeze_fixed.c - a memory-mapped dimmer whose level user space reads
 * and writes through a misc device, saved and restored across system sleep.
 *
 * Fixed twin of pmfreeze_race.c (case: system sleep against user space).
 * The system-sleep callbacks run only while every user task is frozen:
 * suspend_prepare freezes user space before dpm_suspend_start and
 * suspend_finish thaws it after dpm_resume_end (kernel/power/suspend.c,
 * hibernate.c; rule system-sleep-frozen-user-space), and read and write
 * are called only from a user task's system call. So pmfreeze_suspend and
 * pmfreeze_resume need no lock against them; the mutex orders read and
 * write against each other.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/pm.h>
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
	pmfreeze.level = count;
	iowrite32(count, pmfreeze.base + PMFREEZE_LEVEL);
	mutex_unlock(&pmfreeze_lock);
	return count;
}

// @expect entry-point pmfreeze_read callback file_operations.read
static ssize_t pmfreeze_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	u32 v;

	mutex_lock(&pmfreeze_lock);
	v = pmfreeze.level;
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

// @expect entry-point pmfreeze_suspend callback dev_pm_ops.suspend
// @expect entry-point pmfreeze_suspend callback dev_pm_ops.freeze
// @expect entry-point pmfreeze_suspend callback dev_pm_ops.poweroff
static int pmfreeze_suspend(struct device *dev)
{
	pmfreeze.level = ioread32(pmfreeze.base + PMFREEZE_LEVEL);
	return 0;
}

// @expect entry-point pmfreeze_resume callback dev_pm_ops.resume
// @expect entry-point pmfreeze_resume callback dev_pm_ops.thaw
// @expect entry-point pmfreeze_resume callback dev_pm_ops.restore
static int pmfreeze_resume(struct device *dev)
{
	iowrite32(pmfreeze.level, pmfreeze.base + PMFREEZE_LEVEL);
	return 0;
}

// @expect proven pmfreeze_write pmfreeze_resume
// @expect proven pmfreeze_write pmfreeze_suspend
// @expect proven pmfreeze_read pmfreeze_suspend
// @expect proven pmfreeze_write pmfreeze_write
// @expect proven pmfreeze_write pmfreeze_read

static const struct dev_pm_ops pmfreeze_pm_ops = {
	SYSTEM_SLEEP_PM_OPS(pmfreeze_suspend, pmfreeze_resume)
};

// @expect init pmfreeze_probe
// @expect entry-point pmfreeze_probe probe platform_driver.probe
static int pmfreeze_probe(struct platform_device *pdev)
{
	pmfreeze.base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(pmfreeze.base))
		return PTR_ERR(pmfreeze.base);
	pmfreeze.level = 0;
	return misc_register(&pmfreeze_misc);
}

static struct platform_driver pmfreeze_driver = {
	.probe	= pmfreeze_probe,
	.driver	= {
		.name	= "pmfreeze",
		.pm	= pm_sleep_ptr(&pmfreeze_pm_ops),
	},
};

// @expect entry-point pmfreeze_driver_init module-init module_init
// @expect entry-point pmfreeze_driver_exit module-exit module_exit
module_platform_driver(pmfreeze_driver);

MODULE_DESCRIPTION("racewatch race corpus: system-sleep callbacks against frozen user space");
MODULE_LICENSE("GPL");
