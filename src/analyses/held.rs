//! Which locks may be held at the accesses to each region.
//!
//! # Algorithm
//!
//! A forward may-analysis over the lowered program. Within a procedure,
//! the set of locks possibly held flows along the control-flow graph
//! (union at joins, iterated to a fixpoint around loops): `lock` and
//! `trylock` add their lock, `unlock` removes it, and a call adds the locks
//! its callee may still hold when it returns, having taken them itself
//! (`keeps`, computed bottom-up the same way from an empty set, iterated
//! to a fixpoint for recursion). A call never removes a lock: an unlock
//! inside the callee is not followed, which only keeps more locks.
//! Between procedures, the set at a procedure's entry is the union of the
//! sets at all its call sites, and at an entry point's start the kernel
//! pseudo locks it runs holding; this too is iterated to a fixpoint.
//!
//! The result, per region, is the set of locks possibly held at some
//! access to it, and, per region and kind of access (read, write), the
//! locks possibly held exclusively at one. An exclusive hold is tracked as
//! a second token of the lock ([`exclusive_token`]): an exclusive `lock`,
//! `trylock` or trusted annotation adds both, a shared one only the lock,
//! an `unlock` removes both.
//!
//! # Use and soundness
//!
//! The lockset instrumentation keeps `LSR[R][L]` and `LSW[R][L]` only for the locks this
//! analysis finds possibly held at an access to R. The analysis follows
//! the instrumented program's lock semantics (an unlock clears the lock,
//! as `CLS[L] := false` does), and over-approximates them (every path,
//! callers' sets merged, callee unlocks ignored), so a lock it leaves out
//! is held at no access to R in any execution: `LSR[R][L]` and `LSW[R][L]`
//! would be false after the first access of their kind to R, so L cannot
//! protect R, and leaving the
//! variable out (reading it as false) changes no verdict. The gain is
//! size: a region is typically accessed under one lock or none, while the
//! instrumentation otherwise tracks every lock for every region.

use crate::ir::{BlockId, Command, LockId, LockMode, ProcId, Program, RegionId, Terminator};
use std::collections::{BTreeMap, BTreeSet};

/// Locks as a set (with the exclusive tokens, inside the analysis).
type Held = BTreeSet<LockId>;

/// Where the exclusive tokens' ids start: far above any lock's id.
const EXCLUSIVE_BASE: u32 = 1 << 30;

/// The token standing for "`lock` held exclusively".
pub fn exclusive_token(lock: LockId) -> LockId {
    LockId::from_u32(lock.as_u32() | EXCLUSIVE_BASE)
}

/// What [`locks_at_accesses`] finds.
#[derive(Debug, Default)]
pub struct LocksAt {
    /// Per region, the locks possibly held (any mode) at some access.
    pub any: BTreeMap<RegionId, Held>,
    /// Per region and kind of access (`true`: a write), the locks possibly
    /// held exclusively at some access of that kind.
    pub exclusive: BTreeMap<(RegionId, bool), Held>,
}

/// The locks possibly held at some access to each shared region, given the
/// entry points' procedures and the pseudo locks each runs holding (with
/// the [`exclusive_token`] of each it holds exclusively).
pub fn locks_at_accesses(program: &Program, roots: &[(ProcId, Held)]) -> LocksAt {
    let reached = reachable(program, roots.iter().map(|(p, _)| *p));
    // What each procedure may still hold at its return, having taken it.
    let mut keeps: BTreeMap<ProcId, Held> = BTreeMap::new();
    loop {
        let mut changed = false;
        for &p in &reached {
            let at_return = flow(program, p, &Held::new(), &keeps, &mut |_, _| {});
            if keeps.get(&p) != Some(&at_return) {
                keeps.insert(p, at_return);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // The locks possibly held at each procedure's entry.
    let mut entry: BTreeMap<ProcId, Held> = BTreeMap::new();
    for (p, held) in roots {
        entry.entry(*p).or_default().extend(held.iter().copied());
    }
    loop {
        let mut changed = false;
        for &p in &reached {
            let start = entry.get(&p).cloned().unwrap_or_default();
            let mut calls: Vec<(ProcId, Held)> = Vec::new();
            flow(program, p, &start, &keeps, &mut |c, held| {
                if let Command::Call { procedure, .. } = c {
                    calls.push((*procedure, held.clone()));
                }
            });
            for (q, held) in calls {
                let set = entry.entry(q).or_default();
                for l in held {
                    changed |= set.insert(l);
                }
            }
        }
        if !changed {
            break;
        }
    }
    // The locks at every access.
    let mut out = LocksAt::default();
    for &p in &reached {
        let start = entry.get(&p).cloned().unwrap_or_default();
        flow(program, p, &start, &keeps, &mut |c, held| {
            let (region, write) = match c {
                Command::Load { region, .. } => (*region, false),
                Command::Store { region, .. } => (*region, true),
                _ => return,
            };
            let (exclusive, any): (Vec<LockId>, Vec<LockId>) = held.iter().partition(|l| l.as_u32() & EXCLUSIVE_BASE != 0);
            out.any.entry(region).or_default().extend(any);
            out.exclusive
                .entry((region, write))
                .or_default()
                .extend(exclusive.into_iter().map(|t| LockId::from_u32(t.as_u32() & !EXCLUSIVE_BASE)));
        });
    }
    out
}

fn reachable(program: &Program, roots: impl Iterator<Item = ProcId>) -> BTreeSet<ProcId> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<ProcId> = roots.collect();
    while let Some(p) = stack.pop() {
        if !seen.insert(p) {
            continue;
        }
        for (_, block) in program.procedures[p].blocks.iter() {
            for c in &block.commands {
                if let Command::Call { procedure, .. } = c {
                    stack.push(*procedure);
                }
            }
        }
    }
    seen
}

/// Runs the intraprocedural analysis of `p` from `start`, calling `visit`
/// with each command and the locks possibly held just before it (at the
/// fixpoint, possibly several times per command); returns the locks
/// possibly held at its returns.
fn flow(
    program: &Program,
    p: ProcId,
    start: &Held,
    keeps: &BTreeMap<ProcId, Held>,
    visit: &mut dyn FnMut(&Command, &Held),
) -> Held {
    let procedure = &program.procedures[p];
    let mut at_start: BTreeMap<BlockId, Held> = BTreeMap::from([(procedure.entry, start.clone())]);
    let mut work: BTreeSet<BlockId> = BTreeSet::from([procedure.entry]);
    // First the fixpoint of the block entry sets, then one visiting pass.
    while let Some(b) = work.pop_first() {
        let held = transfer(procedure.blocks[b].commands.iter(), at_start[&b].clone(), keeps, &mut |_, _| {});
        if let Terminator::Goto(targets) = &procedure.blocks[b].terminator {
            for t in targets {
                match at_start.get_mut(t) {
                    None => {
                        at_start.insert(*t, held.clone());
                        work.insert(*t);
                    }
                    Some(set) => {
                        let before = set.len();
                        set.extend(held.iter().copied());
                        if set.len() != before {
                            work.insert(*t);
                        }
                    }
                }
            }
        }
    }
    let mut at_return = Held::new();
    for (b, held) in &at_start {
        let block = &procedure.blocks[*b];
        let end = transfer(block.commands.iter(), held.clone(), keeps, visit);
        if matches!(block.terminator, Terminator::Return) {
            at_return.extend(end);
        }
    }
    at_return
}

fn transfer<'c>(
    commands: impl Iterator<Item = &'c Command>,
    mut held: Held,
    keeps: &BTreeMap<ProcId, Held>,
    visit: &mut dyn FnMut(&Command, &Held),
) -> Held {
    for c in commands {
        visit(c, &held);
        match c {
            Command::Lock { lock, mode, .. } | Command::TryLock { lock, mode, .. } => {
                held.insert(*lock);
                if *mode == LockMode::Exclusive {
                    held.insert(exclusive_token(*lock));
                }
            }
            Command::HeldAnnotation { lock, mode, trusted: true, .. } => {
                held.insert(*lock);
                if *mode == Some(LockMode::Exclusive) {
                    held.insert(exclusive_token(*lock));
                }
            }
            Command::Unlock { lock, .. } => {
                held.remove(lock);
                held.remove(&exclusive_token(*lock));
            }
            Command::Call { procedure, .. } => {
                if let Some(k) = keeps.get(procedure) {
                    held.extend(k.iter().copied());
                }
            }
            _ => {}
        }
    }
    held
}
