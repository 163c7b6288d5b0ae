// SPDX-License-Identifier: GPL-2.0
/*
 * initloop_fixed.c - event counter boards on shared interrupt lines, with
 * every board published before the first request and a lock.
 *
 * Fixed twin of initloop_race.c (cases: registration in a loop -> publish
 * first, register after; handler running on several lines -> spinlock).
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#define RWL_BOARDS	4

struct rwl_board {
	int irq;
	u32 hits;
};

static struct rwl_board *rwl_boards[RWL_BOARDS];
static DEFINE_SPINLOCK(rwl_lock);	/* guards rwl_events */
static unsigned long rwl_events;	/* interrupts seen on every board */
static int rwl_irqs[RWL_BOARDS] = { 5, 7, 10, 11 };

// @expect entry-point rwl_interrupt irq request_irq
static irqreturn_t rwl_interrupt(int irq, void *dev_id)
{
	int i;

	for (i = 0; i < RWL_BOARDS; i++) {
		struct rwl_board *b = rwl_boards[i];

		if (b && b->irq == irq) {
			spin_lock(&rwl_lock);
			rwl_events++;
			spin_unlock(&rwl_lock);
			return IRQ_HANDLED;
		}
	}
	return IRQ_NONE;
}

// @expect proven rwl_init rwl_interrupt
// @expect proven rwl_interrupt rwl_interrupt

// @expect init rwl_init
// @expect entry-point rwl_init module-init module_init
static int __init rwl_init(void)
{
	struct rwl_board *b;
	int i, err;

	for (i = 0; i < RWL_BOARDS; i++) {
		b = kzalloc(sizeof(*b), GFP_KERNEL);
		if (!b)
			return -ENOMEM;
		b->irq = rwl_irqs[i];
		rwl_boards[i] = b;
	}
	for (i = 0; i < RWL_BOARDS; i++) {
		b = rwl_boards[i];
		err = request_irq(b->irq, rwl_interrupt, IRQF_SHARED, "rwl", b);
		if (err)
			return err;
	}
	return 0;
}

module_init(rwl_init);

MODULE_DESCRIPTION("racewatch race corpus: interrupt handler registered in a loop, after publishing");
MODULE_LICENSE("GPL");
