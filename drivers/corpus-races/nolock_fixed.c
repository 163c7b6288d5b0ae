// SPDX-License-Identifier: GPL-2.0
/*
 * nolock_fixed.c - a one-word mailbox exposed as /dev/rwmbox, with a mutex.
 *
 * Fixed twin of nolock_race.c (cases: no locks -> mutex). Every access to
 * the shared structure happens with rwnl.lock held; read() takes it with
 * mutex_lock_interruptible(), whose failure path returns before touching
 * anything. Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

struct rwnl_msg {
	__u32 seq;
	__u32 value;
};

struct rwnl_dev {
	struct mutex lock;	/* guards everything below */
	u32 value;
	u32 seq;
	unsigned long reads;
};

static struct rwnl_dev rwnl = {
	.lock = __MUTEX_INITIALIZER(rwnl.lock),
};

// @expect entry-point rwnl_read callback file_operations.read
static ssize_t rwnl_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwnl_msg msg;

	if (count < sizeof(msg))
		return -EINVAL;

	if (mutex_lock_interruptible(&rwnl.lock))
		return -ERESTARTSYS;
	msg.seq = rwnl.seq;
	msg.value = rwnl.value;
	rwnl.reads++;
	mutex_unlock(&rwnl.lock);

	if (copy_to_user(buf, &msg, sizeof(msg)))
		return -EFAULT;
	return sizeof(msg);
}

// @expect entry-point rwnl_write callback file_operations.write
static ssize_t rwnl_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	u32 v;

	if (count < sizeof(v))
		return -EINVAL;
	if (copy_from_user(&v, buf, sizeof(v)))
		return -EFAULT;

	mutex_lock(&rwnl.lock);
	rwnl.value = v;
	rwnl.seq++;
	mutex_unlock(&rwnl.lock);
	return sizeof(v);
}

// @expect proven rwnl_read rwnl_read
// @expect proven rwnl_read rwnl_write
// @expect proven rwnl_write rwnl_write

static const struct file_operations rwnl_fops = {
	.owner	= THIS_MODULE,
	.read	= rwnl_read,
	.write	= rwnl_write,
};

static struct miscdevice rwnl_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwmbox",
	.fops	= &rwnl_fops,
};

// @expect init rwnl_misc_init
// @expect entry-point rwnl_misc_init module-init module_init
// @expect entry-point rwnl_misc_exit module-exit module_exit
module_misc_device(rwnl_misc);

MODULE_DESCRIPTION("racewatch race corpus: no locks at all, fixed with a mutex");
MODULE_LICENSE("GPL");
