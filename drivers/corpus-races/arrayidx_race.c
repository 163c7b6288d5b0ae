// SPDX-License-Identifier: GPL-2.0
/*
 * arrayidx_race.c - register file of a soft peripheral, /dev/rwregfile.
 *
 * Race test (case: an array indexed by a parameter). The peripheral's 64
 * 16-bit registers live in the global array rwai_regs[]. write() loads one
 * register from an {index, value} record, the RWAI_IOC_SET ioctl does the
 * same from its argument and RWAI_IOC_GET reads one back; the index comes
 * from user space in every case, so two accesses may hit the same element
 * (the lockset analysis watches an arbitrary offset of the array). Nothing
 * is locked: every pair with a writer races on the array. The fixed twin,
 * arrayidx_fixed.c, guards the array with a spinlock.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWAI_NREGS	64
#define RWAI_IOC_SET	_IOW('x', 0, struct rwai_rec)
#define RWAI_IOC_GET	_IOWR('x', 1, struct rwai_rec)

struct rwai_rec {
	__u16 index;
	__u16 value;
};

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
	rwai_regs[rec.index] = rec.value;		/* @racy: unprotected */
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
	if (cmd == RWAI_IOC_SET) {
		rwai_regs[rec.index] = rec.value;	/* @racy: unprotected */
		return 0;
	}
	rec.value = rwai_regs[rec.index];		/* @racy: unprotected */
	return copy_to_user(argp, &rec, sizeof(rec)) ? -EFAULT : 0;
}

// @expect race rwai_write rwai_write "global rwai_regs"
// @expect confirmed rwai_write rwai_write "global rwai_regs"
// @expect race rwai_write rwai_ioctl "global rwai_regs"
// @expect confirmed rwai_write rwai_ioctl "global rwai_regs"
// @expect race rwai_ioctl rwai_ioctl "global rwai_regs"
// @expect confirmed rwai_ioctl rwai_ioctl "global rwai_regs"

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

MODULE_DESCRIPTION("racewatch race corpus: array indexed from user space, no lock");
MODULE_LICENSE("GPL");
