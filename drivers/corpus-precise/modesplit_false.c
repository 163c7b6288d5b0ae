// SPDX-License-Identifier: GPL-2.0
/*
 * modesplit_false.c - ISA light-curtain sensor, /dev/rwcurtain.
 *
 * False-alarm test (case: data guarded by a mode the two callbacks never
 * both see). The card either raises an interrupt per sample or, on boards
 * where its interrupt line is not wired (irq=0), has to be polled.
 * rwms_init() chooses the mode once, before registering anything, and
 * nothing changes it afterwards. The sample filter (rwms_avg and
 * rwms_nsamples) belongs to whichever callback produces the samples: the
 * interrupt handler in interrupt mode, the poll timer in polled mode. The
 * timer runs in both modes (in interrupt mode it only checks that
 * interrupts keep coming), but it touches the filter only when
 * !rwms_use_irq, and the handler only when rwms_use_irq. read() publishes
 * nothing of the filter but the atomic rwms_level.
 *
 * The lockset phase gives the shared mode flag arbitrary values, one per
 * read, so it lets both callbacks into the filter and reports the
 * interrupt handler racing with the timer on both filter globals. That
 * alarm is false: the flag has one value for the life of the driver. The
 * precise phase, which runs rwms_init() before the pair, must not find it.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/ioport.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/uaccess.h>

#define RWMS_PORT	0x310
#define RWMS_DATA	(RWMS_PORT + 0)	/* 16-bit light level */
#define RWMS_STATUS	(RWMS_PORT + 2)
#define  RWMS_READY	0x01
#define RWMS_CTRL	(RWMS_PORT + 3)
#define  RWMS_IRQ_EN	0x01
#define RWMS_PERIOD	(HZ / 20)

static int irq;				/* 0: polled mode */
module_param(irq, int, 0444);
MODULE_PARM_DESC(irq, "Interrupt line of the card (0: poll it)");

static bool rwms_use_irq;		/* set once by rwms_init() */
static u32 rwms_avg;			/* producer only: 8-sample running sum */
static unsigned long rwms_nsamples;	/* producer only */
static atomic_t rwms_level;		/* published average */
static atomic_t rwms_irqs;		/* interrupts since the last tick */
static struct timer_list rwms_timer;

/* The producer: the interrupt handler or the poll timer, never both. */
static void rwms_sample(void)
{
	u16 raw = inw(RWMS_DATA);

	rwms_avg = rwms_avg - (rwms_avg >> 3) + raw;
	rwms_nsamples++;
	atomic_set(&rwms_level, rwms_avg >> 3);
}

// @expect entry-point rwms_irq irq request_irq
static irqreturn_t rwms_irq(int irq, void *dev_id)
{
	if (!rwms_use_irq || !(inb(RWMS_STATUS) & RWMS_READY))
		return IRQ_NONE;
	atomic_inc(&rwms_irqs);
	rwms_sample();
	return IRQ_HANDLED;
}

// @expect entry-point rwms_tick timer timer_setup
static void rwms_tick(struct timer_list *t)
{
	if (!rwms_use_irq) {
		if (inb(RWMS_STATUS) & RWMS_READY)
			rwms_sample();
	} else if (!atomic_xchg(&rwms_irqs, 0)) {
		pr_warn_ratelimited("rwcurtain: no interrupt for %u ms\n",
				    jiffies_to_msecs(RWMS_PERIOD));
	}
	mod_timer(&rwms_timer, jiffies + RWMS_PERIOD);
}

// false alarm: the handler uses the filter only in interrupt mode, the
// timer only in polled mode, and the mode never changes after init.
// @expect race rwms_irq rwms_tick "global rwms_avg"
// @expect race rwms_irq rwms_tick "global rwms_nsamples"
// @expect not-found rwms_irq rwms_tick "global rwms_avg"
// @expect not-found rwms_irq rwms_tick "global rwms_nsamples"

// @expect entry-point rwms_read callback file_operations.read
static ssize_t rwms_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	u32 level = atomic_read(&rwms_level);

	if (count < sizeof(level))
		return -EINVAL;
	return copy_to_user(buf, &level, sizeof(level)) ? -EFAULT : sizeof(level);
}

static const struct file_operations rwms_fops = {
	.owner	= THIS_MODULE,
	.read	= rwms_read,
};

static struct miscdevice rwms_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwcurtain",
	.fops	= &rwms_fops,
};

// @expect init rwms_init
// @expect entry-point rwms_init module-init module_init
static int __init rwms_init(void)
{
	int ret;

	if (!request_region(RWMS_PORT, 4, "rwcurtain"))
		return -EBUSY;
	/* Everything the callbacks read is set before the first is live. */
	rwms_use_irq = irq > 0;
	rwms_avg = 0;
	rwms_nsamples = 0;
	atomic_set(&rwms_level, 0);
	atomic_set(&rwms_irqs, 0);
	if (rwms_use_irq) {
		ret = request_irq(irq, rwms_irq, 0, "rwcurtain", NULL);
		if (ret)
			goto err_region;
		outb(RWMS_IRQ_EN, RWMS_CTRL);
	}
	timer_setup(&rwms_timer, rwms_tick, 0);
	mod_timer(&rwms_timer, jiffies + RWMS_PERIOD);
	ret = misc_register(&rwms_misc);
	if (ret)
		goto err_timer;
	return 0;

err_timer:
	del_timer_sync(&rwms_timer);
	if (rwms_use_irq) {
		outb(0, RWMS_CTRL);
		free_irq(irq, NULL);
	}
err_region:
	release_region(RWMS_PORT, 4);
	return ret;
}

// @expect entry-point rwms_exit module-exit module_exit
static void __exit rwms_exit(void)
{
	misc_deregister(&rwms_misc);
	del_timer_sync(&rwms_timer);
	if (rwms_use_irq) {
		outb(0, RWMS_CTRL);
		free_irq(irq, NULL);
	}
	release_region(RWMS_PORT, 4);
}

module_init(rwms_init);
module_exit(rwms_exit);

MODULE_DESCRIPTION("racewatch precise corpus: interrupt or polled producer, a lockset false alarm");
MODULE_LICENSE("GPL");
