// SPDX-License-Identifier: GPL-2.0
/*
 * pmpci_race.c - a sensor block found both on a PCI card and as a platform
 * device, whose power-management callbacks record the power mode.
 *
 * Race test (case: runtime resume against system sleep off the PCI bus).
 * The PCI bus runtime-resumes a device before its sleep callbacks
 * (pci_pm_suspend, drivers/pci/pci-driver.c), so runtime_resume never
 * overlaps them (rule pci-sleep-runtime-active). But these operations
 * also serve the platform driver, whose bus calls suspend and resume on a
 * device it may leave runtime-suspended (platform_pm_suspend,
 * drivers/base/platform.c), so another thread may runtime-resume it while
 * they run: the rule must not apply (pm-ops-bus), and the pairs race.
 * Fixed twin: pmpci_fixed.c.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/pm_runtime.h>

#define PMP_ON		1
#define PMP_OFF		2
#define PMP_SLEEP	3

static u32 pmp_mode;	/* the last power mode set */

// @expect entry-point pmp_runtime_suspend callback dev_pm_ops.runtime_suspend
static int pmp_runtime_suspend(struct device *dev)
{
	pmp_mode = PMP_OFF;
	return 0;
}

// @expect entry-point pmp_runtime_resume callback dev_pm_ops.runtime_resume
static int pmp_runtime_resume(struct device *dev)
{
	pmp_mode = PMP_ON;	/* @racy: against the platform device's sleep callbacks */
	return 0;
}

// @expect entry-point pmp_suspend callback dev_pm_ops.suspend
// @expect entry-point pmp_suspend callback dev_pm_ops.freeze
// @expect entry-point pmp_suspend callback dev_pm_ops.poweroff
static int pmp_suspend(struct device *dev)
{
	pmp_mode = PMP_SLEEP;	/* @racy */
	return 0;
}

// @expect entry-point pmp_resume callback dev_pm_ops.resume
// @expect entry-point pmp_resume callback dev_pm_ops.thaw
// @expect entry-point pmp_resume callback dev_pm_ops.restore
static int pmp_resume(struct device *dev)
{
	pmp_mode = PMP_ON;	/* @racy */
	return 0;
}

// @expect race pmp_runtime_resume pmp_suspend "global pmp_mode"
// @expect confirmed pmp_runtime_resume pmp_suspend "global pmp_mode"
// @expect race pmp_runtime_resume pmp_resume "global pmp_mode"
// @expect confirmed-strict pmp_runtime_resume pmp_resume "global pmp_mode"
/* Serialised by the kernel on every bus, never paired. */
// @expect proven pmp_suspend pmp_runtime_suspend
// @expect proven pmp_resume pmp_runtime_suspend
// @expect proven pmp_runtime_suspend pmp_runtime_resume

static const struct dev_pm_ops pmp_pm_ops = {
	SYSTEM_SLEEP_PM_OPS(pmp_suspend, pmp_resume)
	RUNTIME_PM_OPS(pmp_runtime_suspend, pmp_runtime_resume, NULL)
};

// @expect entry-point pmp_pci_probe probe pci_driver.probe
static int pmp_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	return pcim_enable_device(pdev);
}

static const struct pci_device_id pmp_ids[] = {
	{ PCI_DEVICE(0x1234, 0x567a) },
	{ }
};
MODULE_DEVICE_TABLE(pci, pmp_ids);

static struct pci_driver pmp_pci_driver = {
	.name		= "pmpci",
	.id_table	= pmp_ids,
	.probe		= pmp_pci_probe,
	.driver.pm	= pm_ptr(&pmp_pm_ops),
};

// @expect entry-point pmp_platform_probe probe platform_driver.probe
static int pmp_platform_probe(struct platform_device *pdev)
{
	return devm_pm_runtime_enable(&pdev->dev);
}

static struct platform_driver pmp_platform_driver = {
	.probe	= pmp_platform_probe,
	.driver	= {
		.name	= "pmpci",
		.pm	= pm_ptr(&pmp_pm_ops),
	},
};

// @expect init pmp_init
// @expect entry-point pmp_init module-init module_init
static int __init pmp_init(void)
{
	int ret = pci_register_driver(&pmp_pci_driver);

	if (ret)
		return ret;
	ret = platform_driver_register(&pmp_platform_driver);
	if (ret)
		pci_unregister_driver(&pmp_pci_driver);
	return ret;
}
module_init(pmp_init);

// @expect entry-point pmp_exit module-exit module_exit
static void __exit pmp_exit(void)
{
	platform_driver_unregister(&pmp_platform_driver);
	pci_unregister_driver(&pmp_pci_driver);
}
module_exit(pmp_exit);

MODULE_DESCRIPTION("racewatch race corpus: runtime resume against sleep callbacks another bus calls");
MODULE_LICENSE("GPL");
