// SPDX-License-Identifier: GPL-2.0
/*
 * netdown_race.c - the transmit ring of a memory-mapped Ethernet MAC.
 *
 * Race test (case: ndo_open/ndo_stop against the TX watchdog and netpoll).
 * ndo_open and ndo_stop reset the ring index without a driver lock: the
 * TX watchdog calls ndo_tx_timeout only while the device's queues have a
 * real qdisc, from after ndo_open to before ndo_stop (rule
 * tx-watchdog-down), and netpoll calls ndo_poll_controller only with the
 * device's npinfo->dev_lock, which __dev_open and __dev_close_many hold
 * around ndo_open and ndo_stop (rule netpoll-dev-lock). Nothing keeps the
 * watchdog's ring reset apart from netpoll's reclaim: they race.
 * Fixed twin: netdown_fixed.c.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/io.h>

#define NDN_TXHEAD	0x00

struct ndn_priv {
	void __iomem *base;
	unsigned int tx_head;		/* next descriptor to reclaim */
};

// @expect entry-point ndn_open callback net_device_ops.ndo_open
static int ndn_open(struct net_device *ndev)
{
	struct ndn_priv *priv = netdev_priv(ndev);

	priv->tx_head = 0;
	iowrite32(0, priv->base + NDN_TXHEAD);
	netif_start_queue(ndev);
	return 0;
}

// @expect entry-point ndn_stop callback net_device_ops.ndo_stop
static int ndn_stop(struct net_device *ndev)
{
	struct ndn_priv *priv = netdev_priv(ndev);

	netif_stop_queue(ndev);
	priv->tx_head = 0;
	return 0;
}

// @expect entry-point ndn_start_xmit callback net_device_ops.ndo_start_xmit
static netdev_tx_t ndn_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

// @expect entry-point ndn_tx_timeout callback net_device_ops.ndo_tx_timeout
static void ndn_tx_timeout(struct net_device *ndev, unsigned int txqueue)
{
	struct ndn_priv *priv = netdev_priv(ndev);

	priv->tx_head = 0;	/* @racy: against netpoll's reclaim */
	iowrite32(0, priv->base + NDN_TXHEAD);
}

// @expect entry-point ndn_poll_controller callback net_device_ops.ndo_poll_controller
static void ndn_poll_controller(struct net_device *ndev)
{
	struct ndn_priv *priv = netdev_priv(ndev);

	if (ioread32(priv->base + NDN_TXHEAD) != priv->tx_head)	/* @racy */
		netif_wake_queue(ndev);
}

// @expect race ndn_tx_timeout ndn_poll_controller "struct ndn_priv.tx_head"
// @expect confirmed ndn_tx_timeout ndn_poll_controller "struct ndn_priv.tx_head"
/* Never during ndo_open or ndo_stop: serialised by the kernel, never paired. */
// @expect proven ndn_open ndn_tx_timeout
// @expect proven ndn_stop ndn_tx_timeout
// @expect proven ndn_open ndn_poll_controller
// @expect proven ndn_stop ndn_poll_controller

static const struct net_device_ops ndn_netdev_ops = {
	.ndo_open		= ndn_open,
	.ndo_stop		= ndn_stop,
	.ndo_start_xmit		= ndn_start_xmit,
	.ndo_tx_timeout		= ndn_tx_timeout,
	.ndo_poll_controller	= ndn_poll_controller,
};

// @expect init ndn_probe
// @expect entry-point ndn_probe probe platform_driver.probe
static int ndn_probe(struct platform_device *pdev)
{
	struct net_device *ndev;
	struct ndn_priv *priv;

	ndev = devm_alloc_etherdev(&pdev->dev, sizeof(*priv));
	if (!ndev)
		return -ENOMEM;
	priv = netdev_priv(ndev);
	priv->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->base))
		return PTR_ERR(priv->base);
	ndev->netdev_ops = &ndn_netdev_ops;
	SET_NETDEV_DEV(ndev, &pdev->dev);
	eth_hw_addr_random(ndev);
	platform_set_drvdata(pdev, ndev);
	return register_netdev(ndev);
}

// @expect entry-point ndn_remove remove platform_driver.remove
static void ndn_remove(struct platform_device *pdev)
{
	unregister_netdev(platform_get_drvdata(pdev));
}

static struct platform_driver ndn_driver = {
	.probe	= ndn_probe,
	.remove	= ndn_remove,
	.driver.name = "netdown",
};

// @expect entry-point ndn_driver_init module-init module_init
// @expect entry-point ndn_driver_exit module-exit module_exit
module_platform_driver(ndn_driver);

MODULE_DESCRIPTION("racewatch race corpus: TX watchdog and netpoll against ndo_open/ndo_stop");
MODULE_LICENSE("GPL");
