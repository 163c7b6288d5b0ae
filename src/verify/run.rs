//! Running the lockset verification of one driver.
//!
//! Order, and why: the instrumentation is made once for all entry points
//! (each pair reuses its two entry points' copies); Houdini runs once per
//! entry point (linear in entry points), before any pair, because the pair
//! checks assume the summaries it proves; the pair checks (quadratic) then
//! run independently of each other. Both loops run on a rayon pool; results
//! are gathered in a fixed order, so the output does not depend on the job
//! count.

use super::verdict::{Access, PairVerdict, Verdict};
use crate::analyses::pairs::Pair;
use crate::houdini::{self, Outcome, VcSolver};
use crate::instrument::lockset::{LocksetProgram, instrument};
use crate::ir::{Command, Expr, ProcId, Program, RegionId, VarId};
use crate::vcgen::contracts::{self, Summaries};
use crate::vcgen::encode::{CheckOf, Encoder, Env, Slice, Vc};
use crate::vcgen::pair::{EntryRun, encode_pair};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

/// Options of a verification run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Per solver check.
    pub timeout: Duration,
    /// Houdini's budget for the whole driver: past it, the candidates of
    /// every component not yet at its fixpoint are refuted.
    pub houdini_budget: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options { timeout: Duration::from_secs(10), houdini_budget: Duration::from_secs(300) }
    }
}

/// What a verification run did, for `check --verbose` and the benchmarks.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    /// What Houdini did, over all components (times summed).
    pub houdini: houdini::Report,
    /// Strongly connected components of the call graph Houdini ran on.
    pub components: usize,
    /// Houdini runs (a component and a slice of its candidates).
    pub houdini_jobs: usize,
    /// Wall-clock time of the Houdini phase.
    pub houdini_time: Duration,
    /// Wall-clock time of the pair phase.
    pub pairs_time: Duration,
    /// Pair checks: solver checks looking for races.
    pub race_queries: usize,
    /// Pair checks: solver checks choosing the evidence of a race.
    pub evidence_queries: usize,
    /// Time summed over the pairs (all threads): finding the races.
    pub race_time: Duration,
    /// Time summed over the pairs (all threads): choosing evidence.
    pub evidence_time: Duration,
}

/// A solver able to answer a pair VC's checks with a model.
pub trait PairSolver: VcSolver {
    /// After a satisfiable check: the integer value of a VC variable in the
    /// model.
    fn int_value(&mut self, v: VarId) -> Option<i128>;
    /// After a satisfiable check: the boolean value of a VC variable.
    fn bool_value(&mut self, v: VarId) -> Option<bool>;
    /// Adds a constraint to the loaded VC.
    fn add(&mut self, e: &Expr);
    /// Checks with the literals fixed and the extra formulas assumed.
    fn check_with(&mut self, literals: &[(VarId, bool)], extra: &[Expr]) -> Outcome;
}

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
    let state = g.cls.values().chain(g.clx.values()).chain([&g.live]);
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
/// without the per-region ghost state, then those of the regions. (One
/// slice per region was measured slower: the program's own part of each
/// VC is then solved once per region; the regions are split only among
/// threads that would otherwise be idle.) The jobs of one
/// step run in parallel, each on its own copy of the beliefs; their
/// refutations are applied after the step.
fn infer<S: PairSolver>(
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
                    let slice = Slice { region_of: &lp.region_of, keep: keep.clone(), check_regions: regions };
                    let vc_of = |s: &Summaries, p: ProcId| procedure_vc(lp, s, p, &slice);
                    houdini::run(summaries, component, mine, &callers, &vc_of, &|| solver(), deadline)
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

/// Verifies a lowered driver: the verdicts of every pair, in the order of
/// `pairs`, which index the lowered program's entry points.
///
/// `held[i]` names the kernel pseudo locks entry point `i` runs holding
/// (the serialisation rules' `holds-lock`).
pub fn verify<S: PairSolver>(
    lowered: &Program,
    pairs: &[Pair],
    held: &[Vec<String>],
    options: &Options,
    solver: &(dyn Fn() -> S + Sync),
) -> (Vec<PairVerdict>, RunStats) {
    let mut stats = RunStats::default();
    let houdini_start = Instant::now();
    let held: Vec<BTreeSet<crate::ir::LockId>> = (0..lowered.entry_points.len())
        .map(|i| {
            let names = held.get(i).cloned().unwrap_or_default();
            lowered.locks.iter().filter(|(_, l)| names.contains(&l.name)).map(|(id, _)| id).collect()
        })
        .collect();
    let lp = instrument(lowered, &held);
    let mut summaries = contracts::build(&lp);
    infer(&lp, &mut summaries, houdini_start + options.houdini_budget, solver, &mut stats);
    stats.houdini_time = houdini_start.elapsed();
    // The pairs, in parallel, the costliest first (so that no long pair
    // starts last while the other threads idle), gathered in order.
    let pairs_start = Instant::now();
    let size: Vec<usize> = lp
        .entries
        .iter()
        .map(|e| e.procedures.iter().flat_map(|p| lp.program.procedures[*p].blocks.iter()).map(|(_, b)| b.commands.len() + 1).sum())
        .collect();
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    let cost = |i: usize| {
        let (a, b) = (pairs[i].first, pairs[i].second);
        let shared = crate::vcgen::pair::shared_regions(&lp.entries[a], &lp.entries[b]).len();
        (size[a] + size[b]) * (shared + 1)
    };
    order.sort_by_key(|i| std::cmp::Reverse(cost(*i)));
    // One job per pair: rayon's default splitting keeps long runs of
    // neighbouring items on one thread, which the cost order makes unequal.
    let mut checked: Vec<(usize, (PairVerdict, PairStats))> = order
        .par_iter()
        .with_max_len(1)
        .map(|&i| (i, check_pair(&lp, &summaries, &held, pairs[i].first, pairs[i].second, solver)))
        .collect();
    checked.sort_by_key(|(i, _)| *i);
    let checked = checked.into_iter().map(|(_, c)| c);
    stats.pairs_time = pairs_start.elapsed();
    let mut verdicts = Vec::with_capacity(checked.len());
    for (verdict, p) in checked {
        stats.race_queries += p.race_queries;
        stats.evidence_queries += p.evidence_queries;
        stats.race_time += p.race_time;
        stats.evidence_time += p.evidence_time;
        verdicts.push(verdict);
    }
    (verdicts, stats)
}

/// What one pair check did.
#[derive(Default)]
struct PairStats {
    race_queries: usize,
    evidence_queries: usize,
    race_time: Duration,
    evidence_time: Duration,
}

fn check_pair<S: PairSolver>(
    lp: &LocksetProgram,
    summaries: &Summaries,
    held: &[BTreeSet<crate::ir::LockId>],
    a: usize,
    b: usize,
    solver: &dyn Fn() -> S,
) -> (PairVerdict, PairStats) {
    let mut stats = PairStats::default();
    let start = Instant::now();
    let (ea, eb) = (&lp.entries[a], &lp.entries[b]);
    let mut verdict = PairVerdict { first: ea.name.clone(), second: eb.name.clone(), regions: Vec::new() };
    let (vc, runs) = encode_pair(lp, summaries, a, b, [&held[a], &held[b]], None);
    let unsound: Vec<String> = ea.unsound.iter().chain(&eb.unsound).map(|(_, what)| what.clone()).collect();
    let mut s = solver();
    s.load(&vc);
    let literals: Vec<(VarId, bool)> = vc.literals.iter().map(|(i, v)| (*v, summaries.alive[*i])).collect();
    let mut open: BTreeSet<usize> = (0..vc.checks.len()).collect();
    let mut decided: HashMap<usize, Verdict> = HashMap::new();
    while !open.is_empty() {
        stats.race_queries += 1;
        match s.check(&literals) {
            Outcome::Unsat => break,
            Outcome::Unknown(why) => {
                for k in &open {
                    decided.insert(*k, Verdict::Unknown(format!("solver: {why}")));
                }
                open.clear();
            }
            Outcome::Failing(failing) => {
                let failing: Vec<usize> = failing.into_iter().filter(|k| open.contains(k)).collect();
                if failing.is_empty() {
                    break;
                }
                for k in failing {
                    let CheckOf::Race(r) = vc.checks[k].1 else { continue };
                    // The evidence, on the VC of this region alone: a much
                    // smaller formula for the several checks it takes.
                    // The race check's model is a first racing execution.
                    let evidence_start = Instant::now();
                    let seen = runs.each_ref().map(|run| ModelView::of(lp, &mut s, run, r));
                    let (vc_r, runs_r) = encode_pair(lp, summaries, a, b, [&held[a], &held[b]], Some(r));
                    let mut s_r = solver();
                    s_r.load(&vc_r);
                    let (evidence, queries) = canonical_evidence(lp, &mut s_r, &vc_r.checks[0].0, &runs_r, [a, b], r, &seen);
                    stats.evidence_queries += queries;
                    stats.evidence_time += evidence_start.elapsed();
                    decided.insert(k, Verdict::Race(Box::new(evidence)));
                    open.remove(&k);
                    // Look for the races on the other regions.
                    s.add(&Expr::not(vc.checks[k].0.clone()));
                }
            }
        }
    }
    for (k, (_, what)) in vc.checks.iter().enumerate() {
        let CheckOf::Race(r) = what else { continue };
        let name = lp.program.regions[*r].name.clone();
        let v = match decided.remove(&k) {
            Some(v) => v,
            None if !unsound.is_empty() => Verdict::Unknown(format!("reachable approximation: {}", unsound[0])),
            None => Verdict::Proven,
        };
        verdict.regions.push((name, v));
    }
    stats.race_time = start.elapsed().saturating_sub(stats.evidence_time);
    (verdict, stats)
}

/// What a model of a pair VC says about one entry point's end state on a
/// region: its last sites and its locksets.
struct ModelView {
    site_write: Option<i128>,
    site_read: Option<i128>,
    ls: HashMap<crate::ir::LockId, Option<bool>>,
}

impl ModelView {
    fn of<S: PairSolver>(lp: &LocksetProgram, s: &mut S, run: &EntryRun, r: crate::ir::RegionId) -> ModelView {
        let g = &lp.ghost;
        let mut int = |v: Option<&VarId>| v.and_then(|v| run.end.exit_env.get(v)).and_then(|x| s.int_value(*x));
        let site_write = int(g.site_write.get(&r));
        let site_read = int(g.site_read.get(&r));
        let ls = g
            .cls
            .keys()
            .map(|l| {
                let value = g.ls.get(&(r, *l)).and_then(|v| run.end.exit_env.get(v)).and_then(|x| s.bool_value(*x));
                (*l, value)
            })
            .collect();
        ModelView { site_write, site_read, ls }
    }
}

/// The value of a boolean formula (an equality of a variable with a
/// constant, or a variable) in the solver's last model.
fn holds<S: PairSolver>(s: &mut S, e: &Expr) -> Option<bool> {
    match e {
        Expr::Var(v) => s.bool_value(*v),
        Expr::Binary(crate::ir::BinaryOp::Eq, a, b) => match (&**a, &**b) {
            (Expr::Var(v), Expr::Int(k)) => Some(s.int_value(*v)? == *k),
            _ => None,
        },
        _ => None,
    }
}

/// The evidence of a race, independent of the model the solver happened to
/// find (so that the output is the same for any job count): for each side
/// in turn, the first access site (writes before reads, then nearest the
/// entry point, breadth-first over its calls, then by number) that some
/// execution with the race can end with; and the locks held in every such
/// execution.
#[allow(clippy::too_many_arguments)]
fn canonical_evidence<S: PairSolver>(
    lp: &LocksetProgram,
    s: &mut S,
    failure: &Expr,
    runs: &[EntryRun; 2],
    entries: [usize; 2],
    r: crate::ir::RegionId,
    seen: &[ModelView; 2],
) -> ([Access; 2], usize) {
    let literals: &[(VarId, bool)] = &[];
    let mut queries = 0;
    let mut fixed = vec![failure.clone()];
    let mut sides = Vec::new();
    // Whether the sites chosen so far are those of the race check's model,
    // which is then a model of `fixed`.
    let mut as_seen = true;
    for ((run, &e), seen) in runs.iter().zip(&entries).zip(seen) {
        let entry = &lp.entries[e];
        let g = &lp.ghost;
        let end = |v: VarId| run.end.exit_env.get(&v).map(|x| Expr::var(*x));
        // Nearer the entry point first: its procedures in breadth-first order.
        let rank: HashMap<ProcId, usize> = entry.procedures.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        let mut candidates: Vec<(usize, usize, &crate::instrument::lockset::AccessSite)> = lp
            .sites
            .iter()
            .enumerate()
            .filter(|(_, x)| x.region == r)
            .filter_map(|(i, x)| Some((rank.get(&x.procedure).copied()?, i, x)))
            .collect();
        candidates.sort_by_key(|(rank, i, x)| (!x.write, *rank, *i));
        // The site each candidate leaves in its site variable, as a formula.
        let leaves = |i: usize, site: &crate::instrument::lockset::AccessSite| {
            let var = if site.write { g.site_write[&r] } else { g.site_read[&r] };
            end(var).map(|value| Expr::eq(value, Expr::int(i as i128)))
        };
        let options: Vec<(Expr, &crate::instrument::lockset::AccessSite, usize)> =
            candidates.iter().filter_map(|(_, i, site)| Some((leaves(*i, site)?, *site, *i))).collect();
        // Descend: find a model, take the first option it satisfies, and ask
        // for a model satisfying an earlier one, until there is none. Each
        // step moves strictly earlier, and usually the first model is
        // nearly right, so this takes a few checks where a scan from the
        // first option takes one per option.
        // The first option the race check's model satisfies, a valid start
        // while the earlier sides are those of that model.
        let hint = as_seen
            .then(|| {
                options.iter().position(|(_, site, number)| {
                    let value = if site.write { seen.site_write } else { seen.site_read };
                    value == Some(*number as i128)
                })
            })
            .flatten();
        let mut chosen: Option<usize> = hint;
        // The options a model must satisfy one of: none at first (the first
        // model is free), then those before the best so far.
        let mut bound: Option<usize> = hint;
        loop {
            let mut extra = fixed.clone();
            if let Some(p) = bound {
                if p == 0 {
                    break;
                }
                extra.push(Expr::or_all(options[..p].iter().map(|(f, _, _)| f.clone()).collect()));
            }
            queries += 1;
            if !matches!(s.check_with(literals, &extra), Outcome::Failing(_)) {
                break;
            }
            match options.iter().position(|(f, _, _)| holds(s, f) == Some(true)) {
                Some(p) if bound.is_none_or(|b| p < b) => {
                    chosen = Some(p);
                    bound = Some(p);
                }
                // A free model that leaves no option's site (the site
                // variables are only loosely tied to the flags across
                // summaries): ask for one that does.
                None if bound.is_none() => bound = Some(options.len()),
                // A model outside the options it was asked for cannot
                // happen; stop with what we have.
                _ => break,
            }
        }
        if let Some(p) = chosen {
            fixed.push(options[p].0.clone());
        }
        as_seen = as_seen && hint.is_some() && chosen == hint;
        let chosen = chosen.map(|p| options[p].1);
        // A lock is reported held when no execution with these sites lacks
        // it; a lock the last model lacks is not, without a check.
        let mut locks = Vec::new();
        if !g.cls.is_empty() && !as_seen {
            // A model of the chosen sites (the last check may have had none).
            queries += 1;
            let _ = s.check_with(literals, &fixed);
        }
        for l in g.cls.keys() {
            let Some(ls) = g.ls.get(&(r, *l)).and_then(|v| end(*v)) else { continue };
            let lacking = if as_seen { seen.ls.get(l).copied().flatten() == Some(false) } else { holds(s, &ls) == Some(false) };
            if lacking {
                continue;
            }
            let mut extra = fixed.clone();
            extra.push(Expr::not(ls));
            queries += 1;
            if matches!(s.check_with(literals, &extra), Outcome::Unsat) {
                locks.push(lp.program.locks[*l].name.clone());
            }
        }
        sides.push(Access {
            entry: entry.name.clone(),
            write: chosen.is_some_and(|x| x.write),
            atomic: chosen.is_some_and(|x| x.atomic),
            span: chosen.and_then(|x| x.span.clone()),
            function: chosen.map(|x| x.function.clone()).unwrap_or_else(|| entry.name.clone()),
            locks,
        });
    }
    let second = sides.pop().expect("two sides");
    let first = sides.pop().expect("two sides");
    ([first, second], queries)
}
