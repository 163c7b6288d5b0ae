// flags: kernel
/*
 * Synchronous kernel helpers keep none of their pointer arguments after
 * they return (keeps="none"): an on-stack buffer handed to regmap_bulk_read,
 * device_property_read_u32, i2c_master_recv or cros_ec_cmd_xfer_status, and
 * an on-stack completion waited for, get no `keep` command, so they stay
 * private to the call. dev_fwnode (__dev_fwnode) makes no callback live.
 * tty_flip_buffer_push queues the work embedded in the port, so it keeps
 * its argument: one `keep`.
 */
#include <linux/regmap.h>
#include <linux/property.h>
#include <linux/i2c.h>
#include <linux/completion.h>
#include <linux/tty_flip.h>
#include <linux/platform_data/cros_ec_proto.h>

struct sk_dev {
	struct regmap *map;
	struct i2c_client *client;
	struct cros_ec_device *ec;
	struct tty_port port;
	u32 value;
};

int sk_read(struct sk_dev *dev, struct device *d)
{
	u8 buf[4];
	u32 prop;
	struct {
		struct cros_ec_command msg;
		u32 data;
	} cmd = { .msg = { .command = 1, .outsize = 4 } };
	struct completion done;
	int ret;

	ret = regmap_bulk_read(dev->map, 0, buf, 4);
	ret |= device_property_read_u32(d, "x", &prop);
	ret |= i2c_master_recv(dev->client, (char *)buf, 2);
	ret |= cros_ec_cmd_xfer_status(dev->ec, &cmd.msg);
	init_completion(&done);
	wait_for_completion(&done);
	if (dev_fwnode(d))
		dev->value = buf[0] + prop + cmd.data;
	tty_flip_buffer_push(&dev->port);
	return ret;
}
