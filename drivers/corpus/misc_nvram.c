// SPDX-License-Identifier: GPL-2.0
/*
 * misc_nvram.c - battery-backed NVRAM window of an embedded controller,
 * exposed as /dev/rwnvram.
 *
 * A misc character device registered from module_init with misc_register().
 * Its file_operations carry open/read/write/llseek/unlocked_ioctl/release,
 * all defined in this file and given by a designated static initializer.
 * Every NVRAM access goes through an I/O-port index/data pair guarded by a
 * spinlock; open/release keep an open count and an exclusive-open flag in
 * the shared device state, and write/ioctl update a write counter.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#define RWNV_BASE		0x72
#define RWNV_INDEX		(RWNV_BASE)
#define RWNV_DATA		(RWNV_BASE + 1)
#define RWNV_SIZE		128

#define RWNV_IOC_MAGIC		'n'
#define RWNV_IOC_CLEAR		_IO(RWNV_IOC_MAGIC, 0)
#define RWNV_IOC_CHECKSUM	_IOR(RWNV_IOC_MAGIC, 1, int)

struct rwnv_state {
	spinlock_t lock;		/* guards the index/data port pair */
	int open_count;
	bool exclusive;
	unsigned long writes;
};

static struct rwnv_state rwnv = {
	.lock = __SPIN_LOCK_UNLOCKED(rwnv.lock),
};

static u8 rwnv_read_byte(unsigned int i)
{
	outb(i, RWNV_INDEX);
	return inb(RWNV_DATA);
}

static void rwnv_write_byte(u8 c, unsigned int i)
{
	outb(i, RWNV_INDEX);
	outb(c, RWNV_DATA);
}

// @expect entry-point rwnv_llseek callback file_operations.llseek
static loff_t rwnv_llseek(struct file *file, loff_t offset, int origin)
{
	return fixed_size_llseek(file, offset, origin, RWNV_SIZE);
}

// @expect entry-point rwnv_read callback file_operations.read
static ssize_t rwnv_read(struct file *file, char __user *buf,
			 size_t count, loff_t *ppos)
{
	u8 tmp[RWNV_SIZE];
	loff_t i;
	size_t n;

	if (*ppos >= RWNV_SIZE)
		return 0;
	n = min_t(size_t, count, RWNV_SIZE - *ppos);

	spin_lock_irq(&rwnv.lock);
	for (i = 0; i < n; i++)
		tmp[i] = rwnv_read_byte(*ppos + i);
	spin_unlock_irq(&rwnv.lock);

	if (copy_to_user(buf, tmp, n))
		return -EFAULT;
	*ppos += n;
	return n;
}

// @expect entry-point rwnv_write callback file_operations.write
static ssize_t rwnv_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	u8 tmp[RWNV_SIZE];
	loff_t i;
	size_t n;

	if (*ppos >= RWNV_SIZE)
		return -ENOSPC;
	n = min_t(size_t, count, RWNV_SIZE - *ppos);
	if (copy_from_user(tmp, buf, n))
		return -EFAULT;

	spin_lock_irq(&rwnv.lock);
	for (i = 0; i < n; i++)
		rwnv_write_byte(tmp[i], *ppos + i);
	rwnv.writes++;
	spin_unlock_irq(&rwnv.lock);

	*ppos += n;
	return n;
}

// @expect entry-point rwnv_ioctl callback file_operations.unlocked_ioctl
static long rwnv_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	int i, sum = 0;

	switch (cmd) {
	case RWNV_IOC_CLEAR:
		if (!capable(CAP_SYS_ADMIN))
			return -EACCES;
		spin_lock_irq(&rwnv.lock);
		for (i = 0; i < RWNV_SIZE; i++)
			rwnv_write_byte(0, i);
		rwnv.writes++;
		spin_unlock_irq(&rwnv.lock);
		return 0;
	case RWNV_IOC_CHECKSUM:
		spin_lock_irq(&rwnv.lock);
		for (i = 0; i < RWNV_SIZE; i++)
			sum += rwnv_read_byte(i);
		spin_unlock_irq(&rwnv.lock);
		return put_user(sum, (int __user *)arg);
	default:
		return -ENOTTY;
	}
}

// @expect entry-point rwnv_open callback file_operations.open
static int rwnv_open(struct inode *inode, struct file *file)
{
	/* Unsynchronised check-then-set, as several old drivers had it. */
	if (rwnv.exclusive)
		return -EBUSY;
	if (file->f_flags & O_EXCL) {
		if (rwnv.open_count)
			return -EBUSY;
		rwnv.exclusive = true;
	}
	rwnv.open_count++;
	return 0;
}

// @expect entry-point rwnv_release callback file_operations.release
static int rwnv_release(struct inode *inode, struct file *file)
{
	if (file->f_flags & O_EXCL)
		rwnv.exclusive = false;
	rwnv.open_count--;
	return 0;
}

static const struct file_operations rwnv_fops = {
	.owner		= THIS_MODULE,
	.llseek		= rwnv_llseek,
	.read		= rwnv_read,
	.write		= rwnv_write,
	.unlocked_ioctl	= rwnv_ioctl,
	.open		= rwnv_open,
	.release	= rwnv_release,
};

static struct miscdevice rwnv_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwnvram",
	.fops	= &rwnv_fops,
};

// @expect init rwnv_init
// @expect entry-point rwnv_init module-init module_init
static int __init rwnv_init(void)
{
	int ret;

	if (!request_region(RWNV_BASE, 2, "rwnvram"))
		return -EBUSY;
	ret = misc_register(&rwnv_misc);
	if (ret)
		release_region(RWNV_BASE, 2);
	return ret;
}

// @expect entry-point rwnv_exit module-exit module_exit
static void __exit rwnv_exit(void)
{
	misc_deregister(&rwnv_misc);
	release_region(RWNV_BASE, 2);
}

module_init(rwnv_init);
module_exit(rwnv_exit);

MODULE_DESCRIPTION("racewatch corpus: misc NVRAM device");
MODULE_LICENSE("GPL");
