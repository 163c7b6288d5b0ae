// SPDX-License-Identifier: GPL-2.0
/*
 * urbkill_race.c - a USB event counter: an interrupt URB reports events
 * into a buffer, its completion adds the first byte up and resubmits it.
 *
 * Racy twin of urbkill_fixed.c (case: usb_kill_urb quiesces the URB's
 * completion, issue 14 Build 4). The disconnect frees the event buffer
 * and clears its pointer before it kills the URB: until usb_kill_urb has
 * waited for it (drivers/usb/core/urb.c: urb->use_count drops to 0 only
 * after the completion returned), the completion may run and read the
 * pointer, or the freed buffer. Expected: a race between the completion
 * and the disconnect on the buffer pointer, confirmed.
 */
#include <linux/module.h>
#include <linux/usb.h>
#include <linux/slab.h>

struct ukr_dev {
	struct usb_device *udev;
	struct urb *urb;
	unsigned char *buf;
	spinlock_t lock;		/* guards events against other completions */
	unsigned long events;
};

// @expect entry-point ukr_complete urb usb_fill_int_urb
static void ukr_complete(struct urb *urb)
{
	struct ukr_dev *dev = urb->context;
	unsigned char *buf = dev->buf;	/* @racy: beside the disconnect's clear */

	if (urb->status || !buf)
		return;
	spin_lock(&dev->lock);
	dev->events += buf[0];
	spin_unlock(&dev->lock);
	usb_submit_urb(urb, GFP_ATOMIC);
}

// @expect init ukr_probe
// @expect entry-point ukr_probe probe usb_driver.probe
static int ukr_probe(struct usb_interface *intf, const struct usb_device_id *id)
{
	struct usb_device *udev = interface_to_usbdev(intf);
	struct ukr_dev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->udev = udev;
	spin_lock_init(&dev->lock);
	dev->buf = kmalloc(8, GFP_KERNEL);
	dev->urb = usb_alloc_urb(0, GFP_KERNEL);
	if (!dev->buf || !dev->urb) {
		usb_free_urb(dev->urb);
		kfree(dev->buf);
		kfree(dev);
		return -ENOMEM;
	}
	usb_fill_int_urb(dev->urb, udev, usb_rcvintpipe(udev, 1), dev->buf, 8,
			 ukr_complete, dev, 10);
	usb_set_intfdata(intf, dev);
	return usb_submit_urb(dev->urb, GFP_KERNEL);
}

// @expect entry-point ukr_disconnect remove usb_driver.disconnect
static void ukr_disconnect(struct usb_interface *intf)
{
	struct ukr_dev *dev = usb_get_intfdata(intf);

	kfree(dev->buf);
	dev->buf = NULL;		/* @racy: before the URB is killed */
	usb_kill_urb(dev->urb);
	usb_free_urb(dev->urb);
	kfree(dev);
}

// @expect race ukr_complete ukr_disconnect "struct ukr_dev.buf"
// @expect confirmed ukr_complete ukr_disconnect "struct ukr_dev.buf"

static const struct usb_device_id ukr_table[] = {
	{ USB_DEVICE(0x1234, 0x5679) },
	{ }
};
MODULE_DEVICE_TABLE(usb, ukr_table);

static struct usb_driver ukr_driver = {
	.name = "urbkill",
	.probe = ukr_probe,
	.disconnect = ukr_disconnect,
	.id_table = ukr_table,
};

// @expect entry-point ukr_driver_init module-init module_init
// @expect entry-point ukr_driver_exit module-exit module_exit
module_usb_driver(ukr_driver);

MODULE_LICENSE("GPL");
