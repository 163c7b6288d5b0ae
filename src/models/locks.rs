//! The lock models: lock object types, the functions that take and release
//! locks, the helpers that pass a lock through, and the functions that
//! change the interrupt or preemption state, as read from
//! `kernel-models/locks/*.xml`.
//!
//! The schema, by example:
//!
//! ```xml
//! <kernel-model kernel="6.12">
//!   <lock-type name="mutex" kind="mutex" reason="…"/>
//!   <lock-type name="rwlock_t" kind="rwlock" typedef="true" reason="…"/>
//!   <lock-function name="mutex_lock" op="acquire" lock-arg="0" reason="…"/>
//!   <lock-function name="mutex_lock_interruptible" op="acquire-may-fail" lock-arg="0" success="zero" reason="…"/>
//!   <lock-function name="down_read_trylock" op="try-acquire" lock-arg="0" mode="shared" success="nonzero" reason="…"/>
//!   <lock-function name="_raw_spin_lock_irqsave" op="acquire" lock-arg="0" irq="save" reason="…"/>
//!   <lock-function name="rtnl_lock" op="acquire" global-lock="rtnl" reason="…"/>
//!   <lock-function name="class_mutex_constructor" op="acquire" lock-arg="0" returns-lock="true" reason="…"/>
//!   <lock-function name="class_mutex_destructor" op="release" lock-arg="0" lock-arg-deref="true" reason="…"/>
//!   <lock-function name="class_spinlock_constructor" op="acquire" lock-arg="0" returns-lock-field="lock" reason="…"/>
//!   <lock-function name="class_spinlock_destructor" op="release" lock-arg="0" lock-arg-field="lock" reason="…"/>
//!   <lock-passthrough name="spinlock_check" arg="0" reason="…"/>
//!   <irq-function name="arch_local_irq_save" op="save" reason="…"/>
//!   <bit-lock-function name="test_and_set_bit_lock" op="try-acquire" bit-arg="0" word-arg="1" success="zero" failure="one" reason="…"/>
//!   <bit-lock-function name="clear_bit_unlock" op="release" bit-arg="0" word-arg="1" reason="…"/>
//! </kernel-model>
//! ```
//!
//! **Lock types.** `name` is a structure tag (`mutex`, `spinlock`), or, with
//! `typedef="true"`, the name of a typedef of an anonymous structure
//! (`rwlock_t`). `kind` ∈ mutex, spinlock, rwlock, rw-semaphore, semaphore.
//!
//! **Lock functions.** `op` ∈ acquire, acquire-may-fail (blocks, but may
//! give up: interrupted, killed, timed out), try-acquire (never blocks),
//! release. Which lock, exactly one of:
//! - `lock-arg="N"`: the lock is the object argument N points to;
//! - `lock-arg="N" lock-arg-deref="true"`: argument N points to a pointer to
//!   the lock; the lock is `*argN` (the destructor of a `DEFINE_GUARD` guard
//!   gets the address of the guard variable, which holds the lock pointer);
//! - `lock-arg="N" lock-arg-field="F"`: argument N points to a structure
//!   whose field `F` holds the lock pointer; the lock is `argN->F` (the
//!   destructor of a `DEFINE_LOCK_GUARD_1` guard);
//! - `global-lock="G"`: a kernel-wide pseudo lock named `G` (`rtnl`).
//!
//! `mode` ∈ exclusive (default), shared: how the lock is (or was) taken; a
//! release of a shared hold says `shared`. Two
//! accesses are ordered by a lock only if both hold it and at least one holds
//! it exclusively. `success` ∈ zero, nonzero, nonnegative: the return value
//! (or the returned lock pointer, see below) that means the lock was taken
//! (`nonnegative`: 0 or more, a failure being a negative errno); required
//! for acquire-may-fail and try-acquire, forbidden otherwise. `irq` ∈ none
//! (default), disable, enable, save, restore, bh-disable, bh-enable: the
//! interrupt-state side effect, recorded but not a lock; on a try-acquire it
//! happens only when the lock is taken. `returns-lock="true"`: the function
//! returns the pointer to the lock it acquired (NULL when it fails: then
//! `success="nonzero"` tests that pointer); `returns-lock-field="F"`: it
//! returns a structure whose field `F` holds that pointer. Argument indexes
//! are 0-based.
//!
//! `failure` ∈ errno, one, zero: what a may-fail or try acquire returns
//! when it did not take the lock, as the kernel returns it. `errno` is a
//! negative errno in [-4095, -1] (`mutex_lock_interruptible`'s -EINTR,
//! `down_timeout`'s -ETIME), `one` is 1 (`down_trylock`,
//! `test_and_set_bit`), `zero` is 0 or NULL (every `success="nonzero"`
//! function). The default: `zero` for `success="nonzero"`, `errno` for an
//! acquire-may-fail with `success="zero"`, `one` for a try-acquire with
//! `success="zero"` or `"nonnegative"`; `zero` with `success="zero"`,
//! anything but `zero` with `success="nonzero"` and anything but `errno`
//! with `success="nonnegative"` are refused (the two values would coincide).
//!
//! **Bit-lock functions** take or release one bit of a word as a lock
//! (`test_and_set_bit_lock` / `clear_bit_unlock`, `bit_spin_lock`, the
//! single-owner flag `if (test_and_set_bit(N, &w)) return -EBUSY; …
//! clear_bit(N, &w)`): `bit-arg` is the argument giving the bit number,
//! `word-arg` the one pointing to the word; `op`, `success` and `failure`
//! as for lock functions (an acquire takes the lock when the bit was 0 and
//! sets it; a release clears it). Each must also have a `<function>` model
//! with the bit operation's atomic effect on `word-arg`: where the bit lock
//! cannot be identified (a bit number that is not a constant, a word with
//! no identity) or turns out not to be a lock (src/frontend/lower/bitlocks.rs),
//! the call is lowered by that function model alone.
//!
//! **Lock passthroughs** return the lock object their argument `arg` points
//! to, unchanged (`spinlock_check` returns `&lock->rlock`, at offset 0).
//!
//! **Irq functions** change the interrupt or preemption state of the
//! calling CPU: `op` ∈ disable, enable, save, restore, preempt-disable,
//! preempt-enable, bh-disable, bh-enable. On SMP they exclude nothing on
//! other CPUs.

use super::{choice, flag, reason_given};
use serde::Deserialize;

/// What sort of lock an object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockKind {
    /// `struct mutex`.
    Mutex,
    /// `spinlock_t`, `raw_spinlock_t`.
    Spinlock,
    /// `rwlock_t`: readers share, writers exclude.
    Rwlock,
    /// `struct rw_semaphore`: readers share, writers exclude.
    RwSemaphore,
    /// `struct semaphore`.
    Semaphore,
}

const LOCK_KINDS: &[(&str, LockKind)] = &[
    ("mutex", LockKind::Mutex),
    ("spinlock", LockKind::Spinlock),
    ("rwlock", LockKind::Rwlock),
    ("rw-semaphore", LockKind::RwSemaphore),
    ("semaphore", LockKind::Semaphore),
];

/// A type whose objects are locks.
#[derive(Clone, Debug)]
pub struct LockType {
    /// The structure tag, or the typedef name when `typedef` is set.
    pub name: String,
    /// What sort of lock.
    pub kind: LockKind,
    /// `name` is a typedef of an anonymous structure, not a tag.
    pub typedef: bool,
    /// What the type is.
    pub reason: String,
}

/// What a lock function does to its lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockOp {
    /// Takes the lock; returns holding it.
    Acquire,
    /// Blocks for the lock but may give up; `success` says which return
    /// value means it was taken.
    AcquireMayFail,
    /// Takes the lock if free, never blocks; `success` says which return
    /// value means it was taken.
    TryAcquire,
    /// Releases the lock.
    Release,
}

const LOCK_OPS: &[(&str, LockOp)] = &[
    ("acquire", LockOp::Acquire),
    ("acquire-may-fail", LockOp::AcquireMayFail),
    ("try-acquire", LockOp::TryAcquire),
    ("release", LockOp::Release),
];

impl LockOp {
    /// Whether the operation may take the lock.
    pub fn acquires(self) -> bool {
        self != LockOp::Release
    }

    /// Whether the operation may return without the lock.
    pub fn may_fail(self) -> bool {
        matches!(self, LockOp::AcquireMayFail | LockOp::TryAcquire)
    }
}

/// How an acquiring function holds its lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockMode {
    /// Alone (mutexes, spinlocks, writers).
    Exclusive,
    /// With other shared holders (readers).
    Shared,
}

const LOCK_MODES: &[(&str, LockMode)] = &[("exclusive", LockMode::Exclusive), ("shared", LockMode::Shared)];

/// The return value that means a may-fail or try acquire took the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Success {
    /// Zero (`mutex_lock_interruptible`, `down_trylock`).
    Zero,
    /// Anything but zero, or a non-NULL pointer (`mutex_trylock`).
    Nonzero,
    /// Zero or positive; a failure is a negative errno
    /// (`pm_runtime_get_sync`, which returns 1 when the device was active).
    NonNegative,
}

const SUCCESSES: &[(&str, Success)] =
    &[("zero", Success::Zero), ("nonzero", Success::Nonzero), ("nonnegative", Success::NonNegative)];

/// The return value of a may-fail or try acquire that did not take the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Failure {
    /// A negative errno, in [-4095, -1] (`-EINTR`, `-ETIME`).
    Errno,
    /// 1 (`down_trylock`, `test_and_set_bit`).
    One,
    /// 0 or NULL.
    Zero,
    /// EBUSY, 16 (Linux include/uapi/asm-generic/errno-base.h): what the
    /// POSIX trylocks return without the lock.
    Busy,
}

const FAILURES: &[(&str, Failure)] = &[("errno", Failure::Errno), ("one", Failure::One), ("zero", Failure::Zero), ("ebusy", Failure::Busy)];

/// The failure value a function gives, from its `failure` attribute or the
/// default for its operation and success value.
fn failure_of(context: &str, op: LockOp, success: Option<Success>, written: Option<&str>) -> Result<Option<Failure>, String> {
    let Some(success) = success else {
        return match written {
            Some(_) => Err(format!("{context}: failure is only for acquire-may-fail and try-acquire")),
            None => Ok(None),
        };
    };
    let failure = match (written, success, op) {
        (Some(f), _, _) => choice(context, "failure", f, FAILURES)?,
        (None, Success::Nonzero, _) => Failure::Zero,
        (None, Success::Zero, LockOp::TryAcquire) => Failure::One,
        (None, Success::Zero | Success::NonNegative, _) => Failure::Errno,
    };
    match (success, failure) {
        (Success::Zero, Failure::Zero) => Err(format!("{context}: failure zero and success zero coincide")),
        (Success::Nonzero, Failure::Errno | Failure::One | Failure::Busy) => {
            Err(format!("{context}: with success nonzero a failure returns zero (NULL); an errno or 1 would be a success"))
        }
        (Success::NonNegative, Failure::Zero | Failure::One) => {
            Err(format!("{context}: with success nonnegative a failure returns a negative errno; 0 or 1 would be a success"))
        }
        _ => Ok(Some(failure)),
    }
}

/// A change of the calling CPU's interrupt, softirq or preemption state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IrqOp {
    /// Disables hard interrupts.
    Disable,
    /// Enables hard interrupts.
    Enable,
    /// Saves the interrupt state (returned as the flags) and disables them.
    Save,
    /// Restores the interrupt state from the flags.
    Restore,
    /// Disables preemption.
    PreemptDisable,
    /// Enables preemption.
    PreemptEnable,
    /// Disables softirqs (bottom halves).
    BhDisable,
    /// Enables softirqs.
    BhEnable,
}

const IRQ_OPS: &[(&str, IrqOp)] = &[
    ("disable", IrqOp::Disable),
    ("enable", IrqOp::Enable),
    ("save", IrqOp::Save),
    ("restore", IrqOp::Restore),
    ("preempt-disable", IrqOp::PreemptDisable),
    ("preempt-enable", IrqOp::PreemptEnable),
    ("bh-disable", IrqOp::BhDisable),
    ("bh-enable", IrqOp::BhEnable),
];

/// The `irq` values of a lock function: `none` and the interrupt and
/// softirq operations (a lock function's preemption change is implied by
/// its lock kind, not recorded).
const LOCK_IRQS: &[(&str, Option<IrqOp>)] = &[
    ("none", None),
    ("disable", Some(IrqOp::Disable)),
    ("enable", Some(IrqOp::Enable)),
    ("save", Some(IrqOp::Save)),
    ("restore", Some(IrqOp::Restore)),
    ("bh-disable", Some(IrqOp::BhDisable)),
    ("bh-enable", Some(IrqOp::BhEnable)),
];

/// Which lock a lock function works on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LockRef {
    /// The object the argument points to (`lock-arg="N"`).
    Arg(usize),
    /// `*arg`: the argument points to a pointer to the lock
    /// (`lock-arg-deref="true"`).
    ArgDeref(usize),
    /// `arg->field`: the argument points to a structure whose field holds a
    /// pointer to the lock (`lock-arg-field="F"`).
    ArgField(usize, String),
    /// A kernel-wide pseudo lock with a fixed name (`global-lock="rtnl"`).
    Global(String),
}

/// What an acquiring lock function returns about its lock.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LockResult {
    /// Nothing about the lock (the flags, a status, or nothing).
    Other,
    /// The pointer to the lock it acquired, NULL when it failed
    /// (`returns-lock="true"`).
    Lock,
    /// A structure whose field holds that pointer
    /// (`returns-lock-field="F"`).
    Field(String),
}

/// A function that takes or releases a lock.
#[derive(Clone, Debug)]
pub struct LockFunction {
    /// The function the driver's call resolves to, after macro expansion.
    pub name: String,
    /// What it does to the lock.
    pub op: LockOp,
    /// Which lock.
    pub lock: LockRef,
    /// How an acquire holds it (`Exclusive` for a release).
    pub mode: LockMode,
    /// For acquire-may-fail and try-acquire: the result meaning success.
    pub success: Option<Success>,
    /// For acquire-may-fail and try-acquire: what it returns without the
    /// lock.
    pub failure: Option<Failure>,
    /// Its interrupt-state side effect, if any.
    pub irq: Option<IrqOp>,
    /// What it returns about the lock.
    pub returns: LockResult,
    /// What the function does.
    pub reason: String,
}

/// A function that takes or releases one bit of a word as a lock.
#[derive(Clone, Debug)]
pub struct BitLockFunction {
    /// The function the driver's call resolves to, after macro expansion.
    pub name: String,
    /// What it does to the bit lock (always exclusive).
    pub op: LockOp,
    /// The argument giving the bit number.
    pub bit_arg: usize,
    /// The argument pointing to the word (the bitmap).
    pub word_arg: usize,
    /// For acquire-may-fail and try-acquire: the result meaning success.
    pub success: Option<Success>,
    /// For acquire-may-fail and try-acquire: what it returns without the
    /// lock.
    pub failure: Option<Failure>,
    /// What the function does, in 6.12.
    pub reason: String,
}

/// A function that returns the lock its argument points to.
#[derive(Clone, Debug)]
pub struct LockPassthrough {
    /// The function.
    pub name: String,
    /// The argument pointing to the lock.
    pub arg: usize,
    /// Why the result is the same lock.
    pub reason: String,
}

/// A function that changes the calling CPU's interrupt or preemption state.
#[derive(Clone, Debug)]
pub struct IrqFunction {
    /// The function.
    pub name: String,
    /// What it changes.
    pub op: IrqOp,
    /// What it does, and why it excludes nothing on other CPUs.
    pub reason: String,
}

/// `<lock-type>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LockTypeXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@kind")]
    kind: String,
    #[serde(rename = "@typedef")]
    typedef: Option<String>,
    #[serde(rename = "@reason")]
    reason: String,
}

/// `<lock-function>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LockFunctionXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@op")]
    op: String,
    #[serde(rename = "@lock-arg")]
    lock_arg: Option<usize>,
    #[serde(rename = "@lock-arg-deref")]
    lock_arg_deref: Option<String>,
    #[serde(rename = "@lock-arg-field")]
    lock_arg_field: Option<String>,
    #[serde(rename = "@global-lock")]
    global_lock: Option<String>,
    #[serde(rename = "@mode")]
    mode: Option<String>,
    #[serde(rename = "@success")]
    success: Option<String>,
    #[serde(rename = "@failure")]
    failure: Option<String>,
    #[serde(rename = "@irq")]
    irq: Option<String>,
    #[serde(rename = "@returns-lock")]
    returns_lock: Option<String>,
    #[serde(rename = "@returns-lock-field")]
    returns_lock_field: Option<String>,
    #[serde(rename = "@reason")]
    reason: String,
}

/// `<bit-lock-function>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BitLockFunctionXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@op")]
    op: String,
    #[serde(rename = "@bit-arg")]
    bit_arg: usize,
    #[serde(rename = "@word-arg")]
    word_arg: usize,
    #[serde(rename = "@success")]
    success: Option<String>,
    #[serde(rename = "@failure")]
    failure: Option<String>,
    #[serde(rename = "@reason")]
    reason: String,
}

/// `<lock-passthrough>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LockPassthroughXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@arg")]
    arg: usize,
    #[serde(rename = "@reason")]
    reason: String,
}

/// `<irq-function>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IrqFunctionXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@op")]
    op: String,
    #[serde(rename = "@reason")]
    reason: String,
}

/// Checks and converts one `<lock-type>`.
pub(super) fn lock_type(t: LockTypeXml) -> Result<LockType, String> {
    let context = format!("lock-type `{}`", t.name);
    reason_given(&context, &t.reason)?;
    let kind = choice(&context, "kind", &t.kind, LOCK_KINDS)?;
    let typedef = flag(&context, "typedef", t.typedef.as_deref())?;
    Ok(LockType { name: t.name, kind, typedef, reason: t.reason })
}

/// Checks and converts one `<lock-function>`.
pub(super) fn lock_function(f: LockFunctionXml) -> Result<LockFunction, String> {
    let context = format!("lock-function `{}`", f.name);
    reason_given(&context, &f.reason)?;
    let op = choice(&context, "op", &f.op, LOCK_OPS)?;
    let deref = flag(&context, "lock-arg-deref", f.lock_arg_deref.as_deref())?;
    let lock = match (f.lock_arg, f.global_lock) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(format!("{context}: give exactly one of lock-arg and global-lock"));
        }
        (None, Some(_)) if deref || f.lock_arg_field.is_some() => {
            return Err(format!("{context}: lock-arg-deref and lock-arg-field qualify lock-arg; a global-lock has none"));
        }
        (None, Some(global)) if global.trim().is_empty() => return Err(format!("{context}: global-lock is empty")),
        (None, Some(global)) => LockRef::Global(global),
        (Some(arg), None) => match (deref, f.lock_arg_field) {
            (true, Some(_)) => return Err(format!("{context}: lock-arg-deref and lock-arg-field exclude each other")),
            (true, None) => LockRef::ArgDeref(arg),
            (false, Some(field)) => LockRef::ArgField(arg, field),
            (false, None) => LockRef::Arg(arg),
        },
    };
    let mode = match f.mode {
        Some(m) => choice(&context, "mode", &m, LOCK_MODES)?,
        None => LockMode::Exclusive,
    };
    let success = match (op.may_fail(), f.success) {
        (true, Some(s)) => Some(choice(&context, "success", &s, SUCCESSES)?),
        (true, None) => return Err(format!("{context}: op `{}` needs success (zero or nonzero)", f.op)),
        (false, Some(_)) => return Err(format!("{context}: success is only for acquire-may-fail and try-acquire")),
        (false, None) => None,
    };
    let failure = failure_of(&context, op, success, f.failure.as_deref())?;
    let irq = match f.irq {
        Some(i) => choice(&context, "irq", &i, LOCK_IRQS)?,
        None => None,
    };
    let returns_lock = flag(&context, "returns-lock", f.returns_lock.as_deref())?;
    let returns = match (returns_lock, f.returns_lock_field) {
        (true, Some(_)) => return Err(format!("{context}: returns-lock and returns-lock-field exclude each other")),
        (false, None) => LockResult::Other,
        (_, _) if !op.acquires() => return Err(format!("{context}: a release returns no lock")),
        (true, None) => LockResult::Lock,
        (false, Some(field)) => LockResult::Field(field),
    };
    Ok(LockFunction { name: f.name, op, lock, mode, success, failure, irq, returns, reason: f.reason })
}

/// Checks and converts one `<bit-lock-function>`.
pub(super) fn bit_lock_function(f: BitLockFunctionXml) -> Result<BitLockFunction, String> {
    let context = format!("bit-lock-function `{}`", f.name);
    reason_given(&context, &f.reason)?;
    let op = choice(&context, "op", &f.op, LOCK_OPS)?;
    if f.bit_arg == f.word_arg {
        return Err(format!("{context}: bit-arg and word-arg are the same argument"));
    }
    let success = match (op.may_fail(), f.success) {
        (true, Some(s)) => Some(choice(&context, "success", &s, SUCCESSES)?),
        (true, None) => return Err(format!("{context}: op `{}` needs success (zero or nonzero)", f.op)),
        (false, Some(_)) => return Err(format!("{context}: success is only for acquire-may-fail and try-acquire")),
        (false, None) => None,
    };
    let failure = failure_of(&context, op, success, f.failure.as_deref())?;
    Ok(BitLockFunction { name: f.name, op, bit_arg: f.bit_arg, word_arg: f.word_arg, success, failure, reason: f.reason })
}

/// Checks and converts one `<lock-passthrough>`.
pub(super) fn lock_passthrough(p: LockPassthroughXml) -> Result<LockPassthrough, String> {
    reason_given(&format!("lock-passthrough `{}`", p.name), &p.reason)?;
    Ok(LockPassthrough { name: p.name, arg: p.arg, reason: p.reason })
}

/// Checks and converts one `<irq-function>`.
pub(super) fn irq_function(i: IrqFunctionXml) -> Result<IrqFunction, String> {
    let context = format!("irq-function `{}`", i.name);
    reason_given(&context, &i.reason)?;
    let op = choice(&context, "op", &i.op, IRQ_OPS)?;
    Ok(IrqFunction { name: i.name, op, reason: i.reason })
}

#[cfg(test)]
mod tests {
    use super::super::{KernelModels, ModelError};
    use super::*;
    use std::path::PathBuf;

    fn load(rules: &str) -> Result<KernelModels, ModelError> {
        let xml = format!(r#"<kernel-model kernel="6.12">{rules}</kernel-model>"#);
        KernelModels::from_files(&[(PathBuf::from("locks.xml"), xml)])
    }

    fn rejected(rules: &str, expected: &str) {
        let e = load(rules).expect_err(rules);
        assert!(e.message.contains(expected), "expected `{expected}` in: {}", e.message);
    }

    #[test]
    fn guard_destructors_name_their_lock_through_the_argument() {
        let m = load(
            r#"<lock-function name="d1" op="release" lock-arg="0" lock-arg-deref="true" reason="r"/>
               <lock-function name="d2" op="release" lock-arg="0" lock-arg-field="lock" reason="r"/>
               <lock-function name="c1" op="try-acquire" lock-arg="0" success="nonzero" returns-lock-field="lock" reason="r"/>
               <lock-function name="g" op="acquire" global-lock="tx-queue" mode="shared" reason="r"/>"#,
        )
        .unwrap();
        assert_eq!(m.lock_functions["d1"].lock, LockRef::ArgDeref(0));
        assert_eq!(m.lock_functions["d2"].lock, LockRef::ArgField(0, "lock".into()));
        assert_eq!(m.lock_functions["c1"].returns, LockResult::Field("lock".into()));
        assert_eq!(m.lock_functions["c1"].success, Some(Success::Nonzero));
        assert_eq!(m.lock_functions["g"].lock, LockRef::Global("tx-queue".into()));
        assert_eq!(m.lock_functions["g"].mode, LockMode::Shared);
    }

    #[test]
    fn the_lock_is_named_exactly_once() {
        rejected(r#"<lock-function name="f" op="acquire" reason="r"/>"#, "exactly one of lock-arg and global-lock");
        rejected(
            r#"<lock-function name="f" op="acquire" lock-arg="0" global-lock="rtnl" reason="r"/>"#,
            "exactly one of lock-arg and global-lock",
        );
        rejected(
            r#"<lock-function name="f" op="release" lock-arg="0" lock-arg-deref="true" lock-arg-field="lock" reason="r"/>"#,
            "exclude each other",
        );
        rejected(
            r#"<lock-function name="f" op="release" global-lock="rtnl" lock-arg-field="lock" reason="r"/>"#,
            "qualify lock-arg",
        );
        rejected(r#"<lock-function name="f" op="release" lock-arg="0" lock-arg-deref="1" reason="r"/>"#, "must be true or false");
    }

    #[test]
    fn success_goes_with_the_operations_that_may_fail() {
        rejected(r#"<lock-function name="f" op="try-acquire" lock-arg="0" reason="r"/>"#, "needs success");
        rejected(r#"<lock-function name="f" op="acquire-may-fail" lock-arg="0" reason="r"/>"#, "needs success");
        rejected(
            r#"<lock-function name="f" op="acquire" lock-arg="0" success="zero" reason="r"/>"#,
            "success is only for acquire-may-fail and try-acquire",
        );
        rejected(r#"<lock-function name="f" op="try-acquire" lock-arg="0" success="one" reason="r"/>"#, "unknown success `one`");
    }

    #[test]
    fn failure_values_default_by_kind_and_never_coincide_with_success() {
        let m = load(
            r#"<lock-function name="i" op="acquire-may-fail" lock-arg="0" success="zero" reason="r"/>
               <lock-function name="d" op="try-acquire" lock-arg="0" success="zero" reason="r"/>
               <lock-function name="t" op="try-acquire" lock-arg="0" success="nonzero" reason="r"/>
               <lock-function name="x" op="acquire-may-fail" lock-arg="0" success="zero" failure="one" reason="r"/>
               <lock-function name="a" op="acquire" lock-arg="0" reason="r"/>"#,
        )
        .unwrap();
        assert_eq!(m.lock_functions["i"].failure, Some(Failure::Errno));
        assert_eq!(m.lock_functions["d"].failure, Some(Failure::One));
        assert_eq!(m.lock_functions["t"].failure, Some(Failure::Zero));
        assert_eq!(m.lock_functions["x"].failure, Some(Failure::One));
        assert_eq!(m.lock_functions["a"].failure, None);
        rejected(r#"<lock-function name="f" op="try-acquire" lock-arg="0" success="zero" failure="zero" reason="r"/>"#, "coincide");
        rejected(r#"<lock-function name="f" op="try-acquire" lock-arg="0" success="nonzero" failure="errno" reason="r"/>"#, "would be a success");
        rejected(r#"<lock-function name="f" op="acquire" lock-arg="0" failure="errno" reason="r"/>"#, "failure is only for");
    }

    #[test]
    fn bit_lock_functions_name_bit_and_word_and_need_an_atomic_effect() {
        let effect = r#"<function name="tas" reason="r"><atomic arg="1" access="rmw" extent="unbounded" op="set-bit" bit-arg="0" returns="old-bit"/></function>"#;
        let m = load(&format!(r#"<bit-lock-function name="tas" op="try-acquire" bit-arg="0" word-arg="1" success="zero" reason="r"/>{effect}"#)).unwrap();
        let b = &m.bit_lock_functions["tas"];
        assert_eq!((b.bit_arg, b.word_arg, b.failure), (0, 1, Some(Failure::One)));
        rejected(r#"<bit-lock-function name="tas" op="try-acquire" bit-arg="0" word-arg="1" success="zero" reason="r"/>"#, "needs a <function> model");
        rejected(r#"<bit-lock-function name="f" op="release" bit-arg="1" word-arg="1" reason="r"/>"#, "the same argument");
        rejected(r#"<bit-lock-function name="f" op="try-acquire" bit-arg="0" word-arg="1" reason="r"/>"#, "needs success");
    }

    #[test]
    fn unknown_values_and_misplaced_attributes_are_rejected() {
        rejected(r#"<lock-function name="f" op="grab" lock-arg="0" reason="r"/>"#, "unknown op `grab` (expected one of acquire,");
        rejected(r#"<lock-function name="f" op="acquire" lock-arg="0" mode="read" reason="r"/>"#, "unknown mode `read`");
        rejected(
            r#"<lock-function name="f" op="acquire" lock-arg="0" irq="preempt-disable" reason="r"/>"#,
            "unknown irq `preempt-disable`",
        );
        rejected(r#"<lock-function name="f" op="release" lock-arg="0" returns-lock="true" reason="r"/>"#, "returns no lock");
        rejected(r#"<irq-function name="f" op="sleep" reason="r"/>"#, "irq-function `f`: unknown op `sleep`");
        rejected(r#"<lock-type name="t" kind="futex" reason="r"/>"#, "lock-type `t`: unknown kind `futex`");
        rejected(r#"<lock-function name="f" op="acquire" lock-arg="0" owner="me" reason="r"/>"#, "owner");
        rejected(r#"<lock-passthrough name="f" arg="0" reason=" "/>"#, "the reason is empty");
    }
}
