// SPDX-License-Identifier: GPL-2.0
/*
 * tasklet_hrtimer.c - multiplexed LED matrix and keypad scanner.
 *
 * A platform_driver (probe/remove, module_platform_driver). A high-resolution
 * timer refreshes one LED row per period: it is set up with hrtimer_init and
 * a run-time `.function =` assignment (6.12 has no hrtimer_setup yet). The
 * keypad interrupt (request_irq) defers its work to a per-device tasklet
 * registered with tasklet_setup; FIFO overflows go to a legacy tasklet set up
 * with tasklet_init; and a global fault tasklet is statically declared with
 * DECLARE_TASKLET. Frame buffer, key state and counters are shared between
 * hrtimer, tasklets, irq and remove.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/mod_devicetable.h>
#include <linux/interrupt.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/io.h>
#include <linux/spinlock.h>

#define RWMX_ROW_SEL		0x00
#define RWMX_COL_DATA		0x04
#define RWMX_KEY_STATUS		0x08
#define  RWMX_KEY_PENDING	BIT(0)
#define  RWMX_KEY_OVERFLOW	BIT(1)
#define  RWMX_KEY_FAULT		BIT(2)
#define RWMX_KEY_FIFO		0x0c
#define RWMX_KEY_IRQ_EN		0x10

#define RWMX_ROWS		8
#define RWMX_ROW_PERIOD_NS	(2 * NSEC_PER_MSEC)

struct rwmx {
	void __iomem *base;
	int irq;
	spinlock_t lock;		/* guards frame[] and keys */
	u16 frame[RWMX_ROWS];
	unsigned int cur_row;
	u64 keys;			/* bitmap of pressed keys */
	unsigned int overflows;
	struct hrtimer scan_timer;
	struct tasklet_struct key_tasklet;
	struct tasklet_struct ovf_tasklet;
};

static struct rwmx *rwmx_dev;		/* for the global fault tasklet */
static unsigned int rwmx_faults;

// @expect entry-point rwmx_fault_tasklet tasklet tasklet_struct.callback
static void rwmx_fault_tasklet(struct tasklet_struct *t)
{
	struct rwmx *mx = rwmx_dev;

	rwmx_faults++;
	if (mx)
		iowrite32(RWMX_KEY_FAULT, mx->base + RWMX_KEY_STATUS);
}

static DECLARE_TASKLET(rwmx_fault, rwmx_fault_tasklet);

// @expect entry-point rwmx_scan_timer timer hrtimer.function
static enum hrtimer_restart rwmx_scan_timer(struct hrtimer *t)
{
	struct rwmx *mx = container_of(t, struct rwmx, scan_timer);

	// @mutation-protects-nothing rwmx_scan_timer &mx->lock: cur_row is used
	// only by this callback, which never runs concurrently with itself, and
	// frame[] is only read (kzalloc zeroed it).
	spin_lock(&mx->lock);
	mx->cur_row = (mx->cur_row + 1) % RWMX_ROWS;
	iowrite32(0, mx->base + RWMX_COL_DATA);
	iowrite32(BIT(mx->cur_row), mx->base + RWMX_ROW_SEL);
	iowrite32(mx->frame[mx->cur_row], mx->base + RWMX_COL_DATA);
	spin_unlock(&mx->lock);

	hrtimer_forward_now(t, ns_to_ktime(RWMX_ROW_PERIOD_NS));
	return HRTIMER_RESTART;
}

// @expect entry-point rwmx_key_tasklet tasklet tasklet_setup
static void rwmx_key_tasklet(struct tasklet_struct *t)
{
	struct rwmx *mx = from_tasklet(mx, t, key_tasklet);
	u32 code;

	spin_lock_bh(&mx->lock);
	while (ioread32(mx->base + RWMX_KEY_STATUS) & RWMX_KEY_PENDING) {
		code = ioread32(mx->base + RWMX_KEY_FIFO);
		if (code & 0x80)
			mx->keys &= ~BIT_ULL(code & 0x3f);
		else
			mx->keys |= BIT_ULL(code & 0x3f);
	}
	spin_unlock_bh(&mx->lock);
	iowrite32(1, mx->base + RWMX_KEY_IRQ_EN);
}

// @expect entry-point rwmx_ovf_tasklet tasklet tasklet_init
static void rwmx_ovf_tasklet(unsigned long data)
{
	struct rwmx *mx = (struct rwmx *)data;

	mx->overflows++;
	spin_lock_bh(&mx->lock);
	mx->keys = 0;
	spin_unlock_bh(&mx->lock);
}

// @expect entry-point rwmx_irq irq request_irq
static irqreturn_t rwmx_irq(int irq, void *data)
{
	struct rwmx *mx = data;
	u32 st = ioread32(mx->base + RWMX_KEY_STATUS);

	if (!st)
		return IRQ_NONE;
	if (st & RWMX_KEY_FAULT)
		tasklet_schedule(&rwmx_fault);
	if (st & RWMX_KEY_OVERFLOW) {
		iowrite32(RWMX_KEY_OVERFLOW, mx->base + RWMX_KEY_STATUS);
		tasklet_schedule(&mx->ovf_tasklet);
	}
	if (st & RWMX_KEY_PENDING) {
		iowrite32(0, mx->base + RWMX_KEY_IRQ_EN);
		tasklet_schedule(&mx->key_tasklet);
	}
	return IRQ_HANDLED;
}

// @expect init rwmx_probe
// @expect entry-point rwmx_probe probe platform_driver.probe
static int rwmx_probe(struct platform_device *pdev)
{
	struct rwmx *mx;
	int ret;

	mx = devm_kzalloc(&pdev->dev, sizeof(*mx), GFP_KERNEL);
	if (!mx)
		return -ENOMEM;
	mx->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(mx->base))
		return PTR_ERR(mx->base);
	mx->irq = platform_get_irq(pdev, 0);
	if (mx->irq < 0)
		return mx->irq;

	spin_lock_init(&mx->lock);
	tasklet_setup(&mx->key_tasklet, rwmx_key_tasklet);
	tasklet_init(&mx->ovf_tasklet, rwmx_ovf_tasklet, (unsigned long)mx);
	hrtimer_init(&mx->scan_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	mx->scan_timer.function = rwmx_scan_timer;
	platform_set_drvdata(pdev, mx);
	rwmx_dev = mx;

	ret = request_irq(mx->irq, rwmx_irq, 0, "rwmatrix", mx);
	if (ret)
		return ret;
	iowrite32(1, mx->base + RWMX_KEY_IRQ_EN);
	hrtimer_start(&mx->scan_timer, ns_to_ktime(RWMX_ROW_PERIOD_NS),
		      HRTIMER_MODE_REL);
	return 0;
}

// @expect entry-point rwmx_remove remove platform_driver.remove
static void rwmx_remove(struct platform_device *pdev)
{
	struct rwmx *mx = platform_get_drvdata(pdev);

	hrtimer_cancel(&mx->scan_timer);
	iowrite32(0, mx->base + RWMX_KEY_IRQ_EN);
	free_irq(mx->irq, mx);
	tasklet_kill(&mx->key_tasklet);
	tasklet_kill(&mx->ovf_tasklet);
	tasklet_kill(&rwmx_fault);
	rwmx_dev = NULL;
}

static const struct of_device_id rwmx_of_match[] = {
	{ .compatible = "racewatch,led-matrix" },
	{ }
};
MODULE_DEVICE_TABLE(of, rwmx_of_match);

static struct platform_driver rwmx_driver = {
	.probe	= rwmx_probe,
	.remove	= rwmx_remove,
	.driver	= {
		.name		= "rwmatrix",
		.of_match_table	= rwmx_of_match,
	},
};

// @expect entry-point rwmx_driver_init module-init module_init
// @expect entry-point rwmx_driver_exit module-exit module_exit
module_platform_driver(rwmx_driver);

MODULE_DESCRIPTION("racewatch corpus: tasklets and hrtimer");
MODULE_LICENSE("GPL");
