// SPDX-License-Identifier: GPL-2.0
/*
 * twf_update.c - the second file of the twofile module: the update the
 * work item of twf_main.c runs, under the device's lock.
 */
#include <linux/spinlock.h>
#include "twf.h"

void twf_update(struct twf_dev *d)
{
	spin_lock(&d->lock);
	d->flags |= TWF_READY;	/* @racy: written under the lock the reader does not take */
	d->updates++;
	spin_unlock(&d->lock);
}
