// SPDX-License-Identifier: GPL-2.0
/*
 * positional_init.c - two-line front-panel LCD on a legacy I/O port.
 *
 * A module_init/module_exit driver whose kernel structures are written with
 * positional (non-designated) initializers, as older drivers did: the
 * miscdevice `{ MISC_DYNAMIC_MINOR, "rwpanel", &rwpanel_fops }`, a reboot
 * notifier_block `{ rwpanel_reboot_notify }` (register_reboot_notifier) and
 * the kernel_param_ops of the "brightness" parameter
 * `{ 0, rwpanel_brightness_set, param_get_uint }`, whose get is a kernel
 * helper. For contrast the panic notifier and the file_operations use
 * designated initializers. The text buffer, cursor and brightness are shared
 * between the file operations, the notifiers and the parameter setter.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/notifier.h>
#include <linux/reboot.h>
#include <linux/panic_notifier.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#define RWPANEL_BASE		0x3a0
#define RWPANEL_CMD		(RWPANEL_BASE + 0)
#define RWPANEL_DATA		(RWPANEL_BASE + 1)
#define RWPANEL_BRIGHT		(RWPANEL_BASE + 2)
#define  RWPANEL_CMD_CLEAR	0x01
#define  RWPANEL_CMD_HOME	0x02
#define  RWPANEL_CMD_LINE2	0xc0
#define RWPANEL_COLS		16
#define RWPANEL_LINES		2

#define RWPANEL_IOC_CLEAR	_IO('p', 1)

struct rwpanel {
	spinlock_t lock;		/* guards text/cursor and the ports */
	char text[RWPANEL_LINES][RWPANEL_COLS];
	unsigned int cursor;
	bool opened;
};

static struct rwpanel rwpanel = {
	.lock = __SPIN_LOCK_UNLOCKED(rwpanel.lock),
};
static unsigned int brightness = 8;

static void rwpanel_show(const char *l1, const char *l2)
{
	int i;

	outb(RWPANEL_CMD_CLEAR, RWPANEL_CMD);
	for (i = 0; i < RWPANEL_COLS && l1[i]; i++)
		outb(l1[i], RWPANEL_DATA);
	outb(RWPANEL_CMD_LINE2, RWPANEL_CMD);
	for (i = 0; i < RWPANEL_COLS && l2[i]; i++)
		outb(l2[i], RWPANEL_DATA);
}

// @expect entry-point rwpanel_brightness_set callback kernel_param_ops.set
static int rwpanel_brightness_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (ret)
		return ret;
	if (brightness > 15)
		brightness = 15;
	outb(brightness, RWPANEL_BRIGHT);
	return 0;
}

// @expect external param_get_uint callback kernel_param_ops.get
static const struct kernel_param_ops rwpanel_brightness_ops = {
	0, rwpanel_brightness_set, param_get_uint
};
module_param_cb(brightness, &rwpanel_brightness_ops, &brightness, 0644);

// @expect entry-point rwpanel_open callback file_operations.open
static int rwpanel_open(struct inode *inode, struct file *file)
{
	if (rwpanel.opened)
		return -EBUSY;
	rwpanel.opened = true;
	return 0;
}

// @expect entry-point rwpanel_write callback file_operations.write
static ssize_t rwpanel_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	char tmp[RWPANEL_COLS * RWPANEL_LINES];
	size_t n = min(count, sizeof(tmp)), i;

	if (copy_from_user(tmp, buf, n))
		return -EFAULT;

	spin_lock(&rwpanel.lock);
	for (i = 0; i < n; i++) {
		if (tmp[i] == '\n')
			rwpanel.cursor = rwpanel.cursor < RWPANEL_COLS ?
					 RWPANEL_COLS : RWPANEL_COLS * RWPANEL_LINES;
		if (rwpanel.cursor >= RWPANEL_COLS * RWPANEL_LINES) {
			rwpanel.cursor = 0;
			outb(RWPANEL_CMD_HOME, RWPANEL_CMD);
		} else if (rwpanel.cursor == RWPANEL_COLS) {
			outb(RWPANEL_CMD_LINE2, RWPANEL_CMD);
		}
		if (tmp[i] == '\n')
			continue;
		rwpanel.text[rwpanel.cursor / RWPANEL_COLS][rwpanel.cursor % RWPANEL_COLS] = tmp[i];
		outb(tmp[i], RWPANEL_DATA);
		rwpanel.cursor++;
	}
	spin_unlock(&rwpanel.lock);
	return n;
}

// @expect entry-point rwpanel_ioctl callback file_operations.unlocked_ioctl
static long rwpanel_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != RWPANEL_IOC_CLEAR)
		return -ENOTTY;
	spin_lock(&rwpanel.lock);
	memset(rwpanel.text, ' ', sizeof(rwpanel.text));
	rwpanel.cursor = 0;
	outb(RWPANEL_CMD_CLEAR, RWPANEL_CMD);
	spin_unlock(&rwpanel.lock);
	return 0;
}

// @expect entry-point rwpanel_release callback file_operations.release
static int rwpanel_release(struct inode *inode, struct file *file)
{
	rwpanel.opened = false;
	return 0;
}

static const struct file_operations rwpanel_fops = {
	.owner		= THIS_MODULE,
	.open		= rwpanel_open,
	.write		= rwpanel_write,
	.unlocked_ioctl	= rwpanel_ioctl,
	.release	= rwpanel_release,
};

static struct miscdevice rwpanel_misc = {
	MISC_DYNAMIC_MINOR, "rwpanel", &rwpanel_fops
};

// @expect entry-point rwpanel_reboot_notify callback notifier_block.notifier_call
static int rwpanel_reboot_notify(struct notifier_block *nb, unsigned long code,
				 void *unused)
{
	spin_lock(&rwpanel.lock);
	rwpanel_show(code == SYS_POWER_OFF ? "Powering off" : "Rebooting",
		     "please wait");
	rwpanel.cursor = 0;
	spin_unlock(&rwpanel.lock);
	return NOTIFY_DONE;
}

static struct notifier_block rwpanel_reboot_nb = { rwpanel_reboot_notify };

// @expect entry-point rwpanel_panic_notify callback notifier_block.notifier_call
static int rwpanel_panic_notify(struct notifier_block *nb, unsigned long event,
				void *msg)
{
	/* Other CPUs are stopped: do not wait for the lock. */
	rwpanel_show("KERNEL PANIC", msg ? msg : "");
	return NOTIFY_DONE;
}

static struct notifier_block rwpanel_panic_nb = {
	.notifier_call	= rwpanel_panic_notify,
	.priority	= 1,
};

// @expect init rwpanel_init
// @expect entry-point rwpanel_init module-init module_init
static int __init rwpanel_init(void)
{
	int ret;

	if (!request_region(RWPANEL_BASE, 3, "rwpanel"))
		return -EBUSY;
	outb(brightness, RWPANEL_BRIGHT);
	rwpanel_show("racewatch", "ready");

	ret = misc_register(&rwpanel_misc);
	if (ret)
		goto err_region;
	ret = register_reboot_notifier(&rwpanel_reboot_nb);
	if (ret)
		goto err_misc;
	atomic_notifier_chain_register(&panic_notifier_list, &rwpanel_panic_nb);
	return 0;

err_misc:
	misc_deregister(&rwpanel_misc);
err_region:
	release_region(RWPANEL_BASE, 3);
	return ret;
}

// @expect entry-point rwpanel_exit module-exit module_exit
static void __exit rwpanel_exit(void)
{
	atomic_notifier_chain_unregister(&panic_notifier_list, &rwpanel_panic_nb);
	unregister_reboot_notifier(&rwpanel_reboot_nb);
	misc_deregister(&rwpanel_misc);
	release_region(RWPANEL_BASE, 3);
}

module_init(rwpanel_init);
module_exit(rwpanel_exit);

MODULE_DESCRIPTION("racewatch corpus: positional initializers and notifiers");
MODULE_LICENSE("GPL");
