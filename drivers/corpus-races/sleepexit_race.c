// SPDX-License-Identifier: GPL-2.0
/*
 * sleepexit_race.c - a platform driver whose resume reports how many
 * times the module set its generation counter.
 *
 * Race test (case: a work item against a system-sleep PM callback, issue
 * 14). As in the fixed twin sleepexit_fixed.c, module exit stores the
 * generation without a lock, which no system-sleep callback can overlap
 * (its system call's task is frozen first); but module_init also queues
 * a work item that stores it, and a kworker of system_wq is not frozen:
 * the work may run while resume reads the generation.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pm.h>
#include <linux/workqueue.h>

static int sleepexit_generation;

// @expect entry-point sleepexit_work_fn work work_struct.func
static void sleepexit_work_fn(struct work_struct *work)
{
	sleepexit_generation = 3; // @racy
}

static DECLARE_WORK(sleepexit_work, sleepexit_work_fn);

// @expect entry-point sleepexit_resume callback dev_pm_ops.resume
static int sleepexit_resume(struct device *dev)
{
	dev_info(dev, "generation %d\n", sleepexit_generation); // @racy
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
// @expect race sleepexit_work_fn sleepexit_resume "global sleepexit_generation"
// @expect confirmed sleepexit_work_fn sleepexit_resume "global sleepexit_generation"

// @expect init sleepexit_init
// @expect entry-point sleepexit_init module-init module_init
static int __init sleepexit_init(void)
{
	int err;

	sleepexit_generation = 1;
	err = platform_driver_register(&sleepexit_driver);
	if (err)
		return err;
	schedule_work(&sleepexit_work);
	return 0;
}

// @expect entry-point sleepexit_exit module-exit module_exit
static void __exit sleepexit_exit(void)
{
	cancel_work_sync(&sleepexit_work);
	sleepexit_generation = 2;
	platform_driver_unregister(&sleepexit_driver);
}

module_init(sleepexit_init);
module_exit(sleepexit_exit);

MODULE_DESCRIPTION("racewatch race corpus: a work item against a system-sleep callback");
MODULE_LICENSE("GPL");
