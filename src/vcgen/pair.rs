//! The VC of one pair of entry points (thesis §3.3): both entry points'
//! bodies, renamed apart, from the start state (no lock held, nothing
//! accessed, every lockset full), with their callees through their
//! Houdini summaries, and one race condition per region both access.
//!
//! For region R, with `conflict` = one entry point writes the watched
//! address and the other reads or writes it, not both atomically, the
//! failure condition is: both bodies reach their end, they conflict, and no
//! lock L was held at all their conflicting accesses to the watched address
//! in both (for a lock with a shared mode, held exclusively at all the
//! writes of a writing one).
//! Every conflicting pair is a write against a write or against a read,
//! so each kind is checked with its own locksets (`LSW` at all writes,
//! `LSR` at all reads): the failure is that both entry points wrote and no
//! lock is in both `LSW`, or one wrote and the other read and no lock is in
//! the writer's `LSW` and the reader's `LSR`. An
//! unsatisfiable failure proves R race-free for the pair at every address,
//! because the watched address `W_R` is unconstrained.
//!
//! The selected-pair check ([`encode_selected_pair`]) is the second,
//! finer check of a region the first one reports: with `SEL`, `SELW`,
//! `SELA`, `SELLS` the access each run selected
//! ([`crate::instrument::lockset`], "Selected accesses"), its failure
//! condition is: both bodies reach their end, both selected an access, at
//! least one of them a write, not both atomic, and no lock held at both
//! (for a lock with a shared mode, exclusively at one). Since any pair of
//! accesses can be the selected one, an unsatisfiable condition proves
//! that every pair of conflicting accesses shares a lock: the region is
//! race-free for the pair, even when no one lock is held at all of them.
//!
//! Each body runs with `PARTNER` the index of the other entry point, so an
//! init entry point records only the accesses it makes once a registration
//! that makes the other entry point live may have run
//! ([`crate::instrument::lockset`]).
//!
//! Each body is encoded from its own start, not one after the other, so
//! that a body that never returns on some path cannot hide the other's
//! accesses; a body with no returning path at all is reported by the
//! caller as unknown (termination is assumed, as in the original tool).

use super::contracts::Summaries;
use super::encode::{CheckOf, Encoded, Encoder, Env, Slice, Vc};
use crate::instrument::lockset::{InstrumentedEntry, LocksetProgram};
use crate::ir::{Expr, LockMode, RegionId, VarId};
use crate::models::EntryKind;
use std::collections::{BTreeMap, BTreeSet};

/// The regions a pair is checked on: those both entry points access.
pub fn shared_regions(a: &InstrumentedEntry, b: &InstrumentedEntry) -> BTreeSet<RegionId> {
    a.regions.intersection(&b.regions).copied().collect()
}

/// The final state of one entry point in a pair VC.
pub struct EntryRun {
    /// Its exit reachability and incarnations.
    pub end: Encoded,
}

/// Encodes the pair (`first`, `second`) (which may be the same entry point:
/// two instances, renamed apart by separate incarnations), on every region
/// both access, or `only` on one of them.
pub fn encode_pair(
    lp: &LocksetProgram,
    summaries: &Summaries,
    first: usize,
    second: usize,
    held: [&BTreeSet<crate::ir::LockId>; 2],
    only: Option<RegionId>,
) -> (Vc, [EntryRun; 2]) {
    encode(lp, summaries, [first, second], held, only, false)
}

/// Encodes the selected-pair check of region `r` for the pair (`first`,
/// `second`): one check, whose failure is a pair of selected accesses with
/// disjoint locksets.
pub fn encode_selected_pair(
    lp: &LocksetProgram,
    summaries: &Summaries,
    first: usize,
    second: usize,
    held: [&BTreeSet<crate::ir::LockId>; 2],
    r: RegionId,
) -> Vc {
    encode(lp, summaries, [first, second], held, Some(r), true).0
}

fn encode(
    lp: &LocksetProgram,
    summaries: &Summaries,
    [first, second]: [usize; 2],
    held: [&BTreeSet<crate::ir::LockId>; 2],
    only: Option<RegionId>,
    selected: bool,
) -> (Vc, [EntryRun; 2]) {
    let mut regions = shared_regions(&lp.entries[first], &lp.entries[second]);
    if let Some(r) = only {
        regions.retain(|x| *x == r);
    }
    // Only the ghost state of the regions both access matters.
    let dropped = (!selected).then_some(&lp.selection_vars);
    let slice = Slice { region_of: &lp.region_of, keep: regions.clone(), check_regions: true, dropped };
    let mut enc = Encoder::for_pair(&lp.program, summaries, slice);
    // The watched addresses are shared by both runs.
    let mut shared = Env::new();
    for (r, w) in &lp.watched {
        if regions.contains(r) {
            enc.current(&mut shared, *w);
        }
    }
    // Parameters the kernel passes distinct objects through (object
    // lifetimes, src/analyses/objects.rs): their incarnations at the start
    // of each run, constrained apart once both exist.
    let distinct = crate::analyses::objects::distinct_params(&lp.program, first, second);
    let mut starts: [Vec<VarId>; 2] = [Vec::new(), Vec::new()];
    let runs = [(0, first, held[0], second), (1, second, held[1], first)].map(|(side, i, held, other)| {
        let entry = &lp.entries[i];
        let mut env = shared.clone();
        let params = &lp.program.procedures[entry.procedure].params;
        for d in &distinct {
            let index = if side == 0 { d.first } else { d.second };
            let param = params[index];
            starts[side].push(enc.current(&mut env, param));
        }
        // A lock the kernel holds around the call is held from the start,
        // exclusively; a bit lock the entry point's open object holds, in
        // the mode the object gives it (src/frontend/lower/owned_bits.rs).
        let by_object = lp.program.entry_points.values().nth(i).map(|e| e.held_by_object.as_slice()).unwrap_or_default();
        let held_vars: BTreeSet<VarId> = held
            .iter()
            .map(|l| (*l, LockMode::Exclusive))
            .chain(by_object.iter().copied())
            .flat_map(|(l, mode)| {
                let exclusive = (mode == LockMode::Exclusive).then(|| lp.ghost.clx.get(&l)).flatten();
                lp.ghost.cls.get(&l).into_iter().chain(exclusive)
            })
            .copied()
            .collect();
        // Another module may call an exported function at any time once
        // this module is live, so during a probe too; not during module
        // init (the loader refuses to link against a module still in
        // MODULE_STATE_COMING), where it is live only after a call that
        // makes every callback live.
        // A built-in file's initcall is no module init: the loader's
        // refusal does not apply, and other built-in code may call its
        // exported functions while it runs.
        let live_from_start =
            matches!(entry.kind, EntryKind::Probe | EntryKind::Initcall) && lp.entries[other].kind == EntryKind::Exported;
        let quiet = lp.quiet_at_start.contains(&(i, other));
        for (v, value) in lp.ghost.initial_values(entry.is_init() || quiet) {
            if enc.is_dropped(v) {
                continue;
            }
            let value = if held_vars.contains(&v) || (v == lp.ghost.live && live_from_start) { Expr::bool(true) } else { value };
            let s = enc.current(&mut env, v);
            enc.vc.constraints.push(Expr::eq(Expr::var(s), value));
        }
        // Liveness is per pair: the partner is the other entry point.
        let partner = enc.current(&mut env, lp.ghost.partner);
        enc.vc.constraints.push(Expr::eq(Expr::var(partner), Expr::int(other as i128)));
        let end = enc.encode_body(entry.procedure, env, Expr::bool(true), false);
        EntryRun { end }
    });
    for (x, y) in starts[0].iter().zip(&starts[1]) {
        enc.vc.constraints.push(crate::analyses::objects::separated(Expr::var(*x), Expr::var(*y)));
    }
    for r in regions {
        let failure = if selected { selected_race(&mut enc, lp, &runs, r) } else { race_condition(&mut enc, lp, &runs, r) };
        enc.vc.checks.push((failure, CheckOf::Race(r)));
    }
    (enc.vc, runs)
}

fn at_end(enc: &mut Encoder<'_>, run: &EntryRun, v: VarId) -> Expr {
    let mut env = run.end.exit_env.clone();
    Expr::var(enc.current(&mut env, v))
}

fn race_condition(enc: &mut Encoder<'_>, lp: &LocksetProgram, runs: &[EntryRun; 2], r: RegionId) -> Expr {
    let g = &lp.ghost;
    let flags = |enc: &mut Encoder<'_>, run: &EntryRun| {
        [
            at_end(enc, run, g.read[&r]),
            at_end(enc, run, g.write[&r]),
            at_end(enc, run, g.aread[&r]),
            at_end(enc, run, g.awrite[&r]),
        ]
    };
    let [pr1, pw1, ar1, aw1] = flags(enc, &runs[0]);
    let [pr2, pw2, ar2, aw2] = flags(enc, &runs[1]);
    // Conflicting accesses, at least one a write, not both atomic, by
    // kind: write/write, a write of the first against a read of the
    // second, and a read of the first against a write of the second.
    let ww = Expr::or(Expr::and(pw1.clone(), Expr::or(pw2.clone(), aw2.clone())), Expr::and(aw1.clone(), pw2.clone()));
    let wr = Expr::or(Expr::and(pw1, Expr::or(pr2.clone(), ar2)), Expr::and(aw1, pr2));
    let rw = Expr::or(Expr::and(pr1, Expr::or(pw2.clone(), aw2)), Expr::and(ar1, pw2));
    // Each kind of pair is protected by a lock held at all the writes or
    // reads it is made of.
    let mut value = |i: usize, v: VarId| Some(at_end(enc, &runs[i], v));
    let kinds = [(ww, [true, true]), (wr, [true, false]), (rw, [false, true])];
    let unprotected: Vec<Expr> = kinds
        .into_iter()
        .map(|(conflict, writes)| Expr::and(conflict, Expr::not(protection(lp, r, writes, &mut value))))
        .collect();
    Expr::and_all(vec![runs[0].end.exit_reach.clone(), runs[1].end.exit_reach.clone(), Expr::or_all(unprotected)])
}

/// Per-region locksets (`LSR`, `LSW`, `LSX`, `LSRX`, or the selection's).
type LockSets = BTreeMap<(RegionId, crate::ir::LockId), VarId>;

/// Some lock L is held at all the writes (`writes[i]`) or all the reads
/// of run i to region `r`, for both runs (`LSW` or `LSR`; for a lock with
/// a shared mode, also exclusively at all those accesses of one of the
/// runs, `LSX` or `LSRX`: an exclusive holder excludes every other one),
/// with `value(i, v)` the value of ghost variable v at the end of run i
/// (none: the lock is not counted).
pub fn protection(lp: &LocksetProgram, r: RegionId, writes: [bool; 2], value: &mut dyn FnMut(usize, VarId) -> Option<Expr>) -> Expr {
    let g = &lp.ghost;
    let sets = writes.map(|w| if w { &g.lsw } else { &g.lsr });
    let exclusive = writes.map(|w| if w { &g.lsx } else { &g.lsrx });
    protections_with(lp, r, sets, exclusive, value)
}

/// Some lock L is in `sets[0]` of the first run and `sets[1]` of the
/// second (for a lock with a shared mode, also in `exclusive[i]` of one
/// run i). A lock without a lockset for R is held at no access to R.
fn protections_with(
    lp: &LocksetProgram,
    r: RegionId,
    sets: [&LockSets; 2],
    exclusive: [&LockSets; 2],
    value: &mut dyn FnMut(usize, VarId) -> Option<Expr>,
) -> Expr {
    let mut protections = Vec::new();
    for l in lp.ghost.cls.keys() {
        let (Some(&a), Some(&b)) = (sets[0].get(&(r, *l)), sets[1].get(&(r, *l))) else { continue };
        let (Some(a), Some(b)) = (value(0, a), value(1, b)) else { continue };
        let both = Expr::and(a, b);
        if lp.ghost.clx.contains_key(l) {
            let excl: Vec<Expr> = (0..2).filter_map(|i| exclusive[i].get(&(r, *l)).and_then(|x| value(i, *x))).collect();
            protections.push(Expr::and(both, Expr::or_all(excl)));
        } else {
            protections.push(both);
        }
    }
    Expr::or_all(protections)
}

/// The failure condition of the selected-pair check on region `r`.
fn selected_race(enc: &mut Encoder<'_>, lp: &LocksetProgram, runs: &[EntryRun; 2], r: RegionId) -> Expr {
    let sel = &lp.ghost.selection;
    let [s1, s2] = [0, 1].map(|i| at_end(enc, &runs[i], sel.sel[&r]));
    let [w1, w2] = [0, 1].map(|i| at_end(enc, &runs[i], sel.write[&r]));
    let [a1, a2] = [0, 1].map(|i| at_end(enc, &runs[i], sel.atomic[&r]));
    let protected = protections_with(lp, r, [&sel.ls, &sel.ls], [&sel.lsx, &sel.lsx], &mut |i, v| Some(at_end(enc, &runs[i], v)));
    Expr::and_all(vec![
        runs[0].end.exit_reach.clone(),
        runs[1].end.exit_reach.clone(),
        s1,
        s2,
        Expr::or(w1, w2),
        Expr::not(Expr::and(a1, a2)),
        Expr::not(protected),
    ])
}
