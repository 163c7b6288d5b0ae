//! Bit locks owned by an open object: the single-open flag
//! `if (test_and_set_bit(0, &is_open)) return -EBUSY;` in a file's `open`,
//! cleared by its `release`.
//!
//! # The kernel mechanism
//!
//! An `after-begin` lifetime rule (kernel-models/lifetimes/files.xml,
//! `open-file`) says that every other callback on an object runs only
//! after its begin callback returned 0 on it, and that the end callback is
//! its last (do_dentry_open in fs/open.c installs a file only after `open`
//! returned 0; __fput in fs/file_table.c calls `release` when the last
//! reference is gone, after every other file operation has returned). So
//! a bit lock that the begin callback takes and keeps whenever it
//! succeeds, and that nobody but the end callback (or a holder that took
//! it itself) clears, is set from that open until that release: while one
//! file holds it no other `open` can take it, and every operation of that
//! file runs inside the hold. The file's operations share the hold among
//! themselves (two reads of one file may overlap), so they run holding it
//! in shared mode; the `open` that took it and the `release`, which runs
//! after every other operation of its file has returned, hold it
//! exclusively: an exclusive holder excludes every shared one (the `LSX`
//! rule).
//!
//! # Algorithm
//!
//! For each entry point, its begin callback is the one
//! [`crate::analyses::objects::begin_of`] finds (every registration names
//! its structure, and the structures agree on a single begin callback of
//! the driver; no prefix when the driver replaces the file's operations).
//! A begin callback **owns** a candidate bit lock when the must-held
//! analysis finds it held exclusively at every return of the callback that
//! may return 0: the paths that assign the callback's result a non-zero
//! constant ([`failing_returns`], with nothing assigning the result after
//! it) are left out. The end callbacks of an owner's structure then start
//! holding the lock for the release check of src/frontend/lower/bitlocks.rs
//! (a clear in `release` clears the file's own hold); no other entry point
//! does, so a clear in `read` or in a timer still demotes the lock. Once
//! the lock survives that check, every entry point whose begin callback
//! owns it runs holding it (`EntryPointInfo::held_by_object`), exclusively
//! for the end callback and shared for the others.
//!
//! # Soundness
//!
//! It rests on the lifetime rule's mechanism and on the bit lock's own
//! conditions (only releases clear the bit, each made while held: here
//! held by the file). A begin callback that fails after taking the bit
//! and keeps it only leaves the bit set, which lets fewer files open. The
//! pseudo lock is identified like every lock (a global, or a field by
//! structure type and offset), and, like every lock, assumed to be the
//! instance of the pair's objects (docs/soundness.md).

use crate::analyses::must_held::{CommandAt, EntryRoot, held_at_returns};
use crate::ir::{BinaryOp, BlockId, Command, Expr, LockId, LockMode, ProcId, Program, Terminator, UnaryOp, VarId};
use crate::models::{Role, Stage};
use std::collections::{BTreeMap, BTreeSet};

/// Which begin callbacks own which candidate bit locks.
#[derive(Debug, Default)]
pub(super) struct Owners {
    /// Per entry point (the index of `program.entry_points`): its begin
    /// callback and its own stage in the object's life.
    begin: Vec<Option<(usize, Stage)>>,
    /// The candidate locks each begin callback owns.
    owned: BTreeMap<usize, BTreeSet<LockId>>,
}

impl Owners {
    /// Finds the owners among `candidates`.
    pub(super) fn of(program: &Program, candidates: &BTreeSet<LockId>) -> Owners {
        let entries: Vec<_> = program.entry_points.values().collect();
        let begin: Vec<Option<(usize, Stage)>> = (0..entries.len())
            .map(|i| {
                let b = crate::analyses::objects::begin_of(program, &entries, i)?;
                let stage = entries[i].objects.iter().find(|o| o.rule == b.rule)?.stage;
                Some((b.entry, stage))
            })
            .collect();
        let begins: BTreeSet<usize> = begin.iter().flatten().map(|(b, _)| *b).collect();
        if candidates.is_empty() || begins.is_empty() {
            return Owners { begin, owned: BTreeMap::new() };
        }
        let roots: Vec<(EntryRoot, BTreeSet<CommandAt>)> = begins
            .iter()
            .map(|&b| {
                let e = entries[b];
                let root = EntryRoot { procedure: e.procedure, held: BTreeSet::new(), init: e.kind.role() == Role::Init };
                (root, failing_returns(program, e.procedure))
            })
            .collect();
        let at_returns = held_at_returns(program, &roots);
        let mut owned = BTreeMap::new();
        for (&b, held) in begins.iter().zip(at_returns) {
            // A callback that never returns 0 opens nothing.
            let Some(held) = held else { continue };
            let locks: BTreeSet<LockId> = candidates
                .iter()
                .filter(|l| held.get(l) == Some(&LockMode::Exclusive))
                .copied()
                .collect();
            if !locks.is_empty() {
                owned.insert(b, locks);
            }
        }
        Owners { begin, owned }
    }

    /// The locks entry point `i` runs holding because its object's begin
    /// callback owns them, among `among`, with their mode: the end callback
    /// holds them exclusively (every other callback of its object has
    /// returned, and no other object can be open), the others shared.
    pub(super) fn held_by(&self, i: usize, among: &BTreeSet<LockId>) -> BTreeMap<LockId, LockMode> {
        let Some(Some((b, stage))) = self.begin.get(i) else { return BTreeMap::new() };
        let mode = match stage {
            Stage::Begin => return BTreeMap::new(),
            Stage::End => LockMode::Exclusive,
            Stage::During => LockMode::Shared,
        };
        self.owned.get(b).map(|o| o.intersection(among).map(|l| (*l, mode)).collect()).unwrap_or_default()
    }

    /// The locks the release check starts entry point `i` with: those of
    /// [`Owners::held_by`] for an end callback, none otherwise.
    pub(super) fn seeded(&self, i: usize, among: &BTreeSet<LockId>) -> BTreeSet<LockId> {
        match self.begin.get(i) {
            Some(Some((_, Stage::End))) => self.held_by(i, among).into_keys().collect(),
            _ => BTreeSet::new(),
        }
    }

    /// Whether entry point `b` owns `lock`.
    pub(super) fn owns(&self, b: usize, lock: LockId) -> bool {
        self.owned.get(&b).is_some_and(|o| o.contains(&lock))
    }
}

/// The assignments of `p`'s result that make it return an error: a value
/// that is a non-zero constant (evaluated with the constants assigned
/// earlier in its block), with no assignment of the result reachable after
/// it.
fn failing_returns(program: &Program, p: ProcId) -> BTreeSet<CommandAt> {
    let procedure = &program.procedures[p];
    let Some(&result) = procedure.returns.first() else { return BTreeSet::new() };
    let assigns_result = |c: &Command| matches!(c, Command::Assign { target, .. } if *target == result);
    let assigning: BTreeSet<BlockId> =
        procedure.blocks.iter().filter(|(_, b)| b.commands.iter().any(assigns_result)).map(|(id, _)| id).collect();
    let successors = |b: BlockId| match &procedure.blocks[b].terminator {
        Terminator::Goto(targets) => targets.clone(),
        Terminator::Return | Terminator::Unreachable => Vec::new(),
    };
    // Whether a block reachable from b's successors assigns the result.
    let reassigned_after = |b: BlockId| {
        let mut seen = BTreeSet::new();
        let mut work = successors(b);
        while let Some(x) = work.pop() {
            if !seen.insert(x) {
                continue;
            }
            if assigning.contains(&x) {
                return true;
            }
            work.extend(successors(x));
        }
        false
    };
    let mut out = BTreeSet::new();
    for (b, block) in procedure.blocks.iter() {
        let mut known: BTreeMap<VarId, i128> = BTreeMap::new();
        let mut last = None;
        for (index, c) in block.commands.iter().enumerate() {
            match c {
                Command::Assign { target, value, .. } => {
                    let v = constant(value, &known);
                    if *target == result {
                        last = Some((index, v));
                    }
                    match v {
                        Some(v) => known.insert(*target, v),
                        None => known.remove(target),
                    };
                }
                Command::Havoc { vars, .. } => vars.iter().for_each(|v| {
                    known.remove(v);
                }),
                Command::Load { target, .. } => {
                    known.remove(target);
                }
                Command::Call { results, .. } => results.iter().for_each(|v| {
                    known.remove(v);
                }),
                _ => {}
            }
        }
        if let Some((index, Some(v))) = last {
            if v != 0 && !reassigned_after(b) {
                out.insert(CommandAt { procedure: p, block: b, index });
            }
        }
    }
    out
}

/// The value of an integer expression made of constants and variables of
/// `known`, if it has one.
fn constant(e: &Expr, known: &BTreeMap<VarId, i128>) -> Option<i128> {
    match e {
        Expr::Int(v) => Some(*v),
        Expr::Var(v) => known.get(v).copied(),
        Expr::Unary(UnaryOp::Neg, a) => constant(a, known)?.checked_neg(),
        Expr::Ite(c, a, b) => {
            if truth_of(c, known)? {
                constant(a, known)
            } else {
                constant(b, known)
            }
        }
        Expr::Binary(op, a, b) => {
            let (x, y) = (constant(a, known)?, constant(b, known)?);
            match op {
                BinaryOp::Add => x.checked_add(y),
                BinaryOp::Sub => x.checked_sub(y),
                BinaryOp::Mul => x.checked_mul(y),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The truth of a boolean expression over constants and `known`.
fn truth_of(e: &Expr, known: &BTreeMap<VarId, i128>) -> Option<bool> {
    match e {
        Expr::Bool(b) => Some(*b),
        Expr::Unary(UnaryOp::Not, a) => truth_of(a, known).map(|t| !t),
        Expr::Binary(op @ (BinaryOp::And | BinaryOp::Or), a, b) => {
            let (x, y) = (truth_of(a, known)?, truth_of(b, known)?);
            Some(if *op == BinaryOp::And { x && y } else { x || y })
        }
        Expr::Binary(op, a, b) => {
            let (x, y) = (constant(a, known)?, constant(b, known)?);
            match op {
                BinaryOp::Eq => Some(x == y),
                BinaryOp::Ne => Some(x != y),
                BinaryOp::Lt => Some(x < y),
                BinaryOp::Le => Some(x <= y),
                BinaryOp::Gt => Some(x > y),
                BinaryOp::Ge => Some(x >= y),
                _ => None,
            }
        }
        _ => None,
    }
}
