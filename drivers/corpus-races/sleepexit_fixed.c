// SPDX-License-Identifier: GPL-2.0
/*
 * sleepexit_fixed.c - a platform driver whose resume reports how many
 * times the module set its generation counter.
 *
 * Fixed twin of sleepexit_race.c (case: module exit against a
 * system-sleep PM callback, issue 14). module_exit stores the generation
 * before unregistering the driver, without a lock, while the driver's
 * resume may still be called. A module's exit runs only in the
 * delete_module system call of a user task (kernel/module/main.c), and
 * the system-sleep callbacks run only while every user task is frozen
 * (freeze_processes before dpm_suspend_start, thawed after
 * dpm_resume_end), so they never overlap
 * (kernel-models/serialisation/system-sleep.xml). module_init stores it
 * before registering the driver.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pm.h>

static int sleepexit_generation;

// @expect entry-point sleepexit_resume callback dev_pm_ops.resume
static int sleepexit_resume(struct device *dev)
{
	dev_info(dev, "generation %d\n", sleepexit_generation);
	return 0;
}

static const struct dev_pm_ops sleepexit_pm_ops = {
	.resume = sleepexit_resume,
};

static struct platform_driver sleepexit_driver = {
	.driver = {
		.name = "sleepexit",
		.pm = &sleepexit_pm_ops,
	},
};

// @expect proven sleepexit_init sleepexit_resume
// @expect proven sleepexit_resume sleepexit_exit

// @expect init sleepexit_init
// @expect entry-point sleepexit_init module-init module_init
static int __init sleepexit_init(void)
{
	int err;

	sleepexit_generation = 1;
	err = platform_driver_register(&sleepexit_driver);
	if (err)
		return err;
	return 0;
}

// @expect entry-point sleepexit_exit module-exit module_exit
static void __exit sleepexit_exit(void)
{
	sleepexit_generation = 2;
	platform_driver_unregister(&sleepexit_driver);
}

module_init(sleepexit_init);
module_exit(sleepexit_exit);

MODULE_DESCRIPTION("racewatch race corpus: module exit against a system-sleep callback");
MODULE_LICENSE("GPL");
