// SPDX-License-Identifier: GPL-2.0
/*
 * rwsem_race.c - sampling configuration of a data logger, /dev/rwlogger.
 *
 * Race test (case: rw_semaphore). The configuration (mode and rate) is
 * read under down_read() by read() and changed under down_write() by the
 * RWRS_IOC_SET ioctl: readers share, the writer excludes them, so the
 * configuration is proven. But read() also counts the reads, a write made
 * under its shared hold: two read() calls hold the semaphore at the same
 * time and race on the counter, and read() races with RWRS_IOC_READS,
 * which reads it under down_read(). The fixed twin, rwsem_fixed.c, makes
 * the counter an atomic_t.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/rwsem.h>
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
	unsigned long reads;
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
	rwrs.reads++;			/* @racy: BUG: a write under a shared hold */
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
		down_read(&rwrs.cfg_sem);
		n = rwrs.reads;	/* @racy */
		up_read(&rwrs.cfg_sem);
		return n;
	default:
		return -ENOTTY;
	}
}

// @expect race rwrs_read rwrs_read "struct rwrs_dev.reads"
// @expect confirmed rwrs_read rwrs_read "struct rwrs_dev.reads"
// @expect race rwrs_read rwrs_ioctl "struct rwrs_dev.reads"
// @expect confirmed rwrs_read rwrs_ioctl "struct rwrs_dev.reads"
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

MODULE_DESCRIPTION("racewatch race corpus: write under a shared rw_semaphore hold");
MODULE_LICENSE("GPL");
