// SPDX-License-Identifier: GPL-2.0
/*
 * initloop_race.c - event counter boards on shared interrupt lines.
 *
 * Race test (case: registrations in a loop). Module init sets the boards
 * up one at a time: it allocates board i, publishes it in rwl_boards[i]
 * and requests its interrupt line with the shared handler rwl_interrupt.
 * From the first request on the handler may run (on any of the lines
 * already requested), and it walks every slot: init's store of
 * rwl_boards[1] in the second iteration races with the handler registered
 * in the first. And the handler is registered for several lines, so it
 * runs concurrently with itself on two CPUs: its unlocked rwl_events++
 * races. And init publishes each board before it writes the board's irq
 * field, so a handler running on an earlier line reads b->irq while init
 * writes it. (The precise phase's first model has the handler read board
 * 1's address from the slot's initial memory, before init allocated it;
 * the replay rejects that witness, the search keeps that value out of the
 * new board and asks again, and the next witness replays. A model that
 * moves the value to another board is refused again, and a value blamed
 * twice is kept out of every allocation of the run.)
 * The fixed twin (initloop_fixed.c) publishes every board before
 * the first request and counts under a spinlock.
 */
#include <linux/module.h>
#include <linux/interrupt.h>
#include <linux/slab.h>

#define RWL_BOARDS	4

struct rwl_board {
	int irq;
	u32 hits;
};

static struct rwl_board *rwl_boards[RWL_BOARDS];
static unsigned long rwl_events;	/* interrupts seen on every board */
static int rwl_irqs[RWL_BOARDS] = { 5, 7, 10, 11 };

// @expect entry-point rwl_interrupt irq request_irq
static irqreturn_t rwl_interrupt(int irq, void *dev_id)
{
	int i;

	for (i = 0; i < RWL_BOARDS; i++) {
		struct rwl_board *b = rwl_boards[i];	/* @racy: init stores later boards */

		if (b && b->irq == irq) {	/* @racy: a published board whose irq init is writing */
			rwl_events++;	/* @racy: the handler runs on two lines at once */
			return IRQ_HANDLED;
		}
	}
	return IRQ_NONE;
}

// @expect race rwl_interrupt rwl_init "global rwl_boards"
// @expect confirmed rwl_interrupt rwl_init "global rwl_boards"
// @expect race rwl_interrupt rwl_init "struct rwl_board.irq"
// @expect confirmed rwl_interrupt rwl_init "struct rwl_board.irq"
// @expect race rwl_interrupt rwl_interrupt "global rwl_events"
// @expect confirmed rwl_interrupt rwl_interrupt "global rwl_events"

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
		rwl_boards[i] = b;	/* @racy: an earlier board's handler is live */
		b->irq = rwl_irqs[i];	/* @racy: the board is already published */
		err = request_irq(b->irq, rwl_interrupt, IRQF_SHARED, "rwl", b);
		if (err)
			return err;
	}
	return 0;
}

module_init(rwl_init);

MODULE_DESCRIPTION("racewatch race corpus: interrupt handler registered in a loop");
MODULE_LICENSE("GPL");
