//! Threads that `main` runs one after the other: it joins thread A and
//! only afterwards creates thread B (`pthread_create(&t1, 0, a, 0);
//! pthread_join(t1, 0); pthread_create(&t2, 0, b, 0);`), so A and B
//! never run at the same time and their pair is not checked.
//!
//! # Algorithm
//!
//! A forward must-analysis over `main`'s own body computes, before each
//! command, the set Q of threads surely ended: a `quiesce` command (a
//! join) adds its effective set (which [`super::svcomp_witness::
//! joins_ending_threads`] keeps only for a join in `main` of a thread
//! `main` starts once, and [`crate::analyses::quiesce`] only for a thread
//! nothing still running can start again); a `live` command removes what
//! it may make live, closed over threads starting others (all for a
//! `live` without targets); a call removes what its callee may make live
//! (all when unknown); paths meet by intersection. A backward pass gives,
//! per command, what the rest of `main` from there on may make live.
//! Thread B is ordered after thread A when every `live` command that may
//! make B live is in `main`'s own body (no other procedure, no callee of
//! `main`, starts B), there is at least one, and at each of them A is in
//! Q and not among what `main` may make live from there on (the creation
//! of B included, closed over what B may start).
//!
//! # Soundness
//!
//! At each creation of B, on every path, a join that surely waits for
//! every run of A came after A's last possible start, and nothing later
//! starts A again: A has ended before any instance of B starts, however
//! many B starts (a creation in a loop is covered, each one is such a
//! command). Only the thread pair is dropped; `main`'s own accesses keep
//! their pairs. Nothing is dropped when the joins are not trusted
//! (detached threads, indirect calls: their effective sets are empty).

use crate::instrument::lockset::{LiveSet, Liveness, join_sets, targets_of};
use crate::ir::{BlockId, Command, ProcId, Program, Terminator};
use std::collections::{BTreeSet, HashMap};

/// The unordered pairs of entry points (indices in the program's entry
/// point order, smaller first) that never run concurrently because `main`
/// (procedure `main`, run once, called by nothing) ends one before it
/// starts the other.
pub fn sequential_pairs(program: &Program, main: ProcId) -> BTreeSet<(usize, usize)> {
    let liveness = Liveness::of(program);
    let index = &liveness.index;
    let count = program.entry_points.len();
    let body = &program.procedures[main];
    // What one command may make live, closed over the bodies of what it
    // starts; `None`: anything.
    let effect = |c: &Command| -> LiveSet {
        match c {
            Command::MakeLive { targets, .. } => liveness.close(&targets_of(index, targets)),
            Command::Call { procedure, .. } => liveness.close(&liveness.reached(&program.reachable(*procedure))),
            _ => Some(BTreeSet::new()),
        }
    };
    // Entry points that something other than `main`'s own `live` commands
    // may start.
    let mut elsewhere: LiveSet = Some(BTreeSet::new());
    for (p, procedure) in program.procedures.iter() {
        if p == main {
            continue;
        }
        for (_, block) in procedure.blocks.iter() {
            for c in &block.commands {
                if let Command::MakeLive { targets, .. } = c {
                    join_sets(&mut elsewhere, &targets_of(index, targets));
                }
            }
        }
    }
    let Some(elsewhere) = elsewhere else { return BTreeSet::new() };
    // Forward: the threads surely ended at each block's start.
    let mut at: HashMap<BlockId, BTreeSet<usize>> = HashMap::from([(body.entry, BTreeSet::new())]);
    let mut work = vec![body.entry];
    let mut steps = 0usize;
    let transfer = |state: &mut BTreeSet<usize>, c: &Command| {
        if let Command::Quiesce { effective, .. } = c {
            state.extend(effective.iter().filter_map(|f| index.get(f).copied()));
        }
        match effect(c) {
            None => state.clear(),
            Some(live) => state.retain(|e| !live.contains(e)),
        }
    };
    while let Some(b) = work.pop() {
        steps += 1;
        if steps > 100_000 {
            return BTreeSet::new();
        }
        let mut state = at[&b].clone();
        for c in &body.blocks[b].commands {
            transfer(&mut state, c);
        }
        if let Terminator::Goto(targets) = &body.blocks[b].terminator {
            for &s in targets {
                let merged = match at.get(&s) {
                    None => state.clone(),
                    Some(old) => old.intersection(&state).copied().collect(),
                };
                if at.get(&s) != Some(&merged) {
                    at.insert(s, merged);
                    work.push(s);
                }
            }
        }
    }
    // Backward: what the rest of `main` from each block's start may make
    // live (a may-analysis: union over successors, to a fixpoint).
    let mut later: HashMap<BlockId, LiveSet> = body.blocks.iter().map(|(b, _)| (b, Some(BTreeSet::new()))).collect();
    loop {
        let mut changed = false;
        for (b, block) in body.blocks.iter() {
            let mut set: LiveSet = Some(BTreeSet::new());
            if let Terminator::Goto(targets) = &block.terminator {
                for s in targets {
                    join_sets(&mut set, &later[s]);
                }
            }
            for c in &block.commands {
                join_sets(&mut set, &effect(c));
            }
            if later[&b] != set {
                later.insert(b, set);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // Per thread B started only by `main`: the threads ended before every
    // creation of B and never started again after it.
    let mut out = BTreeSet::new();
    for b in (0..count).filter(|b| !elsewhere.contains(b)) {
        let mut before: Option<BTreeSet<usize>> = None;
        for (id, block) in body.blocks.iter() {
            let Some(start) = at.get(&id) else { continue };
            let mut state = start.clone();
            for (i, c) in block.commands.iter().enumerate() {
                let starts_b = matches!(c, Command::MakeLive { .. }) && effect(c).is_none_or(|s| s.contains(&b));
                if starts_b {
                    // What this command and the rest of `main` may start.
                    let mut rest: LiveSet = Some(BTreeSet::new());
                    if let Terminator::Goto(targets) = &block.terminator {
                        for s in targets {
                            join_sets(&mut rest, &later[s]);
                        }
                    }
                    for c in &block.commands[i..] {
                        join_sets(&mut rest, &effect(c));
                    }
                    let ended: BTreeSet<usize> = match rest {
                        None => BTreeSet::new(),
                        Some(rest) => state.iter().copied().filter(|a| !rest.contains(a)).collect(),
                    };
                    before = Some(match before {
                        None => ended,
                        Some(old) => old.intersection(&ended).copied().collect(),
                    });
                }
                transfer(&mut state, c);
            }
        }
        for a in before.into_iter().flatten().filter(|&a| a != b) {
            out.insert((a.min(b), a.max(b)));
        }
    }
    out
}
