// SPDX-License-Identifier: GPL-2.0
/*
 * wdopen_race.c - a memory-mapped watchdog whose start loads the
 * configured timeout into the hardware.
 *
 * Racy twin of wdopen_fixed.c (case: the watchdog core's single-open bit,
 * issue 14 Build 5). start reads wdd->timeout without a lock and
 * set_timeout writes it. The core serialises the two (set_timeout only
 * from an ioctl of the open file under wd_data->lock, start under that
 * mutex or from watchdog_open after winning the single-open bit), but this
 * driver also reports, at probe, how long ago the boot loader pinged a
 * running watchdog: watchdog_set_last_hw_keepalive then pings it at once
 * (__watchdog_ping, drivers/watchdog/watchdog_dev.c), calling start, as
 * the driver has no ping, in the probe's thread without the mutex or the
 * bit, while a file opened as soon as the device was registered may be
 * setting the timeout (rule watchdog-single-open does not hold). Expected:
 * a race between start and set_timeout on the timeout, confirmed, and the
 * false alarms of the probe's unmodelled call, which the precise phase
 * does not find.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/watchdog.h>
#include <linux/io.h>

#define WDO_RELOAD	0x00
#define WDO_CTRL	0x04

struct wdo_priv {
	struct watchdog_device wdd;
	void __iomem *base;
};

// @expect entry-point wdo_start callback watchdog_ops.start
static int wdo_start(struct watchdog_device *wdd)
{
	struct wdo_priv *priv = container_of(wdd, struct wdo_priv, wdd);

	iowrite32(wdd->timeout, priv->base + WDO_RELOAD);	/* @racy: beside set_timeout */
	iowrite32(1, priv->base + WDO_CTRL);
	return 0;
}

// @expect entry-point wdo_stop callback watchdog_ops.stop
static int wdo_stop(struct watchdog_device *wdd)
{
	struct wdo_priv *priv = container_of(wdd, struct wdo_priv, wdd);

	iowrite32(0, priv->base + WDO_CTRL);
	return 0;
}

// @expect entry-point wdo_set_timeout callback watchdog_ops.set_timeout
static int wdo_set_timeout(struct watchdog_device *wdd, unsigned int t)
{
	struct wdo_priv *priv = container_of(wdd, struct wdo_priv, wdd);

	wdd->timeout = t;					/* @racy */
	iowrite32(t, priv->base + WDO_RELOAD);
	return 0;
}

// @expect race wdo_start wdo_set_timeout "struct watchdog_device.timeout"
// @expect confirmed wdo_start wdo_set_timeout "struct watchdog_device.timeout"
/*
 * False alarms: watchdog_set_last_hw_keepalive has no model, so the lowering
 * lets it write every field of the watchdog_device it is given; the
 * precise phase finds no such race.
 */
// @expect race wdo_start wdo_probe "struct watchdog_device.timeout"
// @expect not-found wdo_start wdo_probe "struct watchdog_device.timeout"
// @expect race wdo_set_timeout wdo_probe "struct watchdog_device.timeout"
// @expect not-found wdo_set_timeout wdo_probe "struct watchdog_device.timeout"

static const struct watchdog_info wdo_info = {
	.options	= WDIOF_SETTIMEOUT | WDIOF_KEEPALIVEPING,
	.identity	= "wdopen",
};

static const struct watchdog_ops wdo_ops = {
	.owner		= THIS_MODULE,
	.start		= wdo_start,
	.stop		= wdo_stop,
	.set_timeout	= wdo_set_timeout,
};

// @expect init wdo_probe
// @expect entry-point wdo_probe probe platform_driver.probe
static int wdo_probe(struct platform_device *pdev)
{
	struct wdo_priv *priv;
	int err;

	priv = devm_kzalloc(&pdev->dev, sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->base))
		return PTR_ERR(priv->base);
	priv->wdd.info = &wdo_info;
	priv->wdd.ops = &wdo_ops;
	priv->wdd.timeout = 30;
	priv->wdd.min_timeout = 1;
	priv->wdd.max_timeout = 255;
	priv->wdd.parent = &pdev->dev;
	if (ioread32(priv->base + WDO_CTRL))
		set_bit(WDOG_HW_RUNNING, &priv->wdd.status);
	err = devm_watchdog_register_device(&pdev->dev, &priv->wdd);
	if (err)
		return err;
	return watchdog_set_last_hw_keepalive(&priv->wdd, 500);
}

static struct platform_driver wdo_driver = {
	.probe	= wdo_probe,
	.driver.name = "wdopen",
};

// @expect entry-point wdo_driver_init module-init module_init
// @expect entry-point wdo_driver_exit module-exit module_exit
module_platform_driver(wdo_driver);

MODULE_DESCRIPTION("racewatch race corpus: a ping outside the single-open bit");
MODULE_LICENSE("GPL");
