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
) -> Vec<PairVerdict> {
    let lp = instrument(lowered);
    let mut summaries = contracts::build(&lp);
    let callers = callers(&lp.program);
    for (i, entry) in lp.entries.iter().enumerate() {
        let vc_of = |s: &Summaries, p: ProcId| procedure_vc(&lp, s, i, p);
        houdini::run(&mut summaries, &entry.procedures, &callers, &vc_of, &|| solver(), options.houdini_budget);
    }
    let held: Vec<BTreeSet<crate::ir::LockId>> = (0..lp.entries.len())
        .map(|i| {
            let names = held.get(i).cloned().unwrap_or_default();
            lp.program.locks.iter().filter(|(_, l)| names.contains(&l.name)).map(|(id, _)| id).collect()
        })
        .collect();
    pairs.iter().map(|pair| check_pair(&lp, &summaries, &held, pair.first, pair.second, solver)).collect()
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
                    let evidence = [access(lp, &mut s, &runs[0], a, r), access(lp, &mut s, &runs[1], b, r)];
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

/// One side of a race, read from the model: whether the entry point wrote
/// the watched address (else read it), the site that last did, and the
/// locks held at all its accesses to it.
fn access<S: PairSolver>(lp: &LocksetProgram, s: &mut S, run: &EntryRun, e: usize, r: crate::ir::RegionId) -> Access {
    let entry = &lp.entries[e];
    let g = &entry.ghost;
    let value = |s: &mut S, v: VarId| run.end.exit_env.get(&v).and_then(|x| s.bool_value(*x)).unwrap_or(false);
    let wrote = value(s, g.write[&r]) || value(s, g.awrite[&r]);
    let site_var = if wrote { g.site_write[&r] } else { g.site_read[&r] };
    let site = run
        .end
        .exit_env
        .get(&site_var)
        .and_then(|x| s.int_value(*x))
        .and_then(|n| usize::try_from(n).ok())
        .and_then(|n| lp.sites.get(n));
    let locks = g
        .cls
        .keys()
        .filter(|l| g.ls.get(&(r, **l)).is_some_and(|v| value(s, *v)))
        .map(|l| lp.program.locks[*l].name.clone())
        .collect();
    Access {
        entry: entry.name.clone(),
        write: wrote,
        atomic: site.is_some_and(|x| x.atomic),
        span: site.and_then(|x| x.span.clone()),
        function: site.map(|x| x.function.clone()).unwrap_or_else(|| entry.name.clone()),
        locks,
    }
}
