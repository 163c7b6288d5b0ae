// SPDX-License-Identifier: GPL-2.0
/*
 * looplock_race.c - word FIFO towards a co-processor, /dev/rwfifo.
 *
 * Race test (case: lock/unlock inside a loop). To keep interrupt latency
 * low, write() takes the FIFO spinlock once per word inside its loop, so
 * the FIFO slots and the head index are always accessed under the lock.
 * But the count of pushed words is updated once after the loop, when the
 * lock is no longer held: it races with other writers and with read(),
 * which reports it under the lock. The fixed twin, looplock_fixed.c,
 * counts each word inside the locked region.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/spinlock.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#define RWLP_DEPTH	64
#define RWLP_MAXW	16

struct rwlp_req {
	__u32 words[RWLP_MAXW];
};

struct rwlp_out {
	__u32 word;
	__u32 pushed;
};

struct rwlp_fifo {
	spinlock_t lock;		/* guards everything below */
	u32 slot[RWLP_DEPTH];
	unsigned int head, tail;
	u32 pushed;
};

static struct rwlp_fifo rwlp = {
	.lock = __SPIN_LOCK_UNLOCKED(rwlp.lock),
};

// @expect entry-point rwlp_write callback file_operations.write
static ssize_t rwlp_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct rwlp_req req;
	unsigned long flags;
	size_t i, n = min_t(size_t, count / 4, RWLP_MAXW);

	if (copy_from_user(&req, buf, n * 4))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		spin_lock_irqsave(&rwlp.lock, flags);
		rwlp.slot[rwlp.head] = req.words[i];
		rwlp.head = (rwlp.head + 1) % RWLP_DEPTH;
		spin_unlock_irqrestore(&rwlp.lock, flags);
	}
	rwlp.pushed += n;		/* @racy: BUG: after the loop, lock dropped */
	return n * 4;
}

// @expect entry-point rwlp_read callback file_operations.read
static ssize_t rwlp_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct rwlp_out out;
	unsigned long flags;

	if (count < sizeof(out))
		return -EINVAL;
	spin_lock_irqsave(&rwlp.lock, flags);
	if (rwlp.tail == rwlp.head) {
		spin_unlock_irqrestore(&rwlp.lock, flags);
		return 0;
	}
	out.word = rwlp.slot[rwlp.tail];
	rwlp.tail = (rwlp.tail + 1) % RWLP_DEPTH;
	out.pushed = rwlp.pushed;	/* @racy */
	spin_unlock_irqrestore(&rwlp.lock, flags);
	if (copy_to_user(buf, &out, sizeof(out)))
		return -EFAULT;
	return sizeof(out);
}

// @expect race rwlp_write rwlp_write "struct rwlp_fifo.pushed"
// @expect confirmed rwlp_write rwlp_write "struct rwlp_fifo.pushed"
// @expect race rwlp_write rwlp_read "struct rwlp_fifo.pushed"
// @expect confirmed rwlp_write rwlp_read "struct rwlp_fifo.pushed"
/* slot, head and tail are accessed in the locked part of every iteration. */
// @expect proven rwlp_read rwlp_read

static const struct file_operations rwlp_fops = {
	.owner	= THIS_MODULE,
	.write	= rwlp_write,
	.read	= rwlp_read,
};

static struct miscdevice rwlp_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwfifo",
	.fops	= &rwlp_fops,
};

// @expect init rwlp_misc_init
// @expect entry-point rwlp_misc_init module-init module_init
// @expect entry-point rwlp_misc_exit module-exit module_exit
module_misc_device(rwlp_misc);

MODULE_DESCRIPTION("racewatch race corpus: counter updated after a locked loop");
MODULE_LICENSE("GPL");
