// SPDX-License-Identifier: GPL-2.0
/*
 * localctr_fixed.c - an interrupt counter exposed as /dev/rwlocal.
 *
 * Fixed twin of localctr_race.c (case: a local_t updated by its owner,
 * reset by another context). The interrupt handler counts with
 * local_inc, one inline-asm instruction on the local_t's counter: a
 * marked access in the kernel's definition of a data race, and the only
 * writer on the line's CPU (the IRQ core never runs one action's handler
 * on two CPUs at once), so two handlers do not race. The RWLC_IOC_RESET
 * ioctl clears the counter with local_set and RWLC_IOC_GET reads it with
 * local_read: every access is marked, so none is a data race.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <asm/local.h>

#define RWLC_IRQ		7
#define RWLC_IOC_RESET		_IO('l', 0)
#define RWLC_IOC_GET		_IO('l', 1)

static local_t rwlc_irqs;	/* interrupts seen */

// @expect entry-point rwlc_irq irq request_irq
static irqreturn_t rwlc_irq(int irq, void *dev_id)
{
	local_inc(&rwlc_irqs);
	return IRQ_HANDLED;
}

// @expect entry-point rwlc_ioctl callback file_operations.unlocked_ioctl
static long rwlc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case RWLC_IOC_RESET:
		local_set(&rwlc_irqs, 0);
		return 0;
	case RWLC_IOC_GET:
		return local_read(&rwlc_irqs);
	default:
		return -ENOTTY;
	}
}

// @expect proven rwlc_irq rwlc_ioctl
// @expect proven rwlc_ioctl rwlc_ioctl
// @expect proven rwlc_irq rwlc_irq

static const struct file_operations rwlc_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwlc_ioctl,
};

static struct miscdevice rwlc_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwlocal",
	.fops	= &rwlc_fops,
};

// @expect init rwlc_init
// @expect entry-point rwlc_init module-init module_init
static int __init rwlc_init(void)
{
	int err;

	err = request_irq(RWLC_IRQ, rwlc_irq, 0, "rwlocal", &rwlc_irqs);
	if (err)
		return err;
	err = misc_register(&rwlc_misc);
	if (err)
		free_irq(RWLC_IRQ, &rwlc_irqs);
	return err;
}

// @expect entry-point rwlc_exit module-exit module_exit
static void __exit rwlc_exit(void)
{
	misc_deregister(&rwlc_misc);
	free_irq(RWLC_IRQ, &rwlc_irqs);
}

module_init(rwlc_init);
module_exit(rwlc_exit);

MODULE_DESCRIPTION("racewatch race corpus: a local_t counter reset with local_set");
MODULE_LICENSE("GPL");
