// SPDX-License-Identifier: GPL-2.0
/*
 * napihold_fixed.c - the receive ring of a memory-mapped Ethernet MAC with
 * NAPI and a reset work item.
 *
 * Fixed twin of napihold_race.c (case: a napi_enable that only gives back
 * its own entry point's hold). The reset work, queued by the interrupt
 * handler on an error, disables NAPI, resets the MAC and enables NAPI
 * again; ndo_stop disables NAPI before it drops the ring. The reset work
 * may run while ndo_stop runs (the pair model does not see that both hold
 * RTNL), but its napi_enable cannot end ndo_stop's hold: napi_disable
 * waits until SCHED and NPSVC are clear and then sets both
 * (net/core/dev.c), so once ndo_stop's napi_disable has returned, the
 * work's own napi_disable waits, and its napi_enable comes after it
 * (`exclusive` on napi_disable, kernel-models/entry-points/quiescing.xml).
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/rtnetlink.h>
#include <linux/io.h>

#define NPH_IRQSTAT	0x00
#define NPH_RXDESC	0x04
#define NPH_CTRL	0x08
#define NPH_ERROR	0x80
#define NPH_RESET	1

struct nph_priv {
	void __iomem *base;
	struct net_device *ndev;
	struct napi_struct napi;
	struct work_struct reset_work;
	int irq;
	u32 *rx_ring;			/* the poll's, dropped by ndo_stop for good */
};

// @expect entry-point nph_interrupt irq request_irq
static irqreturn_t nph_interrupt(int irq, void *data)
{
	struct nph_priv *priv = data;
	u32 status = ioread32(priv->base + NPH_IRQSTAT);

	if (!status)
		return IRQ_NONE;
	iowrite32(0, priv->base + NPH_IRQSTAT);
	if (status & NPH_ERROR)
		schedule_work(&priv->reset_work);
	else
		napi_schedule(&priv->napi);
	return IRQ_HANDLED;
}

// @expect entry-point nph_poll napi netif_napi_add
static int nph_poll(struct napi_struct *napi, int budget)
{
	struct nph_priv *priv = container_of(napi, struct nph_priv, napi);
	u32 *ring = priv->rx_ring;
	int done = 0;

	if (ring && budget > 0) {
		ring[0] = ioread32(priv->base + NPH_RXDESC);
		done = 1;
	}
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

// @expect entry-point nph_reset_work work work_struct.func
static void nph_reset_work(struct work_struct *work)
{
	struct nph_priv *priv = container_of(work, struct nph_priv, reset_work);

	// @mutation-protects-nothing nph_reset_work rtnl: RTNL is taken as
	// drivers take it around a reset (rtl_reset_work); between it there are
	// only the NAPI calls and an MMIO write, no driver memory, and what
	// keeps the poll out is napi_disable, not RTNL.
	rtnl_lock();
	napi_disable(&priv->napi);
	iowrite32(NPH_RESET, priv->base + NPH_CTRL);
	napi_enable(&priv->napi);
	rtnl_unlock();
}

// @expect entry-point nph_open callback net_device_ops.ndo_open
static int nph_open(struct net_device *ndev)
{
	struct nph_priv *priv = netdev_priv(ndev);
	int err;

	napi_enable(&priv->napi);
	err = request_irq(priv->irq, nph_interrupt, 0, "napihold", priv);
	if (err) {
		napi_disable(&priv->napi);
		return err;
	}
	netif_start_queue(ndev);
	return 0;
}

// @expect entry-point nph_stop callback net_device_ops.ndo_stop
static int nph_stop(struct net_device *ndev)
{
	struct nph_priv *priv = netdev_priv(ndev);

	netif_stop_queue(ndev);
	napi_disable(&priv->napi);
	priv->rx_ring = NULL;
	free_irq(priv->irq, priv);
	return 0;
}
// @expect proven nph_poll nph_stop

// @expect entry-point nph_start_xmit callback net_device_ops.ndo_start_xmit
static netdev_tx_t nph_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops nph_netdev_ops = {
	.ndo_open		= nph_open,
	.ndo_stop		= nph_stop,
	.ndo_start_xmit		= nph_start_xmit,
};

// @expect init nph_probe
// @expect entry-point nph_probe probe platform_driver.probe
static int nph_probe(struct platform_device *pdev)
{
	struct net_device *ndev;
	struct nph_priv *priv;

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
	INIT_WORK(&priv->reset_work, nph_reset_work);
	netif_napi_add(ndev, &priv->napi, nph_poll);
	ndev->netdev_ops = &nph_netdev_ops;
	SET_NETDEV_DEV(ndev, &pdev->dev);
	eth_hw_addr_random(ndev);
	platform_set_drvdata(pdev, ndev);
	return register_netdev(ndev);
}

// @expect entry-point nph_remove remove platform_driver.remove
static void nph_remove(struct platform_device *pdev)
{
	struct net_device *ndev = platform_get_drvdata(pdev);
	struct nph_priv *priv = netdev_priv(ndev);

	unregister_netdev(ndev);
	cancel_work_sync(&priv->reset_work);
	netif_napi_del(&priv->napi);
}

static struct platform_driver nph_driver = {
	.probe	= nph_probe,
	.remove	= nph_remove,
	.driver.name = "napihold",
};

// @expect entry-point nph_driver_init module-init module_init
// @expect entry-point nph_driver_exit module-exit module_exit
module_platform_driver(nph_driver);

MODULE_DESCRIPTION("racewatch race corpus: a reset work whose napi_enable gives back only its own napi_disable's hold");
MODULE_LICENSE("GPL");
