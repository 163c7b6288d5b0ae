// SPDX-License-Identifier: GPL-2.0
/*
 * usbserialopen_race.c - a usb-serial adapter that counts how often its
 * port was opened and tracks the modem lines its interrupt endpoint
 * reports.
 *
 * Racy twin of usbserialopen_fixed.c (case: the tty port mutex around a
 * usb-serial driver's open and close, issue 14 Build 5). open and close
 * update the open statistics without a lock of the driver's, which is
 * right: the tty port calls them only through activate and shutdown, both
 * under port->mutex (drivers/tty/tty_port.c tty_port_open,
 * tty_port_shutdown; rule usb-serial-port-mutex). But open also clears the
 * line state without the port's spinlock, while the interrupt completion,
 * which the port mutex does not order, may be storing it.
 * Expected: a race between open and the completion on the line state;
 * open and close proven. The precise phase answers not-found, a known gap
 * (docs/soundness.md): it does not make a usb-serial driver's callbacks
 * live, as __usb_serial_register_drivers has no liveness model.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/tty.h>
#include <linux/usb.h>
#include <linux/usb/serial.h>

struct usop_port {
	spinlock_t lock;		/* guards line_state */
	u8 line_state;
	unsigned int opens;		/* under the tty port's mutex */
	unsigned int closes;		/* under the tty port's mutex */
};

// @expect entry-point usop_open callback usb_serial_driver.open
static int usop_open(struct tty_struct *tty, struct usb_serial_port *port)
{
	struct usop_port *priv = usb_get_serial_port_data(port);

	priv->opens++;
	priv->line_state = 0;		/* @racy: without the port's spinlock */
	return usb_serial_generic_open(tty, port);
}

// @expect entry-point usop_close callback usb_serial_driver.close
static void usop_close(struct usb_serial_port *port)
{
	struct usop_port *priv = usb_get_serial_port_data(port);

	priv->closes = priv->opens;
	usb_serial_generic_close(port);
}

// @expect entry-point usop_read_int_callback callback usb_serial_driver.read_int_callback
static void usop_read_int_callback(struct urb *urb)
{
	struct usb_serial_port *port = urb->context;
	struct usop_port *priv = usb_get_serial_port_data(port);
	unsigned char *data = urb->transfer_buffer;
	unsigned long flags;

	if (urb->status || urb->actual_length < 1)
		return;
	spin_lock_irqsave(&priv->lock, flags);
	priv->line_state = data[0];	/* @racy */
	spin_unlock_irqrestore(&priv->lock, flags);
}

// @expect proven usop_open usop_close
// @expect race usop_open usop_read_int_callback "struct usop_port.line_state"
// @expect not-found usop_open usop_read_int_callback "struct usop_port.line_state"

// @expect entry-point usop_port_probe callback usb_serial_driver.port_probe
static int usop_port_probe(struct usb_serial_port *port)
{
	struct usop_port *priv;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	spin_lock_init(&priv->lock);
	usb_set_serial_port_data(port, priv);
	return 0;
}

// @expect entry-point usop_port_remove callback usb_serial_driver.port_remove
static void usop_port_remove(struct usb_serial_port *port)
{
	kfree(usb_get_serial_port_data(port));
}

static const struct usb_device_id usop_table[] = {
	{ USB_DEVICE(0x1234, 0x567a) },
	{ }
};
MODULE_DEVICE_TABLE(usb, usop_table);

static struct usb_serial_driver usop_device = {
	.driver = {
		.owner =	THIS_MODULE,
		.name =		"usop",
	},
	.id_table =		usop_table,
	.num_ports =		1,
	.open =			usop_open,
	.close =		usop_close,
	.read_int_callback =	usop_read_int_callback,
	.port_probe =		usop_port_probe,
	.port_remove =		usop_port_remove,
};

static struct usb_serial_driver * const usop_drivers[] = {
	&usop_device, NULL
};

// @expect init usb_serial_module_init
// @expect entry-point usb_serial_module_init module-init module_init
// @expect entry-point usb_serial_module_exit module-exit module_exit
module_usb_serial_driver(usop_drivers, usop_table);

MODULE_LICENSE("GPL");
