//! Where in a procedure a partner may have been made live: the sets that
//! make the liveness candidates of [`super::contracts`] flow-sensitive.
//!
//! # Why
//!
//! A procedure summary `old(LIVE) || in_p || v == old(v)` (with `in_p`:
//! `PARTNER` is among what p may make live anywhere) says nothing about an
//! access state v as soon as p may make the partner live somewhere. An
//! init function that writes its state first and registers its callbacks
//! at its end (floppy's `do_floppy_init`) then looks as if every one of its
//! writes could race with every callback it registers. What matters for v
//! is only what may be live *at the accesses that change v*.
//!
//! # Algorithm
//!
//! Over the instrumented program, for each procedure p, a forward
//! may-analysis from p's entry (nothing made live) computes at each
//! command the entry points p may have made live since its entry: a
//! `LIVE := LIVE || PARTNER ∈ T` assignment adds T, a call to q adds
//! everything q may make live (its `live_within`, closed as the
//! instrumentation closes it), joins are unions, loops iterate to a
//! fixpoint. Then for each ghost variable v (an access flag or a lockset)
//! `changed_live[p][v]` is the union, over the commands of p that may
//! change v, of the set before the command, and, for a call to q that may
//! change v, also `changed_live[q][v]`; recursion iterates to a fixpoint
//! (the sets only grow). `at_head[p][h]` is the set at loop head h.
//!
//! # Soundness
//!
//! The sets only choose Houdini candidates (`old(LIVE) || PARTNER ∈
//! changed_live[p][v] || v == old(v)`, and `LIVE ==> old(LIVE) || PARTNER
//! ∈ at_head[p][h]` at loop heads); Houdini proves each one on the
//! procedure's VC or drops it, so a set too small loses precision, never
//! soundness. An assignment to `LIVE` of another shape counts as making
//! every entry point live.

use super::contracts::Summaries;
use crate::instrument::lockset::{LiveSet, LocksetProgram};
use crate::ir::{BinaryOp, BlockId, Command, Expr, ProcId, Terminator, VarId};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The flow-sensitive liveness sets of the procedures analysed.
#[derive(Clone, Debug, Default)]
pub struct LivePoints {
    /// Per procedure, per ghost variable it may change: the entry points
    /// it may have made live, since its entry, at a change of it.
    pub changed_live: HashMap<ProcId, HashMap<VarId, LiveSet>>,
    /// Per procedure, per loop head: the entry points it may have made
    /// live, since its entry, when it reaches the head.
    pub at_head: HashMap<ProcId, BTreeMap<BlockId, LiveSet>>,
    /// Per procedure, per site variable and site it may set it to: the
    /// entry points it may have made live, since its entry, there.
    pub site_live: HashMap<ProcId, HashMap<(VarId, usize), LiveSet>>,
}

/// Analyses `procedures` of the instrumented program; `tracked` are the
/// ghost variables whose changes matter (access flags and locksets), and
/// `s` gives the ghost variables a procedure may change.
pub fn analyse(lp: &LocksetProgram, procedures: &BTreeSet<ProcId>, tracked: &BTreeSet<VarId>, s: &Summaries) -> LivePoints {
    let mut out = LivePoints::default();
    // From nothing recorded (a callee's changes not seen yet add only the
    // caller's set), repeated until nothing grows: the least fixpoint,
    // recursion included.
    for &p in procedures {
        out.changed_live.insert(p, HashMap::new());
        out.site_live.insert(p, HashMap::new());
    }
    let site_vars: BTreeSet<VarId> = lp.ghost.site_vars().collect();
    loop {
        let mut changed = false;
        for &p in procedures {
            let (at_head, changes, sites) = one(lp, p, tracked, &site_vars, s, &out);
            out.at_head.insert(p, at_head);
            let entry = out.site_live.entry(p).or_default();
            for (key, set) in sites {
                match entry.get_mut(&key) {
                    Some(old) => {
                        let before = old.clone();
                        crate::instrument::lockset::join_sets(old, &set);
                        changed |= *old != before;
                    }
                    None => {
                        entry.insert(key, set);
                        changed = true;
                    }
                }
            }
            let entry = out.changed_live.entry(p).or_default();
            for (v, set) in changes {
                match entry.get_mut(&v) {
                    Some(old) => {
                        let before = old.clone();
                        crate::instrument::lockset::join_sets(old, &set);
                        changed |= *old != before;
                    }
                    None => {
                        entry.insert(v, set);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return out;
        }
    }
}

/// What `LIVE := value` adds to the set made live: `None` for all.
fn made_by(value: &Expr, live: VarId, partner: VarId) -> LiveSet {
    match value {
        Expr::Binary(BinaryOp::Or, a, b) if **a == Expr::Var(live) => {
            let mut set = BTreeSet::new();
            members(b, partner, &mut set).then_some(set)
        }
        // `LIVE && PARTNER ∉ Q`: a quiesce makes nothing live.
        Expr::Binary(BinaryOp::And, a, _) if **a == Expr::Var(live) => Some(BTreeSet::new()),
        _ => None,
    }
}

/// Collects the `i` of a disjunction of `PARTNER == i`; false if `e` has
/// another shape.
fn members(e: &Expr, partner: VarId, set: &mut BTreeSet<usize>) -> bool {
    match e {
        Expr::Bool(false) => true,
        Expr::Binary(BinaryOp::Or, a, b) => members(a, partner, set) && members(b, partner, set),
        Expr::Binary(BinaryOp::Eq, a, b) => match (&**a, &**b) {
            (Expr::Var(v), Expr::Int(i)) if *v == partner && *i >= 0 => {
                set.insert(*i as usize);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// One procedure: the set at each loop head, at the changes of each
/// tracked variable, and at each site it may record (callees' sets from
/// `known`).
#[allow(clippy::type_complexity)]
fn one(
    lp: &LocksetProgram,
    p: ProcId,
    tracked: &BTreeSet<VarId>,
    site_vars: &BTreeSet<VarId>,
    s: &Summaries,
    known: &LivePoints,
) -> (BTreeMap<BlockId, LiveSet>, HashMap<VarId, LiveSet>, HashMap<(VarId, usize), LiveSet>) {
    let procedure = &lp.program.procedures[p];
    let (live, partner) = (lp.ghost.live, lp.ghost.partner);
    let mut at_entry: BTreeMap<BlockId, LiveSet> = BTreeMap::new();
    at_entry.insert(procedure.entry, Some(BTreeSet::new()));
    let mut changes: HashMap<VarId, LiveSet> = HashMap::new();
    let mut sites: HashMap<(VarId, usize), LiveSet> = HashMap::new();
    let mut work = vec![procedure.entry];
    while let Some(b) = work.pop() {
        let mut state = at_entry[&b].clone();
        let block = &procedure.blocks[b];
        for c in &block.commands {
            match c {
                Command::Assign { target, value, .. } if *target == live => {
                    crate::instrument::lockset::join_sets(&mut state, &made_by(value, live, partner));
                }
                Command::Assign { target, .. } if tracked.contains(target) => join_into(&mut changes, *target, &state),
                Command::Assign { target, value: Expr::Ite(_, then, _), .. } if site_vars.contains(target) => {
                    if let Expr::Int(site) = **then {
                        join_into(&mut sites, (*target, site as usize), &state);
                    }
                }
                Command::Havoc { vars, .. } => {
                    for v in vars {
                        if *v == live {
                            state = None;
                        } else if tracked.contains(v) {
                            join_into(&mut changes, *v, &state);
                        }
                    }
                }
                Command::Call { procedure: q, .. } => {
                    match known.site_live.get(q) {
                        Some(inner) => {
                            for (key, set) in inner {
                                let mut set = set.clone();
                                crate::instrument::lockset::join_sets(&mut set, &state);
                                join_into(&mut sites, *key, &set);
                            }
                        }
                        // A callee not analysed: any, at each of its sites.
                        None => {
                            for (v, list) in s.site_facts(*q) {
                                for site in list {
                                    join_into(&mut sites, (*v, *site), &None);
                                }
                            }
                        }
                    }
                    let callee = known.changed_live.get(q);
                    for v in s.modifies(*q).intersection(tracked) {
                        let mut set = state.clone();
                        match callee {
                            Some(m) => {
                                if let Some(inner) = m.get(v) {
                                    crate::instrument::lockset::join_sets(&mut set, inner);
                                }
                            }
                            // A callee not analysed: any.
                            None => set = None,
                        }
                        join_into(&mut changes, *v, &set);
                    }
                    if let Some(made) = lp.live_within.get(q) {
                        crate::instrument::lockset::join_sets(&mut state, made);
                    }
                }
                _ => {}
            }
        }
        if let Terminator::Goto(targets) = &block.terminator {
            for t in targets {
                let grew = match at_entry.get_mut(t) {
                    Some(old) => {
                        let before = old.clone();
                        crate::instrument::lockset::join_sets(old, &state);
                        *old != before
                    }
                    None => {
                        at_entry.insert(*t, state.clone());
                        true
                    }
                };
                if grew {
                    work.push(*t);
                }
            }
        }
    }
    (at_entry, changes, sites)
}

fn join_into<K: std::hash::Hash + Eq + Copy>(changes: &mut HashMap<K, LiveSet>, v: K, set: &LiveSet) {
    match changes.get_mut(&v) {
        Some(old) => crate::instrument::lockset::join_sets(old, set),
        None => {
            changes.insert(v, set.clone());
        }
    }
}
