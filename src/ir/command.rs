//! The commands of a basic block: one closed enum, so that every pass must
//! say what it does with each command (no catch-all arms).
//!
//! Commands are Boogie's (assign, assume, assert, havoc, call) plus the
//! memory, lock and interrupt operations that data-race checking needs, and
//! markers where the lowering approximated C. Each variant's documentation
//! starts with its printed form.

use super::entity::{EntryPointId, LockId, ProcId, RegionId, VarId};
use super::expr::Expr;
use crate::diagnostics::Span;

/// What an assertion checks; decides how a failure is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckKind {
    /// Two accesses to the same address may race.
    DataRace,
    /// Execution reaches a construct the checker cannot handle.
    Unsupported,
    /// An assertion written in the driver or the models.
    User,
    /// A loop or recursion bound of the bounded checker is exceeded.
    Bound,
}

impl CheckKind {
    /// The stable kebab-case name, printed as `assert {data-race} …`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::DataRace => "data-race",
            CheckKind::Unsupported => "unsupported",
            CheckKind::User => "user",
            CheckKind::Bound => "bound",
        }
    }
}

/// How a memory access synchronises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// An ordinary access.
    Plain,
    /// `READ_ONCE`, `atomic_read` and the like: never races with another
    /// atomic access, but protects nothing else.
    Atomic,
    /// A plain access through an address that can only point to memory
    /// private to the running call (src/analyses/private.rs): no other
    /// thread can reach it, so it never races and is not race-checked.
    Private,
}

/// How a lock is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum LockMode {
    /// A writer, or the only holder.
    Exclusive,
    /// A reader of a reader-writer lock.
    Shared,
}

/// An interrupt or preemption control operation. These are recorded, not
/// treated as locks: on SMP another CPU still runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IrqOp {
    /// `local_irq_disable`, `spin_lock_irq`'s half.
    Disable,
    /// `local_irq_enable`.
    Enable,
    /// `local_irq_save`.
    Save,
    /// `local_irq_restore`.
    Restore,
    /// `preempt_disable`.
    PreemptDisable,
    /// `preempt_enable`.
    PreemptEnable,
    /// `local_bh_disable`, `spin_lock_bh`'s half.
    BhDisable,
    /// `local_bh_enable`.
    BhEnable,
}

impl IrqOp {
    /// The stable kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            IrqOp::Disable => "irq-disable",
            IrqOp::Enable => "irq-enable",
            IrqOp::Save => "irq-save",
            IrqOp::Restore => "irq-restore",
            IrqOp::PreemptDisable => "preempt-disable",
            IrqOp::PreemptEnable => "preempt-enable",
            IrqOp::BhDisable => "bh-disable",
            IrqOp::BhEnable => "bh-enable",
        }
    }
}

/// What the lowering approximated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApproxKind {
    /// A call to a function without body or model: results havocked.
    ExternalCall,
    /// Inline assembly: its outputs havocked.
    InlineAsm,
    /// A call through a function pointer whose targets are unknown.
    FunctionPointer,
    /// A construct the lowering skipped: behaviour may be missed.
    UnsupportedConstruct,
    /// A lock that could not be identified: treated as no protection.
    UnknownLock,
    /// A bit operation turned into an uninterpreted function.
    BitOperation,
    /// A cast the integer model cannot express.
    Cast,
}

impl ApproxKind {
    /// The stable kebab-case name, printed as `approx {external-call} …`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApproxKind::ExternalCall => "external-call",
            ApproxKind::InlineAsm => "inline-asm",
            ApproxKind::FunctionPointer => "function-pointer",
            ApproxKind::UnsupportedConstruct => "unsupported-construct",
            ApproxKind::UnknownLock => "unknown-lock",
            ApproxKind::BitOperation => "bit-operation",
            ApproxKind::Cast => "cast",
        }
    }

    /// Whether the approximation may hide a race (an under-approximation
    /// of the driver's behaviour). The others over-approximate: they may
    /// cost a false alarm, never a missed race.
    pub fn affects_soundness(self) -> bool {
        match self {
            ApproxKind::UnsupportedConstruct => true,
            ApproxKind::ExternalCall
            | ApproxKind::InlineAsm
            | ApproxKind::FunctionPointer
            | ApproxKind::UnknownLock
            | ApproxKind::BitOperation
            | ApproxKind::Cast => false,
        }
    }
}

/// A command of a basic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `x := e;`
    Assign {
        /// The variable assigned.
        target: VarId,
        /// Its new value.
        value: Expr,
        /// The C source.
        span: Option<Span>,
    },
    /// `assume e;`: executions where `e` is false are dropped.
    Assume {
        /// A boolean condition.
        cond: Expr,
        /// The C source.
        span: Option<Span>,
    },
    /// `assert {data-race} e;`: an execution where `e` is false is a bug.
    Assert {
        /// A boolean condition.
        cond: Expr,
        /// What the assertion checks.
        check: CheckKind,
        /// The C source.
        span: Option<Span>,
    },
    /// `havoc x, y;`: the variables take arbitrary values.
    Havoc {
        /// The variables.
        vars: Vec<VarId>,
        /// The C source.
        span: Option<Span>,
    },
    /// `call r := foo(x, 3);` (`call foo(x);` without results).
    Call {
        /// The callee.
        procedure: ProcId,
        /// One per parameter.
        args: Vec<Expr>,
        /// One per return, distinct.
        results: Vec<VarId>,
        /// The C source.
        span: Option<Span>,
    },
    /// `x := load region3[a];` (`load.atomic` for an atomic access).
    Load {
        /// The variable receiving the value.
        target: VarId,
        /// The region read.
        region: RegionId,
        /// The integer address.
        address: Expr,
        /// How the access synchronises.
        access: AccessKind,
        /// The C source.
        span: Option<Span>,
    },
    /// `store region3[a] := e;` (`store.atomic` for an atomic access).
    Store {
        /// The region written.
        region: RegionId,
        /// The integer address.
        address: Expr,
        /// The value written.
        value: Expr,
        /// How the access synchronises.
        access: AccessKind,
        /// The C source.
        span: Option<Span>,
    },
    /// `lock lock0;` (`lock.shared lock0;` for a reader).
    Lock {
        /// The lock taken.
        lock: LockId,
        /// How it is taken.
        mode: LockMode,
        /// The C source.
        span: Option<Span>,
    },
    /// `ok := trylock lock0;` (`trylock.shared`): may fail; `success` is
    /// an arbitrary boolean, and the lock is held when it is true.
    TryLock {
        /// The lock tried.
        lock: LockId,
        /// How it is taken.
        mode: LockMode,
        /// A boolean variable receiving whether the lock was taken.
        success: VarId,
        /// The C source.
        span: Option<Span>,
    },
    /// `unlock lock0;` (`unlock.shared lock0;`).
    Unlock {
        /// The lock released.
        lock: LockId,
        /// How it was taken.
        mode: LockMode,
        /// The C source.
        span: Option<Span>,
    },
    /// `held lock0 "lockdep_assert_held";` (`held.shared`, `held.exclusive`;
    /// `held.trusted` once checked): the kernel's source says the running
    /// thread holds the lock here (`lockdep_assert_held(&l)`, a function's
    /// `__must_hold(l)` at its entry). Lowered unchecked; the annotation
    /// check ([`crate::analyses::annotations`]) marks it trusted when every
    /// path reaching it holds the lock, or when only the kernel's call of
    /// an entry point can establish it. Only a trusted one is assumed.
    HeldAnnotation {
        /// The lock said to be held.
        lock: LockId,
        /// The mode it is said to be held in; `None`: any.
        mode: Option<LockMode>,
        /// The macro or attribute that says so.
        annotation: String,
        /// Checked (or a standing assumption on the kernel's call), so the
        /// verifier may assume it.
        trusted: bool,
        /// The C source.
        span: Option<Span>,
    },
    /// `lock ? "array element";`: a lock that could not be identified
    /// uniquely (an element of an array or list). Recorded; it protects
    /// nothing.
    LockUnknown {
        /// Why it could not be identified.
        reason: String,
        /// The C source.
        span: Option<Span>,
    },
    /// `control irq-save;`: interrupt or preemption control, recorded.
    InterruptControl {
        /// The operation.
        op: IrqOp,
        /// The C source.
        span: Option<Span>,
    },
    /// `ghost.write region3[a] entry0;` (`ghost.read`): the hook that
    /// instrumentation places at a watched access of an entry point, for
    /// the lockset instrumentation to expand.
    GhostAccess {
        /// The region accessed.
        region: RegionId,
        /// The integer address.
        address: Expr,
        /// A write rather than a read.
        write: bool,
        /// The entry point making the access.
        entry_point: EntryPointId,
        /// The access in C, for the race report.
        span: Option<Span>,
    },
    /// `live "misc_register";`: the driver registered callbacks with the
    /// kernel (or may have: an unknown call); from here on, callbacks may
    /// run concurrently with the code that follows.
    MakeLive {
        /// The registration function (or the unknown callee).
        function: String,
        /// The entry points (C function names) it makes live directly, as
        /// the kernel models say (`kernel-models/entry-points/liveness.xml`);
        /// `None`: any callback of the driver.
        targets: Option<Vec<String>>,
        /// No model says so (`live assumed "foo";`): an unknown function or
        /// an unresolved function pointer may register callbacks. The
        /// lockset phase takes it as making any callback live (sound); the
        /// precise phase does not, so that no witness rests on it.
        assumed: bool,
        /// The C source.
        span: Option<Span>,
    },
    /// `quiesce "free_irq" {handler} {handler};`: the call returns only
    /// once the named callbacks have finished, and they cannot start again
    /// until something makes them live again
    /// (`kernel-models/entry-points/quiescing.xml`).
    Quiesce {
        /// The quiescing function.
        function: String,
        /// The entry points (C function names) its model names.
        targets: Vec<String>,
        /// Whether the call also stops a target that re-arms itself while
        /// the call waits (the model's `self="stops"`).
        stops_self: bool,
        /// The only functions whose `live` commands make a quiesced target
        /// live again (the model's `rearmed-by`); empty: any.
        rearmed_by: Vec<String>,
        /// Whether a `rearmed-by` call that an entry point makes after its
        /// own call of the same function only gives back its own hold (the
        /// model's `exclusive`).
        exclusive: bool,
        /// Those surely not running after it: no callback still live may
        /// make them live again ([`crate::analyses::quiesce`]); filled in
        /// after lowering.
        effective: Vec<String>,
        /// The C source.
        span: Option<Span>,
    },
    /// `keep e1, e2;`: a call hands these values to the kernel, which may
    /// keep them after it returns (the function's model's `keeps`, every
    /// argument of a call without model). No effect on the state: the
    /// precise phase's replay learns from it which objects the kernel can
    /// hold pointers into (`src/precise/replay.rs`).
    Keep {
        /// The values kept.
        values: Vec<Expr>,
        /// The C source.
        span: Option<Span>,
    },
    /// `approx {external-call} "foo";`: the lowering approximated here.
    Approximation {
        /// What was approximated.
        kind: ApproxKind,
        /// A detail for the report: the function or construct.
        detail: String,
        /// The C source.
        span: Option<Span>,
    },
}


impl Command {
    /// Rewrites every region this command names, for region unification.
    pub fn remap_regions(&mut self, mut f: impl FnMut(RegionId) -> RegionId) {
        match self {
            Command::Load { region, .. } | Command::Store { region, .. } | Command::GhostAccess { region, .. } => {
                *region = f(*region);
            }
            Command::Assign { .. }
            | Command::Assume { .. }
            | Command::Assert { .. }
            | Command::Havoc { .. }
            | Command::Call { .. }
            | Command::Lock { .. }
            | Command::TryLock { .. }
            | Command::Unlock { .. }
            | Command::LockUnknown { .. }
            | Command::HeldAnnotation { .. }
            | Command::InterruptControl { .. }
            | Command::MakeLive { .. }
            | Command::Quiesce { .. }
            | Command::Keep { .. }
            | Command::Approximation { .. } => {}
        }
    }

    /// Where the command comes from in C, if anywhere.
    pub fn span(&self) -> Option<&Span> {
        match self {
            Command::Assign { span, .. }
            | Command::Assume { span, .. }
            | Command::Assert { span, .. }
            | Command::Havoc { span, .. }
            | Command::Call { span, .. }
            | Command::Load { span, .. }
            | Command::Store { span, .. }
            | Command::Lock { span, .. }
            | Command::TryLock { span, .. }
            | Command::Unlock { span, .. }
            | Command::LockUnknown { span, .. }
            | Command::HeldAnnotation { span, .. }
            | Command::InterruptControl { span, .. }
            | Command::MakeLive { span, .. }
            | Command::Quiesce { span, .. }
            | Command::GhostAccess { span, .. }
            | Command::Keep { span, .. }
            | Command::Approximation { span, .. } => span.as_ref(),
        }
    }

    /// The expressions the command evaluates, in printed order.
    pub fn expressions(&self) -> Vec<&Expr> {
        match self {
            Command::Assign { value, .. } => vec![value],
            Command::Assume { cond, .. } | Command::Assert { cond, .. } => vec![cond],
            Command::Call { args, .. } => args.iter().collect(),
            Command::Load { address, .. } | Command::GhostAccess { address, .. } => vec![address],
            Command::Store { address, value, .. } => vec![address, value],
            Command::Keep { values, .. } => values.iter().collect(),
            Command::Havoc { .. }
            | Command::Lock { .. }
            | Command::TryLock { .. }
            | Command::Unlock { .. }
            | Command::LockUnknown { .. }
            | Command::HeldAnnotation { .. }
            | Command::InterruptControl { .. }
            | Command::MakeLive { .. }
            | Command::Quiesce { .. }
            | Command::Approximation { .. } => Vec::new(),
        }
    }

    /// The variables the command writes.
    pub fn targets(&self) -> Vec<VarId> {
        match self {
            Command::Assign { target, .. } | Command::Load { target, .. } => vec![*target],
            Command::Havoc { vars, .. } => vars.clone(),
            Command::Call { results, .. } => results.clone(),
            Command::TryLock { success, .. } => vec![*success],
            Command::Assume { .. }
            | Command::Assert { .. }
            | Command::Store { .. }
            | Command::Lock { .. }
            | Command::Unlock { .. }
            | Command::LockUnknown { .. }
            | Command::HeldAnnotation { .. }
            | Command::InterruptControl { .. }
            | Command::MakeLive { .. }
            | Command::Quiesce { .. }
            | Command::GhostAccess { .. }
            | Command::Keep { .. }
            | Command::Approximation { .. } => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unsupported_constructs_affect_soundness() {
        let kinds = [
            ApproxKind::ExternalCall,
            ApproxKind::InlineAsm,
            ApproxKind::FunctionPointer,
            ApproxKind::UnsupportedConstruct,
            ApproxKind::UnknownLock,
            ApproxKind::BitOperation,
            ApproxKind::Cast,
        ];
        let unsound: Vec<&str> = kinds.iter().filter(|k| k.affects_soundness()).map(|k| k.as_str()).collect();
        assert_eq!(unsound, ["unsupported-construct"]);
    }
}
