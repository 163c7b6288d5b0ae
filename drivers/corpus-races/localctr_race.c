// SPDX-License-Identifier: GPL-2.0
/*
 * localctr_race.c - an interrupt counter exposed as /dev/rwlocal.
 *
 * Race test (case: a local_t updated by its owner, reset by another
 * context with a plain write). The interrupt handler counts with
 * local_inc, one inline-asm instruction on the local_t's counter: a
 * marked access in the kernel's definition of a data race, and the only
 * writer on the line's CPU (the IRQ core never runs one action's handler
 * on two CPUs at once), so two handlers do not race. The RWLC_IOC_RESET
 * ioctl clears the counter with memset, a plain write: it races with the
 * handler's local_inc (the increment can be lost, or the reset undone),
 * and with another ioctl's RWLC_IOC_GET, whose local_read is marked.
 * The fixed twin (localctr_fixed.c) resets with local_set, a marked
 * write, and reads with local_read.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/string.h>
#include <asm/local.h>

#define RWLC_IRQ		7
#define RWLC_IOC_RESET		_IO('l', 0)
#define RWLC_IOC_GET		_IO('l', 1)

static local_t rwlc_irqs;	/* interrupts seen */

// @expect entry-point rwlc_irq irq request_irq
static irqreturn_t rwlc_irq(int irq, void *dev_id)
{
	local_inc(&rwlc_irqs);	/* @racy: marked update */
	return IRQ_HANDLED;
}

// @expect entry-point rwlc_ioctl callback file_operations.unlocked_ioctl
static long rwlc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case RWLC_IOC_RESET:
		memset(&rwlc_irqs, 0, sizeof(rwlc_irqs));	/* @racy: plain reset */
		return 0;
	case RWLC_IOC_GET:
		return local_read(&rwlc_irqs);	/* @racy: marked read of a plain reset */
	default:
		return -ENOTTY;
	}
}

// @expect race rwlc_irq rwlc_ioctl "struct atomic64_t.counter"
// @expect confirmed rwlc_irq rwlc_ioctl "struct atomic64_t.counter"
// @expect race rwlc_ioctl rwlc_ioctl "struct atomic64_t.counter"
// @expect confirmed rwlc_ioctl rwlc_ioctl "struct atomic64_t.counter"
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

MODULE_DESCRIPTION("racewatch race corpus: a local_t counter reset with a plain write");
MODULE_LICENSE("GPL");
