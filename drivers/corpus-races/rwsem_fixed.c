// SPDX-License-Identifier: GPL-2.0
/*
 * rwsem_fixed.c - sampling configuration of a data logger, /dev/rwlogger.
 *
 * Fixed twin of rwsem_race.c (case: rw_semaphore). The configuration is
 * read under down_read() by read() and changed under down_write() by the
 * RWRS_IOC_SET ioctl; the read counter, which readers update while they
 * share the semaphore, is now an atomic_t (atomic_inc() / atomic_read()),
 * and atomic accesses never race with each other. Expected: every pair
 * proven race-free.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/rwsem.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWRS_IOC_SET	_IOW('s', 0, struct rwrs_cfg)
#define RWRS_IOC_READS	_IO('s', 1)

struct rwrs_cfg {
	__u32 mode;
	__u32 rate;
};

struct rwrs_dev {
	struct rw_semaphore cfg_sem;	/* guards mode and rate */
	u32 mode, rate;
	atomic_t reads;
};

static struct rwrs_dev rwrs = {
	.cfg_sem = __RWSEM_INITIALIZER(rwrs.cfg_sem),
	.rate = 100,
};

// @expect entry-point rwrs_read callback file_operations.read
static ssize_t rwrs_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwrs_cfg cfg;

	if (count < sizeof(cfg))
		return -EINVAL;
	down_read(&rwrs.cfg_sem);
	cfg.mode = rwrs.mode;
	cfg.rate = rwrs.rate;
	atomic_inc(&rwrs.reads);
	up_read(&rwrs.cfg_sem);
	return copy_to_user(buf, &cfg, sizeof(cfg)) ? -EFAULT : sizeof(cfg);
}

// @expect entry-point rwrs_ioctl callback file_operations.unlocked_ioctl
static long rwrs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwrs_cfg cfg;
	long n;

	switch (cmd) {
	case RWRS_IOC_SET:
		if (copy_from_user(&cfg, (void __user *)arg, sizeof(cfg)))
			return -EFAULT;
		down_write(&rwrs.cfg_sem);
		rwrs.mode = cfg.mode;
		rwrs.rate = cfg.rate;
		up_write(&rwrs.cfg_sem);
		return 0;
	case RWRS_IOC_READS:
		// @mutation-protects-nothing rwrs_ioctl &rwrs.cfg_sem: its section only
		// reads the atomic_t reads (atomic_read), and atomic accesses never race.
		down_read(&rwrs.cfg_sem);
		n = atomic_read(&rwrs.reads);
		up_read(&rwrs.cfg_sem);
		return n;
	default:
		return -ENOTTY;
	}
}

// @expect proven rwrs_read rwrs_read
// @expect proven rwrs_read rwrs_ioctl
// @expect proven rwrs_ioctl rwrs_ioctl

static const struct file_operations rwrs_fops = {
	.owner		= THIS_MODULE,
	.read		= rwrs_read,
	.unlocked_ioctl	= rwrs_ioctl,
};

static struct miscdevice rwrs_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwlogger",
	.fops	= &rwrs_fops,
};

// @expect init rwrs_misc_init
// @expect entry-point rwrs_misc_init module-init module_init
// @expect entry-point rwrs_misc_exit module-exit module_exit
module_misc_device(rwrs_misc);

MODULE_DESCRIPTION("racewatch race corpus: rw_semaphore readers and writer, atomic counter");
MODULE_LICENSE("GPL");
