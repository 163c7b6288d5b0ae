// flags: kernel
/*
 * Which work items destroy_workqueue stops: those every queueing puts on
 * the workqueue it names (a structure field only allocations are stored
 * in), never with a delay. plain_fn's item is queued on dev->wq only, so
 * destroying dev->wq stops it; delayed_fn's item is queued there with a
 * delay (its timer is not on the workqueue); both_fn's item also goes to
 * the system workqueue; other_wq is stored a pointer from elsewhere, so
 * nothing is known to be on it.
 */
#include <linux/workqueue.h>

struct wqt_dev {
	struct workqueue_struct *wq, *other_wq;
	struct work_struct plain, both, odd;
	struct delayed_work delayed;
};

static void plain_fn(struct work_struct *w) { }
static void both_fn(struct work_struct *w) { }
static void odd_fn(struct work_struct *w) { }
static void delayed_fn(struct work_struct *w) { }

int wqt_setup(struct wqt_dev *dev, struct workqueue_struct *given)
{
	dev->wq = alloc_workqueue("wqt", 0, 0);
	dev->other_wq = given;
	INIT_WORK(&dev->plain, plain_fn);
	INIT_WORK(&dev->both, both_fn);
	INIT_WORK(&dev->odd, odd_fn);
	INIT_DELAYED_WORK(&dev->delayed, delayed_fn);
	return dev->wq ? 0 : -1;
}

void wqt_kick(struct wqt_dev *dev)
{
	queue_work(dev->wq, &dev->plain);
	queue_work(dev->wq, &dev->both);
	schedule_work(&dev->both);
	queue_work(dev->other_wq, &dev->odd);
	queue_delayed_work(dev->wq, &dev->delayed, 10);
}

void wqt_stop(struct wqt_dev *dev)
{
	destroy_workqueue(dev->other_wq);
	destroy_workqueue(dev->wq);
}
