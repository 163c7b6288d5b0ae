/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twf.h - what the two files of the twofile module share: the device and
 * the function twf_update.c defines for twf_main.c's work item.
 */
#ifndef TWF_H
#define TWF_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>

#define TWF_READY	0x1

struct twf_dev {
	spinlock_t lock;		/* protects flags and updates */
	unsigned long flags;
	unsigned int updates;
	struct work_struct work;
};

extern struct twf_dev twf;

void twf_update(struct twf_dev *d, unsigned int *count);

#endif
