// SPDX-License-Identifier: GPL-2.0
/*
 * irq_timer_work.c - sensor-hub controller on a platform bus.
 *
 * A platform_driver (probe/remove, module_platform_driver) that exercises
 * the deferred-execution registrations: a data-ready interrupt with both a
 * primary handler and a threaded half (request_threaded_irq), an error
 * interrupt requested with devm_request_irq, a watchdog poll timer
 * (timer_setup + mod_timer), an event work item (INIT_WORK + schedule_work)
 * and a recalibration delayed work (INIT_DELAYED_WORK). The sample buffer,
 * event mask and error counters are shared between all of them.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/mod_devicetable.h>
#include <linux/interrupt.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/io.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/jiffies.h>

#define RWHUB_STATUS		0x00
#define  RWHUB_ST_DRDY		BIT(0)
#define  RWHUB_ST_EVENT		BIT(1)
#define  RWHUB_ST_ERR		BIT(2)
#define RWHUB_IRQ_MASK		0x04
#define RWHUB_DATA		0x08
#define RWHUB_EVENT		0x0c
#define RWHUB_ERRCODE		0x10
#define RWHUB_CALIB		0x14
#define RWHUB_HEARTBEAT		0x18

#define RWHUB_NSAMPLES		16
#define RWHUB_POLL_MS		500
#define RWHUB_RECAL_SECS	60

struct rwhub {
	struct device *dev;
	void __iomem *base;
	int drdy_irq;
	int err_irq;

	spinlock_t lock;		/* guards samples[], head, events */
	u32 samples[RWHUB_NSAMPLES];
	unsigned int head;
	u32 pending_events;

	struct mutex calib_lock;	/* serialises calibration writes */
	u32 calib;

	struct timer_list poll_timer;
	u32 last_heartbeat;
	unsigned int stalls;

	struct work_struct event_work;
	struct delayed_work recal_work;
	unsigned long errors;
};

// @expect entry-point rwhub_hardirq irq request_threaded_irq
static irqreturn_t rwhub_hardirq(int irq, void *data)
{
	struct rwhub *hub = data;
	u32 st = ioread32(hub->base + RWHUB_STATUS);

	if (!(st & (RWHUB_ST_DRDY | RWHUB_ST_EVENT)))
		return IRQ_NONE;

	/* Mask until the thread has drained the device. */
	iowrite32(0, hub->base + RWHUB_IRQ_MASK);
	return IRQ_WAKE_THREAD;
}

// @expect entry-point rwhub_thread_fn irq-thread request_threaded_irq
static irqreturn_t rwhub_thread_fn(int irq, void *data)
{
	struct rwhub *hub = data;
	u32 st = ioread32(hub->base + RWHUB_STATUS);
	unsigned long flags;

	spin_lock_irqsave(&hub->lock, flags);
	while (st & RWHUB_ST_DRDY) {
		hub->samples[hub->head] = ioread32(hub->base + RWHUB_DATA);
		hub->head = (hub->head + 1) % RWHUB_NSAMPLES;
		st = ioread32(hub->base + RWHUB_STATUS);
	}
	if (st & RWHUB_ST_EVENT)
		hub->pending_events |= ioread32(hub->base + RWHUB_EVENT);
	spin_unlock_irqrestore(&hub->lock, flags);

	if (hub->pending_events)
		schedule_work(&hub->event_work);

	iowrite32(RWHUB_ST_DRDY | RWHUB_ST_EVENT, hub->base + RWHUB_IRQ_MASK);
	return IRQ_HANDLED;
}

// @expect entry-point rwhub_err_irq irq devm_request_irq
static irqreturn_t rwhub_err_irq(int irq, void *data)
{
	struct rwhub *hub = data;
	u32 code = ioread32(hub->base + RWHUB_ERRCODE);

	if (!code)
		return IRQ_NONE;
	iowrite32(code, hub->base + RWHUB_ERRCODE);
	hub->errors++;
	return IRQ_HANDLED;
}

// @expect entry-point rwhub_poll_timer timer timer_setup
static void rwhub_poll_timer(struct timer_list *t)
{
	struct rwhub *hub = from_timer(hub, t, poll_timer);
	u32 hb = ioread32(hub->base + RWHUB_HEARTBEAT);

	if (hb == hub->last_heartbeat) {
		hub->stalls++;
		schedule_work(&hub->event_work);
	}
	hub->last_heartbeat = hb;
	mod_timer(&hub->poll_timer, jiffies + msecs_to_jiffies(RWHUB_POLL_MS));
}

// @expect entry-point rwhub_event_work work work_struct.func
static void rwhub_event_work(struct work_struct *work)
{
	struct rwhub *hub = container_of(work, struct rwhub, event_work);
	unsigned long flags;
	u32 events;

	spin_lock_irqsave(&hub->lock, flags);
	events = hub->pending_events;
	hub->pending_events = 0;
	spin_unlock_irqrestore(&hub->lock, flags);

	if (events)
		dev_dbg(hub->dev, "events %#x\n", events);
	if (hub->stalls > 3)
		dev_warn(hub->dev, "hub stalled %u times\n", hub->stalls);
}

// @expect entry-point rwhub_recal_work work work_struct.func
static void rwhub_recal_work(struct work_struct *work)
{
	struct rwhub *hub = container_of(to_delayed_work(work), struct rwhub,
					 recal_work);

	mutex_lock(&hub->calib_lock);
	hub->calib = ioread32(hub->base + RWHUB_CALIB) + 1;
	iowrite32(hub->calib, hub->base + RWHUB_CALIB);
	mutex_unlock(&hub->calib_lock);

	schedule_delayed_work(&hub->recal_work, RWHUB_RECAL_SECS * HZ);
}

// @expect init rwhub_probe
// @expect entry-point rwhub_probe probe platform_driver.probe
static int rwhub_probe(struct platform_device *pdev)
{
	struct rwhub *hub;
	int ret;

	hub = devm_kzalloc(&pdev->dev, sizeof(*hub), GFP_KERNEL);
	if (!hub)
		return -ENOMEM;
	hub->dev = &pdev->dev;
	hub->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(hub->base))
		return PTR_ERR(hub->base);
	hub->drdy_irq = platform_get_irq(pdev, 0);
	if (hub->drdy_irq < 0)
		return hub->drdy_irq;
	hub->err_irq = platform_get_irq(pdev, 1);
	if (hub->err_irq < 0)
		return hub->err_irq;

	spin_lock_init(&hub->lock);
	mutex_init(&hub->calib_lock);
	INIT_WORK(&hub->event_work, rwhub_event_work);
	INIT_DELAYED_WORK(&hub->recal_work, rwhub_recal_work);
	timer_setup(&hub->poll_timer, rwhub_poll_timer, 0);
	platform_set_drvdata(pdev, hub);

	ret = devm_request_irq(&pdev->dev, hub->err_irq, rwhub_err_irq, 0,
			       "rwhub-err", hub);
	if (ret)
		return ret;
	ret = request_threaded_irq(hub->drdy_irq, rwhub_hardirq, rwhub_thread_fn,
				   IRQF_SHARED, "rwhub", hub);
	if (ret)
		return ret;

	iowrite32(RWHUB_ST_DRDY | RWHUB_ST_EVENT, hub->base + RWHUB_IRQ_MASK);
	mod_timer(&hub->poll_timer, jiffies + msecs_to_jiffies(RWHUB_POLL_MS));
	schedule_delayed_work(&hub->recal_work, RWHUB_RECAL_SECS * HZ);
	return 0;
}

// @expect entry-point rwhub_remove remove platform_driver.remove
static void rwhub_remove(struct platform_device *pdev)
{
	struct rwhub *hub = platform_get_drvdata(pdev);

	iowrite32(0, hub->base + RWHUB_IRQ_MASK);
	free_irq(hub->drdy_irq, hub);
	timer_delete_sync(&hub->poll_timer);
	cancel_delayed_work_sync(&hub->recal_work);
	cancel_work_sync(&hub->event_work);
}

static const struct of_device_id rwhub_of_match[] = {
	{ .compatible = "racewatch,sensor-hub" },
	{ }
};
MODULE_DEVICE_TABLE(of, rwhub_of_match);

static struct platform_driver rwhub_driver = {
	.probe = rwhub_probe,
	.remove = rwhub_remove,
	.driver = {
		.name = "rwhub",
		.of_match_table = rwhub_of_match,
	},
};

// @expect entry-point rwhub_driver_init module-init module_init
// @expect entry-point rwhub_driver_exit module-exit module_exit
module_platform_driver(rwhub_driver);

MODULE_DESCRIPTION("racewatch corpus: irq, timer and work items");
MODULE_LICENSE("GPL");
