// flags: kernel
/*
 * Initialisers that link an object nowhere keep none of their arguments
 * (no `keep` command, so a fresh object stays unpublished): timer_setup
 * (init_timer_key), INIT_WORK and INIT_DELAYED_WORK (__init_work,
 * init_timer_key), tasklet_setup, hrtimer_init. tasklet_init keeps its
 * data argument, which the callback receives whenever the tasklet runs.
 */
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/interrupt.h>
#include <linux/hrtimer.h>

struct ik_dev {
	struct timer_list timer;
	struct work_struct work;
	struct delayed_work dwork;
	struct tasklet_struct t1, t2;
	struct hrtimer hr;
};

static void ik_timer(struct timer_list *t) { }
static void ik_work(struct work_struct *w) { }
static void ik_t1(struct tasklet_struct *t) { }
static void ik_t2(unsigned long data) { }

void ik_init(struct ik_dev *dev)
{
	timer_setup(&dev->timer, ik_timer, 0);
	INIT_WORK(&dev->work, ik_work);
	INIT_DELAYED_WORK(&dev->dwork, ik_work);
	tasklet_setup(&dev->t1, ik_t1);
	tasklet_init(&dev->t2, ik_t2, (unsigned long)dev);
	hrtimer_init(&dev->hr, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
