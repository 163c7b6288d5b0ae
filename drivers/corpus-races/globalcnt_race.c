// SPDX-License-Identifier: GPL-2.0
/*
 * globalcnt_race.c - software event injector, /dev/rwevents.
 *
 * Race test (case: a global counter written by two callbacks). Each write()
 * injects one event per byte and adds them to the global counter
 * rwgc_events; the RWGC_IOC_RESET ioctl clears it and RWGC_IOC_GET returns
 * it. No lock: the counter races between two writers, between a writer and
 * the ioctl, and between two ioctls (a reset against a reset or a get).
 * The fixed twin (globalcnt_fixed.c) takes a global spinlock.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/uaccess.h>

#define RWGC_IOC_RESET	_IO('g', 0)
#define RWGC_IOC_GET	_IOR('g', 1, __u64)

static u64 rwgc_events;		/* events injected since the last reset */

// @expect entry-point rwgc_write callback file_operations.write
static ssize_t rwgc_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	if (!count)
		return 0;
	rwgc_events += count;		/* @racy: unprotected read-modify-write */
	return count;
}

// @expect entry-point rwgc_ioctl callback file_operations.unlocked_ioctl
static long rwgc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	u64 val;

	switch (cmd) {
	case RWGC_IOC_RESET:
		rwgc_events = 0;	/* @racy: unprotected write */
		return 0;
	case RWGC_IOC_GET:
		val = rwgc_events;	/* @racy: unprotected read */
		if (copy_to_user((void __user *)arg, &val, sizeof(val)))
			return -EFAULT;
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect race rwgc_write rwgc_write "global rwgc_events"
// @expect confirmed rwgc_write rwgc_write "global rwgc_events"
// @expect race rwgc_write rwgc_ioctl "global rwgc_events"
// @expect confirmed rwgc_write rwgc_ioctl "global rwgc_events"
// @expect race rwgc_ioctl rwgc_ioctl "global rwgc_events"
// @expect confirmed rwgc_ioctl rwgc_ioctl "global rwgc_events"

static const struct file_operations rwgc_fops = {
	.owner		= THIS_MODULE,
	.write		= rwgc_write,
	.unlocked_ioctl	= rwgc_ioctl,
};

static struct miscdevice rwgc_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwevents",
	.fops	= &rwgc_fops,
};

// @expect init rwgc_init
// @expect entry-point rwgc_init module-init module_init
static int __init rwgc_init(void)
{
	return misc_register(&rwgc_misc);
}

// @expect entry-point rwgc_exit module-exit module_exit
static void __exit rwgc_exit(void)
{
	misc_deregister(&rwgc_misc);
}

module_init(rwgc_init);
module_exit(rwgc_exit);

MODULE_DESCRIPTION("racewatch race corpus: global counter written by two callbacks");
MODULE_LICENSE("GPL");
