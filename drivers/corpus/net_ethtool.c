// SPDX-License-Identifier: GPL-2.0
/*
 * net_ethtool.c - PIO-FIFO Fast Ethernet PCI controller.
 *
 * A pci_driver (probe/remove/shutdown) registered with module_pci_driver.
 * The probe assigns the net_device_ops and ethtool_ops at run time
 * (ndev->netdev_ops = ..., ndev->ethtool_ops = ...); both tables are static
 * designated initializers that also hold kernel helpers (eth_validate_addr,
 * eth_mac_addr, ethtool_op_get_link). ndo_open requests a shared interrupt
 * with request_irq; receive runs in a NAPI poll added with netif_napi_add.
 * Counters, rx mode and message level are shared by all of these.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/spinlock.h>

#define DRV_NAME	"rwnic"

enum rwnic_regs {
	RWNIC_MAC0 = 0x00, RWNIC_CMD = 0x10, RWNIC_ISR = 0x14, RWNIC_IMR = 0x18,
	RWNIC_RXCFG = 0x1c, RWNIC_TXLEN = 0x20, RWNIC_TXFIFO = 0x24,
	RWNIC_RXLEN = 0x28 /* 0: rx fifo empty */, RWNIC_RXFIFO = 0x2c,
};
enum rwnic_bits {
	RWNIC_CMD_RXTX_EN = 0x03, RWNIC_CMD_RESET = 0x10,
	RWNIC_INT_RX = BIT(0), RWNIC_INT_TX = BIT(1),
	RWNIC_RX_BCAST = BIT(0), RWNIC_RX_ALLMULTI = BIT(1), RWNIC_RX_PROMISC = BIT(2),
};

struct rwnic_priv {
	struct net_device *ndev;
	struct pci_dev *pdev;
	void __iomem *mmio;
	struct napi_struct napi;
	spinlock_t lock;		/* guards TX FIFO, IMR and tx counters */
	u32 msg_enable;
	u32 rx_cfg;
	u64 rx_packets, rx_bytes, rx_dropped;
	u64 tx_packets, tx_bytes, tx_timeouts;
};

// @expect entry-point rwnic_interrupt irq request_irq
static irqreturn_t rwnic_interrupt(int irq, void *dev_id)
{
	struct net_device *ndev = dev_id;
	struct rwnic_priv *priv = netdev_priv(ndev);
	u32 isr = ioread32(priv->mmio + RWNIC_ISR);

	if (!isr)
		return IRQ_NONE;
	iowrite32(isr, priv->mmio + RWNIC_ISR);
	if (isr & RWNIC_INT_TX)
		netif_wake_queue(ndev);
	if ((isr & RWNIC_INT_RX) && napi_schedule_prep(&priv->napi)) {
		spin_lock(&priv->lock);
		iowrite32(RWNIC_INT_TX, priv->mmio + RWNIC_IMR);
		spin_unlock(&priv->lock);
		__napi_schedule(&priv->napi);
	}
	return IRQ_HANDLED;
}

// @expect entry-point rwnic_poll napi netif_napi_add
static int rwnic_poll(struct napi_struct *napi, int budget)
{
	struct rwnic_priv *priv = container_of(napi, struct rwnic_priv, napi);
	struct sk_buff *skb;
	int done = 0;
	u32 len;

	while (done < budget && (len = ioread32(priv->mmio + RWNIC_RXLEN))) {
		skb = netdev_alloc_skb_ip_align(priv->ndev, len);
		if (!skb) {
			priv->rx_dropped++;
			break;
		}
		ioread32_rep(priv->mmio + RWNIC_RXFIFO, skb_put(skb, len),
			     DIV_ROUND_UP(len, 4));
		skb->protocol = eth_type_trans(skb, priv->ndev);
		napi_gro_receive(napi, skb);
		priv->rx_packets++;
		priv->rx_bytes += len;
		done++;
	}
	if (done < budget && napi_complete_done(napi, done)) {
		spin_lock_irq(&priv->lock);
		iowrite32(RWNIC_INT_RX | RWNIC_INT_TX, priv->mmio + RWNIC_IMR);
		spin_unlock_irq(&priv->lock);
	}
	return done;
}

// @expect entry-point rwnic_open callback net_device_ops.ndo_open
static int rwnic_open(struct net_device *ndev)
{
	struct rwnic_priv *priv = netdev_priv(ndev);
	int ret;

	ret = request_irq(priv->pdev->irq, rwnic_interrupt, IRQF_SHARED,
			  ndev->name, ndev);
	if (ret)
		return ret;
	napi_enable(&priv->napi);
	iowrite32(RWNIC_CMD_RXTX_EN, priv->mmio + RWNIC_CMD);
	iowrite32(RWNIC_INT_RX | RWNIC_INT_TX, priv->mmio + RWNIC_IMR);
	netif_start_queue(ndev);
	return 0;
}

// @expect entry-point rwnic_stop callback net_device_ops.ndo_stop
static int rwnic_stop(struct net_device *ndev)
{
	struct rwnic_priv *priv = netdev_priv(ndev);

	netif_stop_queue(ndev);
	iowrite32(0, priv->mmio + RWNIC_IMR);
	iowrite32(0, priv->mmio + RWNIC_CMD);
	napi_disable(&priv->napi);
	free_irq(priv->pdev->irq, ndev);
	return 0;
}

// @expect entry-point rwnic_start_xmit callback net_device_ops.ndo_start_xmit
static netdev_tx_t rwnic_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct rwnic_priv *priv = netdev_priv(ndev);
	unsigned long flags;

	if (skb_put_padto(skb, ETH_ZLEN))
		return NETDEV_TX_OK;
	spin_lock_irqsave(&priv->lock, flags);
	iowrite32(skb->len, priv->mmio + RWNIC_TXLEN);
	iowrite32_rep(priv->mmio + RWNIC_TXFIFO, skb->data,
		      DIV_ROUND_UP(skb->len, 4));
	priv->tx_packets++;
	priv->tx_bytes += skb->len;
	spin_unlock_irqrestore(&priv->lock, flags);
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
}

// @expect entry-point rwnic_get_stats64 callback net_device_ops.ndo_get_stats64
static void rwnic_get_stats64(struct net_device *ndev,
			      struct rtnl_link_stats64 *stats)
{
	struct rwnic_priv *priv = netdev_priv(ndev);

	spin_lock_irq(&priv->lock);
	stats->tx_packets = priv->tx_packets;
	stats->tx_bytes = priv->tx_bytes;
	spin_unlock_irq(&priv->lock);
	stats->rx_packets = priv->rx_packets;
	stats->rx_bytes = priv->rx_bytes;
	stats->rx_dropped = priv->rx_dropped;
}

// @expect entry-point rwnic_set_rx_mode callback net_device_ops.ndo_set_rx_mode
static void rwnic_set_rx_mode(struct net_device *ndev)
{
	struct rwnic_priv *priv = netdev_priv(ndev);
	u32 cfg = RWNIC_RX_BCAST;

	if (ndev->flags & IFF_PROMISC)
		cfg |= RWNIC_RX_PROMISC;
	else if ((ndev->flags & IFF_ALLMULTI) || !netdev_mc_empty(ndev))
		cfg |= RWNIC_RX_ALLMULTI;
	priv->rx_cfg = cfg;
	iowrite32(cfg, priv->mmio + RWNIC_RXCFG);
}

// @expect entry-point rwnic_tx_timeout callback net_device_ops.ndo_tx_timeout
static void rwnic_tx_timeout(struct net_device *ndev, unsigned int txqueue)
{
	struct rwnic_priv *priv = netdev_priv(ndev);
	unsigned long flags;

	netif_warn(priv, tx_err, ndev, "transmit timed out on queue %u\n", txqueue);
	spin_lock_irqsave(&priv->lock, flags);
	priv->tx_timeouts++;
	iowrite32(RWNIC_CMD_RESET, priv->mmio + RWNIC_CMD);
	iowrite32(RWNIC_CMD_RXTX_EN, priv->mmio + RWNIC_CMD);
	iowrite32(priv->rx_cfg, priv->mmio + RWNIC_RXCFG);
	spin_unlock_irqrestore(&priv->lock, flags);
	netif_wake_queue(ndev);
}

// @expect external eth_validate_addr callback net_device_ops.ndo_validate_addr
// @expect external eth_mac_addr callback net_device_ops.ndo_set_mac_address
static const struct net_device_ops rwnic_netdev_ops = {
	.ndo_open		= rwnic_open,
	.ndo_stop		= rwnic_stop,
	.ndo_start_xmit		= rwnic_start_xmit,
	.ndo_get_stats64	= rwnic_get_stats64,
	.ndo_set_rx_mode	= rwnic_set_rx_mode,
	.ndo_tx_timeout		= rwnic_tx_timeout,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_set_mac_address	= eth_mac_addr,
};

// @expect entry-point rwnic_get_drvinfo callback ethtool_ops.get_drvinfo
static void rwnic_get_drvinfo(struct net_device *ndev, struct ethtool_drvinfo *info)
{
	struct rwnic_priv *priv = netdev_priv(ndev);

	strscpy(info->driver, DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, pci_name(priv->pdev), sizeof(info->bus_info));
}

// @expect entry-point rwnic_get_msglevel callback ethtool_ops.get_msglevel
static u32 rwnic_get_msglevel(struct net_device *ndev)
{
	return ((struct rwnic_priv *)netdev_priv(ndev))->msg_enable;
}

// @expect entry-point rwnic_set_msglevel callback ethtool_ops.set_msglevel
static void rwnic_set_msglevel(struct net_device *ndev, u32 value)
{
	((struct rwnic_priv *)netdev_priv(ndev))->msg_enable = value;
}

// @expect external ethtool_op_get_link callback ethtool_ops.get_link
static const struct ethtool_ops rwnic_ethtool_ops = {
	.get_drvinfo	= rwnic_get_drvinfo,
	.get_link	= ethtool_op_get_link,
	.get_msglevel	= rwnic_get_msglevel,
	.set_msglevel	= rwnic_set_msglevel,
};

// @expect init rwnic_probe
// @expect entry-point rwnic_probe probe pci_driver.probe
static int rwnic_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct rwnic_priv *priv;
	struct net_device *ndev;
	void __iomem *mmio;
	u8 addr[ETH_ALEN];
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	mmio = pcim_iomap_region(pdev, 0, DRV_NAME);
	if (IS_ERR(mmio))
		return PTR_ERR(mmio);
	ndev = alloc_etherdev(sizeof(*priv));
	if (!ndev)
		return -ENOMEM;
	SET_NETDEV_DEV(ndev, &pdev->dev);
	priv = netdev_priv(ndev);
	priv->ndev = ndev;
	priv->pdev = pdev;
	priv->mmio = mmio;
	priv->msg_enable = NETIF_MSG_DRV | NETIF_MSG_LINK | NETIF_MSG_TX_ERR;
	spin_lock_init(&priv->lock);

	memcpy_fromio(addr, mmio + RWNIC_MAC0, ETH_ALEN);
	if (is_valid_ether_addr(addr))
		eth_hw_addr_set(ndev, addr);
	else
		eth_hw_addr_random(ndev);

	ndev->netdev_ops = &rwnic_netdev_ops;
	ndev->ethtool_ops = &rwnic_ethtool_ops;
	ndev->watchdog_timeo = 5 * HZ;
	netif_napi_add(ndev, &priv->napi, rwnic_poll);
	pci_set_drvdata(pdev, ndev);

	ret = register_netdev(ndev);
	if (ret) {
		netif_napi_del(&priv->napi);
		free_netdev(ndev);
	}
	return ret;
}

// @expect entry-point rwnic_remove remove pci_driver.remove
static void rwnic_remove(struct pci_dev *pdev)
{
	struct net_device *ndev = pci_get_drvdata(pdev);
	struct rwnic_priv *priv = netdev_priv(ndev);

	unregister_netdev(ndev);
	netif_napi_del(&priv->napi);
	free_netdev(ndev);
}

// @expect entry-point rwnic_shutdown callback pci_driver.shutdown
static void rwnic_shutdown(struct pci_dev *pdev)
{
	struct net_device *ndev = pci_get_drvdata(pdev);
	struct rwnic_priv *priv = netdev_priv(ndev);

	netif_device_detach(ndev);
	iowrite32(0, priv->mmio + RWNIC_IMR);
	iowrite32(0, priv->mmio + RWNIC_CMD);
}

static const struct pci_device_id rwnic_pci_tbl[] = {
	{ PCI_DEVICE(0x1d0f, 0x8139) },
	{ }
};
MODULE_DEVICE_TABLE(pci, rwnic_pci_tbl);

static struct pci_driver rwnic_driver = {
	.name		= DRV_NAME,
	.id_table	= rwnic_pci_tbl,
	.probe		= rwnic_probe,
	.remove		= rwnic_remove,
	.shutdown	= rwnic_shutdown,
};

// @expect entry-point rwnic_driver_init module-init module_init
// @expect entry-point rwnic_driver_exit module-exit module_exit
module_pci_driver(rwnic_driver);

MODULE_DESCRIPTION("racewatch corpus: PCI Ethernet with ethtool and NAPI");
MODULE_LICENSE("GPL");
