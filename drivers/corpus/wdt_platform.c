// SPDX-License-Identifier: GPL-2.0
/*
 * wdt_platform.c - memory-mapped SoC watchdog timer.
 *
 * A platform_driver (probe/remove) registered with module_platform_driver,
 * whose nested `.driver = { .name, .pm, .of_match_table }` initializer points
 * at a dev_pm_ops built by the (deprecated but still common) SIMPLE_DEV_PM_OPS
 * macro. The probe registers a watchdog_device whose watchdog_ops carry
 * start/stop/ping/set_timeout/get_timeleft and whose watchdog_info has no
 * functions. The hardware counter, the last-ping time and the suspend flag
 * are shared between the watchdog core, the PM callbacks and remove.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/mod_devicetable.h>
#include <linux/watchdog.h>
#include <linux/io.h>
#include <linux/spinlock.h>
#include <linux/jiffies.h>
#include <linux/pm.h>

#define RWWDT_CTRL		0x00
#define  RWWDT_CTRL_EN		BIT(0)
#define  RWWDT_CTRL_RST_EN	BIT(1)
#define RWWDT_LOAD		0x04
#define RWWDT_COUNT		0x08
#define RWWDT_KICK		0x0c
#define  RWWDT_KICK_MAGIC	0x5afe
#define RWWDT_CLK_HZ		32768
#define RWWDT_MAX_TIMEOUT	(0xffffffffU / RWWDT_CLK_HZ)

struct rwwdt {
	struct watchdog_device wdd;
	void __iomem *base;
	spinlock_t lock;		/* serialises CTRL/LOAD updates */
	unsigned long last_ping;	/* jiffies of the last keepalive */
	bool was_running;		/* saved across suspend */
};

static void rwwdt_load(struct rwwdt *wdt, unsigned int timeout)
{
	iowrite32(timeout * RWWDT_CLK_HZ, wdt->base + RWWDT_LOAD);
	iowrite32(RWWDT_KICK_MAGIC, wdt->base + RWWDT_KICK);
}

// @expect entry-point rwwdt_start callback watchdog_ops.start
static int rwwdt_start(struct watchdog_device *wdd)
{
	struct rwwdt *wdt = watchdog_get_drvdata(wdd);
	unsigned long flags;

	spin_lock_irqsave(&wdt->lock, flags);
	rwwdt_load(wdt, wdd->timeout);
	iowrite32(RWWDT_CTRL_EN | RWWDT_CTRL_RST_EN, wdt->base + RWWDT_CTRL);
	spin_unlock_irqrestore(&wdt->lock, flags);
	wdt->last_ping = jiffies;
	return 0;
}

// @expect entry-point rwwdt_stop callback watchdog_ops.stop
static int rwwdt_stop(struct watchdog_device *wdd)
{
	struct rwwdt *wdt = watchdog_get_drvdata(wdd);
	unsigned long flags;

	spin_lock_irqsave(&wdt->lock, flags);
	iowrite32(0, wdt->base + RWWDT_CTRL);
	spin_unlock_irqrestore(&wdt->lock, flags);
	return 0;
}

// @expect entry-point rwwdt_ping callback watchdog_ops.ping
static int rwwdt_ping(struct watchdog_device *wdd)
{
	struct rwwdt *wdt = watchdog_get_drvdata(wdd);

	iowrite32(RWWDT_KICK_MAGIC, wdt->base + RWWDT_KICK);
	wdt->last_ping = jiffies;
	return 0;
}

// @expect entry-point rwwdt_set_timeout callback watchdog_ops.set_timeout
static int rwwdt_set_timeout(struct watchdog_device *wdd, unsigned int timeout)
{
	struct rwwdt *wdt = watchdog_get_drvdata(wdd);
	unsigned long flags;

	wdd->timeout = timeout;
	spin_lock_irqsave(&wdt->lock, flags);
	if (ioread32(wdt->base + RWWDT_CTRL) & RWWDT_CTRL_EN)
		rwwdt_load(wdt, timeout);
	spin_unlock_irqrestore(&wdt->lock, flags);
	return 0;
}

// @expect entry-point rwwdt_get_timeleft callback watchdog_ops.get_timeleft
static unsigned int rwwdt_get_timeleft(struct watchdog_device *wdd)
{
	struct rwwdt *wdt = watchdog_get_drvdata(wdd);

	return ioread32(wdt->base + RWWDT_COUNT) / RWWDT_CLK_HZ;
}

static const struct watchdog_info rwwdt_info = {
	.options	= WDIOF_SETTIMEOUT | WDIOF_KEEPALIVEPING | WDIOF_MAGICCLOSE,
	.identity	= "racewatch SoC watchdog",
};

static const struct watchdog_ops rwwdt_ops = {
	.owner		= THIS_MODULE,
	.start		= rwwdt_start,
	.stop		= rwwdt_stop,
	.ping		= rwwdt_ping,
	.set_timeout	= rwwdt_set_timeout,
	.get_timeleft	= rwwdt_get_timeleft,
};

// @expect entry-point rwwdt_suspend callback dev_pm_ops.suspend
// @expect entry-point rwwdt_suspend callback dev_pm_ops.freeze
// @expect entry-point rwwdt_suspend callback dev_pm_ops.poweroff
static int __maybe_unused rwwdt_suspend(struct device *dev)
{
	struct rwwdt *wdt = dev_get_drvdata(dev);

	wdt->was_running = watchdog_active(&wdt->wdd);
	if (wdt->was_running)
		return rwwdt_stop(&wdt->wdd);
	return 0;
}

// @expect entry-point rwwdt_resume callback dev_pm_ops.resume
// @expect entry-point rwwdt_resume callback dev_pm_ops.thaw
// @expect entry-point rwwdt_resume callback dev_pm_ops.restore
static int __maybe_unused rwwdt_resume(struct device *dev)
{
	struct rwwdt *wdt = dev_get_drvdata(dev);

	if (wdt->was_running)
		return rwwdt_start(&wdt->wdd);
	return 0;
}

static SIMPLE_DEV_PM_OPS(rwwdt_pm_ops, rwwdt_suspend, rwwdt_resume);

// @expect init rwwdt_probe
// @expect entry-point rwwdt_probe probe platform_driver.probe
static int rwwdt_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct rwwdt *wdt;

	wdt = devm_kzalloc(dev, sizeof(*wdt), GFP_KERNEL);
	if (!wdt)
		return -ENOMEM;

	wdt->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(wdt->base))
		return PTR_ERR(wdt->base);
	spin_lock_init(&wdt->lock);

	wdt->wdd.info = &rwwdt_info;
	wdt->wdd.ops = &rwwdt_ops;
	wdt->wdd.parent = dev;
	wdt->wdd.min_timeout = 1;
	wdt->wdd.max_timeout = RWWDT_MAX_TIMEOUT;
	wdt->wdd.timeout = 30;
	watchdog_init_timeout(&wdt->wdd, 0, dev);
	watchdog_set_nowayout(&wdt->wdd, WATCHDOG_NOWAYOUT);
	watchdog_set_drvdata(&wdt->wdd, wdt);
	platform_set_drvdata(pdev, wdt);

	if (ioread32(wdt->base + RWWDT_CTRL) & RWWDT_CTRL_EN)
		set_bit(WDOG_HW_RUNNING, &wdt->wdd.status);

	return watchdog_register_device(&wdt->wdd);
}

// @expect entry-point rwwdt_remove remove platform_driver.remove
static void rwwdt_remove(struct platform_device *pdev)
{
	struct rwwdt *wdt = platform_get_drvdata(pdev);

	watchdog_unregister_device(&wdt->wdd);
	iowrite32(0, wdt->base + RWWDT_CTRL);
}

static const struct of_device_id rwwdt_of_match[] = {
	{ .compatible = "racewatch,soc-wdt" },
	{ }
};
MODULE_DEVICE_TABLE(of, rwwdt_of_match);

static struct platform_driver rwwdt_driver = {
	.probe	= rwwdt_probe,
	.remove	= rwwdt_remove,
	.driver	= {
		.name		= "rw-wdt",
		.pm		= &rwwdt_pm_ops,
		.of_match_table	= rwwdt_of_match,
	},
};

// @expect entry-point rwwdt_driver_init module-init module_init
// @expect entry-point rwwdt_driver_exit module-exit module_exit
module_platform_driver(rwwdt_driver);

MODULE_DESCRIPTION("racewatch corpus: platform watchdog");
MODULE_LICENSE("GPL");
