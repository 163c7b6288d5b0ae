// SPDX-License-Identifier: GPL-2.0
/*
 * urbsubmit_race.c - a USB event counter: an interrupt URB reports events,
 * its completion adds them up and resubmits it.
 *
 * Racy twin of urbsubmit_fixed.c (case: URB completions run only once the
 * URB is submitted, issue 14). The probe submits the interrupt URB and
 * only then clears the running total: the completion, which the host
 * controller driver may call as soon as usb_submit_urb has handed the URB
 * over (drivers/usb/core/hcd.c usb_hcd_submit_urb, usb_hcd_giveback_urb),
 * can add an event that the probe's late store then wipes out. Expected: a
 * race between the probe and the completion on the total, confirmed.
 */
#include <linux/module.h>
#include <linux/usb.h>
#include <linux/slab.h>

struct usc_dev {
	struct usb_device *udev;
	struct urb *urb;
	unsigned char *buf;
	spinlock_t lock;		/* guards total against other completions */
	unsigned long total;
};

// @expect entry-point usc_complete urb usb_fill_int_urb
static void usc_complete(struct urb *urb)
{
	struct usc_dev *dev = urb->context;

	if (urb->status)
		return;
	spin_lock(&dev->lock);
	dev->total += urb->actual_length;	/* @racy: beside the probe's late store */
	spin_unlock(&dev->lock);
	usb_submit_urb(urb, GFP_ATOMIC);
}

// @expect init usc_probe
// @expect entry-point usc_probe probe usb_driver.probe
static int usc_probe(struct usb_interface *intf, const struct usb_device_id *id)
{
	struct usb_device *udev = interface_to_usbdev(intf);
	struct usc_dev *dev;

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
			 usc_complete, dev, 10);
	usb_set_intfdata(intf, dev);
	if (usb_submit_urb(dev->urb, GFP_KERNEL))
		return -EIO;
	dev->total = 0;				/* @racy: after the submission */
	return 0;
}

// @expect race usc_complete usc_probe "struct usc_dev.total"
// @expect confirmed usc_complete usc_probe "struct usc_dev.total"

// @expect entry-point usc_disconnect remove usb_driver.disconnect
static void usc_disconnect(struct usb_interface *intf)
{
	struct usc_dev *dev = usb_get_intfdata(intf);

	usb_kill_urb(dev->urb);
}

static const struct usb_device_id usc_table[] = {
	{ USB_DEVICE(0x1234, 0x5678) },
	{ }
};
MODULE_DEVICE_TABLE(usb, usc_table);

static struct usb_driver usc_driver = {
	.name = "usbsubmit",
	.probe = usc_probe,
	.disconnect = usc_disconnect,
	.id_table = usc_table,
};

// @expect entry-point usc_driver_init module-init module_init
// @expect entry-point usc_driver_exit module-exit module_exit
module_usb_driver(usc_driver);

MODULE_LICENSE("GPL");
