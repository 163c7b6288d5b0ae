// SPDX-License-Identifier: GPL-2.0
/*
 * wdcore_race.c - a memory-mapped watchdog with a software countdown.
 *
 * Race test (case: the watchdog core's wd_data->lock). The watchdog core
 * calls set_timeout, get_timeleft and status only with its per-device
 * mutex held (drivers/watchdog/watchdog_dev.c), so those three never run
 * at the same time and are never paired (rule watchdog-core-lock). The
 * core calls start without that mutex (watchdog_open), and the countdown
 * timer takes no core lock at all: both race with get_timeleft and status
 * (which the sysfs attributes call on a device that need not be open), and
 * the timer with set_timeout, on the countdown. start and set_timeout never
 * run at once: set_timeout comes only from an ioctl of the open file, and
 * watchdog_open calls start only after winning the single-open bit that
 * file holds (rule watchdog-single-open). Fixed twin: wdcore_fixed.c.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/watchdog.h>
#include <linux/timer.h>
#include <linux/io.h>

#define WDC_RELOAD	0x00

struct wdc_priv {
	struct watchdog_device wdd;
	void __iomem *base;
	struct timer_list tick;
	unsigned int left;		/* seconds until the reset */
};

// @expect entry-point wdc_tick timer timer_setup
static void wdc_tick(struct timer_list *t)
{
	struct wdc_priv *priv = from_timer(priv, t, tick);

	if (priv->left)		/* @racy */
		priv->left--;	/* @racy: no lock against set_timeout */
	mod_timer(&priv->tick, jiffies + HZ);
}

// @expect entry-point wdc_start callback watchdog_ops.start
static int wdc_start(struct watchdog_device *wdd)
{
	struct wdc_priv *priv = watchdog_get_drvdata(wdd);

	priv->left = wdd->timeout;	/* @racy: watchdog_open calls start without the core mutex */
	iowrite32(wdd->timeout, priv->base + WDC_RELOAD);
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

	wdd->timeout = t;	/* @racy */
	priv->left = t;		/* @racy */
	iowrite32(t, priv->base + WDC_RELOAD);
	return 0;
}

// @expect entry-point wdc_get_timeleft callback watchdog_ops.get_timeleft
static unsigned int wdc_get_timeleft(struct watchdog_device *wdd)
{
	struct wdc_priv *priv = watchdog_get_drvdata(wdd);

	return priv->left;	/* @racy */
}

// @expect entry-point wdc_status callback watchdog_ops.status
static unsigned int wdc_status(struct watchdog_device *wdd)
{
	struct wdc_priv *priv = watchdog_get_drvdata(wdd);

	return priv->left ? 0 : WDIOF_KEEPALIVEPING;	/* @racy */
}

// @expect race wdc_tick wdc_start "struct wdc_priv.left"
// @expect confirmed wdc_tick wdc_start "struct wdc_priv.left"
// @expect race wdc_tick wdc_set_timeout "struct wdc_priv.left"
// @expect confirmed wdc_tick wdc_set_timeout "struct wdc_priv.left"
// @expect race wdc_tick wdc_get_timeleft "struct wdc_priv.left"
// @expect confirmed wdc_tick wdc_get_timeleft "struct wdc_priv.left"
// @expect race wdc_tick wdc_status "struct wdc_priv.left"
// @expect confirmed wdc_tick wdc_status "struct wdc_priv.left"
// @expect race wdc_start wdc_get_timeleft "struct wdc_priv.left"
// @expect confirmed wdc_start wdc_get_timeleft "struct wdc_priv.left"
// @expect race wdc_start wdc_status "struct wdc_priv.left"
// @expect confirmed wdc_start wdc_status "struct wdc_priv.left"
// @expect race wdc_start wdc_start "struct wdc_priv.left"
// @expect confirmed wdc_start wdc_start "struct wdc_priv.left"
/* Under the core's wd_data->lock: serialised by the kernel, never paired. */
// @expect proven wdc_set_timeout wdc_get_timeleft
// @expect proven wdc_set_timeout wdc_status
// @expect proven wdc_set_timeout wdc_set_timeout
/* Single open: set_timeout only on the open file, start only for the opener. */
// @expect proven wdc_start wdc_set_timeout

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

MODULE_DESCRIPTION("racewatch race corpus: watchdog ops under the core's mutex against a timer");
MODULE_LICENSE("GPL");
