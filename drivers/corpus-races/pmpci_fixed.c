// SPDX-License-Identifier: GPL-2.0
/*
 * pmpci_fixed.c - a sensor block on a PCI card, whose power-management
 * callbacks record the power mode.
 *
 * Fixed twin of pmpci_race.c (case: runtime resume against system sleep off
 * the PCI bus): the operations serve only the PCI driver, and the PCI bus
 * runtime-resumes the device before its sleep callbacks (pci_pm_suspend,
 * pci_pm_freeze, pci_pm_poweroff in drivers/pci/pci-driver.c) and keeps it
 * active until complete, so runtime_resume never overlaps suspend or resume
 * (rule pci-sleep-runtime-active) and the callbacks need no lock.
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/pci.h>
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
	pmp_mode = PMP_ON;
	return 0;
}

// @expect entry-point pmp_suspend callback dev_pm_ops.suspend
// @expect entry-point pmp_suspend callback dev_pm_ops.freeze
// @expect entry-point pmp_suspend callback dev_pm_ops.poweroff
static int pmp_suspend(struct device *dev)
{
	pmp_mode = PMP_SLEEP;
	return 0;
}

// @expect entry-point pmp_resume callback dev_pm_ops.resume
// @expect entry-point pmp_resume callback dev_pm_ops.thaw
// @expect entry-point pmp_resume callback dev_pm_ops.restore
static int pmp_resume(struct device *dev)
{
	pmp_mode = PMP_ON;
	return 0;
}

/* Serialised by the kernel, never paired. */
// @expect proven pmp_runtime_resume pmp_suspend
// @expect proven pmp_runtime_resume pmp_resume
// @expect proven pmp_suspend pmp_runtime_suspend
// @expect proven pmp_resume pmp_runtime_suspend
// @expect proven pmp_runtime_suspend pmp_runtime_resume

static const struct dev_pm_ops pmp_pm_ops = {
	SYSTEM_SLEEP_PM_OPS(pmp_suspend, pmp_resume)
	RUNTIME_PM_OPS(pmp_runtime_suspend, pmp_runtime_resume, NULL)
};

// @expect init pmp_pci_probe
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

static struct pci_driver pmp_driver = {
	.name		= "pmpci",
	.id_table	= pmp_ids,
	.probe		= pmp_pci_probe,
	.driver.pm	= pm_ptr(&pmp_pm_ops),
};

// @expect entry-point pmp_driver_init module-init module_init
// @expect entry-point pmp_driver_exit module-exit module_exit
module_pci_driver(pmp_driver);

MODULE_DESCRIPTION("racewatch race corpus: runtime resume against sleep callbacks another bus calls, fixed");
MODULE_LICENSE("GPL");
