// SPDX-License-Identifier: GPL-2.0
/*
 * napioff_fixed.c - the receive ring of a memory-mapped Ethernet MAC with
 * NAPI.
 *
 * Race test (case: a quiesced NAPI poll that the interrupt handler would
 * schedule again). The interrupt handler calls napi_schedule(), which
 * makes the poll live, and ndo_stop frees the interrupt only at its end.
 * But after napi_disable() the context keeps its SCHED bit until
 * napi_enable() (net/core/dev.c), so napi_schedule_prep() fails and the
 * handler cannot start the poll again: only napi_enable re-arms it
 * (`armed-by` on netif_napi_add in kernel-models/entry-points/net.xml,
 * `rearmed-by` on napi_disable in quiescing.xml). Here ndo_stop
 * disables NAPI before it drops the ring, so the pair is proven although
 * the handler is still requested and may call napi_schedule(). The racy
 * twin, napioff_race.c, drops the ring first.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/io.h>

#define NPO_IRQSTAT	0x00
#define NPO_RXDESC	0x04

struct npo_priv {
	void __iomem *base;
	struct net_device *ndev;
	struct napi_struct napi;
	int irq;
	u32 *rx_ring;			/* the poll's, dropped by ndo_stop for good */
};

// @expect entry-point npo_interrupt irq request_irq
static irqreturn_t npo_interrupt(int irq, void *data)
{
	struct npo_priv *priv = data;

	if (!ioread32(priv->base + NPO_IRQSTAT))
		return IRQ_NONE;
	iowrite32(0, priv->base + NPO_IRQSTAT);
	napi_schedule(&priv->napi);
	return IRQ_HANDLED;
}

// @expect entry-point npo_poll napi netif_napi_add
static int npo_poll(struct napi_struct *napi, int budget)
{
	struct npo_priv *priv = container_of(napi, struct npo_priv, napi);
	u32 *ring = priv->rx_ring;
	int done = 0;

	if (ring && budget > 0) {
		ring[0] = ioread32(priv->base + NPO_RXDESC);
		done = 1;
	}
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

// @expect entry-point npo_open callback net_device_ops.ndo_open
static int npo_open(struct net_device *ndev)
{
	struct npo_priv *priv = netdev_priv(ndev);
	int err;

	napi_enable(&priv->napi);
	err = request_irq(priv->irq, npo_interrupt, 0, "napioff", priv);
	if (err) {
		napi_disable(&priv->napi);
		return err;
	}
	netif_start_queue(ndev);
	return 0;
}

// @expect entry-point npo_stop callback net_device_ops.ndo_stop
static int npo_stop(struct net_device *ndev)
{
	struct npo_priv *priv = netdev_priv(ndev);

	netif_stop_queue(ndev);
	napi_disable(&priv->napi);
	priv->rx_ring = NULL;
	free_irq(priv->irq, priv);
	return 0;
}
// @expect proven npo_poll npo_stop
// @expect proven npo_interrupt npo_stop

// @expect entry-point npo_start_xmit callback net_device_ops.ndo_start_xmit
static netdev_tx_t npo_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops npo_netdev_ops = {
	.ndo_open		= npo_open,
	.ndo_stop		= npo_stop,
	.ndo_start_xmit		= npo_start_xmit,
};

// @expect init npo_probe
// @expect entry-point npo_probe probe platform_driver.probe
static int npo_probe(struct platform_device *pdev)
{
	struct net_device *ndev;
	struct npo_priv *priv;

	ndev = devm_alloc_etherdev(&pdev->dev, sizeof(*priv));
	if (!ndev)
		return -ENOMEM;
	priv = netdev_priv(ndev);
	priv->ndev = ndev;
	priv->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->base))
		return PTR_ERR(priv->base);
	priv->irq = platform_get_irq(pdev, 0);
	if (priv->irq < 0)
		return priv->irq;
	priv->rx_ring = devm_kcalloc(&pdev->dev, 16, sizeof(u32), GFP_KERNEL);
	if (!priv->rx_ring)
		return -ENOMEM;
	netif_napi_add(ndev, &priv->napi, npo_poll);
	ndev->netdev_ops = &npo_netdev_ops;
	SET_NETDEV_DEV(ndev, &pdev->dev);
	eth_hw_addr_random(ndev);
	platform_set_drvdata(pdev, ndev);
	return register_netdev(ndev);
}

// @expect entry-point npo_remove remove platform_driver.remove
static void npo_remove(struct platform_device *pdev)
{
	struct net_device *ndev = platform_get_drvdata(pdev);
	struct npo_priv *priv = netdev_priv(ndev);

	unregister_netdev(ndev);
	netif_napi_del(&priv->napi);
}

static struct platform_driver npo_driver = {
	.probe	= npo_probe,
	.remove	= npo_remove,
	.driver.name = "napioff",
};

// @expect entry-point npo_driver_init module-init module_init
// @expect entry-point npo_driver_exit module-exit module_exit
module_platform_driver(npo_driver);

MODULE_DESCRIPTION("racewatch race corpus: a NAPI ring dropped after napi_disable while the IRQ handler may still schedule the poll");
MODULE_LICENSE("GPL");
