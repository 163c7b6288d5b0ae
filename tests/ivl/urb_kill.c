// flags: kernel
/*
 * Which completion usb_kill_urb stops: the one bound to the URB its
 * argument names (a structure field filled by usb_fill_*_urb), only when
 * every URB that completion is filled into is that one. in_done is filled
 * into in_urb only, so killing in_urb stops it; st_done is filled into
 * st_urb and st2_urb, so killing st_urb alone stops nothing.
 */
#include <linux/usb.h>

struct ukt_dev {
	struct usb_device *udev;
	struct urb *in_urb, *st_urb, *st2_urb;
	unsigned char buf[8];
};

static void in_done(struct urb *urb) { }
static void st_done(struct urb *urb) { }

void ukt_setup(struct ukt_dev *dev)
{
	usb_fill_int_urb(dev->in_urb, dev->udev, 0, dev->buf, 8, in_done, dev, 1);
	usb_fill_int_urb(dev->st_urb, dev->udev, 0, dev->buf, 8, st_done, dev, 1);
	usb_fill_int_urb(dev->st2_urb, dev->udev, 0, dev->buf, 8, st_done, dev, 1);
}

void ukt_stop(struct ukt_dev *dev)
{
	usb_kill_urb(dev->in_urb);
	usb_kill_urb(dev->st_urb);
	usb_poison_urb(dev->in_urb);
}
