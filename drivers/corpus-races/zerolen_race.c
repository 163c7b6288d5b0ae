// SPDX-License-Identifier: GPL-2.0
/*
 * zerolen_race.c - a command port, /dev/rwzero.
 *
 * Race test (case: a race after a call that copies nothing). zl_xfer()
 * stages a command and its payload in zl_out under zl_lock and sends it;
 * write() sends a ping, which has no payload (a NULL buffer of length 0),
 * and then counts it in zl_pings without the lock, while the RWZL_IOC_RESET
 * ioctl clears the counter under zl_lock: write() races with the ioctl
 * and with another write(). The memcpy of an empty payload touches no
 * memory; a model access over an empty byte range must not end the path,
 * or the count after it would never be checked (docs/soundness.md). The
 * fixed twin (zerolen_fixed.c) counts under zl_lock.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioctl.h>
#include <linux/string.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#define RWZL_PORT		0x2f0
#define RWZL_CMD_PING		1
#define RWZL_CMD_SET		2
#define RWZL_IOC_RESET		_IO('z', 0)
#define RWZL_IOC_SET		_IOW('z', 1, u32)

static DEFINE_SPINLOCK(zl_lock);
static u8 zl_out[8];		/* command byte, then the payload */
static unsigned long zl_pings;	/* pings sent since the last reset */

static void zl_xfer(u8 cmd, const void *payload, size_t len)
{
	size_t i;

	spin_lock(&zl_lock);
	zl_out[0] = cmd;
	memcpy(zl_out + 1, payload, len);
	for (i = 0; i <= len; i++)
		outb(zl_out[i], RWZL_PORT);
	spin_unlock(&zl_lock);
}

// @expect entry-point zl_write callback file_operations.write
static ssize_t zl_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos)
{
	zl_xfer(RWZL_CMD_PING, NULL, 0);
	zl_pings++;		/* @racy: unlocked count */
	return count;
}

// @expect entry-point zl_ioctl callback file_operations.unlocked_ioctl
static long zl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	u32 val;

	switch (cmd) {
	case RWZL_IOC_RESET:
		spin_lock(&zl_lock);
		zl_pings = 0;	/* @racy: reset under the lock */
		spin_unlock(&zl_lock);
		return 0;
	case RWZL_IOC_SET:
		if (copy_from_user(&val, (void __user *)arg, sizeof(val)))
			return -EFAULT;
		zl_xfer(RWZL_CMD_SET, &val, sizeof(val));
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect race zl_write zl_write "global zl_pings"
// @expect confirmed zl_write zl_write "global zl_pings"
// @expect race zl_write zl_ioctl "global zl_pings"
// @expect confirmed zl_write zl_ioctl "global zl_pings"
// @expect proven zl_ioctl zl_ioctl

static const struct file_operations zl_fops = {
	.owner		= THIS_MODULE,
	.write		= zl_write,
	.unlocked_ioctl	= zl_ioctl,
};

static struct miscdevice zl_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwzero",
	.fops	= &zl_fops,
};

// @expect init zl_init
// @expect entry-point zl_init module-init module_init
static int __init zl_init(void)
{
	return misc_register(&zl_misc);
}

// @expect entry-point zl_exit module-exit module_exit
static void __exit zl_exit(void)
{
	misc_deregister(&zl_misc);
}

module_init(zl_init);
module_exit(zl_exit);

MODULE_DESCRIPTION("racewatch race corpus: a race after a call that copies nothing");
MODULE_LICENSE("GPL");
