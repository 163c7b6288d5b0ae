// SPDX-License-Identifier: GPL-2.0
/*
 * helperlock_fixed.c - write-throughput statistics of a sink device, /dev/rwsink.
 *
 * Fixed twin of helperlock_race.c (case: lock taken in a helper function).
 * Every lock operation happens inside a helper: rwhl_lock()/rwhl_unlock()
 * wrap the mutex, and RWHL_IOC_RESET now calls rwhl_reset_stats(), which
 * takes the lock itself around the __-prefixed worker. The analysis must
 * carry the held lock across the helpers' returns (procedure summaries).
 * Expected: every pair proven race-free.
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
	dev->bytes += n;
	dev->writes++;
}

/* Caller holds dev->lock. */
static void __rwhl_reset_stats(struct rwhl_dev *dev)
{
	dev->bytes = 0;
	dev->writes = 0;
}

static void rwhl_reset_stats(struct rwhl_dev *dev)
{
	rwhl_lock(dev);
	__rwhl_reset_stats(dev);
	rwhl_unlock(dev);
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
		rwhl_reset_stats(&rwhl);
		return 0;
	case RWHL_IOC_GET:
		rwhl_lock(&rwhl);
		st.bytes = rwhl.bytes;
		st.writes = rwhl.writes;
		rwhl_unlock(&rwhl);
		if (copy_to_user((void __user *)arg, &st, sizeof(st)))
			return -EFAULT;
		return 0;
	default:
		return -ENOTTY;
	}
}

// @expect proven rwhl_write rwhl_write
// @expect proven rwhl_write rwhl_ioctl
// @expect proven rwhl_ioctl rwhl_ioctl

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

MODULE_DESCRIPTION("racewatch race corpus: locks taken in helper functions");
MODULE_LICENSE("GPL");
