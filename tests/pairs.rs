//! The pairs analysis with the shipped serialisation rules
//! (kernel-models/serialisation/), on small drivers written against the real
//! 6.12 API: specific pairs removed by specific rules, and specific pairs
//! kept because the kernel does not serialise them. Also: the rules' data
//! (every selected field exists in the 6.12 headers, every rule names its
//! kernel and a kernel source file) and malformed rules rejected with a
//! clear message.
//!
//! The driver tests need the kernel headers scripts/setup.sh fetches.

use racewatch::analyses::pairs::classify_pairs;
use racewatch::frontend::entry_points::DriverEntryPoints;
use racewatch::frontend::flags::{FlagOptions, FlagSource};
use racewatch::models::{KernelModels, ModelError, Relation, Scope};
use racewatch::pipeline::Session;
use std::path::PathBuf;

fn session() -> Session {
    let options = FlagOptions::default();
    let source = FlagSource::resolve(&options)
        .unwrap_or_else(|e| panic!("{e:?}\nthe tests need the kernel headers: run scripts/setup.sh"));
    Session { models: KernelModels::embedded().expect("built-in models are valid"), options, source, jobs: 1 }
}

/// Writes `source` to a scratch file and extracts its entry points.
fn analyse(session: &Session, name: &str, source: &str) -> DriverEntryPoints {
    let dir = std::env::temp_dir().join(format!("racewatch-pairs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, source).unwrap();
    let mut results = session.entry_points(&[file]);
    match results.remove(0).outcome {
        Ok(d) => d,
        Err(e) => panic!("{name} does not compile against the 6.12 headers: {e:?}"),
    }
}

/// What happened to the pair of the two named functions: `None` kept,
/// `Some(rules)` removed by those rules.
fn verdict(session: &Session, d: &DriverEntryPoints, a: &str, b: &str) -> Option<Vec<String>> {
    let index = |f: &str| {
        d.entry_points.iter().position(|e| e.function == f).unwrap_or_else(|| panic!("{f} is not an entry point"))
    };
    let (i, j) = (index(a), index(b));
    let (first, second) = (i.min(j), i.max(j));
    let pairs = classify_pairs(d, &session.models.serialisation);
    if pairs.kept.iter().any(|p| p.first == first && p.second == second) {
        return None;
    }
    let removed = pairs.removed.iter().find(|r| r.pair.first == first && r.pair.second == second).expect("every pair is kept or removed");
    Some(removed.rules.iter().map(|r| r.name.clone()).collect())
}

/// Asserts each pair's verdict: `&[]` for kept, else the removing rules.
fn check(session: &Session, d: &DriverEntryPoints, cases: &[(&str, &str, &[&str])]) {
    let mut problems = Vec::new();
    for (a, b, expected) in cases {
        let got = verdict(session, d, a, b).unwrap_or_default();
        if got != *expected {
            problems.push(format!("({a}, {b}): expected {expected:?}, got {got:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

const KEPT: &[&str] = &[];

/// The pairs of a driver as `racewatch check` classifies them: lowered, so
/// that the rules' `unless-reaches` and `unless-called` apply.
struct LoweredPairs {
    /// The entry points' functions, by index.
    functions: Vec<String>,
    /// The rules removing each pair (first index ≤ second).
    removed: std::collections::HashMap<(usize, usize), Vec<String>>,
}

impl LoweredPairs {
    fn of(session: &Session, name: &str, source: &str) -> LoweredPairs {
        use racewatch::analyses::pairs::{classify_pairs_exempt, reach_exemptions};
        let dir = std::env::temp_dir().join(format!("racewatch-pairs-lowered-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(name);
        std::fs::write(&file, source).unwrap();
        let (d, lowered, _) = session.lower(&file, racewatch::frontend::lower::Roots::EntryPoints).expect("lowers");
        let exempt = reach_exemptions(&d, &lowered.program);
        let pairs = classify_pairs_exempt(&d, &session.models.serialisation, &exempt);
        let removed = pairs.removed.iter().map(|r| ((r.pair.first, r.pair.second), r.rules.iter().map(|r| r.name.clone()).collect())).collect();
        LoweredPairs { functions: d.entry_points.iter().map(|e| e.function.clone()).collect(), removed }
    }

    /// The rules removing the pair of `a` and `b` (none: kept).
    fn rules(&self, a: &str, b: &str) -> Vec<String> {
        let index = |f: &str| self.functions.iter().position(|g| g == f).unwrap_or_else(|| panic!("{f} is not an entry point"));
        let (i, j) = (index(a), index(b));
        self.removed.get(&(i.min(j), i.max(j))).cloned().unwrap_or_default()
    }
}

const NET_DRIVER: &str = r#"// A PCI network driver exercising the net, device-lock and runtime-PM rules.
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>

struct nr_priv {
	struct net_device *ndev;
	struct napi_struct napi;
	struct work_struct reset_work;
	u64 packets;
	u32 msg;
};

static irqreturn_t nr_irq(int irq, void *data)
{
	struct nr_priv *p = data;

	napi_schedule(&p->napi);
	return IRQ_HANDLED;
}

static int nr_poll(struct napi_struct *napi, int budget)
{
	struct nr_priv *p = container_of(napi, struct nr_priv, napi);

	p->packets++;
	napi_complete_done(napi, 0);
	return 0;
}

static int nr_open(struct net_device *ndev) { netif_start_queue(ndev); return 0; }
static int nr_stop(struct net_device *ndev) { netif_stop_queue(ndev); return 0; }

static netdev_tx_t nr_start_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct nr_priv *p = netdev_priv(ndev);

	p->packets++;
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static void nr_get_stats64(struct net_device *ndev, struct rtnl_link_stats64 *s)
{
	struct nr_priv *p = netdev_priv(ndev);

	s->tx_packets = p->packets;
}

static void nr_set_rx_mode(struct net_device *ndev) { }
static void nr_tx_timeout(struct net_device *ndev, unsigned int q) { }
static int nr_change_mtu(struct net_device *ndev, int mtu) { WRITE_ONCE(ndev->mtu, mtu); return 0; }
static int nr_eth_ioctl(struct net_device *ndev, struct ifreq *r, int cmd) { return -EOPNOTSUPP; }

/* Registered both as ndo_uninit (under RTNL) and ndo_set_rx_mode (not). */
static void nr_refresh(struct net_device *ndev) { }
static void nr_reset_work(struct work_struct *w) { }

static const struct net_device_ops nr_netdev_ops = {
	.ndo_open = nr_open,
	.ndo_stop = nr_stop,
	.ndo_start_xmit = nr_start_xmit,
	.ndo_get_stats64 = nr_get_stats64,
	.ndo_set_rx_mode = nr_set_rx_mode,
	.ndo_tx_timeout = nr_tx_timeout,
	.ndo_change_mtu = nr_change_mtu,
	.ndo_eth_ioctl = nr_eth_ioctl,
	.ndo_set_mac_address = eth_mac_addr,
};

static const struct net_device_ops nr_vf_netdev_ops = {
	.ndo_uninit = nr_refresh,
	.ndo_set_rx_mode = nr_refresh,
};

static void nr_get_drvinfo(struct net_device *ndev, struct ethtool_drvinfo *i) { }
static u32 nr_get_link(struct net_device *ndev) { return 1; }
static u32 nr_get_msglevel(struct net_device *ndev) { return ((struct nr_priv *)netdev_priv(ndev))->msg; }
static void nr_set_msglevel(struct net_device *ndev, u32 v) { ((struct nr_priv *)netdev_priv(ndev))->msg = v; }
static void nr_get_ringparam(struct net_device *ndev, struct ethtool_ringparam *r,
			     struct kernel_ethtool_ringparam *k, struct netlink_ext_ack *e) { }
static int nr_get_ts_info(struct net_device *ndev, struct kernel_ethtool_ts_info *i) { return 0; }

static const struct ethtool_ops nr_ethtool_ops = {
	.get_drvinfo = nr_get_drvinfo,
	.get_link = nr_get_link,
	.get_msglevel = nr_get_msglevel,
	.set_msglevel = nr_set_msglevel,
	.get_ringparam = nr_get_ringparam,
	.get_ts_info = nr_get_ts_info,
};

static int nr_suspend(struct device *dev) { return 0; }
static int nr_resume(struct device *dev) { return 0; }
static int nr_runtime_suspend(struct device *dev) { return 0; }
static int nr_runtime_resume(struct device *dev) { return 0; }
static int nr_runtime_idle(struct device *dev) { return 0; }

static const struct dev_pm_ops nr_pm_ops = {
	SYSTEM_SLEEP_PM_OPS(nr_suspend, nr_resume)
	RUNTIME_PM_OPS(nr_runtime_suspend, nr_runtime_resume, nr_runtime_idle)
};

static int nr_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct net_device *ndev = alloc_etherdev(sizeof(struct nr_priv));
	struct nr_priv *p;
	int err;

	if (!ndev)
		return -ENOMEM;
	p = netdev_priv(ndev);
	p->ndev = ndev;
	ndev->netdev_ops = pdev->is_virtfn ? &nr_vf_netdev_ops : &nr_netdev_ops;
	ndev->ethtool_ops = &nr_ethtool_ops;
	netif_napi_add(ndev, &p->napi, nr_poll);
	INIT_WORK(&p->reset_work, nr_reset_work);
	pci_set_drvdata(pdev, p);
	err = request_irq(pdev->irq, nr_irq, IRQF_SHARED, "nr", p);
	if (err)
		return err;
	return register_netdev(ndev);
}

static void nr_remove(struct pci_dev *pdev)
{
	struct nr_priv *p = pci_get_drvdata(pdev);

	unregister_netdev(p->ndev);
	free_irq(pdev->irq, p);
	free_netdev(p->ndev);
}

static const struct pci_device_id nr_ids[] = { { PCI_DEVICE(0x1234, 0x5678) }, { } };

static struct pci_driver nr_driver = {
	.name = "nr",
	.id_table = nr_ids,
	.probe = nr_probe,
	.remove = nr_remove,
	.driver.pm = pm_ptr(&nr_pm_ops),
};
module_pci_driver(nr_driver);
MODULE_LICENSE("GPL");
"#;

const DEFERRED_DRIVER: &str = r#"// A platform driver with a misc device, interrupts, timers, work, tasklets.
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pm_runtime.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/timer.h>
#include <linux/hrtimer.h>
#include <linux/workqueue.h>

struct dr_priv {
	struct timer_list poll, retry, watchdog;
	struct hrtimer sample;
	struct work_struct event, flush_a, flush_b;
	struct tasklet_struct rx;
	int irq_a, irq_b, irq_c, irq_t;
	int level;
	int __percpu *pcpu;
};

static struct dr_priv dr;

static irqreturn_t dr_irq_once(int irq, void *d) { dr.level++; return IRQ_HANDLED; }
static irqreturn_t dr_irq_twice(int irq, void *d) { dr.level--; return IRQ_HANDLED; }
static irqreturn_t dr_hardirq(int irq, void *d) { return IRQ_WAKE_THREAD; }
static irqreturn_t dr_thread(int irq, void *d) { dr.level = 0; return IRQ_HANDLED; }
static irqreturn_t dr_percpu(int irq, void *d) { return IRQ_HANDLED; }

static void dr_poll_timer(struct timer_list *t) { dr.level++; }
static void dr_shared_timer(struct timer_list *t) { dr.level++; }
static enum hrtimer_restart dr_sample(struct hrtimer *t) { return HRTIMER_NORESTART; }
static void dr_event(struct work_struct *w) { dr.level++; }
static void dr_flush(struct work_struct *w) { dr.level++; }
static void dr_rx_tasklet(struct tasklet_struct *t) { dr.level++; }

static ssize_t dr_read(struct file *f, char __user *b, size_t n, loff_t *o) { return dr.level; }
static int dr_release(struct inode *i, struct file *f) { dr.level = 0; return 0; }
static const struct file_operations dr_fops = { .owner = THIS_MODULE, .read = dr_read, .release = dr_release };
static struct miscdevice dr_misc = { .minor = MISC_DYNAMIC_MINOR, .name = "dr", .fops = &dr_fops };

static int dr_runtime_suspend(struct device *dev) { return 0; }
static int dr_runtime_resume(struct device *dev) { dr.level = 1; return 0; }
static DEFINE_RUNTIME_DEV_PM_OPS(dr_pm_ops, dr_runtime_suspend, dr_runtime_resume, NULL);

static int dr_probe(struct platform_device *pdev)
{
	int err;

	timer_setup(&dr.poll, dr_poll_timer, 0);
	timer_setup(&dr.retry, dr_shared_timer, 0);
	timer_setup(&dr.watchdog, dr_shared_timer, 0);
	hrtimer_init(&dr.sample, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	dr.sample.function = dr_sample;
	INIT_WORK(&dr.event, dr_event);
	INIT_WORK(&dr.flush_a, dr_flush);
	INIT_WORK(&dr.flush_b, dr_flush);
	tasklet_setup(&dr.rx, dr_rx_tasklet);
	err = devm_request_irq(&pdev->dev, dr.irq_a, dr_irq_once, 0, "dr-a", &dr);
	if (!err)
		err = devm_request_irq(&pdev->dev, dr.irq_b, dr_irq_twice, 0, "dr-b", &dr);
	if (!err)
		err = devm_request_irq(&pdev->dev, dr.irq_c, dr_irq_twice, 0, "dr-c", &dr);
	if (!err)
		err = devm_request_threaded_irq(&pdev->dev, dr.irq_t, dr_hardirq, dr_thread, 0, "dr-t", &dr);
	if (!err)
		err = __request_percpu_irq(dr.irq_c + 1, dr_percpu, 0, "dr-pcpu", dr.pcpu);
	if (err)
		return err;
	pm_runtime_enable(&pdev->dev);
	return misc_register(&dr_misc);
}

static void dr_remove(struct platform_device *pdev)
{
	misc_deregister(&dr_misc);
}

static struct platform_driver dr_driver = {
	.probe = dr_probe,
	.remove_new = dr_remove,
	.driver = { .name = "dr", .pm = pm_ptr(&dr_pm_ops) },
};
module_platform_driver(dr_driver);
MODULE_LICENSE("GPL");
"#;

const BLOCK_NFC_DRIVER: &str = r#"// A block driver and an NFC driver: the disk's open_mutex and the NFC core's device lock.
#include <linux/module.h>
#include <linux/blkdev.h>
#include <net/nfc/nfc.h>

static int bn_users;

static int bn_open(struct gendisk *disk, blk_mode_t mode) { bn_users++; return 0; }
static void bn_release(struct gendisk *disk) { bn_users--; }
static int bn_ioctl(struct block_device *bdev, blk_mode_t mode, unsigned int cmd, unsigned long arg) { return bn_users; }
static void bn_submit_bio(struct bio *bio) { bio_endio(bio); }

static const struct block_device_operations bn_fops = {
	.owner = THIS_MODULE,
	.open = bn_open,
	.release = bn_release,
	.ioctl = bn_ioctl,
	.submit_bio = bn_submit_bio,
};

static int bn_dev_up(struct nfc_dev *dev) { bn_users++; return 0; }
static int bn_dev_down(struct nfc_dev *dev) { bn_users--; return 0; }
static int bn_start_poll(struct nfc_dev *dev, u32 im, u32 tm) { return 0; }
static void bn_stop_poll(struct nfc_dev *dev) { }

static const struct nfc_ops bn_nfc_ops = {
	.dev_up = bn_dev_up,
	.dev_down = bn_dev_down,
	.start_poll = bn_start_poll,
	.stop_poll = bn_stop_poll,
};

static struct gendisk *bn_disk;
static struct nfc_dev *bn_nfc;

static int __init bn_init(void)
{
	bn_disk = blk_alloc_disk(NULL, NUMA_NO_NODE);
	if (IS_ERR(bn_disk))
		return PTR_ERR(bn_disk);
	bn_disk->fops = &bn_fops;
	bn_nfc = nfc_allocate_device(&bn_nfc_ops, NFC_PROTO_JEWEL_MASK, 0, 0);
	if (!bn_nfc)
		return -ENOMEM;
	return add_disk(bn_disk);
}

static void __exit bn_exit(void)
{
	del_gendisk(bn_disk);
	put_disk(bn_disk);
	nfc_free_device(bn_nfc);
}
module_init(bn_init);
module_exit(bn_exit);
MODULE_LICENSE("GPL");
"#;

#[test]
fn net_driver_rtnl_transmit_device_lock_and_runtime_pm() {
    let s = session();
    let d = analyse(&s, "net_rules.c", NET_DRIVER);
    check(
        &s,
        &d,
        &[
            // RTNL: net_device_ops and ethtool_ops that every kernel path calls under it.
            ("nr_open", "nr_stop", &["rtnl"]),
            ("nr_open", "nr_open", &["rtnl"]),
            ("nr_change_mtu", "nr_get_ringparam", &["rtnl"]),
            ("nr_get_msglevel", "nr_set_msglevel", &["rtnl"]),
            // Not under RTNL on every path: kept.
            ("nr_get_stats64", "nr_open", KEPT),
            ("nr_get_stats64", "nr_get_stats64", KEPT),
            ("nr_set_rx_mode", "nr_open", KEPT),
            ("nr_eth_ioctl", "nr_open", KEPT),
            ("nr_get_link", "nr_open", KEPT),
            ("nr_get_drvinfo", "nr_open", KEPT),
            ("nr_get_ts_info", "nr_get_msglevel", KEPT),
            ("nr_start_xmit", "nr_open", KEPT),
            // Registered as ndo_uninit (RTNL) and ndo_set_rx_mode (not): every
            // origin must be covered, so neither rule applies.
            ("nr_refresh", "nr_open", KEPT),
            ("nr_refresh", "nr_refresh", KEPT),
            // The address-list lock, the TX queue lock, the TX global lock: self-pairs only.
            ("nr_set_rx_mode", "nr_set_rx_mode", &["addr-list-lock"]),
            ("nr_start_xmit", "nr_start_xmit", &["tx-queue-lock"]),
            ("nr_tx_timeout", "nr_tx_timeout", &["tx-global-lock"]),
            ("nr_tx_timeout", "nr_start_xmit", KEPT),
            // The TX watchdog runs only between ndo_open's return and ndo_stop.
            ("nr_tx_timeout", "nr_open", &["tx-watchdog-down"]),
            ("nr_tx_timeout", "nr_stop", &["tx-watchdog-down"]),
            // NAPI and the interrupt handler.
            ("nr_poll", "nr_poll", &["napi-not-reentered"]),
            ("nr_irq", "nr_irq", &["irq-handler-not-reentered"]),
            ("nr_irq", "nr_poll", KEPT),
            ("nr_reset_work", "nr_reset_work", &["work-not-reentered"]),
            // The device lock: probe and the system-sleep callbacks, not runtime PM.
            ("nr_probe", "nr_probe", &["device-lock"]),
            ("nr_probe", "nr_suspend", &["device-lock", "probe-blocked-in-sleep"]),
            ("nr_suspend", "nr_resume", &["device-lock", "system-sleep-phases"]),
            ("nr_suspend", "nr_runtime_resume", KEPT),
            ("nr_probe", "nr_runtime_suspend", KEPT),
            ("nr_probe", "nr_open", KEPT),
            // Runtime PM: suspend and resume exclude each other, idle only itself.
            ("nr_runtime_suspend", "nr_runtime_resume", &["runtime-pm-status"]),
            ("nr_runtime_resume", "nr_runtime_resume", &["runtime-pm-status"]),
            ("nr_runtime_idle", "nr_runtime_idle", &["runtime-idle-once"]),
            ("nr_runtime_idle", "nr_runtime_suspend", KEPT),
            // module_init runs once, but concurrently with probe.
            ("nr_driver_init", "nr_driver_init", &["module-init-once"]),
            ("nr_driver_init", "nr_probe", KEPT),
            // Exit entry points run alongside the callbacks they have not
            // quiesced: an ndo_open while a remove runs (unbind), the IRQ
            // handler during module exit until free_irq. Remove holds the
            // device lock, so it never overlaps probe.
            ("nr_remove", "nr_open", KEPT),
            ("nr_remove", "nr_probe", &["device-lock"]),
            ("nr_driver_exit", "nr_irq", KEPT),
        ],
    );
}

#[test]
fn deferred_callbacks_are_serialised_per_object_registered_once() {
    let s = session();
    let d = analyse(&s, "deferred_rules.c", DEFERRED_DRIVER);
    check(
        &s,
        &d,
        &[
            // One line: never on two CPUs at once. The same handler on two lines: may be.
            ("dr_irq_once", "dr_irq_once", &["irq-handler-not-reentered"]),
            ("dr_irq_twice", "dr_irq_twice", KEPT),
            ("dr_irq_once", "dr_irq_twice", KEPT),
            ("dr_irq_once", "dr_read", KEPT),
            // A per-CPU interrupt runs on every CPU at once.
            ("dr_percpu", "dr_percpu", KEPT),
            // The primary handler runs again while its thread runs.
            ("dr_hardirq", "dr_hardirq", &["irq-handler-not-reentered"]),
            ("dr_thread", "dr_thread", &["irq-thread-not-reentered"]),
            ("dr_hardirq", "dr_thread", KEPT),
            // One timer, one hrtimer, one work item, one tasklet: never on two CPUs.
            ("dr_poll_timer", "dr_poll_timer", &["timer-not-reentered"]),
            ("dr_sample", "dr_sample", &["timer-not-reentered"]),
            ("dr_event", "dr_event", &["work-not-reentered"]),
            ("dr_rx_tasklet", "dr_rx_tasklet", &["tasklet-not-reentered"]),
            // The same function for two timers or two work items: two objects.
            ("dr_shared_timer", "dr_shared_timer", KEPT),
            ("dr_flush", "dr_flush", KEPT),
            ("dr_poll_timer", "dr_event", KEPT),
            // File operations: per open file only, so nothing is removed.
            ("dr_read", "dr_read", KEPT),
            ("dr_read", "dr_release", KEPT),
            ("dr_release", "dr_release", KEPT),
            // Runtime PM takes no device lock.
            ("dr_runtime_resume", "dr_read", KEPT),
            ("dr_runtime_resume", "dr_probe", KEPT),
            ("dr_runtime_suspend", "dr_runtime_resume", &["runtime-pm-status"]),
            ("dr_probe", "dr_probe", &["device-lock"]),
            // Remove runs alongside a tasklet it has not killed.
            ("dr_remove", "dr_rx_tasklet", KEPT),
        ],
    );
}

#[test]
fn block_open_release_and_nfc_ops() {
    let s = session();
    let d = analyse(&s, "blk_nfc_rules.c", BLOCK_NFC_DRIVER);
    check(
        &s,
        &d,
        &[
            ("bn_open", "bn_release", &["disk-open-mutex"]),
            ("bn_open", "bn_open", &["disk-open-mutex"]),
            ("bn_release", "bn_release", &["disk-open-mutex"]),
            ("bn_open", "bn_ioctl", KEPT),
            ("bn_ioctl", "bn_ioctl", KEPT),
            ("bn_submit_bio", "bn_release", KEPT),
            // The whole structure selected: every nfc_ops callback.
            ("bn_dev_up", "bn_dev_down", &["nfc-device-lock"]),
            ("bn_start_poll", "bn_stop_poll", &["nfc-device-lock"]),
            ("bn_start_poll", "bn_start_poll", &["nfc-device-lock"]),
            ("bn_dev_up", "bn_open", KEPT),
            ("bn_init", "bn_dev_up", KEPT),
            ("bn_init", "bn_init", &["module-init-once"]),
        ],
    );
}

const CORE_LOCKS_DRIVER: &str = r#"// Callbacks the kernel runs under its own locks: netpoll, MDIO, watchdog, NFC digital.
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/phy.h>
#include <linux/watchdog.h>
#include <net/nfc/digital.h>

static int cl_open(struct net_device *ndev) { return 0; }
static int cl_stop(struct net_device *ndev) { return 0; }
static netdev_tx_t cl_xmit(struct sk_buff *skb, struct net_device *ndev) { return NETDEV_TX_OK; }
static void cl_tx_timeout(struct net_device *ndev, unsigned int q) { }
static void cl_poll_controller(struct net_device *ndev) { }

static const struct net_device_ops cl_netdev_ops = {
	.ndo_open = cl_open,
	.ndo_stop = cl_stop,
	.ndo_start_xmit = cl_xmit,
	.ndo_tx_timeout = cl_tx_timeout,
	.ndo_poll_controller = cl_poll_controller,
};

static int cl_mdio_read(struct mii_bus *bus, int addr, int reg) { return 0; }
static int cl_mdio_write(struct mii_bus *bus, int addr, int reg, u16 val) { return 0; }
static int cl_mdio_reset(struct mii_bus *bus) { return 0; }

static int cl_wd_start(struct watchdog_device *wdd) { return 0; }
static int cl_wd_stop(struct watchdog_device *wdd) { return 0; }
static int cl_wd_ping(struct watchdog_device *wdd) { return 0; }
static unsigned int cl_wd_status(struct watchdog_device *wdd) { return 0; }
static int cl_wd_set_timeout(struct watchdog_device *wdd, unsigned int t) { return 0; }
static unsigned int cl_wd_get_timeleft(struct watchdog_device *wdd) { return 0; }
static long cl_wd_ioctl(struct watchdog_device *wdd, unsigned int cmd, unsigned long arg) { return 0; }

static const struct watchdog_ops cl_wd_ops = {
	.owner = THIS_MODULE,
	.start = cl_wd_start,
	.stop = cl_wd_stop,
	.ping = cl_wd_ping,
	.status = cl_wd_status,
	.set_timeout = cl_wd_set_timeout,
	.get_timeleft = cl_wd_get_timeleft,
	.ioctl = cl_wd_ioctl,
};

static int cl_in_send(struct nfc_digital_dev *d, struct sk_buff *skb, u16 t, nfc_digital_cmd_complete_t cb, void *arg) { return 0; }
static int cl_tg_send(struct nfc_digital_dev *d, struct sk_buff *skb, u16 t, nfc_digital_cmd_complete_t cb, void *arg) { return 0; }
static int cl_tg_listen(struct nfc_digital_dev *d, u16 t, nfc_digital_cmd_complete_t cb, void *arg) { return 0; }
static int cl_configure(struct nfc_digital_dev *d, int type, int param) { return 0; }
static int cl_switch_rf(struct nfc_digital_dev *d, bool on) { return 0; }
static void cl_abort(struct nfc_digital_dev *d) { }

static const struct nfc_digital_ops cl_nfc_ops = {
	.in_configure_hw = cl_configure,
	.in_send_cmd = cl_in_send,
	.tg_configure_hw = cl_configure,
	.tg_send_cmd = cl_tg_send,
	.tg_listen = cl_tg_listen,
	.switch_rf = cl_switch_rf,
	.abort_cmd = cl_abort,
};

static struct watchdog_device cl_wdd = { .ops = &cl_wd_ops };

static int cl_probe(struct platform_device *pdev)
{
	struct net_device *ndev = devm_alloc_etherdev(&pdev->dev, 0);
	struct mii_bus *bus = devm_mdiobus_alloc(&pdev->dev);
	struct nfc_digital_dev *ddev;

	if (!ndev || !bus)
		return -ENOMEM;
	ndev->netdev_ops = &cl_netdev_ops;
	bus->read = cl_mdio_read;
	bus->write = cl_mdio_write;
	bus->reset = cl_mdio_reset;
	ddev = nfc_digital_allocate_device(&cl_nfc_ops, NFC_PROTO_NFC_DEP_MASK, 0, 0, 0);
	if (!ddev)
		return -ENOMEM;
	return devm_watchdog_register_device(&pdev->dev, &cl_wdd);
}

static struct platform_driver cl_driver = { .probe = cl_probe, .driver.name = "cl" };
module_platform_driver(cl_driver);
MODULE_LICENSE("GPL");
"#;

#[test]
fn kernel_locks_around_netpoll_mdio_watchdog_and_nfc_digital_commands() {
    let s = session();
    let d = analyse(&s, "core_locks.c", CORE_LOCKS_DRIVER);
    check(
        &s,
        &d,
        &[
            // netpoll's dev_lock and the TX watchdog against open and stop.
            ("cl_poll_controller", "cl_open", &["netpoll-dev-lock"]),
            ("cl_poll_controller", "cl_stop", &["netpoll-dev-lock"]),
            ("cl_poll_controller", "cl_poll_controller", KEPT),
            ("cl_poll_controller", "cl_tx_timeout", KEPT),
            ("cl_poll_controller", "cl_xmit", KEPT),
            ("cl_tx_timeout", "cl_open", &["tx-watchdog-down"]),
            ("cl_tx_timeout", "cl_stop", &["tx-watchdog-down"]),
            // Transmit is not ordered against open or stop (pktgen, direct xmit, dismantle).
            ("cl_xmit", "cl_open", KEPT),
            ("cl_xmit", "cl_stop", KEPT),
            // The MDIO bus lock: read and write, not reset.
            ("cl_mdio_read", "cl_mdio_write", &["mdio-bus-lock"]),
            ("cl_mdio_read", "cl_mdio_read", &["mdio-bus-lock"]),
            ("cl_mdio_reset", "cl_mdio_read", KEPT),
            // The watchdog core's mutex: not start, stop or ping.
            ("cl_wd_status", "cl_wd_set_timeout", &["watchdog-core-lock"]),
            ("cl_wd_get_timeleft", "cl_wd_ioctl", &["watchdog-core-lock"]),
            ("cl_wd_set_timeout", "cl_wd_set_timeout", &["watchdog-core-lock"]),
            ("cl_wd_start", "cl_wd_status", KEPT),
            ("cl_wd_ping", "cl_wd_set_timeout", KEPT),
            ("cl_wd_stop", "cl_wd_ioctl", KEPT),
            // NFC digital: the command operations only.
            ("cl_in_send", "cl_tg_send", &["nfc-digital-cmd-work"]),
            ("cl_tg_listen", "cl_in_send", &["nfc-digital-cmd-work"]),
            ("cl_in_send", "cl_in_send", &["nfc-digital-cmd-work"]),
            ("cl_abort", "cl_in_send", KEPT),
            // abort_cmd only under the NFC device lock: with itself only.
            ("cl_abort", "cl_abort", &["nfc-digital-abort-device-lock"]),
            ("cl_abort", "cl_switch_rf", KEPT),
            ("cl_configure", "cl_tg_send", KEPT),
            ("cl_switch_rf", "cl_tg_listen", KEPT),
        ],
    );
    // The MDIO rule's operations run holding the bus's mdio_lock.
    let m = &s.models.serialisation;
    let mdio = m.iter().find(|r| r.name == "mdio-bus-lock").expect("the MDIO rule");
    assert_eq!(mdio.holds_lock.as_deref(), Some("struct mii_bus.mdio_lock"));
}

const SLEEP_DRIVER: &str = r#"// A misc device whose system-sleep callbacks touch what its file operations touch.
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/freezer.h>
#include <linux/wait.h>
#include <linux/fs.h>

static DECLARE_WAIT_QUEUE_HEAD(sl_wait);
static int sl_level, sl_ready;

static ssize_t sl_read(struct file *f, char __user *b, size_t n, loff_t *p)
{
	if (wait_event_freezable(sl_wait, sl_ready))
		return -ERESTARTSYS;
	return sl_level;
}

static ssize_t sl_write(struct file *f, const char __user *b, size_t n, loff_t *p)
{
	sl_level = n;
	return n;
}

static void sl_settle(void)
{
	try_to_freeze();
}

static long sl_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	sl_settle();
	return sl_level;
}

static int sl_release(struct inode *i, struct file *f)
{
	return sl_level;
}

static const struct file_operations sl_fops = {
	.owner = THIS_MODULE,
	.read = sl_read,
	.write = sl_write,
	.unlocked_ioctl = sl_ioctl,
	.release = sl_release,
};

static struct miscdevice sl_misc = { .minor = MISC_DYNAMIC_MINOR, .name = "sl", .fops = &sl_fops };

static int sl_suspend(struct device *dev) { sl_level = 0; return 0; }
static int sl_resume(struct device *dev) { sl_level = 1; return 0; }
static int sl_runtime_resume(struct device *dev) { sl_level = 2; return 0; }

static const struct dev_pm_ops sl_pm = {
	SYSTEM_SLEEP_PM_OPS(sl_suspend, sl_resume)
	RUNTIME_PM_OPS(NULL, sl_runtime_resume, NULL)
};

static int sl_probe(struct platform_device *pdev) { return misc_register(&sl_misc); }

static struct platform_driver sl_driver = { .probe = sl_probe, .driver = { .name = "sl", .pm = &sl_pm } };
module_platform_driver(sl_driver);
MODULE_LICENSE("GPL");
"#;

#[test]
fn system_sleep_against_user_space_unless_the_entry_point_sleeps_freezably() {
    let s = session();
    let lowered = LoweredPairs::of(&s, "sleep.c", SLEEP_DRIVER);
    let rules = |a: &str, b: &str| lowered.rules(a, b);
    let rule = vec!["system-sleep-frozen-user-space".to_string()];
    assert_eq!(rules("sl_write", "sl_resume"), rule);
    assert_eq!(rules("sl_write", "sl_suspend"), rule);
    assert!(rules("sl_read", "sl_resume").is_empty(), "sl_read sleeps in wait_event_freezable: the pair stays");
    assert!(rules("sl_ioctl", "sl_suspend").is_empty(), "sl_ioctl reaches try_to_freeze through sl_settle: the pair stays");
    assert!(rules("sl_release", "sl_resume").is_empty(), "release runs from __fput, also in kernel workers");
    assert!(rules("sl_write", "sl_runtime_resume").is_empty(), "runtime PM runs whatever user space does");
    // Without the lowered code (`racewatch pairs`) the exemption is unknown,
    // so the rule removes nothing.
    let d2 = analyse(&s, "sleep_pairs.c", SLEEP_DRIVER);
    assert_eq!(verdict(&s, &d2, "sl_write", "sl_resume"), None);
}

#[test]
fn every_rule_names_its_kernel_a_kernel_source_file_and_a_scope() {
    let m = KernelModels::embedded().unwrap();
    assert!(m.serialisation.len() >= 10, "{} rules", m.serialisation.len());
    for r in &m.serialisation {
        assert_eq!(r.kernel, "6.12", "{}", r.name);
        let names_source = r.reason.split_whitespace().any(|w| w.contains('/') && (w.contains(".c") || w.contains(".h") || w.contains(".rst")));
        assert!(names_source, "{}: the reason should name the kernel file that guarantees it", r.name);
        if r.max_registrations.is_some() {
            assert_eq!(r.relation, Relation::SelfPair, "{}", r.name);
        }
    }
    let rule = |name: &str| m.serialisation.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("no rule {name}"));
    assert_eq!(rule("rtnl").scope, Scope::Global);
    assert_eq!(rule("device-lock").scope, Scope::Device);
    for name in ["irq-handler-not-reentered", "timer-not-reentered", "work-not-reentered", "tasklet-not-reentered", "napi-not-reentered"] {
        assert_eq!((rule(name).relation, rule(name).max_registrations, rule(name).scope), (Relation::SelfPair, Some(1), Scope::Object), "{name}");
    }
}

#[test]
fn every_selected_field_exists_in_the_6_12_headers() {
    // A misspelt field of a structure with a default kind would be a rule
    // that silently never applies: compile a use of every one.
    let s = session();
    let mut body = String::new();
    for r in &s.models.serialisation {
        for sel in r.selected.iter().chain(&r.partners) {
            match (&sel.record, &sel.field) {
                (Some(record), Some(field)) => body.push_str(&format!("\t(void)sizeof(((struct {record} *)0)->{field}); /* {} */\n", r.name)),
                (Some(record), None) => body.push_str(&format!("\t(void)sizeof(struct {record}); /* {} */\n", r.name)),
                _ => {}
            }
        }
    }
    assert!(body.lines().count() > 80, "{body}");
    let source = format!(
        "#include <linux/module.h>\n#include <linux/device.h>\n#include <linux/pci.h>\n#include <linux/platform_device.h>\n\
         #include <linux/usb.h>\n#include <linux/i2c.h>\n#include <linux/spi/spi.h>\n#include <linux/pm.h>\n\
         #include <linux/netdevice.h>\n#include <linux/ethtool.h>\n#include <linux/blkdev.h>\n#include <linux/fs.h>\n#include <net/nfc/nfc.h>\n\
         #include <linux/timer.h>\n#include <linux/hrtimer.h>\n#include <linux/workqueue.h>\n\
         #include <net/nfc/digital.h>\n#include <linux/phy.h>\n#include <linux/watchdog.h>\n#include <linux/tty.h>\n#include <linux/usb/serial.h>\n\
         #include <linux/isa.h>\n#include <linux/amba/bus.h>\n#include <linux/auxiliary_bus.h>\n#include <linux/virtio.h>\n#include <linux/pnp.h>\n#include <linux/hid.h>\n\
         #include <linux/acpi.h>\n#include <linux/mmc/sdio_func.h>\n#include <pcmcia/cistpl.h>\n#include <pcmcia/ds.h>\n\
         void rule_fields(void);\nvoid rule_fields(void)\n{{\n{body}}}\n"
    );
    analyse(&s, "rule_fields.c", &source);
}

/// The shipped entry-point models plus one file holding `rules`.
fn load_with(rules: &str) -> Result<KernelModels, ModelError> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernel-models/entry-points");
    let mut files: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    files.sort();
    files.push((PathBuf::from("rules.xml"), format!(r#"<kernel-model kernel="6.12">{rules}</kernel-model>"#)));
    KernelModels::from_files(&files)
}

#[test]
fn a_well_formed_rule_loads() {
    let m = load_with(
        r#"<serialised name="t" pairs="between" scope="device" kernel="6.12" reason="r">
             <select origin="pci_driver.probe"/><select struct="ethtool_ops"/>
             <with call="request_threaded_irq" kind="irq"/><with role="any"/>
           </serialised>"#,
    )
    .unwrap();
    let r = &m.serialisation[0];
    assert_eq!((r.name.as_str(), r.relation, r.scope, r.selected.len(), r.partners.len()), ("t", Relation::Between, Scope::Device, 2, 2));
}

#[test]
fn unless_called_loads_for_a_pair_rule() {
    let m = load_with(
        r#"<serialised name="t" pairs="between" scope="device" kernel="6.12" unless-called="pm_runtime_force_suspend" reason="r">
             <select origin="dev_pm_ops.runtime_suspend"/><with origin="dev_pm_ops.suspend"/>
           </serialised>"#,
    )
    .unwrap();
    let r = &m.serialisation[0];
    assert_eq!((r.relation, r.unless_called.clone()), (Relation::Between, vec!["pm_runtime_force_suspend".to_string()]));
}

#[test]
fn malformed_rules_are_rejected_with_a_clear_message() {
    let head = r#"name="r" kernel="6.12""#;
    let cases: Vec<(String, &str)> = vec![
        (format!(r#"<serialised {head} pairs="both" scope="global"><select kind="irq"/></serialised>"#), "missing field `@reason`"),
        (format!(r#"<serialised {head} pairs="both" scope="global" reason="  "><select kind="irq"/></serialised>"#), "serialised `r`: the reason is empty"),
        (r#"<serialised name="r" pairs="both" scope="global" reason="x"><select kind="irq"/></serialised>"#.into(), "missing field `@kernel`"),
        (format!(r#"<serialised {head} pairs="often" scope="global" reason="x"><select kind="irq"/></serialised>"#), "unknown pairs `often` (expected one of both, between, self, none)"),
        (format!(r#"<serialised {head} pairs="none" scope="device" reason="x"><select kind="irq"/></serialised>"#), "pairs=\"none\" removes no pair, so it needs holds-lock"),
        (
            format!(r#"<serialised {head} pairs="none" scope="device" holds-lock="rtnl" unless-reaches="f" reason="x"><select kind="irq"/></serialised>"#),
            "unless-reaches exempts entry points from removed pairs",
        ),
        (format!(r#"<serialised {head} pairs="both" scope="per-cpu" reason="x"><select kind="irq"/></serialised>"#), "unknown scope `per-cpu`"),
        (format!(r#"<serialised {head} pairs="both" scope="global" reason="x"/>"#), "serialised `r`: no <select>"),
        (format!(r#"<serialised {head} pairs="between" scope="global" reason="x"><select kind="irq"/></serialised>"#), "needs a <with> set"),
        (format!(r#"<serialised {head} pairs="both" scope="global" reason="x"><select kind="irq"/><with kind="timer"/></serialised>"#), "<with> is only for pairs=\"between\""),
        (format!(r#"<serialised {head} pairs="both" scope="global" max-registrations="1" reason="x"><select kind="irq"/></serialised>"#), "max-registrations is only for pairs=\"self\""),
        (format!(r#"<serialised {head} pairs="self" scope="object" max-registrations="0" reason="x"><select kind="irq"/></serialised>"#), "at least 1"),
        (format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><select/></serialised>"#), "it would select nothing"),
        (format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><select kind="softirq"/></serialised>"#), "unknown kind `softirq`"),
        (format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><select role="dying"/></serialised>"#), "unknown role `dying`"),
        (format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><select origin="net_device_ops"/></serialised>"#), "is not of the form struct.field"),
        (format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><select struct="pci_driver" call="request_irq"/></serialised>"#), "never match together"),
        (format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><select origin="a.b" struct="a"/></serialised>"#), "not both"),
        (format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><selekt kind="irq"/></serialised>"#), "unknown field `selekt`"),
        (format!(r#"<serialised {head} pairs="self" scope="object" sccope="x" reason="x"><select kind="irq"/></serialised>"#), "unknown field `@sccope`"),
        (r#"<serialised name="Not Kebab" kernel="6.12" pairs="self" scope="object" reason="x"><select kind="irq"/></serialised>"#.into(), "kebab-case"),
        (format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><select call="request_irqq"/></serialised>"#), "`request_irqq` is not a modelled <registration>"),
        (format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><select origin="timer_list.expires"/></serialised>"#), "the models make no entry point of `timer_list.expires`"),
        (format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><select struct="net_device"/></serialised>"#), "`net_device` is not a modelled <ops-struct>"),
        (
            format!(r#"<serialised {head} pairs="self" scope="object" reason="x"><select kind="irq"/></serialised><serialised {head} pairs="self" scope="object" reason="y"><select kind="timer"/></serialised>"#),
            "serialised `r` is defined twice",
        ),
    ];
    let mut problems = Vec::new();
    for (rule, expected) in &cases {
        match load_with(rule) {
            Ok(_) => problems.push(format!("accepted: {rule}")),
            Err(e) => {
                if e.file.as_path() != std::path::Path::new("rules.xml") || !e.message.contains(expected) {
                    problems.push(format!("{rule}\n  expected `{expected}` in rules.xml, got {}: {}", e.file.display(), e.message));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_registration_in_a_loop_counts_as_many() {
    // `loop_irq` is requested once per line in a loop, `helper_timer` is set
    // up by a helper called from a loop, `once_irq` and `once_timer` once:
    // only the others lose their self-pairs to the object rules
    // (`INIT_DELAYED_WORK`'s `do { } while (0)` is no loop).
    let s = session();
    let d = analyse(
        &s,
        "regloop.c",
        r#"
#include <linux/module.h>
#include <linux/interrupt.h>
#include <linux/timer.h>
static struct timer_list timers[4], single;
static struct delayed_work dwork;
static void once_work(struct work_struct *w) { }
static irqreturn_t loop_irq(int irq, void *dev) { return IRQ_HANDLED; }
static irqreturn_t once_irq(int irq, void *dev) { return IRQ_HANDLED; }
static void helper_timer(struct timer_list *t) { }
static void once_timer(struct timer_list *t) { }
static void setup_one(int i) { timer_setup(&timers[i], helper_timer, 0); }
static int __init m_init(void)
{
	int i, err;
	for (i = 0; i < 4; i++) {
		err = request_irq(10 + i, loop_irq, IRQF_SHARED, "x", &timers[i]);
		if (err)
			return err;
		setup_one(i);
	}
	timer_setup(&single, once_timer, 0);
	INIT_DELAYED_WORK(&dwork, once_work);
	return request_irq(3, once_irq, 0, "y", NULL);
}
module_init(m_init);
MODULE_LICENSE("GPL");
"#,
    );
    let repeated = |f: &str| d.entry_points.iter().find(|e| e.function == f).unwrap().origins.iter().any(|o| o.repeated);
    assert!(repeated("loop_irq") && repeated("helper_timer"));
    assert!(!repeated("once_irq") && !repeated("once_timer") && !repeated("once_work"));
    check(
        &s,
        &d,
        &[
            ("loop_irq", "loop_irq", &[]),
            ("helper_timer", "helper_timer", &[]),
            ("once_irq", "once_irq", &["irq-handler-not-reentered"]),
            ("once_timer", "once_timer", &["timer-not-reentered"]),
            ("once_work", "once_work", &["work-not-reentered"]),
        ],
    );
}

const PHASES_DRIVER: &str = r#"// A platform watchdog with late/early sleep callbacks and an ISA card.
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/isa.h>
#include <linux/pm.h>
#include <linux/watchdog.h>

static int ph_state;

static int ph_suspend_late(struct device *dev) { ph_state = 1; return 0; }
static int ph_resume_early(struct device *dev) { ph_state = 2; return 0; }
static int ph_suspend(struct device *dev) { ph_state = 3; return 0; }
static int ph_runtime_suspend(struct device *dev) { ph_state = 4; return 0; }
static int ph_both(struct device *dev) { ph_state = 5; return 0; }

static const struct dev_pm_ops ph_pm = {
	.suspend_late = ph_suspend_late,
	.resume_early = ph_resume_early,
	.suspend = ph_suspend,
	.runtime_suspend = ph_runtime_suspend,
	.freeze_noirq = ph_both,
	.runtime_resume = ph_both,
};

static int ph_set_timeout(struct watchdog_device *wdd, unsigned int t) { wdd->timeout = t; return 0; }
static int ph_start(struct watchdog_device *wdd) { return 0; }
static const struct watchdog_ops ph_wdt_ops = {
	.owner = THIS_MODULE,
	.start = ph_start,
	.set_timeout = ph_set_timeout,
};
static int ph_start2(struct watchdog_device *wdd) { ph_state = 9; return 0; }
static int ph_ping2(struct watchdog_device *wdd) { return 0; }
static const struct watchdog_ops ph_wdt_ops2 = {
	.owner = THIS_MODULE,
	.start = ph_start2,
	.ping = ph_ping2,
};

static int ph_probe(struct platform_device *pdev) { return 0; }
static struct platform_driver ph_driver = {
	.probe = ph_probe,
	.driver = { .name = "ph", .pm = &ph_pm },
};

static int ph_isa_probe(struct device *dev, unsigned int id) { ph_state = 6; return 0; }
static void ph_isa_remove(struct device *dev, unsigned int id) { ph_state = 7; }
static int ph_isa_match(struct device *dev, unsigned int id) { return ph_state == 0; }
static int ph_isa_suspend(struct device *dev, unsigned int id, pm_message_t state) { ph_state = 8; return 0; }
static struct isa_driver ph_isa_driver = {
	.match = ph_isa_match,
	.probe = ph_isa_probe,
	.remove = ph_isa_remove,
	.suspend = ph_isa_suspend,
	.driver = { .name = "ph-isa" },
};

static int __init ph_init(void)
{
	int ret = platform_driver_register(&ph_driver);
	if (ret)
		return ret;
	return isa_register_driver(&ph_isa_driver, 2);
}
module_init(ph_init);
MODULE_LICENSE("GPL");
"#;

#[test]
fn system_sleep_phases_of_one_device_and_bus_probes_under_the_device_lock() {
    let s = session();
    let lowered = LoweredPairs::of(&s, "phases.c", PHASES_DRIVER);
    let cases: &[(&str, &str, &[&str])] = &[
        // The late and early callbacks take no device lock; the phases
        // still never overlap for one device.
        ("ph_suspend_late", "ph_suspend_late", &["system-sleep-phases"]),
        ("ph_suspend_late", "ph_resume_early", &["system-sleep-phases"]),
        ("ph_suspend", "ph_suspend_late", &["system-sleep-phases"]),
        ("ph_suspend", "ph_suspend", &["device-lock", "system-sleep-phases"]),
        // Registered as a runtime callback too: no sleep rule applies.
        ("ph_both", "ph_suspend_late", KEPT),
        // Runtime suspend against the sleep phases: the runtime-PM rule.
        ("ph_runtime_suspend", "ph_suspend_late", &["runtime-suspend-blocked-in-sleep"]),
        // The ISA bus's probe, remove and legacy suspend run under the
        // device lock; match does not (__driver_attach calls it first).
        ("ph_isa_probe", "ph_isa_remove", &["device-lock"]),
        ("ph_isa_probe", "ph_isa_probe", &["device-lock"]),
        ("ph_isa_suspend", "ph_isa_probe", &["device-lock", "probe-blocked-in-sleep"]),
        // No probe runs from dpm_prepare to dpm_complete (device_block_probing),
        // for any device: the late phases included.
        ("ph_probe", "ph_suspend_late", &["probe-blocked-in-sleep"]),
        ("ph_isa_probe", "ph_resume_early", &["probe-blocked-in-sleep"]),
        ("ph_both", "ph_probe", KEPT),
        ("ph_isa_suspend", "ph_suspend_late", &["system-sleep-phases"]),
        ("ph_isa_match", "ph_isa_probe", KEPT),
        // The watchdog core calls set_timeout only from its ioctl, never
        // during system sleep; start also from its keepalive worker.
        ("ph_set_timeout", "ph_suspend_late", &["system-sleep-frozen-user-space"]),
        ("ph_start", "ph_suspend_late", KEPT),
        // start with itself: only when its watchdog_ops has a ping (else
        // the keepalive worker calls start beside watchdog_open's).
        ("ph_start", "ph_start", KEPT),
        ("ph_start2", "ph_start2", &["watchdog-start-with-ping"]),
        ("ph_start2", "ph_ping2", KEPT),
        // With a ping, only open and the ioctl call start: never during
        // system sleep (the sleep side needs no ping of its own).
        ("ph_start2", "ph_suspend_late", &["system-sleep-frozen-watchdog-start"]),
        ("ph_start2", "ph_suspend", &["system-sleep-frozen-watchdog-start"]),
        ("ph_ping2", "ph_suspend_late", KEPT),
    ];
    let problems: Vec<String> = cases
        .iter()
        .filter(|(a, b, expected)| lowered.rules(a, b) != *expected)
        .map(|(a, b, expected)| format!("({a}, {b}): expected {expected:?}, got {:?}", lowered.rules(a, b)))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
