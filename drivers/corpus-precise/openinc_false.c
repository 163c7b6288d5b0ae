// SPDX-License-Identifier: GPL-2.0
/*
 * openinc_false.c - trace port of an ISA logic analyser card, /dev/rwtrace.
 *
 * False-alarm test (case: single open counted with atomic_inc_return).
 * The card has one trace FIFO, so one reader at a time: open() counts
 * itself in rwit_users and backs out if it is not alone,
 *
 *	if (atomic_inc_return(&rwit_users) != 1) {
 *		atomic_dec(&rwit_users);
 *		return -EBUSY;
 *	}
 *
 * and release() decrements the count again. Only the opener that took
 * the count from 0 to 1 goes on: it starts a new trace session, numbering
 * it in rwit_session and remembering the card's overrun counter in
 * rwit_overruns_base (both printed when the module is unloaded). A loser
 * touches neither and undoes its increment, so while an owner holds the
 * count no other open() can take it from 0 to 1, and the next owner can
 * only do so after the previous owner's release(). read() only drains
 * the FIFO. The two globals are never used by two threads at once.
 *
 * The lockset phase gives atomic_inc_return an arbitrary result, so both
 * open() calls may "win", and it reports open() racing with open() on
 * both globals. That alarm is false; the precise phase, which runs
 * atomic_inc_return and atomic_dec with their real values, must not
 * find it.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/ioport.h>
#include <linux/atomic.h>
#include <linux/io.h>
#include <linux/uaccess.h>

#define RWIT_PORT	0x280
#define RWIT_CTRL	(RWIT_PORT + 0)
#define  RWIT_CTRL_ARM	0x01
#define RWIT_FIFO	(RWIT_PORT + 4)		/* 32-bit trace words */
#define RWIT_OVERRUNS	(RWIT_PORT + 8)		/* 32-bit, free-running */
#define RWIT_SESSION	(RWIT_PORT + 12)	/* tag stamped into the trace */

static int rwit_major;
static atomic_t rwit_users;		/* open files: 0 or 1 */
static u32 rwit_session;		/* owner only: sessions started */
static u32 rwit_overruns_base;		/* owner only: overruns at its open */

// @expect entry-point rwit_open callback file_operations.open
static int rwit_open(struct inode *inode, struct file *file)
{
	if (atomic_inc_return(&rwit_users) != 1) {
		atomic_dec(&rwit_users);
		return -EBUSY;
	}
	/* The only open file: start a new trace session. */
	rwit_session++;
	outl(rwit_session, RWIT_SESSION);
	rwit_overruns_base = inl(RWIT_OVERRUNS);
	outb(RWIT_CTRL_ARM, RWIT_CTRL);
	return 0;
}

// @expect entry-point rwit_release callback file_operations.release
static int rwit_release(struct inode *inode, struct file *file)
{
	outb(0, RWIT_CTRL);
	atomic_dec(&rwit_users);
	return 0;
}

// @expect entry-point rwit_read callback file_operations.read
static ssize_t rwit_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	u32 word;

	if (count < sizeof(word))
		return -EINVAL;
	word = inl(RWIT_FIFO);
	return put_user(word, (u32 __user *)buf) ? -EFAULT : sizeof(word);
}

// false alarm: only the open() that took rwit_users from 0 to 1 touches the
// two globals.
// @expect race rwit_open rwit_open "global rwit_session"
// @expect race rwit_open rwit_open "global rwit_overruns_base"
// @expect not-found rwit_open rwit_open "global rwit_session"
// @expect not-found rwit_open rwit_open "global rwit_overruns_base"

static const struct file_operations rwit_fops = {
	.owner		= THIS_MODULE,
	.open		= rwit_open,
	.release	= rwit_release,
	.read		= rwit_read,
};

// @expect init rwit_init
// @expect entry-point rwit_init module-init module_init
static int __init rwit_init(void)
{
	if (!request_region(RWIT_PORT, 16, "rwtrace"))
		return -EBUSY;
	atomic_set(&rwit_users, 0);
	rwit_session = 0;
	rwit_major = register_chrdev(0, "rwtrace", &rwit_fops);
	if (rwit_major < 0) {
		release_region(RWIT_PORT, 16);
		return rwit_major;
	}
	return 0;
}

// @expect entry-point rwit_exit module-exit module_exit
static void __exit rwit_exit(void)
{
	unregister_chrdev(rwit_major, "rwtrace");
	release_region(RWIT_PORT, 16);
	pr_info("rwtrace: %u sessions, last from overrun count %u\n",
		rwit_session, rwit_overruns_base);
}

module_init(rwit_init);
module_exit(rwit_exit);

MODULE_DESCRIPTION("racewatch precise corpus: single open by atomic_inc_return, a lockset false alarm");
MODULE_LICENSE("GPL");
