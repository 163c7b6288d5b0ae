// SPDX-License-Identifier: GPL-2.0
/*
 * netpriv_race.c - transmit path of a doorbell-style Ethernet NIC.
 *
 * Race test (case: per-device data behind netdev_priv() and
 * container_of()). The private structure lives behind the net_device:
 * ndo_start_xmit and the interrupt handler reach it with netdev_priv(),
 * the reset work item with container_of(). The transmit path and the
 * reset work account in-flight frames under priv->lock, but the
 * TX-completion interrupt subtracts completed frames without it: the
 * handler races with ndo_start_xmit and with the reset work on
 * tx_inflight. The fixed twin, netpriv_fixed.c, takes the lock there too.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/spinlock.h>
#include <linux/io.h>

#define RWNP_DOORBELL	0x00
#define RWNP_ISR	0x04		/* bit 31: error */
#define RWNP_DONE	0x08
#define RWNP_RESET	0x0c
#define RWNP_RING	64

struct rwnp_priv {
	struct net_device *ndev;
	void __iomem *base;
	spinlock_t lock;		/* guards tx_inflight, tx_packets */
	u32 tx_inflight;
	u64 tx_packets;
	struct work_struct reset_work;
};

// @expect entry-point rwnp_irq irq devm_request_irq
static irqreturn_t rwnp_irq(int irq, void *data)
{
	struct net_device *ndev = data;
	struct rwnp_priv *priv = netdev_priv(ndev);
	u32 isr = ioread32(priv->base + RWNP_ISR);

	if (!isr)
		return IRQ_NONE;
	priv->tx_inflight -= ioread32(priv->base + RWNP_DONE);	/* @racy: BUG: no lock */
	if (isr & BIT(31))
		schedule_work(&priv->reset_work);
	return IRQ_HANDLED;
}

// @expect entry-point rwnp_reset_work work work_struct.func
static void rwnp_reset_work(struct work_struct *work)
{
	struct rwnp_priv *priv = container_of(work, struct rwnp_priv, reset_work);

	spin_lock_irq(&priv->lock);
	iowrite32(1, priv->base + RWNP_RESET);
	priv->tx_inflight = 0;	/* @racy */
	spin_unlock_irq(&priv->lock);
}

// @expect entry-point rwnp_start_xmit callback net_device_ops.ndo_start_xmit
static netdev_tx_t rwnp_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct rwnp_priv *priv = netdev_priv(ndev);
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->tx_inflight >= RWNP_RING) {	/* @racy */
		spin_unlock_irqrestore(&priv->lock, flags);
		return NETDEV_TX_BUSY;
	}
	priv->tx_inflight++;	/* @racy */
	priv->tx_packets++;
	iowrite32(skb->len, priv->base + RWNP_DOORBELL);
	spin_unlock_irqrestore(&priv->lock, flags);
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
}

// @expect race rwnp_irq rwnp_reset_work "struct rwnp_priv.tx_inflight"
// @expect confirmed rwnp_irq rwnp_reset_work "struct rwnp_priv.tx_inflight"
// @expect race rwnp_irq rwnp_start_xmit "struct rwnp_priv.tx_inflight"
// @expect confirmed rwnp_irq rwnp_start_xmit "struct rwnp_priv.tx_inflight"
// @expect proven rwnp_reset_work rwnp_start_xmit

static const struct net_device_ops rwnp_netdev_ops = {
	.ndo_start_xmit	= rwnp_start_xmit,
};

// @expect init rwnp_probe
// @expect entry-point rwnp_probe probe platform_driver.probe
static int rwnp_probe(struct platform_device *pdev)
{
	struct net_device *ndev;
	struct rwnp_priv *priv;
	int irq, ret;

	ndev = devm_alloc_etherdev(&pdev->dev, sizeof(*priv));
	if (!ndev)
		return -ENOMEM;
	priv = netdev_priv(ndev);
	priv->ndev = ndev;
	priv->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->base))
		return PTR_ERR(priv->base);
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	spin_lock_init(&priv->lock);
	ndev->netdev_ops = &rwnp_netdev_ops;
	SET_NETDEV_DEV(ndev, &pdev->dev);
	eth_hw_addr_random(ndev);
	platform_set_drvdata(pdev, ndev);
	INIT_WORK(&priv->reset_work, rwnp_reset_work);

	ret = devm_request_irq(&pdev->dev, irq, rwnp_irq, 0, "rwnic", ndev);
	if (ret)
		return ret;
	return register_netdev(ndev);
}

// @expect entry-point rwnp_remove remove platform_driver.remove
static void rwnp_remove(struct platform_device *pdev)
{
	struct net_device *ndev = platform_get_drvdata(pdev);
	struct rwnp_priv *priv = netdev_priv(ndev);

	unregister_netdev(ndev);
	cancel_work_sync(&priv->reset_work);
}

static struct platform_driver rwnp_driver = {
	.probe	= rwnp_probe,
	.remove	= rwnp_remove,
	.driver	= {
		.name	= "rwnic",
	},
};

// @expect entry-point rwnp_driver_init module-init module_init
// @expect entry-point rwnp_driver_exit module-exit module_exit
module_platform_driver(rwnp_driver);

MODULE_DESCRIPTION("racewatch race corpus: netdev_priv data, unlocked irq update");
MODULE_LICENSE("GPL");
