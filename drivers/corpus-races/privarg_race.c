// SPDX-License-Identifier: GPL-2.0
/*
 * privarg_race.c - a position register exposed as /dev/privpos.
 *
 * Race test (case: a per-call argument published to a global). read()
 * gets ppos, the VFS's per-call copy of the file position (ksys_read,
 * fs/read_write.c), which no other call can reach, but it saves the
 * pointer in the global saved_pos, so ioctl() can write through it while
 * read() updates *ppos: the object is no longer private to the call. The
 * fixed twin (privarg_fixed.c) does not publish ppos; its unlocked update
 * of *ppos is then private to each read() and proven.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(pp_lock);		/* guards saved_pos */
static loff_t *saved_pos;

// @expect entry-point pp_read callback file_operations.read
static ssize_t pp_read(struct file *file, char __user *buf, size_t count,
		       loff_t *ppos)
{
	mutex_lock(&pp_lock);
	saved_pos = ppos;
	*ppos += count;			/* @racy: ioctl writes it without the mutex */
	mutex_unlock(&pp_lock);
	return 0;
}

// @expect entry-point pp_ioctl callback file_operations.unlocked_ioctl
static long pp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	loff_t *p;

	mutex_lock(&pp_lock);
	p = saved_pos;
	mutex_unlock(&pp_lock);
	if (p)
		*p = arg;		/* @racy: unprotected write through the published pointer */
	return 0;
}

// @expect race pp_read pp_ioctl "long long (pointee)"
// @expect confirmed pp_read pp_ioctl "long long (pointee)"
// @expect race pp_ioctl pp_ioctl "long long (pointee)"
// @expect confirmed pp_ioctl pp_ioctl "long long (pointee)"
// @expect proven pp_read pp_read

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

MODULE_DESCRIPTION("racewatch race corpus: a per-call argument published to a global");
MODULE_LICENSE("GPL");
