// SPDX-License-Identifier: GPL-2.0
/*
 * tdfile_race.c - USB thermometer read through a character device.
 *
 * Race test (case: a file operation on an open file while disconnect
 * runs). usb_deregister_dev() removes the minor so that no new open
 * succeeds, but a file opened before keeps its file_operations
 * (fs/char_dev.c: chrdev_open copies them into the file) and read() may
 * run on another CPU while disconnect() clears the transfer buffer. The
 * fixed twin, tdfile_fixed.c, does what drivers/usb/usb-skeleton.c does:
 * read() and disconnect() take the device's I/O mutex, and read() sees
 * the cleared buffer and fails.
 */
#include <linux/module.h>
#include <linux/usb.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

struct tdf_dev {
	struct usb_interface *intf;
	u8 *buf;			/* NULL once disconnected */
	struct mutex io_mutex;
};

static struct tdf_dev tdf_state;
static u8 tdf_buffer[8];

// @expect entry-point tdf_open callback file_operations.open
static int tdf_open(struct inode *inode, struct file *file)
{
	file->private_data = &tdf_state;
	return 0;
}

// @expect entry-point tdf_read callback file_operations.read
static ssize_t tdf_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct tdf_dev *dev = file->private_data;
	u8 *buf = dev->buf;	/* @racy */

	if (!buf)
		return -ENODEV;
	if (copy_to_user(ubuf, buf, 1))
		return -EFAULT;
	return 1;
}

static const struct file_operations tdf_fops = {
	.owner	= THIS_MODULE,
	.open	= tdf_open,
	.read	= tdf_read,
};

static struct usb_class_driver tdf_class = {
	.name	= "tdtemp%d",
	.fops	= &tdf_fops,
};

// @expect init tdf_probe
// @expect entry-point tdf_probe probe usb_driver.probe
static int tdf_probe(struct usb_interface *intf, const struct usb_device_id *id)
{
	struct tdf_dev *dev = &tdf_state;

	mutex_init(&dev->io_mutex);
	dev->intf = intf;
	dev->buf = tdf_buffer;
	usb_set_intfdata(intf, dev);
	return usb_register_dev(intf, &tdf_class);
}

// @expect entry-point tdf_disconnect remove usb_driver.disconnect
static void tdf_disconnect(struct usb_interface *intf)
{
	struct tdf_dev *dev = usb_get_intfdata(intf);

	usb_deregister_dev(intf, &tdf_class);
	dev->buf = NULL;	/* @racy */
}

// @expect race tdf_read tdf_disconnect "struct tdf_dev.buf"
// @expect confirmed tdf_read tdf_disconnect "struct tdf_dev.buf"

static const struct usb_device_id tdf_ids[] = {
	{ USB_DEVICE(0x1234, 0x5678) },
	{ }
};
MODULE_DEVICE_TABLE(usb, tdf_ids);

static struct usb_driver tdf_driver = {
	.name		= "tdtemp",
	.probe		= tdf_probe,
	.disconnect	= tdf_disconnect,
	.id_table	= tdf_ids,
};

// @expect entry-point tdf_driver_init module-init module_init
// @expect entry-point tdf_driver_exit module-exit module_exit
module_usb_driver(tdf_driver);

MODULE_DESCRIPTION("racewatch race corpus: a file operation during USB disconnect");
MODULE_LICENSE("GPL");
