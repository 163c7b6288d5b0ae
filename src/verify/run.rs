//! Running the lockset verification of one driver.
//!
//! Order, and why: the instrumentation is made once, every procedure once
//! (a pair renames its two entry points apart by encoding them
//! separately); Houdini ([`super::infer`]) runs once per procedure, before
//! any pair, because the pair checks assume the summaries it proves; the
//! pair checks (quadratic) then run independently of each other, each on
//! one VC sliced to the regions both entry points access, blocking each
//! race found to find the others, with each race's evidence
//! ([`super::evidence`]) chosen on the VC of its region alone. Both phases
//! run on a rayon pool; results are gathered in a fixed order, so the
//! output does not depend on the job count.

use super::evidence::{ModelView, canonical_evidence};
use super::infer::infer;
use super::verdict::{PairVerdict, Verdict};
use crate::analyses::pairs::Pair;
use crate::houdini::{self, Outcome, VcSolver};
use crate::instrument::lockset::{LocksetProgram, instrument};
use crate::ir::{Expr, Program, VarId};
use crate::vcgen::contracts::{self, Summaries};
use crate::vcgen::encode::CheckOf;
use crate::vcgen::pair::{encode_pair, encode_selected_pair};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

/// Options of a verification run.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// Per solver check.
    pub timeout: Duration,
    /// Houdini's budget for the whole driver: past it, the candidates of
    /// every component not yet at its fixpoint are refuted.
    pub houdini_budget: Duration,
    /// z3's deterministic resource limit per check, if any: a check that
    /// exhausts it is unknown, as one that times out.
    #[serde(default)]
    pub resource_limit: Option<u32>,
    /// The file's deadline (from `--file-timeout`): Houdini stops by it,
    /// and a region not decided by then is unknown, so that a file over
    /// its budget still reports what was decided. Not part of a request:
    /// each worker sets it from its budget.
    #[serde(skip)]
    pub deadline: Option<Instant>,
}

impl Default for Options {
    fn default() -> Self {
        Options { timeout: Duration::from_secs(10), houdini_budget: Duration::from_secs(300), resource_limit: None, deadline: None }
    }
}

/// What a verification run did, for `check --verbose` and the benchmarks.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
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
    /// Checks with the extra formulas assumed (a pair VC has no candidate
    /// literals: after Houdini its summaries are facts).
    fn check_with(&mut self, extra: &[Expr]) -> Outcome;
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
    let held = pseudo_locks(lowered, held);
    let lp = instrument(lowered, &held);
    let mut summaries = contracts::build(&lp);
    // Houdini gets its own budget, and at most half of what is left of the
    // file's, so that the pair checks have time to use its summaries.
    let mut houdini_deadline = houdini_start + options.houdini_budget;
    if let Some(d) = options.deadline {
        houdini_deadline = houdini_deadline.min(houdini_start + d.saturating_duration_since(houdini_start) / 2);
    }
    infer(&lp, &mut summaries, houdini_deadline, solver, &mut stats);
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
    // Each pair has a z3 context of its own, so that its evidence does not
    // depend on which pairs ran before it on the same thread.
    let mut checked: Vec<(usize, (PairVerdict, PairStats))> = order
        .par_iter()
        .with_max_len(1)
        .map(|&i| (i, crate::solver::isolated(|| check_pair(&lp, &summaries, &held, pairs[i].first, pairs[i].second, options.deadline, solver))))
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

/// The locks of `program` named in `held[i]` (the pseudo locks entry
/// point `i` runs holding), per entry point; a name the program never
/// takes is no lock.
pub fn pseudo_locks(program: &Program, held: &[Vec<String>]) -> Vec<BTreeSet<crate::ir::LockId>> {
    (0..program.entry_points.len())
        .map(|i| {
            let names = held.get(i).map(Vec::as_slice).unwrap_or_default();
            program.locks.iter().filter(|(_, l)| names.contains(&l.name)).map(|(id, _)| id).collect()
        })
        .collect()
}

/// Why a region left undecided by the file's deadline is unknown.
pub(crate) fn budget_spent() -> String {
    format!("{} was decided", super::verdict::BUDGET_SPENT)
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
    deadline: Option<Instant>,
    solver: &dyn Fn() -> S,
) -> (PairVerdict, PairStats) {
    let mut stats = PairStats::default();
    let start = Instant::now();
    let (ea, eb) = (&lp.entries[a], &lp.entries[b]);
    let mut verdict = PairVerdict { first: ea.name.clone(), second: eb.name.clone(), regions: Vec::new() };
    let spent = || deadline.is_some_and(|d| Instant::now() >= d);
    if spent() {
        // Not even encoded: every shared region is unknown.
        for r in crate::vcgen::pair::shared_regions(ea, eb) {
            verdict.regions.push((lp.program.regions[r].name.clone(), Verdict::Unknown(budget_spent())));
        }
        return (verdict, stats);
    }
    let (vc, runs) = encode_pair(lp, summaries, a, b, [&held[a], &held[b]], None);
    let unsound: Vec<String> = ea.unsound.iter().chain(&eb.unsound).map(|(_, what)| what.clone()).collect();
    let mut s = solver();
    s.load(&vc);
    let mut open: BTreeSet<usize> = (0..vc.checks.len()).collect();
    let mut decided: HashMap<usize, Verdict> = HashMap::new();
    while !open.is_empty() {
        if spent() {
            for k in &open {
                decided.insert(*k, Verdict::Unknown(budget_spent()));
            }
            break;
        }
        stats.race_queries += 1;
        match s.check(&[]) {
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
                    // The race check's model is a first racing execution.
                    let seen = runs.each_ref().map(|run| ModelView::of(lp, &mut s, run, r));
                    open.remove(&k);
                    // Look for the races on the other regions.
                    s.add(&Expr::not(vc.checks[k].0.clone()));
                    // The second, finer check: every pair of conflicting
                    // accesses may share a lock though no one lock is held
                    // at all of them.
                    stats.race_queries += 1;
                    let vc_sel = encode_selected_pair(lp, summaries, a, b, [&held[a], &held[b]], r);
                    let mut s_sel = solver();
                    s_sel.load(&vc_sel);
                    if matches!(s_sel.check(&[]), Outcome::Unsat) {
                        continue;
                    }
                    // The evidence, on the VC of this region alone: a much
                    // smaller formula for the several checks it takes.
                    let evidence_start = Instant::now();
                    let (vc_r, runs_r) = encode_pair(lp, summaries, a, b, [&held[a], &held[b]], Some(r));
                    let mut s_r = solver();
                    s_r.load(&vc_r);
                    let (evidence, queries) = canonical_evidence(lp, &mut s_r, &vc_r.checks[0].0, &runs_r, [a, b], r, &seen);
                    stats.evidence_queries += queries;
                    stats.evidence_time += evidence_start.elapsed();
                    decided.insert(k, Verdict::Race(Box::new(evidence)));
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
