// SPDX-License-Identifier: GPL-2.0
/*
 * cmpxchgfsm_false.c - single-axis stepper motor controller, /dev/rwstep.
 *
 * False-alarm test (case: a descriptor handed over by a cmpxchg state
 * machine). The controller executes one move at a time. The RWSM_IOC_MOVE
 * ioctl writes the move into the device's one descriptor (dev->steps,
 * dev->reverse) and the completion interrupt reads it back to update the
 * position. Who owns the descriptor is the state dev->state, changed only
 * by fully ordered atomic operations:
 *
 *	IDLE   -> FILL    ioctl, atomic_cmpxchg: the ioctl owns the descriptor
 *	FILL   -> MOVING  ioctl, atomic_xchg: published to the interrupt
 *	MOVING -> DONE    interrupt, atomic_cmpxchg: the handler owns it
 *	DONE   -> IDLE    interrupt, atomic_xchg: free again
 *
 * Only the ioctl that won IDLE -> FILL writes the descriptor, before it
 * publishes it; a second ioctl finds the state not IDLE and returns -EBUSY
 * without touching it; the handler reads it only after winning
 * MOVING -> DONE, and the next ioctl can only write it after the handler
 * has set IDLE, after its reads. Each transition is a value-returning
 * (fully ordered) atomic, so the owner's accesses happen before the next
 * owner's.
 *
 * The lockset phase gives the state arbitrary values, so it lets two
 * ioctls, or an ioctl and the handler, into the descriptor at once: it
 * reports the ioctl racing with itself and with the interrupt handler on
 * both fields. Those alarms are false; the precise phase, which runs the
 * cmpxchg and xchg with their real values, must not find them.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
#include <linux/atomic.h>
#include <linux/io.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/uaccess.h>

#define RWSM_STEPS		0x00
#define RWSM_DIR		0x04
#define RWSM_GO			0x08
#define RWSM_STATUS		0x0c
#define  RWSM_STATUS_DONE	0x01
#define RWSM_MAX_STEPS		200000

struct rwsm_move {
	__u32 steps;
	__u32 reverse;
};

#define RWSM_IOC_MOVE		_IOW('s', 0, struct rwsm_move)
#define RWSM_IOC_GET_POS	_IOR('s', 1, __s64)

enum { RWSM_IDLE, RWSM_FILL, RWSM_MOVING, RWSM_DONE };

struct rwsm_dev {
	struct miscdevice misc;
	void __iomem *base;
	atomic_t state;			/* owner of the descriptor, see above */
	u32 steps;			/* the descriptor */
	bool reverse;
	atomic_long_t position;		/* in steps from the home switch */
};

// @expect entry-point rwsm_irq irq devm_request_irq
static irqreturn_t rwsm_irq(int irq, void *data)
{
	struct rwsm_dev *dev = data;
	long delta;

	if (!(ioread32(dev->base + RWSM_STATUS) & RWSM_STATUS_DONE))
		return IRQ_NONE;
	iowrite32(RWSM_STATUS_DONE, dev->base + RWSM_STATUS);
	if (atomic_cmpxchg(&dev->state, RWSM_MOVING, RWSM_DONE) != RWSM_MOVING)
		return IRQ_HANDLED;	/* no move in flight */
	delta = dev->steps;
	if (dev->reverse)
		delta = -delta;
	atomic_long_add(delta, &dev->position);
	atomic_xchg(&dev->state, RWSM_IDLE);
	return IRQ_HANDLED;
}

// @expect entry-point rwsm_ioctl callback file_operations.unlocked_ioctl
static long rwsm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rwsm_dev *dev = container_of(file->private_data,
					    struct rwsm_dev, misc);
	struct rwsm_move m;
	s64 pos;

	switch (cmd) {
	case RWSM_IOC_GET_POS:
		pos = atomic_long_read(&dev->position);
		return copy_to_user((void __user *)arg, &pos, sizeof(pos)) ?
			-EFAULT : 0;
	case RWSM_IOC_MOVE:
		if (copy_from_user(&m, (void __user *)arg, sizeof(m)))
			return -EFAULT;
		if (!m.steps || m.steps > RWSM_MAX_STEPS)
			return -EINVAL;
		if (atomic_cmpxchg(&dev->state, RWSM_IDLE, RWSM_FILL) != RWSM_IDLE)
			return -EBUSY;	/* a move is in flight */
		dev->steps = m.steps;
		dev->reverse = m.reverse;
		iowrite32(dev->steps, dev->base + RWSM_STEPS);
		iowrite32(dev->reverse, dev->base + RWSM_DIR);
		atomic_xchg(&dev->state, RWSM_MOVING);	/* ordered, unlike atomic_set */
		iowrite32(1, dev->base + RWSM_GO);
		return 0;
	default:
		return -ENOTTY;
	}
}

// false alarms: the descriptor has one owner at a time, given by dev->state.
// @expect race rwsm_irq rwsm_ioctl "struct rwsm_dev.steps"
// @expect race rwsm_irq rwsm_ioctl "struct rwsm_dev.reverse"
// @expect race rwsm_ioctl rwsm_ioctl "struct rwsm_dev.steps"
// @expect race rwsm_ioctl rwsm_ioctl "struct rwsm_dev.reverse"
// @expect not-found rwsm_irq rwsm_ioctl "struct rwsm_dev.steps"
// @expect not-found rwsm_irq rwsm_ioctl "struct rwsm_dev.reverse"
// @expect not-found rwsm_ioctl rwsm_ioctl "struct rwsm_dev.steps"
// @expect not-found rwsm_ioctl rwsm_ioctl "struct rwsm_dev.reverse"

static const struct file_operations rwsm_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rwsm_ioctl,
};

// @expect init rwsm_probe
// @expect entry-point rwsm_probe probe platform_driver.probe
static int rwsm_probe(struct platform_device *pdev)
{
	struct rwsm_dev *dev;
	int irq, ret;

	dev = devm_kzalloc(&pdev->dev, sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(dev->base))
		return PTR_ERR(dev->base);
	irq = platform_get_irq(pdev, 0);
	if (irq < 0)
		return irq;
	atomic_set(&dev->state, RWSM_IDLE);
	atomic_long_set(&dev->position, 0);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = "rwstep";
	dev->misc.fops = &rwsm_fops;
	dev->misc.parent = &pdev->dev;
	platform_set_drvdata(pdev, dev);

	ret = devm_request_irq(&pdev->dev, irq, rwsm_irq, 0, "rwstep", dev);
	if (ret)
		return ret;
	return misc_register(&dev->misc);
}

// @expect entry-point rwsm_remove remove platform_driver.remove
static void rwsm_remove(struct platform_device *pdev)
{
	struct rwsm_dev *dev = platform_get_drvdata(pdev);

	misc_deregister(&dev->misc);
}

static struct platform_driver rwsm_driver = {
	.probe	= rwsm_probe,
	.remove	= rwsm_remove,
	.driver	= {
		.name	= "rwstep",
	},
};

// @expect entry-point rwsm_driver_init module-init module_init
// @expect entry-point rwsm_driver_exit module-exit module_exit
module_platform_driver(rwsm_driver);

MODULE_DESCRIPTION("racewatch precise corpus: cmpxchg state machine handoff, a lockset false alarm");
MODULE_LICENSE("GPL");
