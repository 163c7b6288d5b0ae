// SPDX-License-Identifier: GPL-2.0
/*
 * mdiolock_race.c - an MDIO controller with paged registers.
 *
 * Race test (case: the MDIO bus lock). The MDIO core calls a bus's read
 * and write only with the bus's mdio_lock held (__mdiobus_read and
 * __mdiobus_write assert it, drivers/net/phy/mdio_bus.c), so the cached
 * page register needs no driver lock between them (rule mdio-bus-lock,
 * which makes them hold the pseudo lock struct mii_bus.mdio_lock). The
 * recalibration work switches the page without taking mdio_lock: it races
 * with both. Fixed twin: mdiolock_fixed.c.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/phy.h>
#include <linux/workqueue.h>
#include <linux/io.h>

#define MDC_PAGE	0x00
#define MDC_DATA(r)	(0x10 + 4 * (r))

struct mdc_priv {
	void __iomem *base;
	struct mii_bus *bus;
	struct delayed_work recal;
	int page;			/* the page the controller is on */
};

static void mdc_select(struct mdc_priv *priv, int page)
{
	if (priv->page != page) {	/* @racy */
		iowrite32(page, priv->base + MDC_PAGE);
		priv->page = page;	/* @racy */
	}
}

// @expect entry-point mdc_read callback mii_bus.read
static int mdc_read(struct mii_bus *bus, int addr, int regnum)
{
	struct mdc_priv *priv = bus->priv;

	mdc_select(priv, addr);
	return ioread32(priv->base + MDC_DATA(regnum)) & 0xffff;
}

// @expect entry-point mdc_write callback mii_bus.write
static int mdc_write(struct mii_bus *bus, int addr, int regnum, u16 val)
{
	struct mdc_priv *priv = bus->priv;

	mdc_select(priv, addr);
	iowrite32(val, priv->base + MDC_DATA(regnum));
	return 0;
}

// @expect entry-point mdc_recal work work_struct.func
static void mdc_recal(struct work_struct *work)
{
	struct mdc_priv *priv = container_of(to_delayed_work(work), struct mdc_priv, recal);

	mdc_select(priv, 31);	/* no mdio_lock */
	iowrite32(1, priv->base + MDC_DATA(0));
	schedule_delayed_work(&priv->recal, HZ);
}

// @expect race mdc_read mdc_recal "struct mdc_priv.page"
// @expect confirmed mdc_read mdc_recal "struct mdc_priv.page"
// @expect race mdc_write mdc_recal "struct mdc_priv.page"
// @expect confirmed mdc_write mdc_recal "struct mdc_priv.page"
/* Under the bus's mdio_lock: serialised by the kernel, never paired. */
// @expect proven mdc_read mdc_write
// @expect proven mdc_read mdc_read
// @expect proven mdc_write mdc_write

// @expect init mdc_probe
// @expect entry-point mdc_probe probe platform_driver.probe
static int mdc_probe(struct platform_device *pdev)
{
	struct mdc_priv *priv;
	struct mii_bus *bus;

	priv = devm_kzalloc(&pdev->dev, sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->base))
		return PTR_ERR(priv->base);
	bus = devm_mdiobus_alloc(&pdev->dev);
	if (!bus)
		return -ENOMEM;
	bus->name = "mdiolock";
	bus->read = mdc_read;
	bus->write = mdc_write;
	bus->priv = priv;
	bus->parent = &pdev->dev;
	snprintf(bus->id, MII_BUS_ID_SIZE, "%s", dev_name(&pdev->dev));
	priv->bus = bus;
	priv->page = -1;
	INIT_DELAYED_WORK(&priv->recal, mdc_recal);
	schedule_delayed_work(&priv->recal, HZ);
	return devm_mdiobus_register(&pdev->dev, bus);
}

static struct platform_driver mdc_driver = {
	.probe	= mdc_probe,
	.driver.name = "mdiolock",
};

// @expect entry-point mdc_driver_init module-init module_init
// @expect entry-point mdc_driver_exit module-exit module_exit
module_platform_driver(mdc_driver);

MODULE_DESCRIPTION("racewatch race corpus: MDIO read/write under the bus lock against a work item");
MODULE_LICENSE("GPL");
