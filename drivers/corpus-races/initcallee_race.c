// SPDX-License-Identifier: GPL-2.0
/*
 * initcallee_race.c - a sample counter: /dev/initcallee reads the
 * sampling mode that module init sets up.
 *
 * Race test (case: init's state written in a helper after the registration
 * of its reader). Module init calls icl_setup, which writes the mode,
 * queues the calibration work, registers the misc device and only then
 * adjusts the mode: from the moment misc_register returns 0, a read of
 * /dev/initcallee may run on another CPU and read the mode while
 * icl_setup writes it. The fixed twin, initcallee_fixed.c, adjusts the
 * mode before the registration.
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
	int mode = icl_mode;	/* @racy */

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
	int err;

	icl_mode = mode;
	INIT_WORK(&icl_work, icl_calibrate);
	schedule_work(&icl_work);	/* the calibration work is live from here on */
	err = misc_register(&icl_misc);	/* BUG: the read is live from here on */
	if (err)
		return err;
	icl_mode = mode | 0x10;		/* @racy */
	return 0;
}

// @expect race icl_read icl_init "global icl_mode"
// @expect confirmed icl_read icl_init "global icl_mode"
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

MODULE_DESCRIPTION("racewatch race corpus: init's state written in a helper after the registration of its reader");
MODULE_LICENSE("GPL");
