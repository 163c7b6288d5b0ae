// SPDX-License-Identifier: GPL-2.0
/*
 * register_early.c - memory-mapped frequency counter, /dev/rwcounter.
 *
 * A platform_driver (probe/remove, module_platform_driver) whose probe makes
 * the classic ordering mistake: it calls misc_register() first and only then
 * maps the registers, initialises the spinlock and sets the default gate
 * time. From the moment misc_register() returns, user space may open the
 * device and the file_operations (open/read/unlocked_ioctl/release, plus
 * the kernel's compat_ptr_ioctl) run concurrently with the rest of probe,
 * on fields that are not yet initialised. Later stages use this file for
 * races between probe and the file operations.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/mod_devicetable.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#define RWCNT_CTRL		0x00
#define  RWCNT_CTRL_START	BIT(0)
#define RWCNT_GATE		0x04
#define RWCNT_COUNT		0x08
#define RWCNT_STATUS		0x0c
#define  RWCNT_ST_DONE		BIT(0)

#define RWCNT_IOC_SET_GATE	_IOW('c', 1, __u32)
#define RWCNT_IOC_GET_GATE	_IOR('c', 2, __u32)

struct rwcnt {
	struct miscdevice misc;
	void __iomem *base;
	spinlock_t lock;		/* guards gate_ms and the CTRL register */
	u32 gate_ms;
	u32 last_count;
	unsigned int users;
};

// @expect entry-point rwcnt_open callback file_operations.open
static int rwcnt_open(struct inode *inode, struct file *file)
{
	struct rwcnt *cnt = container_of(file->private_data, struct rwcnt, misc);

	file->private_data = cnt;
	spin_lock(&cnt->lock);
	cnt->users++;
	spin_unlock(&cnt->lock);
	return 0;
}

// @expect entry-point rwcnt_release callback file_operations.release
static int rwcnt_release(struct inode *inode, struct file *file)
{
	struct rwcnt *cnt = file->private_data;

	spin_lock(&cnt->lock);
	cnt->users--;
	spin_unlock(&cnt->lock);
	return 0;
}

// @expect entry-point rwcnt_read callback file_operations.read
static ssize_t rwcnt_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct rwcnt *cnt = file->private_data;
	char tmp[24];
	int len;

	spin_lock_irq(&cnt->lock);
	if (ioread32(cnt->base + RWCNT_STATUS) & RWCNT_ST_DONE) {
		cnt->last_count = ioread32(cnt->base + RWCNT_COUNT);
		iowrite32(RWCNT_CTRL_START, cnt->base + RWCNT_CTRL);
	}
	len = scnprintf(tmp, sizeof(tmp), "%u\n",
			cnt->last_count * (1000 / max(cnt->gate_ms, 1U)));
	spin_unlock_irq(&cnt->lock);

	return simple_read_from_buffer(buf, count, ppos, tmp, len);
}

// @expect entry-point rwcnt_ioctl callback file_operations.unlocked_ioctl
static long rwcnt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwcnt *cnt = file->private_data;
	u32 __user *argp = (u32 __user *)arg;
	u32 gate;

	switch (cmd) {
	case RWCNT_IOC_SET_GATE:
		if (get_user(gate, argp))
			return -EFAULT;
		if (!gate || gate > 10000)
			return -EINVAL;
		spin_lock_irq(&cnt->lock);
		cnt->gate_ms = gate;
		iowrite32(gate, cnt->base + RWCNT_GATE);
		iowrite32(RWCNT_CTRL_START, cnt->base + RWCNT_CTRL);
		spin_unlock_irq(&cnt->lock);
		return 0;
	case RWCNT_IOC_GET_GATE:
		return put_user(cnt->gate_ms, argp);
	default:
		return -ENOTTY;
	}
}

// @expect external compat_ptr_ioctl callback file_operations.compat_ioctl
static const struct file_operations rwcnt_fops = {
	.owner		= THIS_MODULE,
	.open		= rwcnt_open,
	.release	= rwcnt_release,
	.read		= rwcnt_read,
	.unlocked_ioctl	= rwcnt_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

// @expect init rwcnt_probe
// @expect entry-point rwcnt_probe probe platform_driver.probe
static int rwcnt_probe(struct platform_device *pdev)
{
	struct rwcnt *cnt;
	int ret;

	cnt = devm_kzalloc(&pdev->dev, sizeof(*cnt), GFP_KERNEL);
	if (!cnt)
		return -ENOMEM;

	cnt->misc.minor = MISC_DYNAMIC_MINOR;
	cnt->misc.name = "rwcounter";
	cnt->misc.fops = &rwcnt_fops;
	cnt->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, cnt);

	/* BUG (on purpose): the device is live before it is initialised. */
	ret = misc_register(&cnt->misc);
	if (ret)
		return ret;

	cnt->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(cnt->base)) {
		misc_deregister(&cnt->misc);
		return PTR_ERR(cnt->base);
	}
	spin_lock_init(&cnt->lock);
	cnt->gate_ms = 100;
	iowrite32(cnt->gate_ms, cnt->base + RWCNT_GATE);
	iowrite32(RWCNT_CTRL_START, cnt->base + RWCNT_CTRL);
	return 0;
}

// @expect entry-point rwcnt_remove remove platform_driver.remove
static void rwcnt_remove(struct platform_device *pdev)
{
	struct rwcnt *cnt = platform_get_drvdata(pdev);

	misc_deregister(&cnt->misc);
	iowrite32(0, cnt->base + RWCNT_CTRL);
}

static const struct of_device_id rwcnt_of_match[] = {
	{ .compatible = "racewatch,freq-counter" },
	{ }
};
MODULE_DEVICE_TABLE(of, rwcnt_of_match);

static struct platform_driver rwcnt_driver = {
	.probe	= rwcnt_probe,
	.remove	= rwcnt_remove,
	.driver	= {
		.name		= "rwcounter",
		.of_match_table	= rwcnt_of_match,
	},
};

// @expect entry-point rwcnt_driver_init module-init module_init
// @expect entry-point rwcnt_driver_exit module-exit module_exit
module_platform_driver(rwcnt_driver);

MODULE_DESCRIPTION("racewatch corpus: registration before initialisation");
MODULE_LICENSE("GPL");
