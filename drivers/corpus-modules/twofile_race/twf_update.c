// SPDX-License-Identifier: GPL-2.0
/*
 * twf_update.c - the second file of the twofile module: the update the
 * work item of twf_main.c runs, under the device's lock.
 */
#include <linux/spinlock.h>
#include "twf.h"

/* This file's own statistics lock (twf_main.c has another of this name). */
static DEFINE_SPINLOCK(twf_stat_lock);

void twf_update(struct twf_dev *d, unsigned int *count)
{
	spin_lock(&d->lock);
	d->flags |= TWF_READY;	/* @racy: written under the lock the reader does not take */
	d->updates++;
	spin_unlock(&d->lock);
	spin_lock(&twf_stat_lock);
	(*count)++;		/* @racy: under this file's twf_stat_lock, not twf_main.c's */
	spin_unlock(&twf_stat_lock);
}
