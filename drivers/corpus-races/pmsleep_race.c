// SPDX-License-Identifier: GPL-2.0
/*
 * pmsleep_race.c - a PCI Ethernet controller that records its power mode for its
 * runtime-PM, system-sleep and shutdown callbacks.
 *
 * Race test (case: runtime PM against system sleep and shutdown). The
 * callbacks store the mode without a driver lock. The PM core holds a
 * runtime-PM usage count from device_prepare to device_complete and from
 * device_shutdown on, and waits for a runtime suspend in progress
 * (pm_runtime_barrier) before the suspend and shutdown callbacks, so
 * runtime_suspend never overlaps suspend, resume or shutdown (rule
 * runtime-suspend-blocked-in-sleep); pci_device_shutdown runtime-resumes
 * the device before shutdown, so runtime_resume never overlaps it (rule
 * pci-shutdown-runtime-active), and pci_device_remove does both before
 * remove (rule pci-remove-runtime-pm). But the driver sets
 * DPM_FLAG_SMART_SUSPEND, so pci_pm_suspend may leave the device
 * runtime-suspended (rule pci-sleep-runtime-active does not hold, its
 * unless-called), and another thread may runtime-resume it while suspend or
 * resume runs: those pairs race.
 * Fixed twin: pmsleep_fixed.c.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/io.h>

#define PMS_CTRL	0x00
#define PMS_ON		1
#define PMS_OFF		2
#define PMS_SLEEP	3

struct pms_state {
	void __iomem *base;
	u32 mode;		/* the last power mode set */
};

static struct pms_state pms;

// @expect entry-point pms_runtime_suspend callback dev_pm_ops.runtime_suspend
static int pms_runtime_suspend(struct device *dev)
{
	pms.mode = PMS_OFF;
	iowrite32(PMS_OFF, pms.base + PMS_CTRL);
	return 0;
}

// @expect entry-point pms_runtime_resume callback dev_pm_ops.runtime_resume
static int pms_runtime_resume(struct device *dev)
{
	iowrite32(PMS_ON, pms.base + PMS_CTRL);
	pms.mode = PMS_ON;	/* @racy: against the system-sleep callbacks */
	return 0;
}

// @expect entry-point pms_suspend callback dev_pm_ops.suspend
// @expect entry-point pms_suspend callback dev_pm_ops.freeze
// @expect entry-point pms_suspend callback dev_pm_ops.poweroff
static int pms_suspend(struct device *dev)
{
	pms.mode = PMS_SLEEP;	/* @racy */
	iowrite32(PMS_SLEEP, pms.base + PMS_CTRL);
	return 0;
}

// @expect entry-point pms_resume callback dev_pm_ops.resume
// @expect entry-point pms_resume callback dev_pm_ops.thaw
// @expect entry-point pms_resume callback dev_pm_ops.restore
static int pms_resume(struct device *dev)
{
	iowrite32(PMS_ON, pms.base + PMS_CTRL);
	pms.mode = PMS_ON;	/* @racy */
	return 0;
}

// @expect entry-point pms_shutdown callback pci_driver.shutdown
static void pms_shutdown(struct pci_dev *pdev)
{
	pms.mode = PMS_OFF;
	iowrite32(PMS_OFF, pms.base + PMS_CTRL);
}

// @expect race pms_runtime_resume pms_suspend "struct pms_state.mode"
// @expect confirmed pms_runtime_resume pms_suspend "struct pms_state.mode"
// @expect race pms_runtime_resume pms_resume "struct pms_state.mode"
// @expect confirmed-strict pms_runtime_resume pms_resume "struct pms_state.mode"
/* Serialised by the kernel, never paired. */
// @expect proven pms_suspend pms_runtime_suspend
// @expect proven pms_resume pms_runtime_suspend
// @expect proven pms_shutdown pms_runtime_suspend
// @expect proven pms_shutdown pms_runtime_resume
// @expect proven pms_remove pms_runtime_suspend
// @expect proven pms_remove pms_runtime_resume
// @expect proven pms_runtime_suspend pms_runtime_resume
// @expect proven pms_suspend pms_resume
// @expect proven pms_suspend pms_shutdown

static const struct dev_pm_ops pms_pm_ops = {
	SYSTEM_SLEEP_PM_OPS(pms_suspend, pms_resume)
	RUNTIME_PM_OPS(pms_runtime_suspend, pms_runtime_resume, NULL)
};

// @expect entry-point pms_open callback net_device_ops.ndo_open
static int pms_open(struct net_device *ndev)
{
	netif_start_queue(ndev);
	return 0;
}

// @expect entry-point pms_stop callback net_device_ops.ndo_stop
static int pms_stop(struct net_device *ndev)
{
	netif_stop_queue(ndev);
	return 0;
}

// @expect entry-point pms_start_xmit callback net_device_ops.ndo_start_xmit
static netdev_tx_t pms_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops pms_netdev_ops = {
	.ndo_open	= pms_open,
	.ndo_stop	= pms_stop,
	.ndo_start_xmit	= pms_start_xmit,
};

// @expect init pms_probe
// @expect entry-point pms_probe probe pci_driver.probe
static int pms_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct net_device *ndev;
	int ret = pcim_enable_device(pdev);

	if (ret)
		return ret;
	ndev = devm_alloc_etherdev(&pdev->dev, 0);
	if (!ndev)
		return -ENOMEM;
	pms.base = pcim_iomap_region(pdev, 0, "pmsleep");
	if (IS_ERR(pms.base))
		return PTR_ERR(pms.base);
	pms.mode = PMS_ON;
	/* The sleep callbacks cope with a runtime-suspended device. */
	dev_pm_set_driver_flags(&pdev->dev, DPM_FLAG_SMART_SUSPEND);
	ndev->netdev_ops = &pms_netdev_ops;
	SET_NETDEV_DEV(ndev, &pdev->dev);
	eth_hw_addr_random(ndev);
	pci_set_drvdata(pdev, ndev);
	return register_netdev(ndev);
}

// @expect entry-point pms_remove remove pci_driver.remove
static void pms_remove(struct pci_dev *pdev)
{
	unregister_netdev(pci_get_drvdata(pdev));
	pms.mode = PMS_OFF;
	iowrite32(PMS_OFF, pms.base + PMS_CTRL);
}

static const struct pci_device_id pms_ids[] = {
	{ PCI_DEVICE(0x1234, 0x5678) },
	{ }
};
MODULE_DEVICE_TABLE(pci, pms_ids);

static struct pci_driver pms_driver = {
	.name		= "pmsleep",
	.id_table	= pms_ids,
	.probe		= pms_probe,
	.remove		= pms_remove,
	.shutdown	= pms_shutdown,
	.driver.pm	= pm_ptr(&pms_pm_ops),
};

// @expect entry-point pms_driver_init module-init module_init
// @expect entry-point pms_driver_exit module-exit module_exit
module_pci_driver(pms_driver);

MODULE_DESCRIPTION("racewatch race corpus: runtime PM against system sleep and shutdown");
MODULE_LICENSE("GPL");
