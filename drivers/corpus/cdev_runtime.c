// SPDX-License-Identifier: GPL-2.0
/*
 * cdev_runtime.c - ISA mailbox to a service processor, as /dev/rwmbox.
 *
 * A classic char device: alloc_chrdev_region, cdev_init/cdev_add and a
 * class/device node, all from module_init. The file_operations object is
 * NOT a const initialised table: it is a zero-initialised
 * `static struct file_operations rwmbox_fops;` whose fields are assigned one
 * by one at run time in module_init (including the kernel helper
 * default_llseek). Incoming messages arrive through an ISA interrupt
 * (request_irq) that fills a receive buffer shared with read/poll under a
 * spinlock; writers are serialised by a mutex.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/fs.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/ioport.h>
#include <linux/io.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#define RWMBOX_DATA		0x00
#define RWMBOX_STATUS		0x01
#define  RWMBOX_ST_RX_READY	BIT(0)
#define  RWMBOX_ST_TX_BUSY	BIT(1)
#define RWMBOX_LEN		0x02
#define RWMBOX_DOORBELL		0x03
#define RWMBOX_MSG_MAX		64

static int io = 0x310;
module_param(io, int, 0444);
static int irq = 5;
module_param(irq, int, 0444);

struct rwmbox {
	spinlock_t rx_lock;		/* guards rx_buf/rx_len */
	u8 rx_buf[RWMBOX_MSG_MAX];
	size_t rx_len;
	unsigned long rx_dropped;
	wait_queue_head_t rx_wait;
	struct mutex tx_lock;		/* one outgoing message at a time */
	int users;
};

static struct rwmbox rwmbox;
static struct file_operations rwmbox_fops;
static dev_t rwmbox_devt;
static struct cdev rwmbox_cdev;
static struct class *rwmbox_class;

// @expect entry-point rwmbox_irq irq request_irq
static irqreturn_t rwmbox_irq(int irqno, void *data)
{
	struct rwmbox *mb = data;
	size_t len, i;

	if (!(inb(io + RWMBOX_STATUS) & RWMBOX_ST_RX_READY))
		return IRQ_NONE;

	spin_lock(&mb->rx_lock);
	len = min_t(size_t, inb(io + RWMBOX_LEN), RWMBOX_MSG_MAX);
	if (mb->rx_len)
		mb->rx_dropped++;	/* reader too slow: overwrite */
	for (i = 0; i < len; i++)
		mb->rx_buf[i] = inb(io + RWMBOX_DATA);
	mb->rx_len = len;
	spin_unlock(&mb->rx_lock);

	outb(RWMBOX_ST_RX_READY, io + RWMBOX_STATUS);
	wake_up_interruptible(&mb->rx_wait);
	return IRQ_HANDLED;
}

// @expect entry-point rwmbox_open callback file_operations.open
static int rwmbox_open(struct inode *inode, struct file *file)
{
	file->private_data = &rwmbox;
	rwmbox.users++;
	return 0;
}

// @expect entry-point rwmbox_release callback file_operations.release
static int rwmbox_release(struct inode *inode, struct file *file)
{
	rwmbox.users--;
	return 0;
}

// @expect entry-point rwmbox_read callback file_operations.read
static ssize_t rwmbox_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	struct rwmbox *mb = file->private_data;
	u8 msg[RWMBOX_MSG_MAX];
	size_t len;
	int ret;

	ret = wait_event_interruptible(mb->rx_wait, READ_ONCE(mb->rx_len));
	if (ret)
		return ret;

	spin_lock_irq(&mb->rx_lock);
	len = min(count, mb->rx_len);
	memcpy(msg, mb->rx_buf, len);
	mb->rx_len = 0;
	spin_unlock_irq(&mb->rx_lock);

	if (copy_to_user(buf, msg, len))
		return -EFAULT;
	return len;
}

// @expect entry-point rwmbox_write callback file_operations.write
static ssize_t rwmbox_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	struct rwmbox *mb = file->private_data;
	u8 msg[RWMBOX_MSG_MAX];
	size_t i;

	if (count > RWMBOX_MSG_MAX)
		return -EMSGSIZE;
	if (copy_from_user(msg, buf, count))
		return -EFAULT;

	mutex_lock(&mb->tx_lock);
	if (inb(io + RWMBOX_STATUS) & RWMBOX_ST_TX_BUSY) {
		mutex_unlock(&mb->tx_lock);
		return -EBUSY;
	}
	outb(count, io + RWMBOX_LEN);
	for (i = 0; i < count; i++)
		outb(msg[i], io + RWMBOX_DATA);
	outb(1, io + RWMBOX_DOORBELL);
	mutex_unlock(&mb->tx_lock);
	return count;
}

// @expect entry-point rwmbox_poll callback file_operations.poll
static __poll_t rwmbox_poll(struct file *file, poll_table *wait)
{
	struct rwmbox *mb = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &mb->rx_wait, wait);
	if (READ_ONCE(mb->rx_len))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (!(inb(io + RWMBOX_STATUS) & RWMBOX_ST_TX_BUSY))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

// @expect init rwmbox_init
// @expect entry-point rwmbox_init module-init module_init
// @expect external default_llseek callback file_operations.llseek
static int __init rwmbox_init(void)
{
	struct device *dev;
	int ret;

	spin_lock_init(&rwmbox.rx_lock);
	mutex_init(&rwmbox.tx_lock);
	init_waitqueue_head(&rwmbox.rx_wait);

	rwmbox_fops.owner = THIS_MODULE;
	rwmbox_fops.open = rwmbox_open;
	rwmbox_fops.release = rwmbox_release;
	rwmbox_fops.read = rwmbox_read;
	rwmbox_fops.write = rwmbox_write;
	rwmbox_fops.poll = rwmbox_poll;
	rwmbox_fops.llseek = default_llseek;

	if (!request_region(io, 4, "rwmbox"))
		return -EBUSY;
	ret = request_irq(irq, rwmbox_irq, 0, "rwmbox", &rwmbox);
	if (ret)
		goto err_region;

	ret = alloc_chrdev_region(&rwmbox_devt, 0, 1, "rwmbox");
	if (ret)
		goto err_irq;
	cdev_init(&rwmbox_cdev, &rwmbox_fops);
	rwmbox_cdev.owner = THIS_MODULE;
	ret = cdev_add(&rwmbox_cdev, rwmbox_devt, 1);
	if (ret)
		goto err_chrdev;

	rwmbox_class = class_create("rwmbox");
	if (IS_ERR(rwmbox_class)) {
		ret = PTR_ERR(rwmbox_class);
		goto err_cdev;
	}
	dev = device_create(rwmbox_class, NULL, rwmbox_devt, NULL, "rwmbox");
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto err_class;
	}
	return 0;

err_class:
	class_destroy(rwmbox_class);
err_cdev:
	cdev_del(&rwmbox_cdev);
err_chrdev:
	unregister_chrdev_region(rwmbox_devt, 1);
err_irq:
	free_irq(irq, &rwmbox);
err_region:
	release_region(io, 4);
	return ret;
}

// @expect entry-point rwmbox_exit module-exit module_exit
static void __exit rwmbox_exit(void)
{
	device_destroy(rwmbox_class, rwmbox_devt);
	class_destroy(rwmbox_class);
	cdev_del(&rwmbox_cdev);
	unregister_chrdev_region(rwmbox_devt, 1);
	free_irq(irq, &rwmbox);
	release_region(io, 4);
}

module_init(rwmbox_init);
module_exit(rwmbox_exit);

MODULE_DESCRIPTION("racewatch corpus: cdev with run-time file_operations");
MODULE_LICENSE("GPL");
