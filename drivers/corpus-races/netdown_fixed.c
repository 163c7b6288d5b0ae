// SPDX-License-Identifier: GPL-2.0
/*
 * netdown_fixed.c - the transmit ring of a memory-mapped Ethernet MAC.
 *
 * Fixed twin of netdown_race.c (case: ndo_open/ndo_stop against the TX
 * watchdog and netpoll): the watchdog's ring reset and netpoll's reclaim
 * take the private spinlock; ndo_open and ndo_stop need none, since the
 * kernel never runs ndo_tx_timeout (rule tx-watchdog-down) or
 * ndo_poll_controller (rule netpoll-dev-lock) while they run.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/io.h>
#include <linux/spinlock.h>

#define NDN_TXHEAD	0x00

struct ndn_priv {
	void __iomem *base;
	spinlock_t lock;		/* guards tx_head between the watchdog and netpoll */
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

	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	priv->tx_head = 0;
	iowrite32(0, priv->base + NDN_TXHEAD);
	spin_unlock_irqrestore(&priv->lock, flags);
}

// @expect entry-point ndn_poll_controller callback net_device_ops.ndo_poll_controller
static void ndn_poll_controller(struct net_device *ndev)
{
	struct ndn_priv *priv = netdev_priv(ndev);

	unsigned long flags;
	bool moved;

	spin_lock_irqsave(&priv->lock, flags);
	moved = ioread32(priv->base + NDN_TXHEAD) != priv->tx_head;
	spin_unlock_irqrestore(&priv->lock, flags);
	if (moved)
		netif_wake_queue(ndev);
}

// @expect proven ndn_tx_timeout ndn_poll_controller
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
	spin_lock_init(&priv->lock);
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

MODULE_DESCRIPTION("racewatch race corpus: TX watchdog and netpoll against ndo_open/ndo_stop, fixed");
MODULE_LICENSE("GPL");
