// flags: kernel
/*
 * Kernel functions without a call model that register nothing
 * (kernel-models/entry-points/registers-nothing.xml) make no callback
 * live: allocate_resource and dmi_check_system before the timer is armed
 * leave no `live` command, while an unmodelled function does
 * (`live assumed`). class_register makes only the callbacks reachable
 * from its class live, kthread_queue_work only work functions.
 */
#include <linux/module.h>
#include <linux/ioport.h>
#include <linux/dmi.h>
#include <linux/device/class.h>
#include <linux/kthread.h>
#include <linux/timer.h>

static struct resource rn_res;
static struct timer_list rn_timer;
static struct kthread_worker *rn_worker;
static struct kthread_work rn_work;
static int rn_count;

static void rn_tick(struct timer_list *t) { rn_count++; }
static void rn_job(struct kthread_work *w) { rn_count--; }
static void rn_release(const struct class *cls) { rn_count = 0; }
static const struct class rn_class = { .name = "rn", .class_release = rn_release };
static const struct dmi_system_id rn_dmi[] = { { .ident = "rn" }, { } };
extern void rn_unknown(void);

static int __init rn_init(void)
{
	timer_setup(&rn_timer, rn_tick, 0);
	kthread_init_work(&rn_work, rn_job);
	if (allocate_resource(&iomem_resource, &rn_res, 16, 0, ~0UL, 1, NULL, NULL))
		return -EBUSY;
	dmi_check_system(rn_dmi);
	rn_unknown();
	class_register(&rn_class);
	kthread_queue_work(rn_worker, &rn_work);
	mod_timer(&rn_timer, jiffies + HZ);
	return 0;
}
module_init(rn_init);
