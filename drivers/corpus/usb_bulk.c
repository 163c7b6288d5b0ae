// SPDX-License-Identifier: GPL-2.0
/*
 * usb_bulk.c - bulk-pipe data logger on USB, in the style of usb-skeleton.
 *
 * A usb_driver (probe/disconnect/suspend/resume) registered with
 * module_usb_driver. The probe registers a character device through
 * usb_register_dev with a usb_class_driver whose file_operations carry
 * open/release/read/write and the kernel helper noop_llseek. Bulk IN
 * and OUT URBs are filled with usb_fill_bulk_urb; the two completion
 * handlers passed there run in interrupt context and update the shared
 * buffer state under a spinlock, while readers and writers use an io mutex.
 */
#include <linux/module.h>
#include <linux/usb.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/uaccess.h>

#define RWUSB_VENDOR_ID		0x1d0f
#define RWUSB_PRODUCT_ID	0x10c0
#define RWUSB_MINOR_BASE	192
#define RWUSB_WRITE_MAX		512

struct rwusb {
	struct usb_device *udev;
	struct usb_interface *interface;
	struct urb *bulk_in_urb;
	unsigned char *bulk_in_buffer;
	size_t bulk_in_size;
	size_t bulk_in_filled;
	__u8 bulk_in_addr;
	__u8 bulk_out_addr;
	int errors;
	bool ongoing_read;
	spinlock_t err_lock;		/* guards errors, ongoing_read, filled */
	struct kref kref;
	struct mutex io_mutex;		/* serialises I/O against disconnect */
	unsigned long disconnected:1;
	wait_queue_head_t bulk_in_wait;
};

static struct usb_driver rwusb_driver;

static void rwusb_delete(struct kref *kref)
{
	struct rwusb *dev = container_of(kref, struct rwusb, kref);

	usb_free_urb(dev->bulk_in_urb);
	usb_put_intf(dev->interface);
	usb_put_dev(dev->udev);
	kfree(dev->bulk_in_buffer);
	kfree(dev);
}

// @expect entry-point rwusb_read_bulk_callback urb usb_fill_bulk_urb
static void rwusb_read_bulk_callback(struct urb *urb)
{
	struct rwusb *dev = urb->context;
	unsigned long flags;

	spin_lock_irqsave(&dev->err_lock, flags);
	if (urb->status && urb->status != -ENOENT && urb->status != -ECONNRESET &&
	    urb->status != -ESHUTDOWN)
		dev->errors = urb->status;
	else
		dev->bulk_in_filled = urb->actual_length;
	dev->ongoing_read = false;
	spin_unlock_irqrestore(&dev->err_lock, flags);

	wake_up_interruptible(&dev->bulk_in_wait);
}

// @expect entry-point rwusb_write_bulk_callback urb usb_fill_bulk_urb
static void rwusb_write_bulk_callback(struct urb *urb)
{
	struct rwusb *dev = urb->context;
	unsigned long flags;

	if (urb->status) {
		spin_lock_irqsave(&dev->err_lock, flags);
		dev->errors = urb->status;
		spin_unlock_irqrestore(&dev->err_lock, flags);
	}
	kfree(urb->transfer_buffer);
}

// @expect entry-point rwusb_open callback file_operations.open
static int rwusb_open(struct inode *inode, struct file *file)
{
	struct usb_interface *interface;
	struct rwusb *dev;

	interface = usb_find_interface(&rwusb_driver, iminor(inode));
	if (!interface)
		return -ENODEV;
	dev = usb_get_intfdata(interface);
	if (!dev)
		return -ENODEV;

	kref_get(&dev->kref);
	file->private_data = dev;
	return 0;
}

// @expect entry-point rwusb_release callback file_operations.release
static int rwusb_release(struct inode *inode, struct file *file)
{
	struct rwusb *dev = file->private_data;

	kref_put(&dev->kref, rwusb_delete);
	return 0;
}

// @expect entry-point rwusb_read callback file_operations.read
static ssize_t rwusb_read(struct file *file, char __user *buffer, size_t count,
			  loff_t *ppos)
{
	struct rwusb *dev = file->private_data;
	int rv;

	rv = mutex_lock_interruptible(&dev->io_mutex);
	if (rv < 0)
		return rv;
	if (dev->disconnected) {
		rv = -ENODEV;
		goto out;
	}
	usb_fill_bulk_urb(dev->bulk_in_urb, dev->udev,
			  usb_rcvbulkpipe(dev->udev, dev->bulk_in_addr),
			  dev->bulk_in_buffer, min(dev->bulk_in_size, count),
			  rwusb_read_bulk_callback, dev);
	spin_lock_irq(&dev->err_lock);
	dev->ongoing_read = true;
	dev->bulk_in_filled = 0;
	spin_unlock_irq(&dev->err_lock);
	rv = usb_submit_urb(dev->bulk_in_urb, GFP_KERNEL);
	if (rv < 0)
		goto out;
	rv = wait_event_interruptible(dev->bulk_in_wait, !dev->ongoing_read);
	if (rv < 0) {
		usb_kill_urb(dev->bulk_in_urb);
		goto out;
	}
	spin_lock_irq(&dev->err_lock);
	rv = dev->errors ? dev->errors : dev->bulk_in_filled;
	dev->errors = 0;
	spin_unlock_irq(&dev->err_lock);
	if (rv > 0 && copy_to_user(buffer, dev->bulk_in_buffer, rv))
		rv = -EFAULT;
out:
	mutex_unlock(&dev->io_mutex);
	return rv;
}

// @expect entry-point rwusb_write callback file_operations.write
static ssize_t rwusb_write(struct file *file, const char __user *user_buffer,
			   size_t count, loff_t *ppos)
{
	struct rwusb *dev = file->private_data;
	size_t writesize = min_t(size_t, count, RWUSB_WRITE_MAX);
	struct urb *urb;
	char *buf;
	int retval = -ENODEV;

	buf = memdup_user(user_buffer, writesize);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	urb = usb_alloc_urb(0, GFP_KERNEL);
	if (!urb) {
		kfree(buf);
		return -ENOMEM;
	}

	mutex_lock(&dev->io_mutex);
	if (!dev->disconnected) {
		usb_fill_bulk_urb(urb, dev->udev,
				  usb_sndbulkpipe(dev->udev, dev->bulk_out_addr),
				  buf, writesize, rwusb_write_bulk_callback, dev);
		retval = usb_submit_urb(urb, GFP_KERNEL);
	}
	mutex_unlock(&dev->io_mutex);
	if (retval)
		kfree(buf);
	usb_free_urb(urb);
	return retval ? retval : writesize;
}

// @expect external noop_llseek callback file_operations.llseek
static const struct file_operations rwusb_fops = {
	.owner =	THIS_MODULE,
	.read =		rwusb_read,
	.write =	rwusb_write,
	.open =		rwusb_open,
	.release =	rwusb_release,
	.llseek =	noop_llseek,
};

static struct usb_class_driver rwusb_class = {
	.name =		"rwlog%d",
	.fops =		&rwusb_fops,
	.minor_base =	RWUSB_MINOR_BASE,
};

// @expect init rwusb_probe
// @expect entry-point rwusb_probe probe usb_driver.probe
static int rwusb_probe(struct usb_interface *interface,
		       const struct usb_device_id *id)
{
	struct usb_endpoint_descriptor *bulk_in, *bulk_out;
	struct rwusb *dev;
	int retval;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	kref_init(&dev->kref);
	mutex_init(&dev->io_mutex);
	spin_lock_init(&dev->err_lock);
	init_waitqueue_head(&dev->bulk_in_wait);
	dev->udev = usb_get_dev(interface_to_usbdev(interface));
	dev->interface = usb_get_intf(interface);

	retval = usb_find_common_endpoints(interface->cur_altsetting,
					   &bulk_in, &bulk_out, NULL, NULL);
	if (retval)
		goto error;
	dev->bulk_in_size = usb_endpoint_maxp(bulk_in);
	dev->bulk_in_addr = bulk_in->bEndpointAddress;
	dev->bulk_out_addr = bulk_out->bEndpointAddress;
	dev->bulk_in_buffer = kmalloc(dev->bulk_in_size, GFP_KERNEL);
	dev->bulk_in_urb = usb_alloc_urb(0, GFP_KERNEL);
	if (!dev->bulk_in_buffer || !dev->bulk_in_urb) {
		retval = -ENOMEM;
		goto error;
	}

	usb_set_intfdata(interface, dev);
	retval = usb_register_dev(interface, &rwusb_class);
	if (retval) {
		usb_set_intfdata(interface, NULL);
		goto error;
	}
	return 0;

error:
	kref_put(&dev->kref, rwusb_delete);
	return retval;
}

// @expect entry-point rwusb_disconnect remove usb_driver.disconnect
static void rwusb_disconnect(struct usb_interface *interface)
{
	struct rwusb *dev = usb_get_intfdata(interface);

	usb_set_intfdata(interface, NULL);
	usb_deregister_dev(interface, &rwusb_class);

	mutex_lock(&dev->io_mutex);
	dev->disconnected = 1;
	mutex_unlock(&dev->io_mutex);

	usb_kill_urb(dev->bulk_in_urb);
	kref_put(&dev->kref, rwusb_delete);
}

// @expect entry-point rwusb_suspend callback usb_driver.suspend
static int rwusb_suspend(struct usb_interface *intf, pm_message_t message)
{
	struct rwusb *dev = usb_get_intfdata(intf);

	if (dev)
		usb_kill_urb(dev->bulk_in_urb);
	return 0;
}

// @expect entry-point rwusb_resume callback usb_driver.resume
static int rwusb_resume(struct usb_interface *intf)
{
	struct rwusb *dev = usb_get_intfdata(intf);

	if (dev) {
		spin_lock_irq(&dev->err_lock);
		dev->errors = 0;
		spin_unlock_irq(&dev->err_lock);
	}
	return 0;
}

static const struct usb_device_id rwusb_table[] = {
	{ USB_DEVICE(RWUSB_VENDOR_ID, RWUSB_PRODUCT_ID) },
	{ }
};
MODULE_DEVICE_TABLE(usb, rwusb_table);

static struct usb_driver rwusb_driver = {
	.name =		"rwusb",
	.probe =	rwusb_probe,
	.disconnect =	rwusb_disconnect,
	.suspend =	rwusb_suspend,
	.resume =	rwusb_resume,
	.id_table =	rwusb_table,
	.supports_autosuspend = 1,
};

// @expect entry-point rwusb_driver_init module-init module_init
// @expect entry-point rwusb_driver_exit module-exit module_exit
module_usb_driver(rwusb_driver);

MODULE_DESCRIPTION("racewatch corpus: USB bulk device");
MODULE_LICENSE("GPL");
