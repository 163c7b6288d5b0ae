// SPDX-License-Identifier: GPL-2.0
/*
 * semaphore_race.c - LCD character panel, /dev/rwlcd.
 *
 * Race test (case: down/up semaphore used as a mutex). An old-style driver
 * serialises its panel state with a binary semaphore (initialised to 1):
 * write() takes it with down_interruptible() and checks the result. The
 * ioctl takes it with down() or, for non-blocking files, down_trylock() -
 * with the polarity of mutex_trylock(), which is wrong: down_trylock()
 * returns 0 when it got the semaphore. So the non-blocking ioctl gives up
 * when it holds the semaphore and goes on when it does not: that path
 * races with write() and with other ioctls on the panel state. The fixed
 * twin, semaphore_fixed.c, tests down_trylock() the right way round.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/semaphore.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWSM_COLS		16
#define RWSM_IOC_CLEAR		_IO('L', 0)

struct rwsm_line {
	char text[RWSM_COLS];
};

struct rwsm_dev {
	struct semaphore sem;		/* binary: guards the panel state */
	u32 cursor;
	u32 writes;
};

static struct rwsm_dev rwsm = {
	.sem = __SEMAPHORE_INITIALIZER(rwsm.sem, 1),
};

// @expect entry-point rwsm_write callback file_operations.write
static ssize_t rwsm_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct rwsm_line line;
	size_t n = min_t(size_t, count, RWSM_COLS);

	if (copy_from_user(&line, buf, n))
		return -EFAULT;
	if (down_interruptible(&rwsm.sem))
		return -ERESTARTSYS;
	rwsm.cursor = (rwsm.cursor + n) % RWSM_COLS;	/* @racy */
	rwsm.writes++;	/* @racy */
	up(&rwsm.sem);
	return n;
}

// @expect entry-point rwsm_ioctl callback file_operations.unlocked_ioctl
static long rwsm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != RWSM_IOC_CLEAR)
		return -ENOTTY;
	if (file->f_flags & O_NONBLOCK) {
		if (!down_trylock(&rwsm.sem))	/* BUG: 0 means "acquired" */
			return -EAGAIN;
	} else {
		down(&rwsm.sem);
	}
	rwsm.cursor = 0;	/* @racy */
	rwsm.writes = 0;	/* @racy */
	up(&rwsm.sem);
	return 0;
}

// @expect proven rwsm_write rwsm_write
// @expect race rwsm_write rwsm_ioctl "struct rwsm_dev.cursor"
// @expect confirmed rwsm_write rwsm_ioctl "struct rwsm_dev.cursor"
// @expect race rwsm_write rwsm_ioctl "struct rwsm_dev.writes"
// @expect confirmed rwsm_write rwsm_ioctl "struct rwsm_dev.writes"
// @expect race rwsm_ioctl rwsm_ioctl "struct rwsm_dev.cursor"
// @expect confirmed-strict rwsm_ioctl rwsm_ioctl "struct rwsm_dev.cursor"
// ^ both ioctls write 0: a same-value race, which only --strict confirms.
// @expect race rwsm_ioctl rwsm_ioctl "struct rwsm_dev.writes"
// @expect confirmed-strict rwsm_ioctl rwsm_ioctl "struct rwsm_dev.writes"
// ^ both ioctls write 0: a same-value race, which only --strict confirms.

static const struct file_operations rwsm_fops = {
	.owner		= THIS_MODULE,
	.write		= rwsm_write,
	.unlocked_ioctl	= rwsm_ioctl,
};

static struct miscdevice rwsm_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwlcd",
	.fops	= &rwsm_fops,
};

// @expect init rwsm_misc_init
// @expect entry-point rwsm_misc_init module-init module_init
// @expect entry-point rwsm_misc_exit module-exit module_exit
module_misc_device(rwsm_misc);

MODULE_DESCRIPTION("racewatch race corpus: down_trylock with inverted polarity");
MODULE_LICENSE("GPL");
