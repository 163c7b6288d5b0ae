// SPDX-License-Identifier: GPL-2.0
/*
 * napihold_race.c - the receive ring of a memory-mapped Ethernet MAC with
 * NAPI and a reset work item.
 *
 * Race test (case: a napi_enable that may give back a hold another entry
 * point took). The reset work, queued by the interrupt handler on an
 * error, skips napi_disable when the MAC reports itself stopped, but
 * always calls napi_enable at the end. ndo_stop disables NAPI before it
 * drops the ring; a reset that runs meanwhile on the skipping path clears
 * the SCHED bit ndo_stop's napi_disable set (napi_enable, net/core/dev.c),
 * so the interrupt handler's napi_schedule can start the poll again while
 * ndo_stop drops the ring: a race. The fixed twin, napihold_fixed.c,
 * always disables NAPI first, so its napi_enable only gives back its own
 * hold and the pair is proven.
 * Not confirmed: the interleaving needs a third thread (ndo_stop, the
 * reset work and the poll), and the precise phase searches two.
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
#define NPH_STOPPED	2

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
	u32 *ring = priv->rx_ring; // @racy
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

	rtnl_lock();
	if (!(ioread32(priv->base + NPH_CTRL) & NPH_STOPPED))
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
	priv->rx_ring = NULL; // @racy
	free_irq(priv->irq, priv);
	return 0;
}
// @expect race nph_poll nph_stop "struct nph_priv.rx_ring"
// @expect not-found nph_poll nph_stop "struct nph_priv.rx_ring"

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

MODULE_DESCRIPTION("racewatch race corpus: a reset work whose napi_enable may give back the hold ndo_stop's napi_disable took");
MODULE_LICENSE("GPL");
