// SPDX-License-Identifier: GPL-2.0
/*
 * llseek_race.c - 256-byte configuration EEPROM shadow, /dev/rweeprom.
 *
 * Race test (case: the llseek self-pair on file->f_pos, the generic_nvram
 * bug Whoop found). read() holds the device mutex for its whole body,
 * including the *ppos update, but llseek() updates and re-reads
 * file->f_pos without any lock: two llseek() calls on the same open file
 * race on struct file.f_pos (a character device gets no f_pos_lock from
 * the VFS). The fixed twin (llseek_fixed.c) takes the mutex in llseek too.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#define RWLS_SIZE	256

struct rwls_dev {
	struct mutex lock;		/* guards shadow[] */
	u32 shadow[RWLS_SIZE / 4];
};

static struct rwls_dev rwls = {
	.lock = __MUTEX_INITIALIZER(rwls.lock),
};

// @expect entry-point rwls_llseek callback file_operations.llseek
static loff_t rwls_llseek(struct file *file, loff_t offset, int origin)
{
	switch (origin) {
	case SEEK_CUR:
		offset += file->f_pos;	/* @racy */
		break;
	case SEEK_END:
		offset += RWLS_SIZE;
		break;
	case SEEK_SET:
		break;
	default:
		return -EINVAL;
	}
	if (offset < 0 || offset > RWLS_SIZE)
		return -EINVAL;
	file->f_pos = offset;		/* @racy: unprotected write */
	return file->f_pos;		/* @racy: unprotected read */
}

// @expect entry-point rwls_read callback file_operations.read
static ssize_t rwls_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	u32 word;
	loff_t pos;

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

// @expect race rwls_llseek rwls_llseek "struct file.f_pos"
// @expect confirmed rwls_llseek rwls_llseek "struct file.f_pos"
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

MODULE_DESCRIPTION("racewatch race corpus: llseek races on f_pos");
MODULE_LICENSE("GPL");
