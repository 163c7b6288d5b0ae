// SPDX-License-Identifier: GPL-2.0
/*
 * ttyflip_race.c - a polled serial receiver: a timer drains the receive
 * FIFO into the tty flip buffer, and a work item injects a NUL
 * byte to mark an idle gap.
 *
 * Racy twin of ttyflip_fixed.c (case: a kernel function model names the
 * fields the function touches, issue 14 Build 5). The flip buffer's
 * producer side must be serialised by the driver: tty_prepare_flip_string
 * (drivers/tty/tty_buffer.c) takes no lock, reads port->buf.tail and, when
 * the tail buffer is full, stores a new one there and takes it off
 * port->buf.free with llist_del_first, whose callers must be serialised.
 * Here the timer reserves room under the receive lock but the work item
 * reserves without it, so the two producers race on buf.tail and buf.free.
 * The work item, the only writer of the port's closing_wait (a work item
 * never runs beside itself), stores it without a lock: no producer touches
 * that field of the tty_port, so it is no race (the model used to write
 * the whole tty_port).
 * Expected: races between the timer and the work item on the flip buffer
 * head's tail and free list, and on the characters: both reserve room at
 * the same offset of the tail buffer and write into it (confirmed); none
 * on closing_wait.
 * The races on the tail and the free list are not confirmed: the model stores to buf.tail and buf.free
 * only on some paths (when the tail buffer is full), and the precise phase
 * confirms no race on a write a model makes only on some paths
 * (docs/kernel-models.md, may="true").
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/jiffies.h>
#include <linux/tty.h>
#include <linux/tty_flip.h>
#include <linux/io.h>

#define TFL_DATA	0x00
#define TFL_COUNT	0x04

struct tfl_dev {
	void __iomem *base;
	struct tty_port port;
	spinlock_t rx_lock;		/* serialises the flip buffer's producers */
	struct timer_list poll_timer;
	struct work_struct idle_work;
};

// @expect entry-point tfl_poll timer timer_setup
static void tfl_poll(struct timer_list *t)
{
	struct tfl_dev *dev = from_timer(dev, t, poll_timer);
	unsigned int n = ioread32(dev->base + TFL_COUNT);
	unsigned int i, space;
	u8 *chars;

	if (n) {
		spin_lock_bh(&dev->rx_lock);
		space = tty_prepare_flip_string(&dev->port, &chars, n);	/* @racy: beside the idle work */
		for (i = 0; i < space; i++)
			chars[i] = ioread8(dev->base + TFL_DATA);	/* @racy */
		tty_flip_buffer_push(&dev->port);
		spin_unlock_bh(&dev->rx_lock);
	} else {
		schedule_work(&dev->idle_work);
	}
	mod_timer(&dev->poll_timer, jiffies + HZ / 10);
}

// @expect entry-point tfl_idle work work_struct.func
static void tfl_idle(struct work_struct *work)
{
	struct tfl_dev *dev = container_of(work, struct tfl_dev, idle_work);
	u8 *chars;

	dev->port.closing_wait = 30 * HZ / 100;
	if (tty_prepare_flip_string(&dev->port, &chars, 1))	/* @racy: without rx_lock */
		*chars = 0;				/* @racy: maybe the timer's room */
	tty_flip_buffer_push(&dev->port);
}

// @expect race tfl_poll tfl_idle "struct tty_bufhead.tail"
// @expect race tfl_poll tfl_idle "struct llist_head.first"
// @expect unconfirmed tfl_poll tfl_idle "struct tty_bufhead.tail"
// @expect unconfirmed tfl_poll tfl_idle "struct llist_head.first"
// @expect race tfl_poll tfl_idle "unsigned char (pointee)"
// @expect confirmed tfl_poll tfl_idle "unsigned char (pointee)"

// @expect init tfl_probe
// @expect entry-point tfl_probe probe platform_driver.probe
static int tfl_probe(struct platform_device *pdev)
{
	struct tfl_dev *dev;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	tty_port_init(&dev->port);
	spin_lock_init(&dev->rx_lock);
	platform_set_drvdata(pdev, dev);

	INIT_WORK(&dev->idle_work, tfl_idle);
	timer_setup(&dev->poll_timer, tfl_poll, 0);
	mod_timer(&dev->poll_timer, jiffies + HZ / 10);
	return 0;
}

// @expect entry-point tfl_remove remove platform_driver.remove
static void tfl_remove(struct platform_device *pdev)
{
	struct tfl_dev *dev = platform_get_drvdata(pdev);

	timer_shutdown_sync(&dev->poll_timer);
	cancel_work_sync(&dev->idle_work);
	tty_port_destroy(&dev->port);
}

static struct platform_driver tfl_driver = {
	.probe	= tfl_probe,
	.remove	= tfl_remove,
	.driver.name = "rwttyflip",
};

// @expect entry-point tfl_driver_init module-init module_init
// @expect entry-point tfl_driver_exit module-exit module_exit
module_platform_driver(tfl_driver);

MODULE_DESCRIPTION("racewatch race corpus: two producers of one tty flip buffer");
MODULE_LICENSE("GPL");
