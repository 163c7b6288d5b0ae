// SPDX-License-Identifier: GPL-2.0
/*
 * pmforcewq_fixed.c - a PCI Ethernet controller that powers its PHY down
 * from a work item when the link has been idle.
 *
 * Fixed twin of pmforcewq_race.c (case: a forced runtime suspend voids the
 * sleep rules): the idle work's pm_runtime_force_suspend calls
 * runtime_suspend ignoring the PM core's usage count, so the rule
 * runtime-suspend-blocked-in-sleep does not hold (its unless-called) and
 * runtime_suspend takes the driver's mutex like suspend.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/io.h>

#define PFW_CTRL	0x00
#define PFW_ON		1
#define PFW_OFF		2
#define PFW_SLEEP	3

struct pfw_state {
	struct device *dev;
	void __iomem *base;
	struct work_struct idle_work;
	u32 mode;		/* the last power mode set */
};

static struct pfw_state pfw;
static DEFINE_MUTEX(pfw_lock);	/* orders the mode between suspend and the runtime-PM callbacks */

// @expect entry-point pfw_runtime_suspend callback dev_pm_ops.runtime_suspend
static int pfw_runtime_suspend(struct device *dev)
{
	mutex_lock(&pfw_lock);
	pfw.mode = PFW_OFF;
	iowrite32(PFW_OFF, pfw.base + PFW_CTRL);
	mutex_unlock(&pfw_lock);
	return 0;
}

// @expect entry-point pfw_runtime_resume callback dev_pm_ops.runtime_resume
static int pfw_runtime_resume(struct device *dev)
{
	mutex_lock(&pfw_lock);
	iowrite32(PFW_ON, pfw.base + PFW_CTRL);
	pfw.mode = PFW_ON;
	mutex_unlock(&pfw_lock);
	return 0;
}

// @expect entry-point pfw_suspend callback dev_pm_ops.suspend
static int pfw_suspend(struct device *dev)
{
	mutex_lock(&pfw_lock);
	pfw.mode = PFW_SLEEP;
	iowrite32(PFW_SLEEP, pfw.base + PFW_CTRL);
	mutex_unlock(&pfw_lock);
	return 0;
}

// @expect entry-point pfw_idle_work work work_struct.func
static void pfw_idle_work(struct work_struct *work)
{
	pm_runtime_force_suspend(pfw.dev);
}

// @expect proven pfw_runtime_suspend pfw_suspend
/* Runtime suspend and resume never overlap (runtime-pm-status); runtime_resume and suspend share the mutex. */
// @expect proven pfw_runtime_suspend pfw_runtime_resume
// @expect proven pfw_suspend pfw_runtime_resume

static const struct dev_pm_ops pfw_pm_ops = {
	.suspend		= pfw_suspend,
	.runtime_suspend	= pfw_runtime_suspend,
	.runtime_resume		= pfw_runtime_resume,
};

// @expect entry-point pfw_open callback net_device_ops.ndo_open
static int pfw_open(struct net_device *ndev)
{
	netif_start_queue(ndev);
	return 0;
}

// @expect entry-point pfw_stop callback net_device_ops.ndo_stop
static int pfw_stop(struct net_device *ndev)
{
	netif_stop_queue(ndev);
	return 0;
}

// @expect entry-point pfw_start_xmit callback net_device_ops.ndo_start_xmit
static netdev_tx_t pfw_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops pfw_netdev_ops = {
	.ndo_open	= pfw_open,
	.ndo_stop	= pfw_stop,
	.ndo_start_xmit	= pfw_start_xmit,
};

// @expect init pfw_probe
// @expect entry-point pfw_probe probe pci_driver.probe
static int pfw_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct net_device *ndev;
	int ret = pcim_enable_device(pdev);

	if (ret)
		return ret;
	ndev = devm_alloc_etherdev(&pdev->dev, 0);
	if (!ndev)
		return -ENOMEM;
	pfw.base = pcim_iomap_region(pdev, 0, "pmforcewq");
	if (IS_ERR(pfw.base))
		return PTR_ERR(pfw.base);
	pfw.dev = &pdev->dev;
	pfw.mode = PFW_ON;
	INIT_WORK(&pfw.idle_work, pfw_idle_work);
	ndev->netdev_ops = &pfw_netdev_ops;
	SET_NETDEV_DEV(ndev, &pdev->dev);
	eth_hw_addr_random(ndev);
	ret = register_netdev(ndev);
	if (ret)
		return ret;
	schedule_work(&pfw.idle_work);
	return 0;
}

static const struct pci_device_id pfw_ids[] = {
	{ PCI_DEVICE(0x1234, 0x5679) },
	{ }
};
MODULE_DEVICE_TABLE(pci, pfw_ids);

static struct pci_driver pfw_driver = {
	.name		= "pmforcewq",
	.id_table	= pfw_ids,
	.probe		= pfw_probe,
	.driver.pm	= pm_ptr(&pfw_pm_ops),
};

// @expect entry-point pfw_driver_init module-init module_init
// @expect entry-point pfw_driver_exit module-exit module_exit
module_pci_driver(pfw_driver);

MODULE_DESCRIPTION("racewatch race corpus: a forced runtime suspend from a work item, fixed");
MODULE_LICENSE("GPL");
