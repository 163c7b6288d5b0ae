// SPDX-License-Identifier: GPL-2.0
/*
 * usbanchor_race.c - a USB bulk writer that keeps its in-flight URB on an
 * anchor and counts failed transfers.
 *
 * Racy twin of usbanchor_fixed.c (case: a kernel function model makes its
 * internally locked accesses atomic ones, issue 14 Build 5). usb_anchor_urb,
 * usb_unanchor_urb and the *_anchored_urbs functions touch the anchor (and the
 * URB's anchor links) only holding the anchor's own spinlock
 * (drivers/usb/core/urb.c), so two of them never race. Disconnect poisons
 * the anchor (usb_poison_anchored_urbs) so that no write submits again;
 * the RESET ioctl, meant to undo that after a recovery, clears the
 * anchor's poisoned flag itself instead of calling
 * usb_unpoison_anchored_urbs: a plain store, not under the anchor's lock,
 * beside usb_anchor_urb's read of the flag, disconnect's store and another
 * reset's. Expected: races on the anchor's flags between the ioctl and
 * the write, the disconnect and another ioctl.
 */
#include <linux/module.h>
#include <linux/usb.h>
#include <linux/slab.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/mutex.h>

#define ANW_RESET	_IO('A', 1)

struct anw_dev {
	struct usb_device *udev;
	struct usb_interface *intf;
	struct urb *urb;
	u8 *buf;
	struct usb_anchor submitted;
	struct mutex io_mutex;		/* one write at a time */
	spinlock_t lock;		/* guards errors */
	unsigned int errors;
};

static struct usb_driver anw_driver;

// @expect entry-point anw_write_done urb usb_fill_bulk_urb
static void anw_write_done(struct urb *urb)
{
	struct anw_dev *dev = urb->context;

	if (urb->status) {
		spin_lock(&dev->lock);
		dev->errors++;
		spin_unlock(&dev->lock);
	}
}

// @expect entry-point anw_open callback file_operations.open
static int anw_open(struct inode *inode, struct file *file)
{
	struct usb_interface *intf = usb_find_interface(&anw_driver, iminor(inode));

	if (!intf)
		return -ENODEV;
	file->private_data = usb_get_intfdata(intf);
	return file->private_data ? 0 : -ENODEV;
}

// @expect entry-point anw_write callback file_operations.write
static ssize_t anw_write(struct file *file, const char __user *ubuf, size_t count, loff_t *ppos)
{
	struct anw_dev *dev = file->private_data;
	int err;

	if (count == 0)
		return 0;
	if (mutex_lock_interruptible(&dev->io_mutex))
		return -ERESTARTSYS;
	if (usb_wait_anchor_empty_timeout(&dev->submitted, 1000) == 0) {
		mutex_unlock(&dev->io_mutex);
		return -ETIMEDOUT;
	}
	if (copy_from_user(dev->buf, ubuf, 1)) {
		mutex_unlock(&dev->io_mutex);
		return -EFAULT;
	}
	usb_anchor_urb(dev->urb, &dev->submitted);	/* @racy: beside the reset */
	err = usb_submit_urb(dev->urb, GFP_KERNEL);
	if (err)
		usb_unanchor_urb(dev->urb);
	mutex_unlock(&dev->io_mutex);
	return err ? err : 1;
}

// @expect entry-point anw_ioctl callback file_operations.unlocked_ioctl
static long anw_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct anw_dev *dev = file->private_data;

	if (cmd != ANW_RESET)
		return -ENOTTY;
	dev->submitted.poisoned = 0;			/* @racy: not under the anchor's lock */
	return 0;
}

// @expect race anw_write anw_ioctl "struct usb_anchor bit-fields at +48"
// @expect race anw_ioctl anw_ioctl "struct usb_anchor bit-fields at +48"
// @expect race anw_ioctl anw_disconnect "struct usb_anchor bit-fields at +48"
// @expect confirmed anw_write anw_ioctl "struct usb_anchor bit-fields at +48"
// @expect confirmed anw_ioctl anw_ioctl "struct usb_anchor bit-fields at +48"
// @expect confirmed anw_ioctl anw_disconnect "struct usb_anchor bit-fields at +48"

static const struct file_operations anw_fops = {
	.owner =		THIS_MODULE,
	.open =			anw_open,
	.write =		anw_write,
	.unlocked_ioctl =	anw_ioctl,
};

static struct usb_class_driver anw_class = {
	.name =		"anw%d",
	.fops =		&anw_fops,
	.minor_base =	192,
};

// @expect init anw_probe
// @expect entry-point anw_probe probe usb_driver.probe
static int anw_probe(struct usb_interface *intf, const struct usb_device_id *id)
{
	struct usb_endpoint_descriptor *out;
	struct anw_dev *dev;
	int err;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	err = usb_find_common_endpoints(intf->cur_altsetting, NULL, &out, NULL, NULL);
	if (err)
		goto free_dev;
	err = -ENOMEM;
	dev->buf = kmalloc(1, GFP_KERNEL);
	dev->urb = usb_alloc_urb(0, GFP_KERNEL);
	if (!dev->buf || !dev->urb)
		goto free_all;
	dev->udev = interface_to_usbdev(intf);
	dev->intf = intf;
	usb_fill_bulk_urb(dev->urb, dev->udev, usb_sndbulkpipe(dev->udev, usb_endpoint_num(out)),
			  dev->buf, 1, anw_write_done, dev);
	init_usb_anchor(&dev->submitted);
	mutex_init(&dev->io_mutex);
	spin_lock_init(&dev->lock);
	usb_set_intfdata(intf, dev);
	err = usb_register_dev(intf, &anw_class);
	if (!err)
		return 0;
	usb_set_intfdata(intf, NULL);
free_all:
	usb_free_urb(dev->urb);
	kfree(dev->buf);
free_dev:
	kfree(dev);
	return err;
}

// @expect entry-point anw_disconnect remove usb_driver.disconnect
static void anw_disconnect(struct usb_interface *intf)
{
	struct anw_dev *dev = usb_get_intfdata(intf);

	usb_deregister_dev(intf, &anw_class);
	usb_poison_anchored_urbs(&dev->submitted);	/* @racy: an open file's reset */
	usb_free_urb(dev->urb);
	kfree(dev->buf);
	kfree(dev);
}

static const struct usb_device_id anw_table[] = {
	{ USB_DEVICE(0x1234, 0x5679) },
	{ }
};
MODULE_DEVICE_TABLE(usb, anw_table);

static struct usb_driver anw_driver = {
	.name =		"usbanchor",
	.probe =	anw_probe,
	.disconnect =	anw_disconnect,
	.id_table =	anw_table,
};

// @expect entry-point anw_driver_init module-init module_init
// @expect entry-point anw_driver_exit module-exit module_exit
module_usb_driver(anw_driver);

MODULE_LICENSE("GPL");
