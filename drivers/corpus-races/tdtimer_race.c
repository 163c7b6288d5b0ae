// SPDX-License-Identifier: GPL-2.0
/*
 * tdtimer_race.c - sampling device polled by a timer.
 *
 * Race test (case: timer deleted without waiting, then its state
 * cleared). remove() stops the poll timer with timer_delete(), which does
 * not wait for a callback already running on another CPU, and then clears
 * the sample buffer pointer the callback reads and writes through. The
 * fixed twin, tdtimer_fixed.c, uses timer_delete_sync().
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/timer.h>
#include <linux/slab.h>
#include <linux/io.h>

struct tdt_dev {
	void __iomem *base;
	u32 *samples;			/* the timer's buffer, cleared by remove */
	unsigned int next;
	struct timer_list poll;
};

static struct tdt_dev tdt_state;

// @expect entry-point tdt_poll timer timer_setup
static void tdt_poll(struct timer_list *t)
{
	struct tdt_dev *dev = from_timer(dev, t, poll);
	u32 *buf = dev->samples;	/* @racy */

	if (buf)
		buf[dev->next++ & 15] = ioread32(dev->base);
	mod_timer(&dev->poll, jiffies + HZ);
}

// @expect init tdt_probe
// @expect entry-point tdt_probe probe platform_driver.probe
static int tdt_probe(struct platform_device *pdev)
{
	struct tdt_dev *dev = &tdt_state;

	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	dev->samples = kcalloc(16, sizeof(u32), GFP_KERNEL);
	if (!dev->samples)
		return -ENOMEM;
	dev->next = 0;
	timer_setup(&dev->poll, tdt_poll, 0);
	mod_timer(&dev->poll, jiffies + HZ);
	return 0;
}

// @expect entry-point tdt_remove remove platform_driver.remove
static void tdt_remove(struct platform_device *pdev)
{
	struct tdt_dev *dev = &tdt_state;
	u32 *buf = dev->samples;

	timer_delete(&dev->poll);	/* BUG: the callback may still run */
	dev->samples = NULL;	/* @racy */
	kfree(buf);
}

// @expect race tdt_poll tdt_remove "struct tdt_dev.samples"
// @expect confirmed tdt_poll tdt_remove "struct tdt_dev.samples"

static struct platform_driver tdt_driver = {
	.probe	= tdt_probe,
	.remove	= tdt_remove,
	.driver	= {
		.name	= "tdtimer",
	},
};

// @expect entry-point tdt_driver_init module-init module_init
// @expect entry-point tdt_driver_exit module-exit module_exit
module_platform_driver(tdt_driver);

MODULE_DESCRIPTION("racewatch race corpus: a timer deleted without waiting in remove");
MODULE_LICENSE("GPL");
