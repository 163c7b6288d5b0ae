// SPDX-License-Identifier: GPL-2.0
/*
 * rwupdate_race.c - a table of trigger levels that user space appends to
 * and reads back.
 *
 * Racy twin of rwupdate_fixed.c (case: a lock with a shared mode protects
 * a write only when held exclusively, issue 14). The ADD ioctl checks the
 * fill level under the read side of rwup_sem, as its fixed twin does, but
 * then appends holding the read side too: two ADDs can hold it at once
 * (kernel/locking/rwsem.c: down_read admits readers together), and so
 * can an ADD and read(). Expected: races on the count and the table
 * between two ioctls and between read() and the ioctl.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/rwsem.h>
#include <linux/uaccess.h>

#define RWUP_SLOTS	16
#define RWUP_IOC_ADD	_IOW('u', 1, int)

static DECLARE_RWSEM(rwup_sem);		/* guards the table and its count */
static int rwup_table[RWUP_SLOTS];
static int rwup_count;

static bool rwup_full(void)
{
	return rwup_count >= RWUP_SLOTS;	/* @racy */
}

static void rwup_append(int level)
{
	if (rwup_count < RWUP_SLOTS)				/* @racy */
		rwup_table[rwup_count++] = level;	/* @racy holding: rwup_sem */
}

// @expect entry-point rwup_ioctl callback file_operations.unlocked_ioctl
static long rwup_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	bool full;

	if (cmd != RWUP_IOC_ADD)
		return -ENOTTY;
	down_read(&rwup_sem);
	full = rwup_full();
	up_read(&rwup_sem);
	if (full)
		return -ENOSPC;
	down_read(&rwup_sem);
	rwup_append(arg);
	up_read(&rwup_sem);
	return 0;
}

// @expect entry-point rwup_read callback file_operations.read
static ssize_t rwup_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	int levels[RWUP_SLOTS];
	size_t n;

	down_read(&rwup_sem);
	n = rwup_count * sizeof(int);			/* @racy holding: rwup_sem */
	memcpy(levels, rwup_table, sizeof(levels));	/* @racy holding: rwup_sem */
	up_read(&rwup_sem);
	if (count < n)
		n = count;
	if (copy_to_user(buf, levels, n))
		return -EFAULT;
	return n;
}

// @expect race rwup_ioctl rwup_ioctl "global rwup_count"
// @expect confirmed rwup_ioctl rwup_ioctl "global rwup_count"
// @expect race rwup_ioctl rwup_ioctl "global rwup_table"
// @expect confirmed rwup_ioctl rwup_ioctl "global rwup_table"
// @expect race rwup_ioctl rwup_read "global rwup_count"
// @expect confirmed rwup_ioctl rwup_read "global rwup_count"
// @expect race rwup_ioctl rwup_read "global rwup_table"
// @expect confirmed rwup_ioctl rwup_read "global rwup_table"

static const struct file_operations rwup_fops = {
	.owner		= THIS_MODULE,
	.read		= rwup_read,
	.unlocked_ioctl	= rwup_ioctl,
};

static struct miscdevice rwup_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwlevels",
	.fops	= &rwup_fops,
};

// @expect init rwup_init
// @expect entry-point rwup_init module-init module_init
static int __init rwup_init(void)
{
	return misc_register(&rwup_misc);
}

// @expect entry-point rwup_exit module-exit module_exit
static void __exit rwup_exit(void)
{
	misc_deregister(&rwup_misc);
}

module_init(rwup_init);
module_exit(rwup_exit);

MODULE_DESCRIPTION("racewatch race corpus: exclusive writes under a reader-writer semaphore, racy");
MODULE_LICENSE("GPL");
