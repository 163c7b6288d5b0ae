// SPDX-License-Identifier: GPL-2.0
/*
 * arrayidx_fixed.c - register file of a soft peripheral, /dev/rwregfile.
 *
 * Fixed twin of arrayidx_race.c (case: an array indexed by a parameter).
 * write(), RWAI_IOC_SET and RWAI_IOC_GET access rwai_regs[index], with the
 * index from user space, always with the global spinlock rwai_lock held,
 * so whichever element the analysis watches, both accesses of any pair
 * hold the lock. Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#define RWAI_NREGS	64
#define RWAI_IOC_SET	_IOW('x', 0, struct rwai_rec)
#define RWAI_IOC_GET	_IOWR('x', 1, struct rwai_rec)

struct rwai_rec {
	__u16 index;
	__u16 value;
};

static DEFINE_SPINLOCK(rwai_lock);	/* guards rwai_regs[] */
static u16 rwai_regs[RWAI_NREGS];

// @expect entry-point rwai_write callback file_operations.write
static ssize_t rwai_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct rwai_rec rec;

	if (count != sizeof(rec) || copy_from_user(&rec, buf, sizeof(rec)))
		return -EINVAL;
	if (rec.index >= RWAI_NREGS)
		return -EINVAL;
	spin_lock(&rwai_lock);
	rwai_regs[rec.index] = rec.value;
	spin_unlock(&rwai_lock);
	return count;
}

// @expect entry-point rwai_ioctl callback file_operations.unlocked_ioctl
static long rwai_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;
	struct rwai_rec rec;

	if (cmd != RWAI_IOC_SET && cmd != RWAI_IOC_GET)
		return -ENOTTY;
	if (copy_from_user(&rec, argp, sizeof(rec)))
		return -EFAULT;
	if (rec.index >= RWAI_NREGS)
		return -EINVAL;
	spin_lock(&rwai_lock);
	if (cmd == RWAI_IOC_SET)
		rwai_regs[rec.index] = rec.value;
	else
		rec.value = rwai_regs[rec.index];
	spin_unlock(&rwai_lock);
	if (cmd == RWAI_IOC_SET)
		return 0;
	return copy_to_user(argp, &rec, sizeof(rec)) ? -EFAULT : 0;
}

// @expect proven rwai_write rwai_write
// @expect proven rwai_write rwai_ioctl
// @expect proven rwai_ioctl rwai_ioctl

static const struct file_operations rwai_fops = {
	.owner		= THIS_MODULE,
	.write		= rwai_write,
	.unlocked_ioctl	= rwai_ioctl,
};

static struct miscdevice rwai_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwregfile",
	.fops	= &rwai_fops,
};

// @expect init rwai_misc_init
// @expect entry-point rwai_misc_init module-init module_init
// @expect entry-point rwai_misc_exit module-exit module_exit
module_misc_device(rwai_misc);

MODULE_DESCRIPTION("racewatch race corpus: array indexed from user space, under a spinlock");
MODULE_LICENSE("GPL");
