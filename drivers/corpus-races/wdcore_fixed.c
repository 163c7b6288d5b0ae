// SPDX-License-Identifier: GPL-2.0
/*
 * wdcore_fixed.c - a memory-mapped watchdog with a software countdown.
 * Fixed twin of wdcore_race.c (case: the watchdog core's wd_data->lock):
 * the countdown is guarded by the private spinlock everywhere, since the
 * timer and start run outside the core's mutex. The configured timeout is
 * written only by set_timeout and read only by get_timeleft and status,
 * all without a driver lock: the watchdog core holds its per-device mutex
 * around those three (drivers/watchdog/watchdog_dev.c, rule
 * watchdog-core-lock), so they never run at the same time.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/watchdog.h>
#include <linux/timer.h>
#include <linux/spinlock.h>
#include <linux/io.h>

#define WDC_RELOAD	0x00

struct wdc_priv {
	struct watchdog_device wdd;
	void __iomem *base;
	struct timer_list tick;
	spinlock_t lock;		/* guards left */
	unsigned int left;		/* seconds until the reset */
	unsigned int configured;	/* under the core's mutex only */
};

// @expect entry-point wdc_tick timer timer_setup
static void wdc_tick(struct timer_list *t)
{
	struct wdc_priv *priv = from_timer(priv, t, tick);
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->left)
		priv->left--;
	spin_unlock_irqrestore(&priv->lock, flags);
	mod_timer(&priv->tick, jiffies + HZ);
}

// @expect entry-point wdc_start callback watchdog_ops.start
static int wdc_start(struct watchdog_device *wdd)
{
	struct wdc_priv *priv = watchdog_get_drvdata(wdd);

	spin_lock_irq(&priv->lock);
	priv->left = 30;
	spin_unlock_irq(&priv->lock);
	iowrite32(30, priv->base + WDC_RELOAD);
	return 0;
}

// @expect entry-point wdc_stop callback watchdog_ops.stop
static int wdc_stop(struct watchdog_device *wdd)
{
	struct wdc_priv *priv = watchdog_get_drvdata(wdd);

	iowrite32(0, priv->base + WDC_RELOAD);
	return 0;
}

// @expect entry-point wdc_set_timeout callback watchdog_ops.set_timeout
static int wdc_set_timeout(struct watchdog_device *wdd, unsigned int t)
{
	struct wdc_priv *priv = watchdog_get_drvdata(wdd);

	priv->configured = t;
	spin_lock_irq(&priv->lock);
	priv->left = t;
	spin_unlock_irq(&priv->lock);
	iowrite32(t, priv->base + WDC_RELOAD);
	return 0;
}

// @expect entry-point wdc_get_timeleft callback watchdog_ops.get_timeleft
static unsigned int wdc_get_timeleft(struct watchdog_device *wdd)
{
	struct wdc_priv *priv = watchdog_get_drvdata(wdd);
	unsigned int left;

	spin_lock_irq(&priv->lock);
	left = priv->left;
	spin_unlock_irq(&priv->lock);
	return min(left, priv->configured);
}

// @expect entry-point wdc_status callback watchdog_ops.status
static unsigned int wdc_status(struct watchdog_device *wdd)
{
	struct wdc_priv *priv = watchdog_get_drvdata(wdd);

	return priv->configured ? WDIOF_SETTIMEOUT : 0;
}

// @expect proven wdc_set_timeout wdc_get_timeleft
// @expect proven wdc_set_timeout wdc_status
// @expect proven wdc_set_timeout wdc_set_timeout
// @expect proven wdc_tick wdc_set_timeout
// @expect proven wdc_tick wdc_get_timeleft
// @expect proven wdc_start wdc_set_timeout
// @expect proven wdc_start wdc_start

static const struct watchdog_info wdc_info = {
	.options	= WDIOF_SETTIMEOUT | WDIOF_KEEPALIVEPING,
	.identity	= "wdcore",
};

static const struct watchdog_ops wdc_ops = {
	.owner		= THIS_MODULE,
	.start		= wdc_start,
	.stop		= wdc_stop,
	.set_timeout	= wdc_set_timeout,
	.get_timeleft	= wdc_get_timeleft,
	.status		= wdc_status,
};

// @expect init wdc_probe
// @expect entry-point wdc_probe probe platform_driver.probe
static int wdc_probe(struct platform_device *pdev)
{
	struct wdc_priv *priv;

	priv = devm_kzalloc(&pdev->dev, sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->base))
		return PTR_ERR(priv->base);
	spin_lock_init(&priv->lock);
	priv->wdd.info = &wdc_info;
	priv->wdd.ops = &wdc_ops;
	priv->wdd.timeout = 30;
	priv->wdd.min_timeout = 1;
	priv->wdd.max_timeout = 255;
	priv->wdd.parent = &pdev->dev;
	watchdog_set_drvdata(&priv->wdd, priv);
	timer_setup(&priv->tick, wdc_tick, 0);
	mod_timer(&priv->tick, jiffies + HZ);
	return devm_watchdog_register_device(&pdev->dev, &priv->wdd);
}

static struct platform_driver wdc_driver = {
	.probe	= wdc_probe,
	.driver.name = "wdcore",
};

// @expect entry-point wdc_driver_init module-init module_init
// @expect entry-point wdc_driver_exit module-exit module_exit
module_platform_driver(wdc_driver);

MODULE_DESCRIPTION("racewatch race corpus: watchdog ops under the core's mutex, fixed");
MODULE_LICENSE("GPL");
