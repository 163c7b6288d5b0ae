// SPDX-License-Identifier: GPL-2.0
/*
 * marked_race.c - a rate limiter exposed as /dev/rwlimit.
 *
 * Race test (case: a plain read against a marked write). write() accepts
 * at most rwmk_limit bytes and reads the limit with a plain load; the
 * RWMK_IOC_SET ioctl stores a new limit with WRITE_ONCE. Under the kernel's
 * definition of a data race (tools/memory-model, KCSAN) two conflicting
 * accesses race when at least one of them is plain: the plain load races
 * with the marked store (the compiler may tear or re-load it), while two
 * ioctls' marked stores do not race. The fixed twin (marked_fixed.c) reads
 * with READ_ONCE, so every access is marked and none is a data race.
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
	unsigned long limit = rwmk_limit;	/* @racy: plain read */

	return count > limit ? limit : count;
}

// @expect entry-point rwmk_ioctl callback file_operations.unlocked_ioctl
static long rwmk_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != RWMK_IOC_SET)
		return -ENOTTY;
	if (!arg)
		return -EINVAL;
	WRITE_ONCE(rwmk_limit, arg);	/* @racy: marked write */
	return 0;
}

// @expect race rwmk_write rwmk_ioctl "global rwmk_limit"
// @expect confirmed rwmk_write rwmk_ioctl "global rwmk_limit"
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

MODULE_DESCRIPTION("racewatch race corpus: a plain read against a marked write");
MODULE_LICENSE("GPL");
