//! Which locks are certainly held at each access (or any chosen command)
//! of each entry point.
//!
//! # Algorithm
//!
//! A forward must-analysis over the lowered program, run once per entry
//! point; [`super::held`] is its may counterpart. The fact at a program
//! point is a [`State`]: the locks held on every path reaching it (with the
//! weakest mode among those paths), the trylock outcomes not yet branched
//! on, and whether the driver's callbacks are certainly not live yet (an
//! init entry point before its first registration). "Unreached" is the top
//! element; joins intersect.
//!
//! - Within a procedure, states flow along the control-flow graph, met at
//!   joins and iterated to a fixpoint around loops. `lock` adds its lock
//!   (an exclusive hold outranks a shared one, as `CLX` does in the
//!   instrumentation), `unlock` removes it, `live` clears "not live".
//! - `trylock` adds nothing by itself: it records that its success
//!   variable is true exactly when the lock was taken. Assignments that
//!   only re-encode that truth (`t := if ok then 1 else 0`, `t != 0`, `!t`,
//!   a C conversion of a 0/1 value) carry it to their target, and the
//!   `assume ok == (r == 0)` of a lock that may fail carries it to the
//!   call's result. An `assume` at a branch head that makes such a truth
//!   "taken" adds the lock; the failure branch adds nothing. Whatever the
//!   patterns do not recognise is a trylock that acquired nothing.
//! - A call keeps the caller's locks its callee can never release (no
//!   `unlock` of them in the callee or below it), and adds the locks the
//!   callee certainly holds at its returns when entered holding nothing
//!   (its *gain*, computed bottom-up from "all locks", top, to a greatest
//!   fixpoint, so recursion is handled). A callee that makes callbacks live
//!   (a `live` command in it or below it) clears "not live". A callee that
//!   never returns makes the code after the call unreached.
//! - Between procedures, for one entry point: its own procedure starts with
//!   the kernel pseudo locks it runs holding (exclusively, as the pair VC
//!   assumes), and every other procedure it reaches starts with the meet
//!   of the states at its call sites that the entry point reaches. A
//!   worklist iterates this from top to the greatest fixpoint.
//!
//! # Soundness
//!
//! The transfer functions follow the instrumented program's lock semantics
//! (`CLS`, `CLX`, `LIVE` in src/instrument/lockset.rs) and under-approximate
//! what is held: a join keeps only what every path has, a call drops what
//! the callee might release, a trylock adds its lock only where its success
//! is assumed. The greatest fixpoint is sound for what holds at a point
//! every execution reaches in finitely many steps (every execution that
//! reaches an access got there through finitely many calls and loop
//! iterations, by induction on which the fact holds). So a lock reported at
//! an access is held at that access in every execution of the entry point.
//! An access the analysis never reaches (dead code) has no facts.

use crate::ir::{BlockId, Command, Expr, LockId, LockMode, ProcId, Program, Scope, Terminator, VarId};
use crate::ir::{BinaryOp, UnaryOp};
use std::collections::{BTreeMap, BTreeSet};

/// Where a command is: its procedure, block and position in the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CommandAt {
    /// The procedure.
    pub procedure: ProcId,
    /// The block.
    pub block: BlockId,
    /// The command's index in the block.
    pub index: usize,
}

/// What is certain just before one access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessFacts {
    /// The locks held on every path to the access, each with the weakest
    /// mode it is held in on those paths.
    pub locks: BTreeMap<LockId, LockMode>,
    /// The access certainly happens before the driver's callbacks are live
    /// (only in an init entry point, before its registrations).
    pub before_live: bool,
}

/// One entry point to analyse.
#[derive(Clone, Debug)]
pub struct EntryRoot {
    /// Its procedure.
    pub procedure: ProcId,
    /// The kernel pseudo locks it runs holding.
    pub held: BTreeSet<LockId>,
    /// It sets the driver up (module init, probe): callbacks are not live
    /// when it starts.
    pub init: bool,
}

/// The facts at every reached `load` and `store` of each entry point, in
/// the order of `roots`.
pub fn must_held_at_accesses(program: &Program, roots: &[EntryRoot]) -> Vec<BTreeMap<CommandAt, AccessFacts>> {
    let summaries = CallSummaries::of(program);
    let accesses = |_: CommandAt, c: &Command| matches!(c, Command::Load { .. } | Command::Store { .. });
    let none = BTreeSet::new();
    roots.iter().map(|root| entry_point_facts(program, &summaries, root, &none, &accesses).0).collect()
}

/// The facts just before each command of `wanted` that each entry point
/// reaches, in the order of `roots` (a command an entry point never
/// reaches has no entry in its map).
pub fn must_held_at(program: &Program, roots: &[EntryRoot], wanted: &BTreeSet<CommandAt>) -> Vec<BTreeMap<CommandAt, AccessFacts>> {
    let summaries = CallSummaries::of(program);
    let pick = |at: CommandAt, _: &Command| wanted.contains(&at);
    let none = BTreeSet::new();
    roots.iter().map(|root| entry_point_facts(program, &summaries, root, &none, &pick).0).collect()
}

/// The locks each entry point certainly holds when it returns, over the
/// paths that reach none of the commands `failing[i]` (for a begin
/// callback: the paths on which it returns an error); none when no such
/// path returns. In the order of `roots`.
pub fn held_at_returns(program: &Program, roots: &[(EntryRoot, BTreeSet<CommandAt>)]) -> Vec<Option<BTreeMap<LockId, LockMode>>> {
    let summaries = CallSummaries::of(program);
    roots.iter().map(|(root, failing)| entry_point_facts(program, &summaries, root, failing, &|_, _| false).1).collect()
}

/// A trylock outcome not yet branched on: the lock was taken exactly when
/// the truth of a variable (a boolean, or an integer being non-zero)
/// equals `taken_when`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TryOutcome {
    lock: LockId,
    mode: LockMode,
    taken_when: bool,
    /// The variable is 0 or 1 (or a boolean), so a C conversion keeps it.
    zero_or_one: bool,
}

/// The facts at a reached program point.
#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    locks: BTreeMap<LockId, LockMode>,
    outcomes: BTreeMap<VarId, TryOutcome>,
    before_live: bool,
}

impl State {
    fn acquire(&mut self, lock: LockId, mode: LockMode) {
        let mode = match self.locks.get(&lock) {
            Some(old) => stronger(*old, mode),
            None => mode,
        };
        self.locks.insert(lock, mode);
    }

    /// The meet of two reached states: what both have.
    fn meet(&self, other: &State) -> State {
        let locks = self.locks.iter().filter_map(|(l, m)| other.locks.get(l).map(|n| (*l, weaker(*m, *n)))).collect();
        let outcomes = self.outcomes.iter().filter(|(v, o)| other.outcomes.get(v) == Some(o)).map(|(v, o)| (*v, *o)).collect();
        State { locks, outcomes, before_live: self.before_live && other.before_live }
    }
}

fn stronger(a: LockMode, b: LockMode) -> LockMode {
    match (a, b) {
        (LockMode::Shared, LockMode::Shared) => LockMode::Shared,
        (LockMode::Exclusive, _) | (_, LockMode::Exclusive) => LockMode::Exclusive,
    }
}

fn weaker(a: LockMode, b: LockMode) -> LockMode {
    match (a, b) {
        (LockMode::Exclusive, LockMode::Exclusive) => LockMode::Exclusive,
        (LockMode::Shared, _) | (_, LockMode::Shared) => LockMode::Shared,
    }
}

/// Meets `incoming` into an optional state (absent: unreached, top);
/// returns whether it changed.
fn meet_into(slot: &mut Option<State>, incoming: &State) -> bool {
    let next = match slot {
        Some(old) => old.meet(incoming),
        None => incoming.clone(),
    };
    let changed = slot.as_ref() != Some(&next);
    *slot = Some(next);
    changed
}

/// What a call does to its caller's state, per callee.
struct CallSummaries {
    /// Locks the callee or a procedure below it may unlock.
    may_release: BTreeMap<ProcId, BTreeSet<LockId>>,
    /// The callee or a procedure below it makes callbacks live.
    may_make_live: BTreeSet<ProcId>,
    /// Locks certainly held at the callee's returns when entered holding
    /// none; absent: it never returns.
    gain: BTreeMap<ProcId, BTreeMap<LockId, LockMode>>,
}

impl CallSummaries {
    fn of(program: &Program) -> CallSummaries {
        // The syntactic effects, closed over the call graph.
        let mut may_release: BTreeMap<ProcId, BTreeSet<LockId>> = BTreeMap::new();
        let mut may_make_live = BTreeSet::new();
        let mut callees: BTreeMap<ProcId, BTreeSet<ProcId>> = BTreeMap::new();
        for (p, procedure) in program.procedures.iter() {
            let released = may_release.entry(p).or_default();
            for (_, block) in procedure.blocks.iter() {
                for c in &block.commands {
                    match c {
                        Command::Unlock { lock, .. } => {
                            released.insert(*lock);
                        }
                        Command::MakeLive { .. } => {
                            may_make_live.insert(p);
                        }
                        Command::Call { procedure: q, .. } => {
                            callees.entry(p).or_default().insert(*q);
                        }
                        Command::Assign { .. }
                        | Command::Assume { .. }
                        | Command::Assert { .. }
                        | Command::Havoc { .. }
                        | Command::Load { .. }
                        | Command::Store { .. }
                        | Command::Lock { .. }
                        | Command::TryLock { .. }
                        | Command::LockUnknown { .. }
                        | Command::HeldAnnotation { .. }
                        | Command::InterruptControl { .. }
                        | Command::Quiesce { .. }
                        | Command::GhostAccess { .. }
                        | Command::Keep { .. }
                        | Command::Approximation { .. } => {}
                    }
                }
            }
        }
        loop {
            let mut changed = false;
            for (p, qs) in &callees {
                for q in qs {
                    let below = may_release.get(q).cloned().unwrap_or_default();
                    let set = may_release.entry(*p).or_default();
                    for l in below {
                        changed |= set.insert(l);
                    }
                    if may_make_live.contains(q) {
                        changed |= may_make_live.insert(*p);
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut summaries = CallSummaries { may_release, may_make_live, gain: BTreeMap::new() };
        // The gains, from top (no procedure known to return) down.
        let empty = State { locks: BTreeMap::new(), outcomes: BTreeMap::new(), before_live: false };
        loop {
            let mut changed = false;
            for p in program.procedures.ids() {
                let Some(at_return) = flow(program, p, &empty, &summaries, &BTreeSet::new(), &mut |_, _, _| {}) else { continue };
                if summaries.gain.get(&p) != Some(&at_return.locks) {
                    summaries.gain.insert(p, at_return.locks);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        summaries
    }
}

/// The facts at the accesses of one entry point, and the locks held at its
/// returns (none: it never returns); paths through a command of `failing`
/// are left out.
fn entry_point_facts(
    program: &Program,
    summaries: &CallSummaries,
    root: &EntryRoot,
    failing: &BTreeSet<CommandAt>,
    pick: &dyn Fn(CommandAt, &Command) -> bool,
) -> (BTreeMap<CommandAt, AccessFacts>, Option<BTreeMap<LockId, LockMode>>) {
    let locks = root.held.iter().map(|l| (*l, LockMode::Exclusive)).collect();
    let initial = State { locks, outcomes: BTreeMap::new(), before_live: root.init };
    // The meet of the states at the calls from each caller, per callee.
    let mut from_callers: BTreeMap<ProcId, BTreeMap<ProcId, State>> = BTreeMap::new();
    let mut entry: BTreeMap<ProcId, State> = BTreeMap::from([(root.procedure, initial.clone())]);
    let mut work = BTreeSet::from([root.procedure]);
    while let Some(p) = work.pop_first() {
        let mut at_calls: BTreeMap<ProcId, Option<State>> = BTreeMap::new();
        flow(program, p, &entry[&p], summaries, failing, &mut |_, c, state| {
            if let Command::Call { procedure: q, .. } = c {
                let into_callee = State { locks: state.locks.clone(), outcomes: BTreeMap::new(), before_live: state.before_live };
                meet_into(at_calls.entry(*q).or_default(), &into_callee);
            }
        });
        for (q, state) in at_calls {
            let Some(state) = state else { continue };
            from_callers.entry(q).or_default().insert(p, state);
            let mut start = if q == root.procedure { Some(initial.clone()) } else { None };
            for s in from_callers[&q].values() {
                meet_into(&mut start, s);
            }
            let start = start.expect("a callee has a caller");
            if entry.get(&q) != Some(&start) {
                entry.insert(q, start);
                work.insert(q);
            }
        }
    }
    let mut out = BTreeMap::new();
    let mut at_return = None;
    for (p, start) in &entry {
        let end = flow(program, *p, start, summaries, failing, &mut |at, c, state| {
            if pick(at, c) {
                out.insert(at, AccessFacts { locks: state.locks.clone(), before_live: state.before_live });
            }
        });
        if *p == root.procedure {
            at_return = end.map(|s| s.locks);
        }
    }
    (out, at_return)
}

/// Runs the analysis of `p` from `start` to its fixpoint, then visits each
/// reached command once with the state just before it; returns the meet of
/// the states at its returns (none: no return is reached).
fn flow(
    program: &Program,
    p: ProcId,
    start: &State,
    summaries: &CallSummaries,
    failing: &BTreeSet<CommandAt>,
    visit: &mut dyn FnMut(CommandAt, &Command, &State),
) -> Option<State> {
    let procedure = &program.procedures[p];
    let mut at_start: BTreeMap<BlockId, State> = BTreeMap::from([(procedure.entry, start.clone())]);
    let mut work = BTreeSet::from([procedure.entry]);
    while let Some(b) = work.pop_first() {
        let block = &procedure.blocks[b];
        let Some(end) = transfer(program, p, b, &block.commands, at_start[&b].clone(), summaries, failing, &mut |_, _, _| {}) else {
            continue;
        };
        if let Terminator::Goto(targets) = &block.terminator {
            for t in targets {
                let mut slot = at_start.remove(t);
                if meet_into(&mut slot, &end) {
                    work.insert(*t);
                }
                at_start.insert(*t, slot.expect("just met"));
            }
        }
    }
    let mut at_return: Option<State> = None;
    for (b, state) in &at_start {
        let block = &procedure.blocks[*b];
        let end = transfer(program, p, *b, &block.commands, state.clone(), summaries, failing, visit);
        if let (Some(end), Terminator::Return) = (end, &block.terminator) {
            meet_into(&mut at_return, &end);
        }
    }
    at_return
}

/// The state after a block's commands; none when the rest of the block is
/// unreachable (`assume false`, a call that never returns, a command of
/// `failing`).
#[allow(clippy::too_many_arguments)]
fn transfer(
    program: &Program,
    procedure: ProcId,
    block: BlockId,
    commands: &[Command],
    mut state: State,
    summaries: &CallSummaries,
    failing: &BTreeSet<CommandAt>,
    visit: &mut dyn FnMut(CommandAt, &Command, &State),
) -> Option<State> {
    for (index, c) in commands.iter().enumerate() {
        let at = CommandAt { procedure, block, index };
        if failing.contains(&at) {
            return None;
        }
        visit(at, c, &state);
        match c {
            Command::Lock { lock, mode, .. } => state.acquire(*lock, *mode),
            // A trusted annotation holds on every path here (checked), or
            // is the standing assumption on the kernel's call.
            Command::HeldAnnotation { lock, mode, trusted: true, .. } => state.acquire(*lock, mode.unwrap_or(LockMode::Shared)),
            Command::Unlock { lock, .. } => {
                state.locks.remove(lock);
                state.outcomes.retain(|_, o| o.lock != *lock);
            }
            Command::TryLock { lock, mode, success, .. } => {
                let outcome = TryOutcome { lock: *lock, mode: *mode, taken_when: true, zero_or_one: true };
                state.outcomes.insert(*success, outcome);
            }
            Command::Assign { target, value, .. } => {
                let carried = outcome_of(value, &state.outcomes);
                state.outcomes.remove(target);
                if let Some(o) = carried {
                    state.outcomes.insert(*target, o);
                }
            }
            Command::Assume { cond, .. } => {
                if *cond == Expr::Bool(false) {
                    return None;
                }
                assume(cond, &mut state);
            }
            Command::Load { target, .. } => {
                state.outcomes.remove(target);
            }
            Command::Havoc { vars, .. } => {
                for v in vars {
                    state.outcomes.remove(v);
                }
            }
            Command::Call { procedure: q, results, .. } => {
                let gain = summaries.gain.get(q)?;
                let released = &summaries.may_release[q];
                state.locks.retain(|l, _| !released.contains(l));
                for (l, m) in gain {
                    state.acquire(*l, *m);
                }
                // The callee may write globals and its results, and may
                // release the lock of a pending outcome.
                state.outcomes.retain(|v, o| {
                    !results.contains(v) && program.variables[*v].scope != Scope::Global && !released.contains(&o.lock)
                });
                if summaries.may_make_live.contains(q) {
                    state.before_live = false;
                }
            }
            Command::MakeLive { .. } => state.before_live = false,
            // No effect on locks, liveness or variables.
            Command::Store { .. }
            | Command::Assert { .. }
            | Command::LockUnknown { .. }
            | Command::HeldAnnotation { .. }
            | Command::InterruptControl { .. }
            | Command::Quiesce { .. }
            | Command::GhostAccess { .. }
            | Command::Keep { .. }
            | Command::Approximation { .. } => {}
        }
    }
    Some(state)
}

/// Takes the locks whose trylock success an assumed condition implies, and
/// carries an outcome across `assume ok == (r == 0)`.
fn assume(cond: &Expr, state: &mut State) {
    if let Expr::Binary(BinaryOp::And, a, b) = cond {
        assume(a, state);
        assume(b, state);
        return;
    }
    if let Some(o) = outcome_of(cond, &state.outcomes) {
        if o.taken_when {
            state.acquire(o.lock, o.mode);
        }
        return;
    }
    if let Expr::Binary(BinaryOp::Eq, a, b) = cond {
        for (known, other) in [(a, b), (b, a)] {
            let (Some(o), Some((x, truth))) = (outcome_of(known, &state.outcomes), variable_truth(other)) else { continue };
            // taken <=> (known == taken_when) <=> ((x's truth == truth) == taken_when).
            let outcome = TryOutcome { taken_when: truth == o.taken_when, zero_or_one: false, ..o };
            state.outcomes.entry(x).or_insert(outcome);
            return;
        }
    }
}

/// The trylock outcome an expression's truth re-encodes, if any.
fn outcome_of(e: &Expr, outcomes: &BTreeMap<VarId, TryOutcome>) -> Option<TryOutcome> {
    let flip = |o: TryOutcome| TryOutcome { taken_when: !o.taken_when, zero_or_one: true, ..o };
    let compared = |o: TryOutcome| TryOutcome { zero_or_one: true, ..o };
    match e {
        Expr::Var(v) => outcomes.get(v).copied(),
        Expr::Unary(UnaryOp::Not, x) => outcome_of(x, outcomes).map(flip),
        Expr::Binary(op, a, b) => {
            let x = match (a.as_ref(), b.as_ref()) {
                (x, Expr::Int(0)) | (Expr::Int(0), x) => x,
                _ => return None,
            };
            match op {
                BinaryOp::Ne => outcome_of(x, outcomes).map(compared),
                BinaryOp::Eq => outcome_of(x, outcomes).map(flip),
                BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::Rem
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Implies => None,
            }
        }
        Expr::Ite(c, then, otherwise) => match (literal_truth(then), literal_truth(otherwise)) {
            (Some((t, t01)), Some((f, f01))) if t != f => {
                let o = outcome_of(c, outcomes)?;
                Some(TryOutcome { taken_when: if t { o.taken_when } else { !o.taken_when }, zero_or_one: t01 && f01, ..o })
            }
            _ => c_conversion_of(c, then, otherwise).and_then(|x| outcome_of(x, outcomes)).filter(|o| o.zero_or_one),
        },
        Expr::Unary(UnaryOp::Neg, _) | Expr::Int(_) | Expr::Bool(_) | Expr::Apply(..) => None,
    }
}

/// The truth of a literal, and whether it is 0 or 1.
fn literal_truth(e: &Expr) -> Option<(bool, bool)> {
    match e {
        Expr::Int(k) => Some((*k != 0, *k == 0 || *k == 1)),
        Expr::Bool(b) => Some((*b, true)),
        _ => None,
    }
}

/// `x` if the branches are the lowering's C conversion
/// `if lo <= x && x <= hi then x else wrap(x)` with 0 and 1 in range (the
/// conversion keeps a 0/1 value).
fn c_conversion_of<'e>(cond: &Expr, then: &'e Expr, otherwise: &Expr) -> Option<&'e Expr> {
    let Expr::Apply(_, args) = otherwise else { return None };
    let Expr::Binary(BinaryOp::And, low, high) = cond else { return None };
    let (Expr::Binary(BinaryOp::Le, lo, x1), Expr::Binary(BinaryOp::Le, x2, hi)) = (low.as_ref(), high.as_ref()) else {
        return None;
    };
    let (Expr::Int(lo), Expr::Int(hi)) = (lo.as_ref(), hi.as_ref()) else { return None };
    let same = **x1 == *then && **x2 == *then && args.as_slice() == std::slice::from_ref(then);
    (same && *lo <= 0 && *hi >= 1).then_some(then)
}

/// `(x, t)` when the expression is true exactly when the truth of variable
/// `x` is `t`: `x`, `x != 0`, `x == 0`, `!…`.
fn variable_truth(e: &Expr) -> Option<(VarId, bool)> {
    if let Expr::Var(x) = e {
        return Some((*x, true));
    }
    if let Expr::Unary(UnaryOp::Not, inner) = e {
        return variable_truth(inner).map(|(x, t)| (x, !t));
    }
    let Expr::Binary(op @ (BinaryOp::Ne | BinaryOp::Eq), a, zero) = e else { return None };
    if **zero != Expr::Int(0) {
        return None;
    }
    let (x, t) = variable_truth(a)?;
    Some((x, if *op == BinaryOp::Ne { t } else { !t }))
}

#[cfg(test)]
#[path = "must_held_tests.rs"]
mod tests;
