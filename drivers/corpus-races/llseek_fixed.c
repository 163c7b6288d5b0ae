// SPDX-License-Identifier: GPL-2.0
/*
 * llseek_fixed.c - 256-byte configuration EEPROM shadow, /dev/rweeprom.
 *
 * Fixed twin of llseek_race.c (case: the llseek self-pair on file->f_pos).
 * llseek() now computes, stores and re-reads file->f_pos with the device
 * mutex held, so two llseek() calls on one open file exclude each other.
 * read() is unchanged. Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#define RWLS_SIZE	256

struct rwls_dev {
	struct mutex lock;		/* guards shadow[] and f_pos */
	u32 shadow[RWLS_SIZE / 4];
};

static struct rwls_dev rwls = {
	.lock = __MUTEX_INITIALIZER(rwls.lock),
};

// @expect entry-point rwls_llseek callback file_operations.llseek
static loff_t rwls_llseek(struct file *file, loff_t offset, int origin)
{
	loff_t ret;

	mutex_lock(&rwls.lock);
	switch (origin) {
	case SEEK_CUR:
		offset += file->f_pos;
		break;
	case SEEK_END:
		offset += RWLS_SIZE;
		break;
	case SEEK_SET:
		break;
	default:
		ret = -EINVAL;
		goto out;
	}
	if (offset < 0 || offset > RWLS_SIZE) {
		ret = -EINVAL;
		goto out;
	}
	file->f_pos = offset;
	ret = file->f_pos;
out:
	mutex_unlock(&rwls.lock);
	return ret;
}

// @expect entry-point rwls_read callback file_operations.read
static ssize_t rwls_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	u32 word;
	loff_t pos;

	// @mutation-protects-nothing rwls_read &rwls.lock: its section reads
	// rwls.shadow, which nothing in this driver writes, and *ppos,
	// the per-call copy of the file position that ksys_read keeps on its
	// own stack (fs/read_write.c), which no other call can reach.
	mutex_lock(&rwls.lock);
	pos = *ppos & ~3LL;
	if (pos >= RWLS_SIZE || count < sizeof(word)) {
		mutex_unlock(&rwls.lock);
		return 0;
	}
	word = rwls.shadow[pos / 4];
	*ppos = pos + sizeof(word);
	mutex_unlock(&rwls.lock);

	if (copy_to_user(buf, &word, sizeof(word)))
		return -EFAULT;
	return sizeof(word);
}

// @expect proven rwls_llseek rwls_llseek
// @expect proven rwls_read rwls_read
// @expect proven rwls_llseek rwls_read

static const struct file_operations rwls_fops = {
	.owner	= THIS_MODULE,
	.llseek	= rwls_llseek,
	.read	= rwls_read,
};

static struct miscdevice rwls_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rweeprom",
	.fops	= &rwls_fops,
};

// @expect init rwls_misc_init
// @expect entry-point rwls_misc_init module-init module_init
// @expect entry-point rwls_misc_exit module-exit module_exit
module_misc_device(rwls_misc);

MODULE_DESCRIPTION("racewatch race corpus: llseek on f_pos, fixed with the device mutex");
MODULE_LICENSE("GPL");
