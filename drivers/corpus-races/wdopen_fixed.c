// SPDX-License-Identifier: GPL-2.0
/*
 * wdopen_fixed.c - a memory-mapped watchdog whose start loads the
 * configured timeout into the hardware.
 *
 * Fixed twin of wdopen_race.c (case: the watchdog core's single-open bit,
 * issue 14 Build 5). start reads wdd->timeout without a lock and
 * set_timeout writes it: the core calls set_timeout only from an ioctl of
 * the open /dev/watchdog file, holding wd_data->lock, and start either
 * under that mutex or from watchdog_open once it has won the device's
 * single-open bit, which the open file holds until its release
 * (drivers/watchdog/watchdog_dev.c; rule watchdog-single-open). So the two
 * never run at once. Expected: every pair proven race-free.
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

	iowrite32(wdd->timeout, priv->base + WDO_RELOAD);
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

	wdd->timeout = t;
	iowrite32(t, priv->base + WDO_RELOAD);
	return 0;
}

// @expect proven wdo_start wdo_set_timeout

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
	return err;
}

static struct platform_driver wdo_driver = {
	.probe	= wdo_probe,
	.driver.name = "wdopen",
};

// @expect entry-point wdo_driver_init module-init module_init
// @expect entry-point wdo_driver_exit module-exit module_exit
module_platform_driver(wdo_driver);

MODULE_DESCRIPTION("racewatch race corpus: start and set_timeout on a single-open watchdog");
MODULE_LICENSE("GPL");
