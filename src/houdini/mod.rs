//! Houdini: inferring procedure summaries and loop invariants by
//! elimination (Flanagan and Leino; thesis §3.4.6).
//!
//! # Algorithm
//!
//! Start believing every candidate ([`crate::vcgen::contracts`]). Each
//! procedure's VC is generated once, with every candidate guarded by its
//! own boolean literal, and loaded into a solver once; a check then fixes
//! the literals (true for believed candidates, false for refuted ones) as
//! assumptions, so re-checking after a refutation is incremental. A
//! satisfiable check names every candidate whose failure condition holds
//! in the model: they are refuted, and the procedures whose VCs assume
//! them (the procedure itself, and for a postcondition its callers) are
//! checked again. The worklist empties at the fixpoint: every believed
//! candidate is then proven, given the others (the standard Houdini
//! argument: the set only shrinks, and what survives is an inductive
//! conjunction).
//!
//! Summaries are per procedure, shared by every entry point that reaches
//! it, and no candidate is a precondition, so a procedure's candidates
//! depend only on its own body and its callees' postconditions: the
//! runner is applied to the strongly connected components of the call
//! graph bottom-up (callees first), each once, and components with no
//! path between them run in parallel ([`crate::verify`]). Since the
//! Houdini fixpoint is the greatest inductive subset, solving the
//! components in this order gives the same result as one global run.
//!
//! A check the solver cannot decide (timeout, unknown) refutes every
//! candidate the VC checks: an unproven candidate is never kept. The runner
//! reports why it stopped and what it did, as egg's runners do.

use crate::ir::{ProcId, VarId};
use crate::vcgen::contracts::Summaries;
use crate::vcgen::encode::{CheckOf, Vc};
use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

/// The result of one check of a loaded VC.
#[derive(Debug)]
pub enum Outcome {
    /// No failure condition can hold.
    Unsat,
    /// These checks (indexes into the VC's checks) fail in a model.
    Failing(Vec<usize>),
    /// The solver could not decide: why.
    Unknown(String),
}

/// What Houdini needs from a solver: the narrow seam between inference and
/// the solver module.
pub trait VcSolver {
    /// Loads a VC: its constraints, and the disjunction of its failure
    /// conditions.
    fn load(&mut self, vc: &Vc);
    /// Checks with each listed literal fixed to the given value.
    fn check(&mut self, literals: &[(VarId, bool)]) -> Outcome;
}

/// Why Houdini stopped.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StopReason {
    /// The candidate set is inductive.
    Fixpoint,
    /// The time budget ran out: every candidate still unchecked was
    /// refuted, which is sound.
    Budget,
}

/// What a run did.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Report {
    /// Why it stopped.
    pub stop: StopReason,
    /// Candidates at the start.
    pub candidates: usize,
    /// Candidates proven.
    pub proven: usize,
    /// Solver checks made.
    pub queries: usize,
    /// Checks the solver could not decide.
    pub unknown: usize,
    /// Of those, the checks its time limit stopped.
    #[serde(default)]
    pub timeouts: usize,
    /// Wall-clock time.
    pub time: Duration,
}

/// Runs Houdini on the candidates `mine` of `procedures` (one strongly
/// connected component of the call graph, or any set closed under the
/// candidates' dependencies; `mine` may be one slice of their candidates,
/// those whose VCs `vc_of` makes checking no others), with `vc_of` generating a procedure's VC under the summaries and
/// `solver` making a fresh solver. The summaries' beliefs about every
/// other procedure are final (its callees were done before); this run's
/// refutations are returned, not applied, so that components of one level
/// can run in parallel. Past `deadline`, every candidate of the component
/// is refuted, which is sound.
#[allow(clippy::too_many_arguments)]
pub fn run<S: VcSolver>(
    summaries: &Summaries,
    procedures: &[ProcId],
    mine: &BTreeSet<usize>,
    callers: &HashMap<ProcId, BTreeSet<ProcId>>,
    vc_of: &dyn Fn(&Summaries, ProcId) -> Vc,
    solver: &dyn Fn() -> S,
    deadline: Instant,
) -> (Vec<usize>, Report) {
    let start = Instant::now();
    let mut alive = summaries.alive.clone();
    let initial = mine.iter().filter(|i| alive[**i]).count();
    let mut report =
        Report { stop: StopReason::Fixpoint, candidates: initial, proven: 0, queries: 0, unknown: 0, timeouts: 0, time: Duration::ZERO };
    // One loaded solver per procedure; VCs mention every candidate with a
    // literal, whether believed or not, so they are generated once.
    let mut loaded: HashMap<ProcId, (Vc, S)> = HashMap::new();
    let mut work: BTreeSet<ProcId> = procedures.iter().copied().collect();
    while let Some(p) = work.pop_first() {
        if Instant::now() > deadline {
            report.stop = StopReason::Budget;
            for i in mine {
                alive[*i] = false;
            }
            break;
        }
        let (vc, solver_for_p) = loaded.entry(p).or_insert_with(|| {
            let vc = vc_of(summaries, p);
            let mut s = solver();
            s.load(&vc);
            (vc, s)
        });
        if vc.checks.is_empty() {
            continue;
        }
        loop {
            let literals: Vec<(VarId, bool)> = vc.literals.iter().map(|(i, v)| (*v, alive[*i])).collect();
            report.queries += 1;
            let refuted: Vec<usize> = match solver_for_p.check(&literals) {
                Outcome::Unsat => break,
                Outcome::Failing(checks) => checks
                    .into_iter()
                    .filter_map(|k| match vc.checks[k].1 {
                        CheckOf::Candidate(i) if alive[i] => Some(i),
                        CheckOf::Candidate(_) | CheckOf::Race(_) => None,
                    })
                    .collect(),
                Outcome::Unknown(why) => {
                    report.unknown += 1;
                    if why.contains(crate::solver::TIMEOUT_MARK) {
                        report.timeouts += 1;
                    }
                    vc.checks
                        .iter()
                        .filter_map(|(_, c)| match c {
                            CheckOf::Candidate(i) if alive[*i] => Some(*i),
                            CheckOf::Candidate(_) | CheckOf::Race(_) => None,
                        })
                        .collect()
                }
            };
            if refuted.is_empty() {
                // A model whose failing checks are all already refuted: the
                // literals rule them out, so this cannot repeat; stop.
                break;
            }
            for i in refuted {
                alive[i] = false;
                for q in summaries.dependents(i, callers) {
                    if q != p && procedures.contains(&q) {
                        work.insert(q);
                    }
                }
            }
        }
    }
    report.proven = mine.iter().filter(|i| alive[**i]).count();
    report.time = start.elapsed();
    let refuted = mine.iter().copied().filter(|i| !alive[*i] && summaries.alive[*i]).collect();
    (refuted, report)
}

impl Report {
    /// The report of several runs together (components run in parallel
    /// have their times summed).
    pub fn merge(&mut self, other: &Report) {
        if other.stop == StopReason::Budget {
            self.stop = StopReason::Budget;
        }
        self.candidates += other.candidates;
        self.proven += other.proven;
        self.queries += other.queries;
        self.unknown += other.unknown;
        self.timeouts += other.timeouts;
        self.time += other.time;
    }
}

impl Default for Report {
    fn default() -> Self {
        Report { stop: StopReason::Fixpoint, candidates: 0, proven: 0, queries: 0, unknown: 0, timeouts: 0, time: Duration::ZERO }
    }
}
