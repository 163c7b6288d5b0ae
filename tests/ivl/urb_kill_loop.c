// flags: kernel
/*
 * The file's only URB registration names the URB a kill stops, unless it
 * stands in a loop: rx_done is filled into four URBs, so killing one of
 * them (the argument names no structure field) stops nothing.
 */
#include <linux/usb.h>

struct ukl_dev {
	struct usb_device *udev;
	struct urb *urbs[4];
	unsigned char buf[8];
};

static void rx_done(struct urb *urb) { }

void ukl_setup(struct ukl_dev *dev)
{
	int i;

	for (i = 0; i < 4; i++)
		usb_fill_bulk_urb(dev->urbs[i], dev->udev, 0, dev->buf, 8, rx_done, dev);
}

void ukl_stop(struct ukl_dev *dev)
{
	usb_kill_urb(dev->urbs[0]);
}
