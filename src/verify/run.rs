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
use crate::ir::{Command, Expr, ProcId, Program, VarId};
use crate::vcgen::contracts::{self, Summaries};
use crate::vcgen::encode::{CheckOf, Encoder, Env, Vc};
use crate::vcgen::pair::{EntryRun, encode_pair};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

/// Options of a verification run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Per solver check.
    pub timeout: Duration,
    /// Houdini's budget per entry point.
    pub houdini_budget: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options { timeout: Duration::from_secs(10), houdini_budget: Duration::from_secs(60) }
    }
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

/// The VC of one procedure for Houdini: its body from a state where every
/// ghost variable of its entry point has an unknown value, postconditions
/// checked.
fn procedure_vc(lp: &LocksetProgram, summaries: &Summaries, entry: usize, p: ProcId) -> Vc {
    let mut enc = Encoder::new(&lp.program, summaries);
    let mut env = Env::new();
    let e = &lp.entries[entry];
    for v in e.ghost.initial_values().into_iter().map(|(v, _)| v).chain(lp.watched.values().copied()) {
        enc.current(&mut env, v);
    }
    enc.encode_body(p, env, Expr::bool(true), true);
    enc.vc
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
) -> (Vec<PairVerdict>, Vec<(String, houdini::Report)>) {
    let lp = instrument(lowered);
    let mut summaries = contracts::build(&lp);
    let callers = callers(&lp.program);
    // Houdini per entry point, in parallel: the entry points' procedures
    // are disjoint copies, so are their candidates; each run works on its
    // own copy of the beliefs and hands back those of its candidates.
    let runs: Vec<(Vec<(usize, bool)>, houdini::Report)> = lp
        .entries
        .par_iter()
        .enumerate()
        .map(|(i, entry)| {
            let mut mine = summaries.clone();
            let vc_of = |s: &Summaries, p: ProcId| procedure_vc(&lp, s, i, p);
            let report = houdini::run(&mut mine, &entry.procedures, &callers, &vc_of, &|| solver(), options.houdini_budget);
            let beliefs = (0..mine.candidates.len())
                .filter(|c| entry.procedures.contains(&mine.candidates[*c].procedure))
                .map(|c| (c, mine.alive[c]))
                .collect();
            (beliefs, report)
        })
        .collect();
    let mut reports = Vec::new();
    for ((beliefs, report), entry) in runs.into_iter().zip(&lp.entries) {
        for (c, alive) in beliefs {
            summaries.alive[c] = alive;
        }
        reports.push((entry.name.clone(), report));
    }
    let held: Vec<BTreeSet<crate::ir::LockId>> = (0..lp.entries.len())
        .map(|i| {
            let names = held.get(i).cloned().unwrap_or_default();
            lp.program.locks.iter().filter(|(_, l)| names.contains(&l.name)).map(|(id, _)| id).collect()
        })
        .collect();
    // The pairs, in parallel, gathered in order.
    let verdicts = pairs.par_iter().map(|pair| check_pair(&lp, &summaries, &held, pair.first, pair.second, solver)).collect();
    (verdicts, reports)
}

fn check_pair<S: PairSolver>(
    lp: &LocksetProgram,
    summaries: &Summaries,
    held: &[BTreeSet<crate::ir::LockId>],
    a: usize,
    b: usize,
    solver: &dyn Fn() -> S,
) -> PairVerdict {
    let (ea, eb) = (&lp.entries[a], &lp.entries[b]);
    let mut verdict = PairVerdict { first: ea.name.clone(), second: eb.name.clone(), regions: Vec::new() };
    let (vc, runs) = encode_pair(lp, summaries, a, b, [&held[a], &held[b]]);
    let unsound: Vec<String> = ea.unsound.iter().chain(&eb.unsound).map(|(_, what)| what.clone()).collect();
    let mut s = solver();
    s.load(&vc);
    let literals: Vec<(VarId, bool)> = vc.literals.iter().map(|(i, v)| (*v, summaries.alive[*i])).collect();
    let mut open: BTreeSet<usize> = (0..vc.checks.len()).collect();
    let mut decided: HashMap<usize, Verdict> = HashMap::new();
    while !open.is_empty() {
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
                    let evidence = canonical_evidence(lp, &mut s, &literals, &vc.checks[k].0, &runs, [a, b], r);
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
    verdict
}

/// The evidence of a race, independent of the model the solver happened to
/// find (so that the output is the same for any job count): for each side
/// in turn, the first access site, writes before reads and then by number,
/// that some execution with the race can end with; and the locks held in
/// every such execution.
fn canonical_evidence<S: PairSolver>(
    lp: &LocksetProgram,
    s: &mut S,
    literals: &[(VarId, bool)],
    failure: &Expr,
    runs: &[EntryRun; 2],
    entries: [usize; 2],
    r: crate::ir::RegionId,
) -> [Access; 2] {
    let mut fixed = vec![failure.clone()];
    let mut sides = Vec::new();
    for (run, &e) in runs.iter().zip(&entries) {
        let entry = &lp.entries[e];
        let g = &entry.ghost;
        let end = |v: VarId| run.end.exit_env.get(&v).map(|x| Expr::var(*x));
        let own: std::collections::HashSet<&str> = entry
            .procedures
            .iter()
            .map(|p| lp.program.procedures[*p].name.split_once("__").map_or("", |(_, f)| f))
            .collect();
        let mut candidates: Vec<(usize, &crate::instrument::lockset::AccessSite)> =
            lp.sites.iter().enumerate().filter(|(_, x)| x.region == r && own.contains(x.function.as_str())).collect();
        candidates.sort_by_key(|(i, x)| (!x.write, *i));
        let mut chosen = None;
        for (i, site) in candidates {
            let var = if site.write { g.site_write[&r] } else { g.site_read[&r] };
            let Some(value) = end(var) else { continue };
            let mut extra = fixed.clone();
            extra.push(Expr::eq(value, Expr::int(i as i128)));
            if matches!(s.check_with(literals, &extra), Outcome::Failing(_)) {
                fixed = extra;
                chosen = Some(site);
                break;
            }
        }
        // A lock is reported held when no execution with these sites lacks it.
        let mut locks = Vec::new();
        for l in g.cls.keys() {
            let Some(ls) = g.ls.get(&(r, *l)).and_then(|v| end(*v)) else { continue };
            let mut extra = fixed.clone();
            extra.push(Expr::not(ls));
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
    [first, second]
}
