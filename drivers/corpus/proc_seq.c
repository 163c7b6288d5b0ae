// SPDX-License-Identifier: GPL-2.0
/*
 * proc_seq.c - event log of a port-mapped alarm panel, exported via /proc.
 *
 * A module_init/module_exit driver that creates /proc/rwalarm/ with four
 * entries: "events" (proc_ops whose proc_open calls seq_open on a
 * seq_operations start/next/stop/show table, the rest being the kernel's
 * seq_read/seq_lseek/seq_release), "control" (proc_ops with driver-defined
 * proc_open/proc_read/proc_write/proc_release), "summary" (a show function
 * passed to the function proc_create_single_data) and "version" (a show
 * function passed to the macro proc_create_single). The event ring, the
 * arm state and the reader count are shared and guarded by a mutex.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/mutex.h>
#include <linux/ioport.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/uaccess.h>

#define RWALARM_BASE		0x2a0
#define RWALARM_ZONES		0x00
#define RWALARM_ARM		0x01
#define RWALARM_NEVENTS		32

struct rwalarm_event {
	ktime_t when;
	u8 zones;
};

struct rwalarm {
	struct mutex lock;		/* guards ring, head, count, armed */
	struct rwalarm_event ring[RWALARM_NEVENTS];
	unsigned int head;
	unsigned int count;
	bool armed;
	int ctl_readers;
	struct proc_dir_entry *dir;
};

static struct rwalarm rwalarm = {
	.lock = __MUTEX_INITIALIZER(rwalarm.lock),
};

static void rwalarm_log(u8 zones)
{
	struct rwalarm_event *ev = &rwalarm.ring[rwalarm.head];

	ev->when = ktime_get();
	ev->zones = zones;
	rwalarm.head = (rwalarm.head + 1) % RWALARM_NEVENTS;
	if (rwalarm.count < RWALARM_NEVENTS)
		rwalarm.count++;
}

// @expect entry-point rwalarm_seq_start callback seq_operations.start
static void *rwalarm_seq_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&rwalarm.lock);
	return *pos < rwalarm.count ? pos : NULL;
}

// @expect entry-point rwalarm_seq_next callback seq_operations.next
static void *rwalarm_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return *pos < rwalarm.count ? pos : NULL;
}

// @expect entry-point rwalarm_seq_stop callback seq_operations.stop
static void rwalarm_seq_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&rwalarm.lock);
}

// @expect entry-point rwalarm_seq_show callback seq_operations.show
static int rwalarm_seq_show(struct seq_file *m, void *v)
{
	loff_t idx = *(loff_t *)v;
	unsigned int slot = (rwalarm.head + RWALARM_NEVENTS - rwalarm.count + idx) %
			    RWALARM_NEVENTS;

	seq_printf(m, "%lld zones=%#04x\n", ktime_to_ms(rwalarm.ring[slot].when),
		   rwalarm.ring[slot].zones);
	return 0;
}

static const struct seq_operations rwalarm_seq_ops = {
	.start	= rwalarm_seq_start,
	.next	= rwalarm_seq_next,
	.stop	= rwalarm_seq_stop,
	.show	= rwalarm_seq_show,
};

// @expect entry-point rwalarm_events_open callback proc_ops.proc_open
static int rwalarm_events_open(struct inode *inode, struct file *file)
{
	return seq_open(file, &rwalarm_seq_ops);
}

// @expect external seq_read callback proc_ops.proc_read
// @expect external seq_lseek callback proc_ops.proc_lseek
// @expect external seq_release callback proc_ops.proc_release
static const struct proc_ops rwalarm_events_ops = {
	.proc_open	= rwalarm_events_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= seq_release,
};

// @expect entry-point rwalarm_ctl_open callback proc_ops.proc_open
static int rwalarm_ctl_open(struct inode *inode, struct file *file)
{
	mutex_lock(&rwalarm.lock);
	rwalarm.ctl_readers++;
	mutex_unlock(&rwalarm.lock);
	return 0;
}

// @expect entry-point rwalarm_ctl_read callback proc_ops.proc_read
static ssize_t rwalarm_ctl_read(struct file *file, char __user *buf,
				size_t count, loff_t *ppos)
{
	char tmp[32];
	int len;
	u8 zones = inb(RWALARM_BASE + RWALARM_ZONES);

	len = scnprintf(tmp, sizeof(tmp), "%s %#04x\n",
			rwalarm.armed ? "armed" : "disarmed", zones);
	return simple_read_from_buffer(buf, count, ppos, tmp, len);
}

// @expect entry-point rwalarm_ctl_write callback proc_ops.proc_write
static ssize_t rwalarm_ctl_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *ppos)
{
	char cmd[16] = { };
	ssize_t ret = count;

	if (copy_from_user(cmd, buf, min(count, sizeof(cmd) - 1)))
		return -EFAULT;

	mutex_lock(&rwalarm.lock);
	if (sysfs_streq(cmd, "arm")) {
		outb(1, RWALARM_BASE + RWALARM_ARM);
		rwalarm.armed = true;
	} else if (sysfs_streq(cmd, "disarm")) {
		outb(0, RWALARM_BASE + RWALARM_ARM);
		rwalarm.armed = false;
	} else if (sysfs_streq(cmd, "sample")) {
		rwalarm_log(inb(RWALARM_BASE + RWALARM_ZONES));
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&rwalarm.lock);
	return ret;
}

// @expect entry-point rwalarm_ctl_release callback proc_ops.proc_release
static int rwalarm_ctl_release(struct inode *inode, struct file *file)
{
	mutex_lock(&rwalarm.lock);
	rwalarm.ctl_readers--;
	mutex_unlock(&rwalarm.lock);
	return 0;
}

static const struct proc_ops rwalarm_ctl_ops = {
	.proc_open	= rwalarm_ctl_open,
	.proc_read	= rwalarm_ctl_read,
	.proc_write	= rwalarm_ctl_write,
	.proc_release	= rwalarm_ctl_release,
};

// @expect entry-point rwalarm_summary_show callback proc_create_single_data
static int rwalarm_summary_show(struct seq_file *m, void *v)
{
	struct rwalarm *a = m->private;

	mutex_lock(&a->lock);
	seq_printf(m, "armed: %d\nevents: %u\nreaders: %d\n",
		   a->armed, a->count, a->ctl_readers);
	mutex_unlock(&a->lock);
	return 0;
}

// @expect entry-point rwalarm_version_show callback proc_create_single
static int rwalarm_version_show(struct seq_file *m, void *v)
{
	seq_puts(m, "rwalarm 1.2\n");
	return 0;
}

// @expect init rwalarm_init
// @expect entry-point rwalarm_init module-init module_init
static int __init rwalarm_init(void)
{
	if (!request_region(RWALARM_BASE, 2, "rwalarm"))
		return -EBUSY;

	rwalarm.dir = proc_mkdir("rwalarm", NULL);
	if (!rwalarm.dir)
		goto err;
	if (!proc_create("events", 0444, rwalarm.dir, &rwalarm_events_ops) ||
	    !proc_create("control", 0600, rwalarm.dir, &rwalarm_ctl_ops) ||
	    !proc_create_single_data("summary", 0444, rwalarm.dir,
				     rwalarm_summary_show, &rwalarm) ||
	    !proc_create_single("version", 0444, rwalarm.dir,
				rwalarm_version_show))
		goto err_dir;
	return 0;

err_dir:
	proc_remove(rwalarm.dir);
err:
	release_region(RWALARM_BASE, 2);
	return -ENOMEM;
}

// @expect entry-point rwalarm_exit module-exit module_exit
static void __exit rwalarm_exit(void)
{
	proc_remove(rwalarm.dir);
	outb(0, RWALARM_BASE + RWALARM_ARM);
	release_region(RWALARM_BASE, 2);
}

module_init(rwalarm_init);
module_exit(rwalarm_exit);

MODULE_DESCRIPTION("racewatch corpus: proc_ops, seq_operations and single-show proc files");
MODULE_LICENSE("GPL");
