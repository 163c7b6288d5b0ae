// SPDX-License-Identifier: GPL-2.0
/*
 * initcallee_fixed.c - a sample counter: /dev/initcallee reads the
 * sampling mode that module init sets up.
 *
 * Fixed twin of initcallee_race.c (case: init's state written in a helper
 * between two registrations). Module init calls icl_setup, which writes
 * the mode, queues the calibration work (from then on the work item, and
 * only it, is live), adjusts the mode, and registers the misc device whose
 * read reads the mode last. Every write of the mode comes before the
 * registration that makes the read live, though after one that makes
 * another callback live: proving the pair needs icl_setup's summary to say
 * what may be live where it writes the mode (the calibration work at most),
 * not only what it makes live somewhere (the work and the read).
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

static int icl_mode;		/* read by icl_read */
static u32 icl_calib;		/* the calibration work's only */
static struct work_struct icl_work;

// @expect entry-point icl_calibrate work work_struct.func
static void icl_calibrate(struct work_struct *work)
{
	icl_calib = 42;
}

// @expect entry-point icl_read callback file_operations.read
static ssize_t icl_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	int mode = icl_mode;

	if (count < sizeof(mode))
		return -EINVAL;
	if (copy_to_user(buf, &mode, sizeof(mode)))
		return -EFAULT;
	return sizeof(mode);
}

static const struct file_operations icl_fops = {
	.owner	= THIS_MODULE,
	.read	= icl_read,
};

static struct miscdevice icl_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "initcallee",
	.fops	= &icl_fops,
};

static int icl_setup(int mode)
{
	icl_mode = mode;
	INIT_WORK(&icl_work, icl_calibrate);
	schedule_work(&icl_work);	/* the calibration work is live from here on */
	icl_mode = mode | 0x10;		/* the work never touches the mode */
	return misc_register(&icl_misc);	/* the read from here on */
}

// @expect proven icl_read icl_init
// @expect proven icl_calibrate icl_init
// @expect proven icl_read icl_calibrate

// @expect init icl_init
// @expect entry-point icl_init module-init module_init
static int __init icl_init(void)
{
	return icl_setup(2);
}

// @expect entry-point icl_exit module-exit module_exit
static void __exit icl_exit(void)
{
	misc_deregister(&icl_misc);
	cancel_work_sync(&icl_work);
}

module_init(icl_init);
module_exit(icl_exit);

MODULE_DESCRIPTION("racewatch race corpus: init's state written in a helper between two registrations");
MODULE_LICENSE("GPL");
