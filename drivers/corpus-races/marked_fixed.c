// SPDX-License-Identifier: GPL-2.0
/*
 * marked_fixed.c - a rate limiter exposed as /dev/rwlimit, all accesses marked.
 *
 * Fixed twin of marked_race.c (case: plain read -> READ_ONCE). write()
 * reads the limit with READ_ONCE and the ioctl stores it with WRITE_ONCE:
 * every access to rwmk_limit is marked, and two marked accesses are not a
 * data race under the kernel's definition (tools/memory-model, KCSAN).
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/ioctl.h>

#define RWMK_IOC_SET	_IO('k', 0)

static unsigned long rwmk_limit = 4096;	/* bytes accepted per write */

// @expect entry-point rwmk_write callback file_operations.write
static ssize_t rwmk_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	unsigned long limit = READ_ONCE(rwmk_limit);

	return count > limit ? limit : count;
}

// @expect entry-point rwmk_ioctl callback file_operations.unlocked_ioctl
static long rwmk_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != RWMK_IOC_SET)
		return -ENOTTY;
	if (!arg)
		return -EINVAL;
	WRITE_ONCE(rwmk_limit, arg);
	return 0;
}

// @expect proven rwmk_write rwmk_ioctl
// @expect proven rwmk_ioctl rwmk_ioctl
// @expect proven rwmk_write rwmk_write

static const struct file_operations rwmk_fops = {
	.owner		= THIS_MODULE,
	.write		= rwmk_write,
	.unlocked_ioctl	= rwmk_ioctl,
};

static struct miscdevice rwmk_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwlimit",
	.fops	= &rwmk_fops,
};

// @expect init rwmk_init
// @expect entry-point rwmk_init module-init module_init
static int __init rwmk_init(void)
{
	return misc_register(&rwmk_misc);
}

// @expect entry-point rwmk_exit module-exit module_exit
static void __exit rwmk_exit(void)
{
	misc_deregister(&rwmk_misc);
}

module_init(rwmk_init);
module_exit(rwmk_exit);

MODULE_DESCRIPTION("racewatch race corpus: every access marked");
MODULE_LICENSE("GPL");
