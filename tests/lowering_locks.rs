//! Lock identification of the lowering (src/frontend/lower/locks.rs,
//! calls.rs, stmt.rs): which constant lock each lock operand becomes (by
//! global name, by structure type and offset, as a pseudo lock, through
//! wrappers and specialisation), the lock commands the kernel's lock API
//! lowers to (modes, trylocks, interrupt control), guards and their
//! releases, and the rejected operands (`lock ?`), each on a small driver
//! snippet against the real 6.12 kernel API.
//!
//! behaviour the lowering does not have yet.

mod lowering_support;

use lowering_support::lower;
use std::collections::{BTreeMap, BTreeSet};

/// A set of held-lock lists, for `held_at` comparisons.
fn held(sets: &[&[&str]]) -> BTreeSet<Vec<String>> {
    sets.iter().map(|s| s.iter().map(|n| n.to_string()).collect()).collect()
}

/// Owned strings, for comparing command lists.
fn lines(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn pair(name: &str, kind: &str) -> (String, String) {
    (name.to_string(), kind.to_string())
}

/// `DEFINE_MUTEX(m)` is the lock `m` of kind `mutex`; `DEFINE_SPINLOCK(s)`
/// the lock `s` of kind `spinlock`.
#[test]
fn global_mutex_and_spinlock_are_named_by_their_variables() {
    let l = lower(
        "global-locks",
        r#"
#include <linux/mutex.h>
#include <linux/spinlock.h>
static DEFINE_MUTEX(m);
static DEFINE_SPINLOCK(s);
static int count, total;
void bump(void)
{
	mutex_lock(&m);
	count++;
	mutex_unlock(&m);
	spin_lock(&s);
	total--;
	spin_unlock(&s);
}
"#,
    );
    assert_eq!(l.locks(), vec![pair("m", "mutex"), pair("s", "spinlock")]);
    assert_eq!(l.lock_commands("bump"), lines(&[r#"lock "m";"#, r#"unlock "m";"#, r#"lock "s";"#, r#"unlock "s";"#]));
    assert_eq!(l.held_at("bump", "store \"global count\""), held(&[&["m"]]));
    assert_eq!(l.held_at("bump", "store \"global total\""), held(&[&["s"]]));
}

/// The other lock types of the models: rwlock, rw_semaphore, semaphore,
/// raw spinlock; a lock inside a global structure is named by its path.
#[test]
fn other_lock_types_have_their_kinds() {
    let l = lower(
        "lock-kinds",
        r#"
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/rwsem.h>
#include <linux/semaphore.h>
static DEFINE_RWLOCK(rw);
static DECLARE_RWSEM(sem);
static DEFINE_SEMAPHORE(sema, 1);
static DEFINE_RAW_SPINLOCK(raw);
static struct { int x; struct mutex lock; } state;
void take(void)
{
	write_lock(&rw); write_unlock(&rw);
	down_write(&sem); up_write(&sem);
	down(&sema); up(&sema);
	raw_spin_lock(&raw); raw_spin_unlock(&raw);
	mutex_lock(&state.lock); mutex_unlock(&state.lock);
}
"#,
    );
    assert_eq!(
        l.locks(),
        vec![pair("rw", "rwlock"), pair("sem", "rw-semaphore"), pair("sema", "semaphore"), pair("raw", "spinlock"), pair("state.lock", "mutex")]
    );
}

/// A lock inside a structure reached through a pointer parameter is named
/// by the structure type and the lock's field path; a nested lock by its
/// whole path; two locks of one structure are two locks.
#[test]
fn locks_in_structures_are_named_by_type_and_path() {
    let l = lower(
        "struct-locks",
        r#"
#include <linux/mutex.h>
#include <linux/spinlock.h>
struct wk { int flags; struct mutex mutex; };
struct foo { int a; struct mutex lock; spinlock_t irq_lock; struct wk wk; };
void take(struct foo *f)
{
	mutex_lock(&f->lock);
	mutex_unlock(&(*f).lock);
	spin_lock(&f->irq_lock);
	spin_unlock(&f->irq_lock);
	mutex_lock(&f->wk.mutex);
	f->wk.flags = 1;
	mutex_unlock(&f->wk.mutex);
}
"#,
    );
    assert_eq!(l.locks(), vec![pair("struct foo.lock", "mutex"), pair("struct foo.irq_lock", "spinlock"), pair("struct foo.wk.mutex", "mutex")]);
    assert_eq!(
        l.lock_commands("take"),
        lines(&[
            r#"lock "struct foo.lock";"#,
            r#"unlock "struct foo.lock";"#,
            r#"lock "struct foo.irq_lock";"#,
            r#"unlock "struct foo.irq_lock";"#,
            r#"lock "struct foo.wk.mutex";"#,
            r#"unlock "struct foo.wk.mutex";"#,
        ])
    );
    assert_eq!(l.held_at("take", "store \"struct wk.flags\""), held(&[&["struct foo.wk.mutex"]]));
}

/// A work handler reaching its structure through `container_of` and a
/// function given the structure directly take the same lock.
#[test]
fn container_of_from_a_work_struct_gives_the_same_lock() {
    let l = lower(
        "container-of-lock",
        r#"
#include <linux/mutex.h>
#include <linux/workqueue.h>
struct foo { int a; struct mutex lock; struct work_struct work; };
static void foo_work(struct work_struct *w)
{
	struct foo *f = container_of(w, struct foo, work);
	mutex_lock(&f->lock);
	f->a = 1;
	mutex_unlock(&f->lock);
}
void foo_set(struct foo *f)
{
	mutex_lock(&f->lock);
	f->a = 2;
	mutex_unlock(&f->lock);
}
"#,
    );
    assert_eq!(l.lock_names(), vec!["struct foo.lock"]);
    for f in ["foo_work", "foo_set"] {
        assert_eq!(l.lock_commands(f), lines(&[r#"lock "struct foo.lock";"#, r#"unlock "struct foo.lock";"#]), "{f}");
        assert_eq!(l.held_at(f, "store \"struct foo.a\""), held(&[&["struct foo.lock"]]), "{f}");
    }
}

/// A lock in a net device's private area (`netdev_priv`) is the same lock
/// as through a pointer to the private structure.
#[test]
fn netdev_priv_gives_the_same_lock() {
    let l = lower(
        "netdev-priv-lock",
        r#"
#include <linux/netdevice.h>
#include <linux/spinlock.h>
struct np { int tx_count; spinlock_t lock; };
static netdev_tx_t np_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct np *p = netdev_priv(dev);
	spin_lock(&p->lock);
	p->tx_count++;
	spin_unlock(&p->lock);
	return NETDEV_TX_OK;
}
void np_reset(struct np *p)
{
	spin_lock_bh(&p->lock);
	p->tx_count = 0;
	spin_unlock_bh(&p->lock);
}
"#,
    );
    assert_eq!(l.locks(), vec![pair("struct np.lock", "spinlock")]);
    assert_eq!(l.held_at("np_xmit", "store \"struct np.tx_count\""), held(&[&["struct np.lock"]]));
    assert_eq!(l.held_at("np_reset", "store \"struct np.tx_count\""), held(&[&["struct np.lock"]]));
}

/// A wrapper taking the structure (`foo_lock(struct foo *f)`) is not
/// specialised: its one procedure locks `struct foo.lock`, and both callers
/// call it.
#[test]
fn helper_wrapper_locks_the_structure_lock_for_every_caller() {
    let l = lower(
        "wrapper",
        r#"
#include <linux/mutex.h>
struct foo { int a; struct mutex lock; };
static void foo_lock(struct foo *f) { mutex_lock(&f->lock); }
static void foo_unlock(struct foo *f) { mutex_unlock(&f->lock); }
void one(struct foo *f) { foo_lock(f); f->a = 1; foo_unlock(f); }
void two(struct foo *f) { foo_lock(f); f->a = 2; foo_unlock(f); }
"#,
    );
    assert_eq!(l.lock_names(), vec!["struct foo.lock"]);
    assert_eq!(l.lock_commands("foo_lock"), lines(&[r#"lock "struct foo.lock";"#]));
    assert_eq!(l.lock_commands("foo_unlock"), lines(&[r#"unlock "struct foo.lock";"#]));
    assert_eq!(l.callees("one"), lines(&["foo_lock", "foo_unlock"]));
    assert_eq!(l.callees("two"), lines(&["foo_lock", "foo_unlock"]));
    assert!(l.procedure_names().iter().all(|n| !n.contains("_for_")), "{:?}", l.procedure_names());
    assert!(l.warnings_of("unknown-lock").is_empty(), "{:?}", l.warnings());
}

/// A function taking a lock pointer is specialised per lock its callers
/// pass: one procedure per distinct lock, reused for the same lock.
#[test]
fn lock_pointer_parameter_is_specialised_per_lock() {
    let l = lower(
        "specialise",
        r#"
#include <linux/mutex.h>
struct foo { int a; struct mutex lock; };
static DEFINE_MUTEX(gm);
static void lock_it(struct mutex *m) { mutex_lock(m); }
static void unlock_it(struct mutex *m) { mutex_unlock(m); }
void use(struct foo *a, struct foo *b)
{
	lock_it(&a->lock);
	lock_it(&gm);
	lock_it(&b->lock);
	unlock_it(&gm);
}
"#,
    );
    let callees = l.callees("use");
    assert_eq!(callees.len(), 4);
    assert_eq!(callees[0], callees[2], "the same lock (struct foo.lock) reuses one specialisation");
    assert_ne!(callees[0], callees[1]);
    for c in &callees {
        assert!(c.starts_with("lock_it_for_") || c.starts_with("unlock_it_for_"), "{c}");
    }
    assert_eq!(l.lock_commands(&callees[0]), lines(&[r#"lock "struct foo.lock";"#]));
    assert_eq!(l.lock_commands(&callees[1]), lines(&[r#"lock "gm";"#]));
    assert_eq!(l.lock_commands(&callees[3]), lines(&[r#"unlock "gm";"#]));
    let specialised = l.procedure_names().into_iter().filter(|n| n.contains("_for_")).count();
    assert_eq!(specialised, 3, "lock_it twice, unlock_it once: {:?}", l.procedure_names());
}

/// Specialisation goes through a chain of lock-pointer wrappers: the
/// outer wrapper's parameter binds the inner one's.
#[test]
fn specialisation_follows_wrappers_of_wrappers() {
    let l = lower(
        "specialise-chain",
        r#"
#include <linux/mutex.h>
struct foo { int a; struct mutex lock; };
static DEFINE_MUTEX(gm);
static void lock_it(struct mutex *m) { mutex_lock(m); }
static void outer(struct mutex *m) { lock_it(m); }
void use(struct foo *f) { outer(&f->lock); outer(&gm); }
"#,
    );
    let outer = l.callees("use");
    assert_eq!(outer.len(), 2);
    assert!(outer.iter().all(|o| o.starts_with("outer_for_")), "{outer:?}");
    let inner0 = l.callees(&outer[0]);
    let inner1 = l.callees(&outer[1]);
    assert_eq!(l.lock_commands(&inner0[0]), lines(&[r#"lock "struct foo.lock";"#]));
    assert_eq!(l.lock_commands(&inner1[0]), lines(&[r#"lock "gm";"#]));
}

/// `spin_lock_irqsave` (through `spinlock_check`) and `spin_lock` of one
/// lock are one lock; the irqsave variant saves the interrupt state first.
#[test]
fn spin_lock_irqsave_and_spin_lock_are_one_lock() {
    let l = lower(
        "irqsave",
        r#"
#include <linux/spinlock.h>
struct foo { int a; int b; spinlock_t lock; };
void both(struct foo *dev)
{
	unsigned long flags;
	spin_lock(&dev->lock);
	dev->a = 1;
	spin_unlock(&dev->lock);
	spin_lock_irqsave(&dev->lock, flags);
	dev->b = 2;
	spin_unlock_irqrestore(&dev->lock, flags);
}
"#,
    );
    assert_eq!(l.locks(), vec![pair("struct foo.lock", "spinlock")]);
    let commands = l.lock_commands("both");
    assert_eq!(&commands[..4], lines(&[r#"lock "struct foo.lock";"#, r#"unlock "struct foo.lock";"#, "control irq-save;", r#"lock "struct foo.lock";"#]));
    assert_eq!(commands.len(), 6, "{commands:?}");
    let release: BTreeSet<&String> = commands[4..].iter().collect();
    assert_eq!(release, lines(&["control irq-restore;", r#"unlock "struct foo.lock";"#]).iter().collect());
    assert_eq!(l.held_at("both", "store \"struct foo.b\""), held(&[&["struct foo.lock"]]));
    assert_eq!(l.held_at_return("both"), held(&[&[]]));
}

/// `spin_unlock_irqrestore` releases the lock and then restores the
/// interrupt state (`_raw_spin_unlock_irqrestore`: `do_raw_spin_unlock`,
/// then `local_irq_restore`), as the guard destructors already do;
/// likewise `spin_unlock_irq` and `spin_unlock_bh`.
#[test]
fn releases_unlock_before_restoring_interrupts() {
    let l = lower(
        "release-order",
        r#"
#include <linux/spinlock.h>
struct foo { int a; spinlock_t lock; };
void all(struct foo *dev)
{
	unsigned long flags;
	spin_lock_irqsave(&dev->lock, flags);
	spin_unlock_irqrestore(&dev->lock, flags);
	spin_lock_irq(&dev->lock);
	spin_unlock_irq(&dev->lock);
	spin_lock_bh(&dev->lock);
	spin_unlock_bh(&dev->lock);
}
"#,
    );
    let lock = r#"lock "struct foo.lock";"#;
    let unlock = r#"unlock "struct foo.lock";"#;
    assert_eq!(
        l.lock_commands("all"),
        lines(&[
            "control irq-save;",
            lock,
            unlock,
            "control irq-restore;",
            "control irq-disable;",
            lock,
            unlock,
            "control irq-enable;",
            "control bh-disable;",
            lock,
            unlock,
            "control bh-enable;",
        ])
    );
}

/// `mutex_lock_interruptible` may fail: a trylock whose success variable
/// is exactly "the call returned 0".
#[test]
fn mutex_lock_interruptible_succeeds_exactly_when_it_returns_zero() {
    let l = lower(
        "interruptible",
        r#"
#include <linux/mutex.h>
struct foo { int a; struct mutex lock; };
int set(struct foo *f)
{
	if (mutex_lock_interruptible(&f->lock))
		return 4;
	f->a = 1;
	mutex_unlock(&f->lock);
	return 0;
}
"#,
    );
    let commands = l.commands("set");
    let at = commands.iter().position(|c| c.contains(r#":= trylock "struct foo.lock";"#)).expect("a trylock");
    let ok = commands[at].split(" := ").next().expect("a target").to_string();
    let result = commands[at + 1].strip_prefix("havoc ").and_then(|r| r.strip_suffix(';')).expect("the result is havocked").to_string();
    assert_eq!(commands[at + 2], format!("assume {ok} == ({result} == 0);"));
    assert_eq!(l.held_at("set", "store \"struct foo.a\""), held(&[&[], &["struct foo.lock"]]), "path-insensitively, either");
    assert!(!commands.iter().any(|c| c.starts_with("lock \"")), "no unconditional lock: {commands:?}");
}

/// `mutex_trylock` and `spin_trylock` return 1 when they took the lock;
/// `down_trylock` returns 0 when it did.
#[test]
fn trylocks_return_their_success_value() {
    let l = lower(
        "trylocks",
        r#"
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/semaphore.h>
struct foo { struct mutex m; spinlock_t s; struct semaphore sem; };
int m_try(struct foo *f) { return mutex_trylock(&f->m); }
int s_try(struct foo *f) { return spin_trylock(&f->s); }
int d_try(struct foo *f) { return down_trylock(&f->sem); }
"#,
    );
    for (f, lock, taken, failed) in [("m_try", "struct foo.m", 1, 0), ("s_try", "struct foo.s", 1, 0), ("d_try", "struct foo.sem", 0, 1)] {
        let commands = l.commands(f);
        let at = commands.iter().position(|c| c.ends_with(&format!(":= trylock {lock:?};"))).unwrap_or_else(|| panic!("{f}: {commands:?}"));
        let ok = commands[at].split(" := ").next().expect("a target");
        assert!(commands[at + 1].ends_with(&format!(":= if {ok} then {taken} else {failed};")), "{f}: {}", commands[at + 1]);
    }
    assert_eq!(l.locks(), vec![pair("struct foo.m", "mutex"), pair("struct foo.s", "spinlock"), pair("struct foo.sem", "semaphore")]);
}

/// Readers take (and release) reader-writer locks shared, writers
/// exclusive.
#[test]
fn reader_writer_locks_have_shared_and_exclusive_modes() {
    let l = lower(
        "rw-modes",
        r#"
#include <linux/spinlock.h>
#include <linux/rwsem.h>
struct foo { int a; rwlock_t rw; struct rw_semaphore sem; };
int get(struct foo *f) { int v; read_lock(&f->rw); v = f->a; read_unlock(&f->rw); return v; }
void put(struct foo *f, int v) { write_lock(&f->rw); f->a = v; write_unlock(&f->rw); }
int sget(struct foo *f) { int v; down_read(&f->sem); v = f->a; up_read(&f->sem); return v; }
void sput(struct foo *f, int v) { down_write(&f->sem); f->a = v; up_write(&f->sem); }
int tget(struct foo *f) { return down_read_trylock(&f->sem); }
"#,
    );
    assert_eq!(l.locks(), vec![pair("struct foo.rw", "rwlock"), pair("struct foo.sem", "rw-semaphore")]);
    assert_eq!(l.lock_commands("get")[0], r#"lock.shared "struct foo.rw";"#);
    assert_eq!(l.lock_commands("put")[0], r#"lock "struct foo.rw";"#);
    assert_eq!(l.lock_commands("sget")[0], r#"lock.shared "struct foo.sem";"#);
    assert_eq!(l.lock_commands("sput")[0], r#"lock "struct foo.sem";"#);
    assert_eq!(l.lock_commands("tget"), lines(&[r#"trylock.shared "struct foo.sem";"#]));
    assert_eq!(l.lock_commands("get")[1..], lines(&[r#"unlock.shared "struct foo.rw";"#]), "a shared hold is released shared");
    assert_eq!(l.lock_commands("put")[1..], lines(&[r#"unlock "struct foo.rw";"#]));
    assert_eq!(l.lock_commands("sget")[1..], lines(&[r#"unlock.shared "struct foo.sem";"#]));
    assert_eq!(l.lock_commands("sput")[1..], lines(&[r#"unlock "struct foo.sem";"#]));
    for f in ["get", "put", "sget", "sput"] {
        assert_eq!(l.lock_commands(f).len(), 2, "{f}");
        assert_eq!(l.held_at_return(f), held(&[&[]]), "{f}");
    }
}

/// `rtnl_lock` is the pseudo lock `rtnl`.
#[test]
fn rtnl_lock_is_the_pseudo_lock_rtnl() {
    let l = lower(
        "rtnl",
        r#"
#include <linux/rtnetlink.h>
static int state;
void reconfigure(void) { rtnl_lock(); state = 1; rtnl_unlock(); }
"#,
    );
    assert_eq!(l.locks(), vec![pair("rtnl", "pseudo")]);
    assert_eq!(l.lock_commands("reconfigure"), lines(&[r#"lock "rtnl";"#, r#"unlock "rtnl";"#]));
    assert_eq!(l.held_at("reconfigure", "store \"global state\""), held(&[&["rtnl"]]));
}

/// `guard(rtnl)()` takes `rtnl` and releases it at the end of the scope.
#[test]
fn rtnl_guard_releases_rtnl_at_scope_end() {
    let l = lower(
        "rtnl-guard",
        r#"
#include <linux/rtnetlink.h>
static int state;
void guarded(void) { guard(rtnl)(); state = 2; }
"#,
    );
    assert_eq!(l.locks(), vec![pair("rtnl", "pseudo")]);
    assert_eq!(l.held_at("guarded", "store \"global state\""), held(&[&["rtnl"]]));
    assert_eq!(l.lock_commands("guarded"), lines(&[r#"lock "rtnl";"#, r#"unlock "rtnl";"#]));
    assert_eq!(l.held_at_return("guarded"), held(&[&[]]));
    assert!(l.warnings_of("unknown-lock").is_empty(), "{:?}", l.warnings());
}

/// `guard(irqsave)()` and `guard(preempt)()` record their interrupt and
/// preemption effects at both ends of the scope, and take no lock.
#[test]
fn irq_and_preempt_guards_restore_at_scope_end() {
    let l = lower(
        "irq-guards",
        r#"
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/cleanup.h>
static int state;
void irqs(void) { guard(irqsave)(); state = 2; }
void preempt(void) { guard(preempt)(); state = 3; }
"#,
    );
    assert!(l.lock_names().is_empty());
    assert_eq!(l.lock_commands("irqs"), lines(&["control irq-save;", "control irq-restore;"]));
    assert_eq!(l.lock_commands("preempt"), lines(&["control preempt-disable;", "control preempt-enable;"]));
    assert!(l.warnings_of("external-call").is_empty(), "{:?}", l.warnings());
}

/// `guard(mutex)(&dev->lock)` holds the lock to the end of its scope and
/// releases it before an early return too.
#[test]
fn guard_releases_at_scope_end_and_before_an_early_return() {
    let l = lower(
        "guard",
        r#"
#include <linux/mutex.h>
#include <linux/cleanup.h>
struct foo { int a; int b; struct mutex lock; };
int set(struct foo *f, int x)
{
	guard(mutex)(&f->lock);
	if (x)
		return 5;
	f->a = x;
	return 0;
}
"#,
    );
    assert_eq!(l.locks(), vec![pair("struct foo.lock", "mutex")]);
    assert_eq!(l.held_at("set", "result := 5;"), held(&[&["struct foo.lock"]]));
    assert_eq!(l.held_at("set", "store \"struct foo.a\""), held(&[&["struct foo.lock"]]));
    assert_eq!(l.held_at_return("set"), held(&[&[]]));
    let unlocks = l.lock_commands("set").iter().filter(|c| c.starts_with("unlock")).count();
    assert_eq!(unlocks, 2, "one release per way out");
}

/// A guard in a loop body is released by `continue` and at the end of each
/// iteration; a `goto` out of a guarded block releases it.
#[test]
fn guard_releases_on_continue_and_goto() {
    let l = lower(
        "guard-jumps",
        r#"
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/cleanup.h>
struct foo { int a; int b; struct mutex lock; spinlock_t sl; };
int sum(struct foo *f, int n)
{
	int i, s = 0;
	for (i = 0; i < n; i++) {
		guard(mutex)(&f->lock);
		if (f->a)
			continue;
		s += f->b;
	}
	return s;
}
int jump(struct foo *f)
{
	{
		guard(spinlock)(&f->sl);
		if (f->a)
			goto out;
		f->b = 1;
	}
	f->a = 2;
out:
	return 0;
}
"#,
    );
    assert_eq!(l.held_at("sum", "load \"struct foo.b\""), held(&[&["struct foo.lock"]]));
    assert_eq!(l.held_at_return("sum"), held(&[&[]]));
    assert_eq!(l.held_at("jump", "store \"struct foo.b\""), held(&[&["struct foo.sl"]]));
    assert_eq!(l.held_at("jump", "store \"struct foo.a\""), held(&[&[]]));
    assert_eq!(l.held_at_return("jump"), held(&[&[]]));
}

/// `scoped_guard(mutex, &f->lock) { … }` holds the lock in its block only.
#[test]
fn scoped_guard_holds_the_lock_in_its_block_only() {
    let l = lower(
        "scoped-guard",
        r#"
#include <linux/mutex.h>
#include <linux/cleanup.h>
struct foo { int a; int b; struct mutex lock; };
void set(struct foo *f)
{
	scoped_guard(mutex, &f->lock) {
		f->a = 1;
	}
	f->b = 2;
}
"#,
    );
    assert_eq!(l.held_at("set", "store \"struct foo.a\""), held(&[&["struct foo.lock"]]));
    assert_eq!(l.held_at("set", "store \"struct foo.b\""), held(&[&[]]));
    assert_eq!(l.held_at_return("set"), held(&[&[]]));
}

/// `scoped_guard(spinlock_irqsave, &l)` in a loop, left by `break` (which
/// leaves the scoped_guard's own hidden loop, not the enclosing one):
/// released on every way out, with the interrupt state saved before the
/// lock and restored after it.
#[test]
fn scoped_guard_irqsave_is_released_when_its_block_is_left_by_break() {
    let l = lower(
        "scoped-guard-break",
        r#"
#include <linux/spinlock.h>
#include <linux/cleanup.h>
struct foo { int a; int b; };
static DEFINE_SPINLOCK(l);
int walk(struct foo *f, int n)
{
	int i;
	for (i = 0; i < n; i++) {
		scoped_guard(spinlock_irqsave, &l) {
			if (f->a)
				break;
			f->b = i;
		}
	}
	return i;
}
"#,
    );
    assert_eq!(l.locks(), vec![pair("l", "spinlock")]);
    assert_eq!(l.held_at("walk", "load \"struct foo.a\""), held(&[&["l"]]));
    assert_eq!(l.held_at("walk", "store \"struct foo.b\""), held(&[&["l"]]));
    assert_eq!(l.held_at_return("walk"), held(&[&[]]));
    let commands = l.lock_commands("walk");
    assert_eq!(&commands[..2], lines(&["control irq-save;", r#"lock "l";"#]), "{commands:?}");
    let unlock = commands.iter().position(|c| c == r#"unlock "l";"#).expect("a release");
    assert_eq!(commands[unlock + 1], "control irq-restore;");
}

/// A lock in an array element cannot be identified: `lock ?` with the
/// reason, a warning, and no lock at all (it protects nothing).
#[test]
fn lock_in_an_array_element_is_unknown_and_protects_nothing() {
    let l = lower(
        "array-lock",
        r#"
#include <linux/mutex.h>
struct foo { int a; struct mutex locks[4]; };
void set(struct foo *dev, int i)
{
	mutex_lock(&dev->locks[i]);
	dev->a = i;
	mutex_unlock(&dev->locks[i]);
}
"#,
    );
    assert!(l.lock_names().is_empty(), "{:?}", l.lock_names());
    assert_eq!(
        l.lock_commands("set"),
        lines(&[r#"lock ? "mutex_lock: lock in an array element";"#, r#"lock ? "mutex_unlock: lock in an array element";"#])
    );
    assert_eq!(
        l.warnings_of("unknown-lock"),
        lines(&[
            "lock that cannot be identified uniquely: it protects nothing: mutex_lock: lock in an array element",
            "lock that cannot be identified uniquely: it protects nothing: mutex_unlock: lock in an array element",
        ])
    );
    assert_eq!(l.held_at("set", "store \"struct foo.a\""), held(&[&[]]));
}

/// A lock object in a local variable is `lock ?`.
#[test]
fn lock_in_a_local_variable_is_unknown() {
    let l = lower(
        "local-lock",
        r#"
#include <linux/mutex.h>
static int shared;
void set(void)
{
	struct mutex m;
	mutex_init(&m);
	mutex_lock(&m);
	shared = 1;
	mutex_unlock(&m);
}
"#,
    );
    assert!(l.lock_names().is_empty(), "{:?}", l.lock_names());
    assert_eq!(
        l.lock_commands("set"),
        lines(&[r#"lock ? "mutex_lock: lock in local variable m";"#, r#"lock ? "mutex_unlock: lock in local variable m";"#])
    );
    assert_eq!(l.warnings_of("unknown-lock").len(), 2);
    assert_eq!(l.held_at("set", "store \"global shared\""), held(&[&[]]));
}

/// A lock reached through a pointer stored in memory (`dev->lockp`) is
/// `lock ?`.
#[test]
fn lock_behind_a_pointer_in_memory_is_unknown() {
    let l = lower(
        "pointer-field-lock",
        r#"
#include <linux/mutex.h>
struct foo { int a; struct mutex *lockp; };
void set(struct foo *dev) { mutex_lock(dev->lockp); dev->a = 1; mutex_unlock(dev->lockp); }
"#,
    );
    assert!(l.lock_names().is_empty());
    assert_eq!(
        l.lock_commands("set"),
        lines(&[r#"lock ? "mutex_lock: lock pointer computed at run time";"#, r#"lock ? "mutex_unlock: lock pointer computed at run time";"#])
    );
    assert_eq!(l.stored_regions("set"), lines(&["struct foo.a"]));
    assert_eq!(l.loaded_regions("set"), lines(&["struct foo.lockp"]), "the pointer itself is read");
}

/// `local_irq_save`/`local_irq_restore`, `preempt_disable`/`preempt_enable`
/// and `local_bh_disable`/`local_bh_enable` are `control` commands and no
/// lock: on SMP they exclude nothing.
#[test]
fn interrupt_and_preemption_control_is_not_a_lock() {
    let l = lower(
        "irq-control",
        r#"
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/bottom_half.h>
static int counter;
void bump(void)
{
	unsigned long flags;
	local_irq_save(flags);
	counter++;
	local_irq_restore(flags);
	preempt_disable();
	counter++;
	preempt_enable();
	local_bh_disable();
	counter++;
	local_bh_enable();
}
"#,
    );
    assert!(l.lock_names().is_empty(), "{:?}", l.lock_names());
    assert_eq!(
        l.lock_commands("bump"),
        lines(&[
            "control irq-save;",
            "control irq-restore;",
            "control preempt-disable;",
            "control preempt-enable;",
            "control bh-disable;",
            "control bh-enable;",
        ])
    );
    assert!(l.warnings_of("unknown-lock").is_empty());
}

/// Interrupt-disabling lock variants record their interrupt effect before
/// taking the lock: `spin_lock_irq` disables, `spin_lock_bh` disables
/// softirqs.
#[test]
fn lock_variants_record_their_interrupt_effect_before_the_lock() {
    let l = lower(
        "lock-irq",
        r#"
#include <linux/spinlock.h>
struct foo { int a; spinlock_t lock; };
void irq(struct foo *f) { spin_lock_irq(&f->lock); f->a = 1; spin_unlock_irq(&f->lock); }
void bh(struct foo *f) { spin_lock_bh(&f->lock); f->a = 2; spin_unlock_bh(&f->lock); }
"#,
    );
    assert_eq!(&l.lock_commands("irq")[..2], lines(&["control irq-disable;", r#"lock "struct foo.lock";"#]));
    assert_eq!(&l.lock_commands("bh")[..2], lines(&["control bh-disable;", r#"lock "struct foo.lock";"#]));
    assert_eq!(l.lock_names(), vec!["struct foo.lock"]);
}

/// The single-owner flag: `test_and_set_bit` of a constant bit of an
/// identified word is a trylock of the pseudo lock `bit N of W`, taken
/// exactly when the old bit was 0, on top of the exact atomic bit
/// operation; `clear_bit` releases it before clearing the bit. Every clear
/// is made holding it, so it stays a lock.
#[test]
fn a_bit_cleared_only_by_its_holder_is_a_lock() {
    let l = lower(
        "bitlock-kept",
        r#"
#include <linux/fs.h>
#include <linux/bitops.h>
static unsigned long busy;
static int count;
static long dev_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	if (test_and_set_bit(0, &busy))
		return -EBUSY;
	count++;
	clear_bit(0, &busy);
	return 0;
}
static const struct file_operations fops = { .unlocked_ioctl = dev_ioctl };
const struct file_operations *get_fops(void) { return &fops; }
"#,
    );
    assert_eq!(l.locks(), vec![pair("bit 0 of busy", "pseudo")]);
    let commands = l.commands("dev_ioctl");
    let at = commands.iter().position(|c| c.ends_with(r#":= trylock "bit 0 of busy";"#)).unwrap_or_else(|| panic!("{commands:?}"));
    assert!(commands[at - 2].contains("load.atomic") && commands[at - 1].starts_with("store.atomic"), "the exact bit operation comes first: {commands:?}");
    let ok = commands[at].split(" := ").next().expect("a target");
    assert!(commands[at + 1].starts_with(&format!("assume {ok} == (")), "taken exactly when the bit was 0: {}", commands[at + 1]);
    assert!(commands[at + 2].ends_with(&format!(":= if {ok} then 0 else 1;")), "test_and_set_bit returns the old bit: {}", commands[at + 2]);
    let unlock = commands.iter().position(|c| c == r#"unlock "bit 0 of busy";"#).expect("clear_bit releases it");
    assert!(commands[unlock + 1].contains("load.atomic") && commands[unlock + 2].starts_with("store.atomic"), "released before the bit is cleared");
    assert_eq!(l.held_at("dev_ioctl", "store \"global count\""), held(&[&[], &["bit 0 of busy"]]), "path-insensitively, either");
    assert_eq!(l.warnings_of("bit-lock"), vec!["bit 0 of busy is a bit lock: it is cleared only by its holder".to_string()]);
}

/// A bit some path clears without holding it (here an ioctl of the open
/// file, which runs while the file holds the single-open bit but is not
/// its last callback) protects nothing: the pseudo lock is removed, the
/// atomic bit operations stay.
#[test]
fn a_bit_cleared_without_holding_it_is_no_lock() {
    let l = lower(
        "bitlock-demoted",
        r#"
#include <linux/fs.h>
#include <linux/bitops.h>
static unsigned long is_open;
static int opens;
static int dev_open(struct inode *i, struct file *f)
{
	if (test_and_set_bit(0, &is_open))
		return -EBUSY;
	opens++;
	return 0;
}
static long dev_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	if (cmd == 7)
		clear_bit(0, &is_open);
	return 0;
}
static int dev_release(struct inode *i, struct file *f)
{
	clear_bit(0, &is_open);
	return 0;
}
static const struct file_operations fops = { .open = dev_open, .unlocked_ioctl = dev_ioctl, .release = dev_release };
const struct file_operations *get_fops(void) { return &fops; }
"#,
    );
    assert!(l.program().entry_points.values().all(|e| e.held_by_object.is_empty()));
    for f in ["dev_open", "dev_ioctl", "dev_release"] {
        assert!(l.lock_commands(f).is_empty(), "{f}: {:?}", l.lock_commands(f));
        assert!(l.commands(f).iter().any(|c| c.starts_with("store.atomic")), "{f} keeps its atomic bit operation");
    }
    let notes = l.warnings_of("bit-lock");
    assert_eq!(notes, vec!["bit 0 of is_open protects nothing: it is not cleared only by its holder".to_string()]);
}

/// The single-open idiom: an open that keeps the bit whenever it succeeds
/// (its error paths return a constant errno, and give the bit back when
/// they took it), and a release that clears it. The open file holds the
/// bit: its other operations run holding it shared, its release
/// exclusively (every other operation of the file has returned).
#[test]
fn a_single_open_bit_is_held_by_the_open_file() {
    let l = lower(
        "bitlock-single-open",
        r#"
#include <linux/fs.h>
#include <linux/bitops.h>
static unsigned long is_open;
static int state, broken;
static int dev_open(struct inode *i, struct file *f)
{
	if (test_and_set_bit(0, &is_open))
		return -EBUSY;
	if (broken) {
		clear_bit(0, &is_open);
		return -EIO;
	}
	state = 1;
	return 0;
}
static ssize_t dev_read(struct file *f, char __user *b, size_t n, loff_t *p)
{
	return state;
}
static int dev_release(struct inode *i, struct file *f)
{
	state = 0;
	clear_bit(0, &is_open);
	return 0;
}
static const struct file_operations fops = { .open = dev_open, .read = dev_read, .release = dev_release };
const struct file_operations *get_fops(void) { return &fops; }
"#,
    );
    assert_eq!(l.locks(), vec![pair("bit 0 of is_open", "pseudo")]);
    let held: BTreeMap<String, Vec<String>> = l
        .program()
        .entry_points
        .values()
        .map(|e| (e.name.clone(), e.held_by_object.iter().map(|(lock, mode)| format!("{} {mode:?}", l.program().locks[*lock].name)).collect()))
        .collect();
    let want: BTreeMap<String, Vec<String>> = [
        ("dev_open", vec![]),
        ("dev_read", vec!["bit 0 of is_open Shared".to_string()]),
        ("dev_release", vec!["bit 0 of is_open Exclusive".to_string()]),
    ]
    .into_iter()
    .map(|(n, v)| (n.to_string(), v))
    .collect();
    assert_eq!(held, want);
    assert_eq!(
        l.warnings_of("bit-lock"),
        vec!["bit 0 of is_open is a bit lock that each object dev_open opens holds until its end callback: dev_open keeps it whenever it succeeds, only that callback or a holder clears it, and the object's other callbacks run holding it shared".to_string()]
    );
}

/// An open that may return 0 without the bit (here for a reader) does not
/// make the file hold it, so the release's clear is made without holding
/// it: no lock.
#[test]
fn an_open_that_may_succeed_without_the_bit_owns_nothing() {
    let l = lower(
        "bitlock-open-without",
        r#"
#include <linux/fs.h>
#include <linux/bitops.h>
static unsigned long is_open;
static int state;
static int dev_open(struct inode *i, struct file *f)
{
	if (!(f->f_mode & FMODE_WRITE))
		return 0;
	if (test_and_set_bit(0, &is_open))
		return -EBUSY;
	state = 1;
	return 0;
}
static ssize_t dev_read(struct file *f, char __user *b, size_t n, loff_t *p)
{
	return state;
}
static int dev_release(struct inode *i, struct file *f)
{
	clear_bit(0, &is_open);
	return 0;
}
static const struct file_operations fops = { .open = dev_open, .read = dev_read, .release = dev_release };
const struct file_operations *get_fops(void) { return &fops; }
"#,
    );
    assert!(l.locks().is_empty(), "{:?}", l.locks());
    assert!(l.program().entry_points.values().all(|e| e.held_by_object.is_empty()));
    assert_eq!(l.warnings_of("bit-lock"), vec!["bit 0 of is_open protects nothing: it is not cleared only by its holder".to_string()]);
}

/// A plain write of the word (here `__clear_bit`, not atomic) may clear
/// the bit: no lock, even where every `clear_bit` is made holding it.
#[test]
fn a_plain_write_of_the_word_breaks_the_bit_lock() {
    let l = lower(
        "bitlock-plain-write",
        r#"
#include <linux/fs.h>
#include <linux/bitops.h>
static unsigned long busy;
static int count;
static long dev_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	if (cmd == 7) {
		busy = 0;
		return 0;
	}
	if (test_and_set_bit(0, &busy))
		return -EBUSY;
	count++;
	clear_bit(0, &busy);
	return 0;
}
static const struct file_operations fops = { .unlocked_ioctl = dev_ioctl };
const struct file_operations *get_fops(void) { return &fops; }
"#,
    );
    assert!(l.lock_commands("dev_ioctl").is_empty(), "{:?}", l.lock_commands("dev_ioctl"));
    assert_eq!(l.warnings_of("bit-lock").len(), 1);
}

/// A failed acquire returns what the kernel returns: a negative errno for
/// `mutex_lock_interruptible` (so `ret < 0` is exactly the failure).
#[test]
fn a_failed_interruptible_lock_returns_a_negative_errno() {
    let l = lower(
        "lock-failure-values",
        r#"
#include <linux/mutex.h>
struct foo { int a; struct mutex lock; };
int set(struct foo *f)
{
	int ret = mutex_lock_interruptible(&f->lock);
	if (ret < 0)
		return ret;
	f->a = 1;
	mutex_unlock(&f->lock);
	return 0;
}
"#,
    );
    let commands = l.commands("set");
    let at = commands.iter().position(|c| c.contains(r#":= trylock "struct foo.lock";"#)).expect("a trylock");
    let ok = commands[at].split(" := ").next().expect("a target").to_string();
    let result = commands[at + 1].strip_prefix("havoc ").and_then(|r| r.strip_suffix(';')).expect("the result is havocked").to_string();
    assert_eq!(commands[at + 3], format!("assume {ok} || {result} >= -4095 && {result} <= -1;"));
}
