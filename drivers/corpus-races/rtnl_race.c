// SPDX-License-Identifier: GPL-2.0
/*
 * rtnl_race.c - link state of a PHY-less Ethernet port.
 *
 * Race test (case: RTNL-serialised callbacks). ndo_open and ndo_stop reset
 * the cached link state and ethtool's get_link_ksettings reads it, with no
 * driver lock: the core calls all three with RTNL held, so they never run
 * at the same time and are never paired. The link-change interrupt writes
 * the same field without RTNL (a handler cannot take a mutex): it races
 * with all three. Fixed twins: rtnl_fixed.c (a spinlock everywhere) and
 * rtnlwork_fixed.c (the update moves to a work item that takes RTNL).
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/interrupt.h>
#include <linux/io.h>

#define RWRT_STATUS	0x00		/* bit 0: link up */

struct rwrt_priv {
	void __iomem *base;
	bool link_up;
};

// @expect entry-point rwrt_irq irq devm_request_irq
static irqreturn_t rwrt_irq(int irq, void *data)
{
	struct net_device *ndev = data;
	struct rwrt_priv *priv = netdev_priv(ndev);

	priv->link_up = ioread32(priv->base + RWRT_STATUS) & 1;	/* @racy: no RTNL */
	if (priv->link_up)	/* @racy */
		netif_carrier_on(ndev);
	else
		netif_carrier_off(ndev);
	return IRQ_HANDLED;
}

// @expect entry-point rwrt_open callback net_device_ops.ndo_open
static int rwrt_open(struct net_device *ndev)
{
	struct rwrt_priv *priv = netdev_priv(ndev);

	priv->link_up = false;	/* @racy */
	netif_carrier_off(ndev);
	return 0;
}

// @expect entry-point rwrt_stop callback net_device_ops.ndo_stop
static int rwrt_stop(struct net_device *ndev)
{
	struct rwrt_priv *priv = netdev_priv(ndev);

	priv->link_up = false;	/* @racy */
	return 0;
}

// @expect entry-point rwrt_start_xmit callback net_device_ops.ndo_start_xmit
static netdev_tx_t rwrt_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);		/* a sink: the port only reports link */
	return NETDEV_TX_OK;
}

// @expect entry-point rwrt_get_ksettings callback ethtool_ops.get_link_ksettings
static int rwrt_get_ksettings(struct net_device *ndev,
			      struct ethtool_link_ksettings *cmd)
{
	struct rwrt_priv *priv = netdev_priv(ndev);

	cmd->base.speed = priv->link_up ? SPEED_1000 : SPEED_UNKNOWN;	/* @racy */
	return 0;
}

// @expect race rwrt_irq rwrt_open "struct rwrt_priv.link_up"
// @expect confirmed rwrt_irq rwrt_open "struct rwrt_priv.link_up"
// @expect race rwrt_irq rwrt_stop "struct rwrt_priv.link_up"
// @expect confirmed rwrt_irq rwrt_stop "struct rwrt_priv.link_up"
// @expect race rwrt_irq rwrt_get_ksettings "struct rwrt_priv.link_up"
// @expect confirmed rwrt_irq rwrt_get_ksettings "struct rwrt_priv.link_up"
/* All under RTNL: serialised by the kernel, never paired. */
// @expect proven rwrt_open rwrt_stop
// @expect proven rwrt_open rwrt_get_ksettings
// @expect proven rwrt_stop rwrt_get_ksettings

static const struct net_device_ops rwrt_netdev_ops = {
	.ndo_open	= rwrt_open,
	.ndo_stop	= rwrt_stop,
	.ndo_start_xmit	= rwrt_start_xmit,
};

static const struct ethtool_ops rwrt_ethtool_ops = {
	.get_link_ksettings = rwrt_get_ksettings,
};

// @expect init rwrt_probe
// @expect entry-point rwrt_probe probe platform_driver.probe
static int rwrt_probe(struct platform_device *pdev)
{
	struct net_device *ndev;
	struct rwrt_priv *priv;
	int irq, ret;

	ndev = devm_alloc_etherdev(&pdev->dev, sizeof(*priv));
	if (!ndev)
		return -ENOMEM;
	priv = netdev_priv(ndev);
	priv->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->base))
		return PTR_ERR(priv->base);
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	ndev->netdev_ops = &rwrt_netdev_ops;
	ndev->ethtool_ops = &rwrt_ethtool_ops;
	SET_NETDEV_DEV(ndev, &pdev->dev);
	eth_hw_addr_random(ndev);
	platform_set_drvdata(pdev, ndev);

	ret = devm_request_irq(&pdev->dev, irq, rwrt_irq, 0, "rwlink", ndev);
	if (ret)
		return ret;
	return register_netdev(ndev);
}

// @expect entry-point rwrt_remove remove platform_driver.remove
static void rwrt_remove(struct platform_device *pdev)
{
	unregister_netdev(platform_get_drvdata(pdev));
}

static struct platform_driver rwrt_driver = {
	.probe	= rwrt_probe,
	.remove	= rwrt_remove,
	.driver.name = "rwlink",
};

// @expect entry-point rwrt_driver_init module-init module_init
// @expect entry-point rwrt_driver_exit module-exit module_exit
module_platform_driver(rwrt_driver);

MODULE_DESCRIPTION("racewatch race corpus: RTNL callbacks against an irq handler");
MODULE_LICENSE("GPL");
