// SPDX-License-Identifier: GPL-2.0
/*
 * rwupdate_fixed.c - a table of trigger levels that user space appends to
 * and reads back.
 *
 * Fixed twin of rwupdate_race.c (case: a lock with a shared mode protects
 * a write held exclusively against any other holder, issue 14). The ADD
 * ioctl first looks at the fill level under the read side of rwup_sem
 * (a cheap check that fails fast on a full table), then appends holding
 * the write side; read() copies the table out under the read side. The
 * ioctl thus holds the semaphore shared at one access and exclusively at
 * another, so it is not exclusive at all its accesses; but every write is
 * made holding it exclusively, which excludes every other holder, shared
 * or not (kernel/locking/rwsem.c: down_write waits until no reader and no
 * writer holds the semaphore). The ioctl makes its accesses in helpers,
 * where the check of one selected access per entry point loses them
 * across the call. Expected: proven.
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
	return rwup_count >= RWUP_SLOTS;
}

static void rwup_append(int level)
{
	if (rwup_count < RWUP_SLOTS)
		rwup_table[rwup_count++] = level;
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
	down_write(&rwup_sem);
	rwup_append(arg);
	up_write(&rwup_sem);
	return 0;
}

// @expect entry-point rwup_read callback file_operations.read
static ssize_t rwup_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	int levels[RWUP_SLOTS];
	size_t n;

	down_read(&rwup_sem);
	n = rwup_count * sizeof(int);
	memcpy(levels, rwup_table, sizeof(levels));
	up_read(&rwup_sem);
	if (count < n)
		n = count;
	if (copy_to_user(buf, levels, n))
		return -EFAULT;
	return n;
}

// @expect proven rwup_ioctl rwup_ioctl
// @expect proven rwup_read rwup_ioctl

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

MODULE_DESCRIPTION("racewatch race corpus: exclusive writes under a reader-writer semaphore, fixed");
MODULE_LICENSE("GPL");
