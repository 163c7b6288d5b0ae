// SPDX-License-Identifier: GPL-2.0
/*
 * twf_update.c - the second file of the twofile module: the update the
 * work item of twf_main.c runs, under the device's lock.
 */
#include <linux/spinlock.h>
#include "twf.h"

void twf_update(struct twf_dev *d, unsigned int *count)
{
	spin_lock(&d->lock);
	d->flags |= TWF_READY;
	d->updates++;
	(*count)++;
	spin_unlock(&d->lock);
}
