// SPDX-License-Identifier: GPL-2.0
/*
 * timerwork_race.c - over-temperature monitor with fan boost.
 *
 * Race test (case: a timer and a work item updating one statistics
 * field). A poll timer samples the temperature every second and counts an
 * event when it exceeds the threshold, then schedules a work item that
 * boosts the fan (it may sleep on the PWM bus) and counts a second event.
 * The timer runs in softirq context and the work item in a kworker: they
 * run concurrently on different CPUs, and neither takes a lock, so they
 * race on the event counter. Each runs alone with respect to itself (one
 * timer, one work item). The fixed twin, timerwork_fixed.c, adds a spinlock.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/jiffies.h>
#include <linux/io.h>

#define RWTW_TEMP	0x00
#define RWTW_FAN	0x04

struct rwtw_dev {
	void __iomem *base;
	u32 threshold;			/* set in probe only */
	unsigned long events;		/* over-temperature statistics */
	struct timer_list poll_timer;
	struct work_struct boost_work;
};

// @expect entry-point rwtw_poll timer timer_setup
static void rwtw_poll(struct timer_list *t)
{
	struct rwtw_dev *dev = from_timer(dev, t, poll_timer);

	if (ioread32(dev->base + RWTW_TEMP) > dev->threshold) {
		dev->events++;			/* @racy: no lock */
		schedule_work(&dev->boost_work);
	}
	mod_timer(&dev->poll_timer, jiffies + HZ);
}

// @expect entry-point rwtw_boost work work_struct.func
static void rwtw_boost(struct work_struct *work)
{
	struct rwtw_dev *dev = container_of(work, struct rwtw_dev, boost_work);

	iowrite32(100, dev->base + RWTW_FAN);
	dev->events++;				/* @racy: no lock */
}

// @expect race rwtw_poll rwtw_boost "struct rwtw_dev.events"
// @expect confirmed rwtw_poll rwtw_boost "struct rwtw_dev.events"

// @expect init rwtw_probe
// @expect entry-point rwtw_probe probe platform_driver.probe
static int rwtw_probe(struct platform_device *pdev)
{
	struct rwtw_dev *dev;
	u32 threshold = 85000;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	device_property_read_u32(&pdev->dev, "racewatch,threshold", &threshold);
	dev->threshold = threshold;
	platform_set_drvdata(pdev, dev);

	INIT_WORK(&dev->boost_work, rwtw_boost);
	timer_setup(&dev->poll_timer, rwtw_poll, 0);
	mod_timer(&dev->poll_timer, jiffies + HZ);
	return 0;
}

// @expect entry-point rwtw_remove remove platform_driver.remove
static void rwtw_remove(struct platform_device *pdev)
{
	struct rwtw_dev *dev = platform_get_drvdata(pdev);

	timer_shutdown_sync(&dev->poll_timer);
	cancel_work_sync(&dev->boost_work);
}

static struct platform_driver rwtw_driver = {
	.probe	= rwtw_probe,
	.remove	= rwtw_remove,
	.driver.name = "rwthermal",
};

// @expect entry-point rwtw_driver_init module-init module_init
// @expect entry-point rwtw_driver_exit module-exit module_exit
module_platform_driver(rwtw_driver);

MODULE_DESCRIPTION("racewatch race corpus: timer and work item share a counter");
MODULE_LICENSE("GPL");
