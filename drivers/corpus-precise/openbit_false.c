// SPDX-License-Identifier: GPL-2.0
/*
 * openbit_false.c - legacy ISA watchdog card, /dev/watchdog.
 *
 * False-alarm test (case: single-open flag taken with test_and_set_bit).
 * Like many ISA watchdog drivers, open() refuses a second opener with
 *
 *	if (test_and_set_bit(0, &rwob_is_open))
 *		return -EBUSY;
 *
 * and only the opener that set the bit goes on: it counts the open and
 * reloads the hardware timeout, caching the programmed value in
 * rwob_hw_ticks so an unchanged timeout is not reprogrammed. release()
 * stops the card and clears the bit; it touches neither global, and
 * neither does write() (it reloads the card from the read-only module
 * parameter). The two globals are therefore only used by the one open()
 * that owns the bit: no two open() calls ever use them concurrently. A
 * later owner can only set the bit after the previous owner's close, and
 * the previous owner's writes were done before its open() returned.
 * (No kernel rule serialises file_operations.release: racewatch pairs
 * release() and write() with open(), and a precise check that starts
 * right after init would not know they only run on a file whose open()
 * won the bit; that is why neither touches the globals here.)
 *
 * The lockset phase gives the bit an arbitrary value at each test_and_set_bit
 * (a shared read is havoc), so both open() calls may "pass" it, and it
 * reports open() racing with open() on both globals. That alarm is false;
 * the precise phase, which runs test_and_set_bit with its real value,
 * must not find it.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/miscdevice.h>
#include <linux/watchdog.h>
#include <linux/bitops.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/uaccess.h>

#define RWOB_PORT	0x443		/* base of the card's I/O ports */
#define RWOB_CTRL	(RWOB_PORT + 0)
#define  RWOB_CTRL_STOP	0x00
#define  RWOB_CTRL_RUN	0x01
#define RWOB_LOAD	(RWOB_PORT + 1)	/* timeout, in 0.5 s ticks */
#define RWOB_KICK	(RWOB_PORT + 2)

static int timeout = 60;		/* seconds */
module_param(timeout, int, 0444);
MODULE_PARM_DESC(timeout, "Watchdog timeout in seconds (1..127)");

static unsigned long rwob_is_open;	/* bit 0: /dev/watchdog is open */
static unsigned int rwob_hw_ticks;	/* last value loaded into RWOB_LOAD */
static unsigned int rwob_opens;		/* statistics, printed at unload */

// @expect entry-point rwob_open callback file_operations.open
static int rwob_open(struct inode *inode, struct file *file)
{
	unsigned int ticks = timeout * 2;

	if (test_and_set_bit(0, &rwob_is_open))
		return -EBUSY;
	/* From here on this open() owns the card. */
	rwob_opens++;
	if (rwob_hw_ticks != ticks) {
		outb(ticks, RWOB_LOAD);
		rwob_hw_ticks = ticks;
	}
	outb(RWOB_CTRL_RUN, RWOB_CTRL);
	return 0;
}

// @expect entry-point rwob_release callback file_operations.release
static int rwob_release(struct inode *inode, struct file *file)
{
	outb(RWOB_CTRL_STOP, RWOB_CTRL);
	clear_bit(0, &rwob_is_open);
	return 0;
}

// @expect entry-point rwob_write callback file_operations.write
static ssize_t rwob_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	if (count) {
		outb(timeout * 2, RWOB_LOAD);
		outb(0, RWOB_KICK);
	}
	return count;
}

// false alarm: only the open() that set bit 0 touches the two globals.
// @expect race rwob_open rwob_open "global rwob_opens"
// @expect race rwob_open rwob_open "global rwob_hw_ticks"
// @expect not-found rwob_open rwob_open "global rwob_opens"
// @expect not-found rwob_open rwob_open "global rwob_hw_ticks"

static const struct file_operations rwob_fops = {
	.owner		= THIS_MODULE,
	.open		= rwob_open,
	.release	= rwob_release,
	.write		= rwob_write,
};

static struct miscdevice rwob_miscdev = {
	.minor	= WATCHDOG_MINOR,
	.name	= "watchdog",
	.fops	= &rwob_fops,
};

// @expect init rwob_init
// @expect entry-point rwob_init module-init module_init
static int __init rwob_init(void)
{
	if (timeout < 1 || timeout > 127)
		return -EINVAL;
	if (!request_region(RWOB_PORT, 3, "rwob_wdt"))
		return -EBUSY;
	rwob_is_open = 0;
	rwob_hw_ticks = 0;
	outb(RWOB_CTRL_STOP, RWOB_CTRL);
	return misc_register(&rwob_miscdev);
}

// @expect entry-point rwob_exit module-exit module_exit
static void __exit rwob_exit(void)
{
	misc_deregister(&rwob_miscdev);
	release_region(RWOB_PORT, 3);
	pr_info("rwob_wdt: opened %u times\n", rwob_opens);
}

module_init(rwob_init);
module_exit(rwob_exit);

MODULE_DESCRIPTION("racewatch precise corpus: single-open bit, a lockset false alarm");
MODULE_LICENSE("GPL");
