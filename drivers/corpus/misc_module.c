// SPDX-License-Identifier: GPL-2.0
/*
 * misc_module.c - queued tone generator on the PC speaker, /dev/rwbeep.
 *
 * A misc device registered with module_misc_device(rwbeep_misc), which
 * generates rwbeep_misc_init/rwbeep_misc_exit as module_init/module_exit.
 * There is no hand-written init, so everything else is statically
 * initialised: a timer via DEFINE_TIMER ends the current tone, and a work
 * item via DECLARE_WORK starts the next queued one. The file_operations
 * (write/release) fill the tone queue under a mutex; the PIT and speaker
 * ports are touched under a spinlock by the timer and the work. The
 * generated exit function cannot stop the timer or the work, a real flaw
 * of drivers built this way.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/jiffies.h>
#include <linux/uaccess.h>

#define RWBEEP_PIT_TICK_RATE	1193182
#define RWBEEP_PIT_CMD		0x43
#define RWBEEP_PIT_CH2		0x42
#define RWBEEP_SPEAKER		0x61
#define RWBEEP_QUEUE_LEN	16

struct rwbeep_tone {
	u32 hz;
	u32 ms;
};

static DEFINE_MUTEX(rwbeep_queue_lock);		/* guards the tone queue */
static struct rwbeep_tone rwbeep_queue[RWBEEP_QUEUE_LEN];
static unsigned int rwbeep_head, rwbeep_tail;
static bool rwbeep_playing;

static DEFINE_SPINLOCK(rwbeep_hw_lock);		/* guards PIT channel 2 */
static unsigned long rwbeep_tones_played;

static void rwbeep_next(struct work_struct *work);
static void rwbeep_timeout(struct timer_list *t);

// @expect entry-point rwbeep_next work work_struct.func
static DECLARE_WORK(rwbeep_next_work, rwbeep_next);
// @expect entry-point rwbeep_timeout timer timer_list.function
static DEFINE_TIMER(rwbeep_timer, rwbeep_timeout);

static void rwbeep_hw_tone(u32 hz)
{
	unsigned long flags;
	u32 div;

	// @mutation-protects-nothing rwbeep_hw_tone &rwbeep_hw_lock: its section
	// only does port I/O (outb_p, inb_p), which the analysis does not model
	// as memory; the race this mutant used to show was on the address-taken
	// locals of the irqsave type check, which are private to each call.
	spin_lock_irqsave(&rwbeep_hw_lock, flags);
	if (hz) {
		div = RWBEEP_PIT_TICK_RATE / hz;
		outb_p(0xb6, RWBEEP_PIT_CMD);
		outb_p(div & 0xff, RWBEEP_PIT_CH2);
		outb(div >> 8, RWBEEP_PIT_CH2);
		outb_p(inb_p(RWBEEP_SPEAKER) | 0x03, RWBEEP_SPEAKER);
	} else {
		outb(inb_p(RWBEEP_SPEAKER) & 0xfc, RWBEEP_SPEAKER);
	}
	spin_unlock_irqrestore(&rwbeep_hw_lock, flags);
}

static void rwbeep_timeout(struct timer_list *t)
{
	rwbeep_hw_tone(0);
	rwbeep_tones_played++;
	schedule_work(&rwbeep_next_work);
}

static void rwbeep_next(struct work_struct *work)
{
	struct rwbeep_tone tone;

	mutex_lock(&rwbeep_queue_lock);
	if (rwbeep_head == rwbeep_tail) {
		rwbeep_playing = false;
		goto out;
	}
	tone = rwbeep_queue[rwbeep_tail];
	rwbeep_tail = (rwbeep_tail + 1) % RWBEEP_QUEUE_LEN;
	rwbeep_playing = true;
	rwbeep_hw_tone(tone.hz);
	mod_timer(&rwbeep_timer, jiffies + msecs_to_jiffies(tone.ms));
out:
	mutex_unlock(&rwbeep_queue_lock);
}

// @expect entry-point rwbeep_write callback file_operations.write
static ssize_t rwbeep_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	char cmd[32] = { };
	struct rwbeep_tone tone;
	unsigned int next;

	if (copy_from_user(cmd, buf, min(count, sizeof(cmd) - 1)))
		return -EFAULT;
	if (sscanf(cmd, "%u %u", &tone.hz, &tone.ms) != 2 ||
	    tone.hz < 20 || tone.hz > 20000 || tone.ms > 5000)
		return -EINVAL;

	mutex_lock(&rwbeep_queue_lock);
	next = (rwbeep_head + 1) % RWBEEP_QUEUE_LEN;
	if (next == rwbeep_tail) {
		mutex_unlock(&rwbeep_queue_lock);
		return -ENOSPC;
	}
	rwbeep_queue[rwbeep_head] = tone;
	rwbeep_head = next;
	if (!rwbeep_playing)
		schedule_work(&rwbeep_next_work);
	mutex_unlock(&rwbeep_queue_lock);
	return count;
}

// @expect entry-point rwbeep_release callback file_operations.release
static int rwbeep_release(struct inode *inode, struct file *file)
{
	mutex_lock(&rwbeep_queue_lock);
	rwbeep_tail = rwbeep_head;	/* drop what is still queued */
	mutex_unlock(&rwbeep_queue_lock);
	return 0;
}

static const struct file_operations rwbeep_fops = {
	.owner		= THIS_MODULE,
	.write		= rwbeep_write,
	.release	= rwbeep_release,
};

static struct miscdevice rwbeep_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rwbeep",
	.fops	= &rwbeep_fops,
	.mode	= 0220,
};

// @expect init rwbeep_misc_init
// @expect entry-point rwbeep_misc_init module-init module_init
// @expect entry-point rwbeep_misc_exit module-exit module_exit
module_misc_device(rwbeep_misc);

MODULE_DESCRIPTION("racewatch corpus: module_misc_device with static timer and work");
MODULE_LICENSE("GPL");
