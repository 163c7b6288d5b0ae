// SPDX-License-Identifier: GPL-2.0
/*
 * helperlock_race.c - write-throughput statistics of a sink device, /dev/rwsink.
 *
 * Race test (case: lock taken in a helper function). The driver wraps its
 * mutex in rwhl_lock()/rwhl_unlock() helpers, and its statistics helpers
 * follow the kernel convention that a __-prefixed function expects the
 * caller to hold the lock. write() accounts under the helpers' lock and the
 * RWHL_IOC_GET ioctl reads under it, but RWHL_IOC_RESET calls
 * __rwhl_reset_stats() without taking the lock: it races with write() and
 * with other ioctls on both counters. The fixed twin, helperlock_fixed.c,
 * calls a locking wrapper instead.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#define RWHL_IOC_RESET	_IO('h', 0)
#define RWHL_IOC_GET	_IOR('h', 1, struct rwhl_stats)

struct rwhl_stats {
	__u64 bytes;
	__u32 writes;
};

struct rwhl_dev {
	struct mutex lock;	/* guards bytes and writes */
	u64 bytes;
	u32 writes;
};

static struct rwhl_dev rwhl = {
	.lock = __MUTEX_INITIALIZER(rwhl.lock),
};

static void rwhl_lock(struct rwhl_dev *dev)
{
	mutex_lock(&dev->lock);
}

static void rwhl_unlock(struct rwhl_dev *dev)
{
	mutex_unlock(&dev->lock);
}

/* Caller holds dev->lock. */
static void __rwhl_account(struct rwhl_dev *dev, size_t n)
{
	dev->bytes += n;	/* @racy */
	dev->writes++;	/* @racy */
}

/* Caller holds dev->lock. */
static void __rwhl_reset_stats(struct rwhl_dev *dev)
{
	dev->bytes = 0;	/* @racy */
	dev->writes = 0;	/* @racy */
}

// @expect entry-point rwhl_write callback file_operations.write
static ssize_t rwhl_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	rwhl_lock(&rwhl);
	__rwhl_account(&rwhl, count);
	rwhl_unlock(&rwhl);
	return count;
}

// @expect entry-point rwhl_ioctl callback file_operations.unlocked_ioctl
static long rwhl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwhl_stats st;

	switch (cmd) {
	case RWHL_IOC_RESET:
		__rwhl_reset_stats(&rwhl);	/* BUG: lock not held */
		return 0;
	case RWHL_IOC_GET:
		rwhl_lock(&rwhl);
		st.bytes = rwhl.bytes;	/* @racy */
		st.writes = rwhl.writes;	/* @racy */
		rwhl_unlock(&rwhl);
		if (copy_to_user((void __user *)arg, &st, sizeof(st)))
			return -EFAULT;
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect proven rwhl_write rwhl_write
// @expect race rwhl_write rwhl_ioctl "struct rwhl_dev.bytes"
// @expect confirmed rwhl_write rwhl_ioctl "struct rwhl_dev.bytes"
// @expect race rwhl_write rwhl_ioctl "struct rwhl_dev.writes"
// @expect confirmed rwhl_write rwhl_ioctl "struct rwhl_dev.writes"
// @expect race rwhl_ioctl rwhl_ioctl "struct rwhl_dev.bytes"
// @expect confirmed rwhl_ioctl rwhl_ioctl "struct rwhl_dev.bytes"
// @expect race rwhl_ioctl rwhl_ioctl "struct rwhl_dev.writes"
// @expect confirmed rwhl_ioctl rwhl_ioctl "struct rwhl_dev.writes"

static const struct file_operations rwhl_fops = {
	.owner		= THIS_MODULE,
	.write		= rwhl_write,
	.unlocked_ioctl	= rwhl_ioctl,
};

static struct miscdevice rwhl_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwsink",
	.fops	= &rwhl_fops,
};

// @expect init rwhl_misc_init
// @expect entry-point rwhl_misc_init module-init module_init
// @expect entry-point rwhl_misc_exit module-exit module_exit
module_misc_device(rwhl_misc);

MODULE_DESCRIPTION("racewatch race corpus: __ helper called without the lock");
MODULE_LICENSE("GPL");
