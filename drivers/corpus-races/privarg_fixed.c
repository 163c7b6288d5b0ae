// SPDX-License-Identifier: GPL-2.0
/*
 * privarg_fixed.c - a position register exposed as /dev/privpos.
 *
 * Fixed twin of privarg_race.c (case: a per-call argument). read()
 * updates *ppos without a lock: ppos points to the VFS's per-call copy of
 * the file position (ksys_read keeps it on its own stack, fs/read_write.c)
 * and read() does not publish it, so no other call can reach it (the
 * file_operations.read model's private-arg). ioctl() keeps its request in
 * a global under the mutex. Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(pp_lock);		/* guards reset_to */
static loff_t reset_to;

// @expect entry-point pp_read callback file_operations.read
static ssize_t pp_read(struct file *file, char __user *buf, size_t count,
		       loff_t *ppos)
{
	*ppos += count;
	return 0;
}

// @expect entry-point pp_ioctl callback file_operations.unlocked_ioctl
static long pp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	mutex_lock(&pp_lock);
	reset_to = arg;
	mutex_unlock(&pp_lock);
	return 0;
}

// @expect proven pp_read pp_read
// @expect proven pp_read pp_ioctl
// @expect proven pp_ioctl pp_ioctl

static const struct file_operations pp_fops = {
	.owner		= THIS_MODULE,
	.read		= pp_read,
	.unlocked_ioctl	= pp_ioctl,
};

static struct miscdevice pp_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "privpos",
	.fops	= &pp_fops,
};

// @expect init pp_misc_init
// @expect entry-point pp_misc_init module-init module_init
// @expect entry-point pp_misc_exit module-exit module_exit
module_misc_device(pp_misc);

MODULE_DESCRIPTION("racewatch race corpus: a per-call argument kept private");
MODULE_LICENSE("GPL");
