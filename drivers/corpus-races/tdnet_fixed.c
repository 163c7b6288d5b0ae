// SPDX-License-Identifier: GPL-2.0
/*
 * tdnet_fixed.c - transmit-only network interface of a memory-mapped FIFO.
 *
 * Race test (case: a net_device operation while remove tears down before
 * unregister_netdev()). remove() clears the transmit FIFO pointer and only
 * then unregisters the interface: until unregister_netdev() returns, the
 * stack may still call ndo_start_xmit on another CPU, which uses the FIFO.
 * The fixed twin, tdnet_fixed.c, unregisters first: unregister_netdev()
 * closes the device and waits until no operation can run
 * (net/core/dev.c: unregister_netdevice_many_notify, netdev_run_todo).
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/io.h>

struct tdn_priv {
	struct net_device *ndev;
	void __iomem *fifo;		/* used by xmit, cleared by remove */
};

static struct tdn_priv tdn_state;

// @expect entry-point tdn_open callback net_device_ops.ndo_open
static int tdn_open(struct net_device *ndev)
{
	netif_start_queue(ndev);
	return 0;
}

// @expect entry-point tdn_stop callback net_device_ops.ndo_stop
static int tdn_stop(struct net_device *ndev)
{
	netif_stop_queue(ndev);
	return 0;
}

// @expect entry-point tdn_xmit callback net_device_ops.ndo_start_xmit
static netdev_tx_t tdn_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct tdn_priv *priv = &tdn_state;
	void __iomem *fifo = priv->fifo;

	if (fifo)
		iowrite32(skb->len, fifo);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops tdn_ops = {
	.ndo_open	= tdn_open,
	.ndo_stop	= tdn_stop,
	.ndo_start_xmit	= tdn_xmit,
};

// @expect init tdn_probe
// @expect entry-point tdn_probe probe platform_driver.probe
static int tdn_probe(struct platform_device *pdev)
{
	struct tdn_priv *priv = &tdn_state;
	struct net_device *ndev;

	priv->fifo = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->fifo))
		return PTR_ERR(priv->fifo);
	ndev = devm_alloc_etherdev(&pdev->dev, 0);
	if (!ndev)
		return -ENOMEM;
	ndev->netdev_ops = &tdn_ops;
	eth_hw_addr_random(ndev);
	priv->ndev = ndev;
	return register_netdev(ndev);
}

// @expect entry-point tdn_remove remove platform_driver.remove
static void tdn_remove(struct platform_device *pdev)
{
	struct tdn_priv *priv = &tdn_state;

	unregister_netdev(priv->ndev);	/* waits until no operation can run */
	priv->fifo = NULL;
}

static struct platform_driver tdn_driver = {
	.probe	= tdn_probe,
	.remove	= tdn_remove,
	.driver	= {
		.name	= "tdnet",
	},
};

// @expect entry-point tdn_driver_init module-init module_init
// @expect entry-point tdn_driver_exit module-exit module_exit
module_platform_driver(tdn_driver);

MODULE_DESCRIPTION("racewatch race corpus: a net_device operation during remove");
MODULE_LICENSE("GPL");
