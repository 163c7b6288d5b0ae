// SPDX-License-Identifier: GPL-2.0
/*
 * xchgoneshot_false.c - ISA data-acquisition card, /dev/rwdaq.
 *
 * False-alarm test (case: an xchg-based one-shot). Jumpers choose the
 * card's interrupt line, and a wrong module parameter is a classic
 * support question, so rwxo_init() tests the line: it arms a one-shot
 * (rwxo_test_armed = 1), starts a 100 ms timeout timer and makes the card
 * raise one test interrupt. Whichever of the interrupt handler and the
 * timer comes first records the verdict, and only it does:
 *
 *	if (atomic_xchg(&rwxo_test_armed, 0))
 *		rwxo_test_done(...);
 *
 * atomic_xchg returns 1 exactly once, and nothing re-arms the test, so
 * the verdict (rwxo_irq_ok, rwxo_test_ms) is written once, by one thread.
 * The winner then publishes it by setting bit RWXO_TESTED (after
 * smp_mb__before_atomic()); the RWXO_IOC_IRQ_TEST ioctl reads the verdict
 * only once it has seen that bit (then smp_rmb()), that is after the
 * winner wrote it.
 *
 * The lockset phase gives the atomic and the bit arbitrary values, so it
 * lets both callbacks write the verdict and the ioctl read it at any
 * time: it reports the handler racing with the timer and both racing
 * with the ioctl, on both globals. Those alarms are false; the precise
 * phase, which runs atomic_xchg, set_bit and test_bit with their real
 * values after rwxo_init(), must not find them.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioctl.h>
#include <linux/uaccess.h>

#define RWXO_PORT		0x300
#define RWXO_CTRL		(RWXO_PORT + 0)
#define  RWXO_CTRL_RUN		0x01
#define  RWXO_CTRL_TEST_IRQ	0x80	/* raise one interrupt now */
#define RWXO_STATUS		(RWXO_PORT + 1)
#define  RWXO_STATUS_TEST	0x80	/* the interrupt is the test one */
#define RWXO_ACK		(RWXO_PORT + 2)
#define RWXO_TESTED		0	/* bit of rwxo_flags */

struct rwxo_irq_test {
	__u32 irq_ok;
	__u32 latency_ms;
};

#define RWXO_IOC_IRQ_TEST	_IOR('d', 0, struct rwxo_irq_test)

static int irq = 5;
module_param(irq, int, 0444);
MODULE_PARM_DESC(irq, "Interrupt line set by the card's jumpers");

static atomic_t rwxo_test_armed;	/* 1 while the line test is pending */
static unsigned long rwxo_test_start;	/* jiffies, set before arming */
static bool rwxo_irq_ok;		/* the verdict: written once */
static unsigned int rwxo_test_ms;	/* likewise */
static unsigned long rwxo_flags;	/* RWXO_TESTED: the verdict is set */
static atomic_t rwxo_samples;
static struct timer_list rwxo_test_timer;

/* Called once, by the winner of the one-shot. */
static void rwxo_test_done(bool irq_ok)
{
	rwxo_irq_ok = irq_ok;
	rwxo_test_ms = jiffies_to_msecs(jiffies - rwxo_test_start);
	smp_mb__before_atomic();
	set_bit(RWXO_TESTED, &rwxo_flags);
}

// @expect entry-point rwxo_irq irq request_irq
static irqreturn_t rwxo_irq(int irq, void *dev_id)
{
	u8 status = inb(RWXO_STATUS);

	outb(status, RWXO_ACK);
	if (!(status & RWXO_STATUS_TEST)) {
		atomic_inc(&rwxo_samples);
		return IRQ_HANDLED;
	}
	if (atomic_xchg(&rwxo_test_armed, 0))
		rwxo_test_done(true);
	return IRQ_HANDLED;
}

// @expect entry-point rwxo_test_timeout timer timer_setup
static void rwxo_test_timeout(struct timer_list *t)
{
	if (atomic_xchg(&rwxo_test_armed, 0)) {
		pr_warn("rwdaq: no interrupt on line %d: check the jumpers\n", irq);
		rwxo_test_done(false);
	}
}

// @expect entry-point rwxo_ioctl callback file_operations.unlocked_ioctl
static long rwxo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwxo_irq_test res;

	if (cmd != RWXO_IOC_IRQ_TEST)
		return -ENOTTY;
	if (!test_bit(RWXO_TESTED, &rwxo_flags))
		return -EAGAIN;
	smp_rmb();
	res.irq_ok = rwxo_irq_ok;
	res.latency_ms = rwxo_test_ms;
	return copy_to_user((void __user *)arg, &res, sizeof(res)) ? -EFAULT : 0;
}

// false alarms: the verdict is written once, by the one caller that took
// the one-shot, and read only after it was published.
// @expect race rwxo_irq rwxo_test_timeout "global rwxo_irq_ok"
// @expect race rwxo_irq rwxo_test_timeout "global rwxo_test_ms"
// @expect race rwxo_irq rwxo_ioctl "global rwxo_irq_ok"
// @expect race rwxo_irq rwxo_ioctl "global rwxo_test_ms"
// @expect race rwxo_test_timeout rwxo_ioctl "global rwxo_irq_ok"
// @expect race rwxo_test_timeout rwxo_ioctl "global rwxo_test_ms"
// @expect not-found rwxo_irq rwxo_test_timeout "global rwxo_irq_ok"
// @expect not-found rwxo_irq rwxo_test_timeout "global rwxo_test_ms"
// @expect not-found rwxo_irq rwxo_ioctl "global rwxo_irq_ok"
// @expect not-found rwxo_irq rwxo_ioctl "global rwxo_test_ms"
// @expect not-found rwxo_test_timeout rwxo_ioctl "global rwxo_irq_ok"
// @expect not-found rwxo_test_timeout rwxo_ioctl "global rwxo_test_ms"

static const struct file_operations rwxo_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwxo_ioctl,
};

static struct miscdevice rwxo_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwdaq",
	.fops	= &rwxo_fops,
};

// @expect init rwxo_init
// @expect entry-point rwxo_init module-init module_init
static int __init rwxo_init(void)
{
	int ret;

	rwxo_flags = 0;
	atomic_set(&rwxo_samples, 0);
	rwxo_test_start = jiffies;
	atomic_set(&rwxo_test_armed, 1);
	timer_setup(&rwxo_test_timer, rwxo_test_timeout, 0);
	ret = request_irq(irq, rwxo_irq, 0, "rwdaq", NULL);
	if (ret)
		return ret;
	mod_timer(&rwxo_test_timer, jiffies + msecs_to_jiffies(100));
	outb(RWXO_CTRL_RUN | RWXO_CTRL_TEST_IRQ, RWXO_CTRL);
	ret = misc_register(&rwxo_misc);
	if (ret) {
		outb(0, RWXO_CTRL);
		del_timer_sync(&rwxo_test_timer);
		free_irq(irq, NULL);
	}
	return ret;
}

// @expect entry-point rwxo_exit module-exit module_exit
static void __exit rwxo_exit(void)
{
	misc_deregister(&rwxo_misc);
	outb(0, RWXO_CTRL);
	del_timer_sync(&rwxo_test_timer);
	free_irq(irq, NULL);
}

module_init(rwxo_init);
module_exit(rwxo_exit);

MODULE_DESCRIPTION("racewatch precise corpus: xchg one-shot interrupt test, a lockset false alarm");
MODULE_LICENSE("GPL");
