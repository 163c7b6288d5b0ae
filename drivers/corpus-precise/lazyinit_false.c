// SPDX-License-Identifier: GPL-2.0
/*
 * lazyinit_false.c - ISA temperature probe card, /dev/rwtemp.
 *
 * False-alarm test (case: an initialisation order that makes a path
 * unreachable). The card's gain and offset come from its calibration
 * EEPROM. An older version of the driver read them lazily, on the first
 * read(), and read() still carries that fallback:
 *
 *	if (!rwli_calibrated)
 *		rwli_calibrate();
 *
 * but rwli_init() now calibrates before misc_register() makes the device
 * live, and nothing ever clears rwli_calibrated again. So the fallback is
 * dead code: once any file operation can run, the calibration globals are
 * only read (by read() and the RWLI_IOC_GET_CAL ioctl), never written.
 *
 * The lockset phase gives the shared flag an arbitrary value, so it takes
 * the fallback in both threads and reports read() racing with read() on
 * the gain, the offset and the flag itself, and read() racing with the
 * ioctl on the gain and the offset. Those alarms are false; the precise
 * phase, which runs rwli_init() before the pair, must not find them.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioctl.h>
#include <linux/uaccess.h>

#define RWLI_PORT	0x2a0
#define RWLI_RAW_LO	(RWLI_PORT + 0)
#define RWLI_RAW_HI	(RWLI_PORT + 1)
#define RWLI_CAL_GAIN	(RWLI_PORT + 2)	/* EEPROM byte: gain, milli-degC per count */
#define RWLI_CAL_OFS	(RWLI_PORT + 3)	/* EEPROM byte: offset, in 0.5 degC */

struct rwli_cal {
	__u32 gain;
	__s32 offset;
};

#define RWLI_IOC_GET_CAL	_IOR('t', 0, struct rwli_cal)

static u32 rwli_gain;			/* milli-degC per count */
static s32 rwli_offset;			/* milli-degC */
static bool rwli_calibrated;		/* set once, by rwli_init() */

static void rwli_calibrate(void)
{
	rwli_gain = inb(RWLI_CAL_GAIN) + 1;
	rwli_offset = (s8)inb(RWLI_CAL_OFS) * 500;
	rwli_calibrated = true;
}

// @expect entry-point rwli_read callback file_operations.read
static ssize_t rwli_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	s32 mdeg;
	u16 raw;

	if (count < sizeof(mdeg))
		return -EINVAL;
	if (!rwli_calibrated)		/* never true: see rwli_init() */
		rwli_calibrate();
	raw = inb(RWLI_RAW_LO) | inb(RWLI_RAW_HI) << 8;
	mdeg = raw * rwli_gain + rwli_offset;
	return copy_to_user(buf, &mdeg, sizeof(mdeg)) ? -EFAULT : sizeof(mdeg);
}

// @expect entry-point rwli_ioctl callback file_operations.unlocked_ioctl
static long rwli_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwli_cal cal;

	if (cmd != RWLI_IOC_GET_CAL)
		return -ENOTTY;
	cal.gain = rwli_gain;
	cal.offset = rwli_offset;
	return copy_to_user((void __user *)arg, &cal, sizeof(cal)) ? -EFAULT : 0;
}

// false alarms: the calibration is written only on a path that cannot run
// once the device is registered.
// @expect race rwli_read rwli_read "global rwli_gain"
// @expect race rwli_read rwli_read "global rwli_offset"
// @expect race rwli_read rwli_read "global rwli_calibrated"
// @expect race rwli_read rwli_ioctl "global rwli_gain"
// @expect race rwli_read rwli_ioctl "global rwli_offset"
// @expect not-found rwli_read rwli_read "global rwli_gain"
// @expect not-found rwli_read rwli_read "global rwli_offset"
// @expect not-found rwli_read rwli_read "global rwli_calibrated"
// @expect not-found rwli_read rwli_ioctl "global rwli_gain"
// @expect not-found rwli_read rwli_ioctl "global rwli_offset"
// @expect proven rwli_ioctl rwli_ioctl

static const struct file_operations rwli_fops = {
	.owner		= THIS_MODULE,
	.read		= rwli_read,
	.unlocked_ioctl	= rwli_ioctl,
};

static struct miscdevice rwli_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwtemp",
	.fops	= &rwli_fops,
};

// @expect init rwli_init
// @expect entry-point rwli_init module-init module_init
static int __init rwli_init(void)
{
	rwli_calibrate();		/* before the device goes live */
	return misc_register(&rwli_misc);
}

// @expect entry-point rwli_exit module-exit module_exit
static void __exit rwli_exit(void)
{
	misc_deregister(&rwli_misc);
}

module_init(rwli_init);
module_exit(rwli_exit);

MODULE_DESCRIPTION("racewatch precise corpus: calibrated before registration, a lockset false alarm");
MODULE_LICENSE("GPL");
