//! Houdini over a driver's instrumented program: the order of the runs.
//!
//! # Algorithm
//!
//! No Houdini candidate is a precondition, so a procedure's candidates
//! depend only on its own body and its callees' postconditions. The
//! strongly connected components of the call graph are therefore solved
//! callees first, each once ([`crate::houdini::run`] to its fixpoint),
//! in levels: a component's callees all lie in earlier levels, so the
//! components of one level are independent and run in parallel, each on
//! its own copy of the beliefs, their refutations applied after the level.
//! Each component runs in two slices: the candidates over the lock state
//! and liveness first (they depend on nothing else), on VCs without the
//! per-region ghost state; then those of the regions, which may use the
//! first slice's survivors, in groups of regions when the component has
//! many candidates or the level has fewer components than threads
//! (regions are independent of each other, so any grouping gives the same
//! result).
//!
//! # Soundness
//!
//! The greatest inductive subset of the candidates decomposes along the
//! call graph's components and along the slices (a slice's VC is exact
//! for its candidates, [`crate::vcgen::encode::Slice`]), so the result is
//! that of one global Houdini run; a run past the deadline refutes what it
//! had not proven.

use super::run::{PairSolver, RunStats};
use crate::houdini;
use crate::instrument::lockset::LocksetProgram;
use crate::ir::{Command, Expr, ProcId, Program, RegionId};
use crate::vcgen::contracts::Summaries;
use crate::vcgen::encode::{Encoder, Env, Slice, Vc};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

/// The callers of every procedure.
fn callers(program: &Program) -> HashMap<ProcId, BTreeSet<ProcId>> {
    let mut out: HashMap<ProcId, BTreeSet<ProcId>> = HashMap::new();
    for (p, procedure) in program.procedures.iter() {
        for (_, block) in procedure.blocks.iter() {
            for c in &block.commands {
                if let Command::Call { procedure: q, .. } = c {
                    out.entry(*q).or_default().insert(p);
                }
            }
        }
    }
    out
}

/// The VC of one procedure for Houdini, on a slice: its body from a state
/// where every ghost variable has an unknown value, the slice's
/// postconditions checked. The ghost variables it may change, the lock
/// state and the watched addresses get their entry incarnation up front,
/// so that every path and every candidate sees the same one.
fn procedure_vc(lp: &LocksetProgram, summaries: &Summaries, p: ProcId, slice: &Slice<'_>) -> Vc {
    let mut enc = Encoder::sliced(&lp.program, summaries, slice.clone());
    let mut env = Env::new();
    let g = &lp.ghost;
    let state = g.cls.values().chain(g.clx.values()).chain([&g.live, &g.partner]);
    let watched = slice.keep.iter().filter_map(|r| lp.watched.get(r));
    for v in summaries.modifies(p).iter().chain(state).chain(watched) {
        if !enc.is_dropped(*v) {
            enc.current(&mut env, *v);
        }
    }
    enc.encode_body(p, env, Expr::bool(true), true);
    enc.vc
}

/// Houdini over the whole program, by components of the call graph,
/// callees first, each component in two slices: first the candidates over
/// the lock state and liveness (which depend on nothing else), on VCs
/// without the per-region ghost state, then those of the regions, in
/// groups (see [`REGION_CANDIDATES_PER_RUN`]). The jobs of one step run in
/// parallel, each on its own copy of the beliefs; their refutations are
/// applied after the step.
pub(super) fn infer<S: PairSolver>(
    lp: &LocksetProgram,
    summaries: &mut Summaries,
    deadline: Instant,
    solver: &(dyn Fn() -> S + Sync),
    stats: &mut RunStats,
) {
    let callers = callers(&lp.program);
    let reached: BTreeSet<ProcId> = lp.entries.iter().flat_map(|e| e.procedures.iter().copied()).collect();
    // The candidates of each procedure, by the region of the variable they
    // constrain (none for the lock state and liveness).
    let mut by_slice: BTreeMap<(ProcId, Option<RegionId>), Vec<usize>> = BTreeMap::new();
    for (i, c) in summaries.candidates.iter().enumerate() {
        let region = lp.region_of.get(&c.shape.subject()).copied();
        by_slice.entry((c.procedure, region)).or_default().push(i);
    }
    let threads = rayon::current_num_threads().max(1);
    for level in component_levels(&lp.program, &reached) {
        for regions in [false, true] {
            // The jobs of this step: a component and a group of regions (all
            // of them, unless the step has fewer components than threads:
            // then each component's regions are split among the idle ones;
            // the result is the same, since regions are independent).
            let mut jobs: Vec<(&Vec<ProcId>, BTreeSet<RegionId>, BTreeSet<usize>)> = Vec::new();
            let active: Vec<&Vec<ProcId>> = level
                .iter()
                .filter(|c| by_slice.keys().any(|(p, r)| r.is_some() == regions && c.contains(p)))
                .collect();
            let split = if regions { threads.div_ceil(active.len().max(1)) } else { 1 };
            for component in active {
                let mut of_region: BTreeMap<Option<RegionId>, Vec<usize>> = BTreeMap::new();
                for p in component {
                    for (key, candidates) in by_slice.range((*p, None)..=(*p, Some(RegionId::from_u32(u32::MAX)))) {
                        if key.1.is_some() == regions {
                            of_region.entry(key.1).or_default().extend(candidates);
                        }
                    }
                }
                // A component with very many region candidates is split
                // further: its VC's per-region part dominates each query.
                let count: usize = of_region.values().map(Vec::len).sum();
                let split = split.max(count.div_ceil(REGION_CANDIDATES_PER_RUN));
                let groups: Vec<Vec<(Option<RegionId>, Vec<usize>)>> = chunks(of_region.into_iter().collect(), split);
                for group in groups {
                    let keep = group.iter().filter_map(|(r, _)| *r).collect();
                    let mine = group.into_iter().flat_map(|(_, c)| c).collect();
                    jobs.push((component, keep, mine));
                }
            }
            let runs: Vec<(Vec<usize>, houdini::Report)> = jobs
                .par_iter()
                .with_max_len(1)
                .map(|(component, keep, mine)| {
                    let slice = Slice {
                        region_of: &lp.region_of,
                        keep: keep.clone(),
                        check_regions: regions,
                        dropped: Some(&lp.selection_vars),
                    };
                    let vc_of = |s: &Summaries, p: ProcId| procedure_vc(lp, s, p, &slice);
                    // A context of its own: the models, and so the order
                    // candidates fall in and the number of checks, then
                    // do not depend on the runs before on this thread.
                    crate::solver::isolated(|| houdini::run(summaries, component, mine, &callers, &vc_of, &|| solver(), deadline))
                })
                .collect();
            stats.houdini_jobs += runs.len();
            for (refuted, report) in runs {
                for c in refuted {
                    summaries.alive[c] = false;
                }
                stats.houdini.merge(&report);
            }
        }
        stats.components += level.len();
    }
}

/// The most region candidates one Houdini run takes on; a component with
/// more has its regions split into groups. Measured (`check -v -j 2`):
/// floppy.c's Houdini took 221 s in one run per component, 29 s with
/// groups of at most 300 candidates and 23 s with 150; r8169_main.c's
/// 4.2 s, 3.3 s and 3.5 s. One group per region is slower again (the
/// program's own part of the VC is solved once per group).
const REGION_CANDIDATES_PER_RUN: usize = 250;

/// `items` in at most `n` contiguous groups of nearly equal size.
fn chunks<T>(items: Vec<T>, n: usize) -> Vec<Vec<T>> {
    let size = items.len().div_ceil(n.max(1)).max(1);
    let mut out: Vec<Vec<T>> = Vec::new();
    for item in items {
        match out.last_mut() {
            Some(last) if last.len() < size => last.push(item),
            _ => out.push(vec![item]),
        }
    }
    out
}

/// The strongly connected components of the call graph among `procedures`,
/// grouped in levels: a component's callees are all in earlier levels.
fn component_levels(program: &Program, procedures: &BTreeSet<ProcId>) -> Vec<Vec<Vec<ProcId>>> {
    let mut graph = petgraph::graphmap::DiGraphMap::<u32, (), std::hash::RandomState>::new();
    for p in procedures {
        graph.add_node(p.as_u32());
        for (_, block) in program.procedures[*p].blocks.iter() {
            for c in &block.commands {
                if let Command::Call { procedure: q, .. } = c {
                    graph.add_edge(p.as_u32(), q.as_u32(), ());
                }
            }
        }
    }
    // Tarjan's algorithm lists components callees first.
    let components = petgraph::algo::tarjan_scc(&graph);
    let mut level_of: HashMap<u32, usize> = HashMap::new();
    let mut levels: Vec<Vec<Vec<ProcId>>> = Vec::new();
    for component in components {
        let inside: BTreeSet<u32> = component.iter().copied().collect();
        let level = component
            .iter()
            .flat_map(|n| graph.neighbors(*n))
            .filter(|m| !inside.contains(m))
            .filter_map(|m| level_of.get(&m).map(|l| l + 1))
            .max()
            .unwrap_or(0);
        for n in &component {
            level_of.insert(*n, level);
        }
        if levels.len() <= level {
            levels.resize(level + 1, Vec::new());
        }
        let mut procs: Vec<ProcId> = component.into_iter().map(ProcId::from_u32).filter(|p| procedures.contains(p)).collect();
        procs.sort();
        levels[level].push(procs);
    }
    for level in &mut levels {
        level.sort();
    }
    levels
}
