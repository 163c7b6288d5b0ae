//! The evidence of a race: which two accesses, holding which locks.
//!
//! # Algorithm
//!
//! The evidence must not depend on the model the solver happened to find
//! (the output must be the same for any job count), so it is canonical:
//! for each side in turn, the first access site in a fixed order (writes
//! before reads, then nearest the entry point, breadth-first over its
//! calls, then by number) that some racing execution ends with, found by
//! descending from a model towards earlier sites. The two sites race with
//! each other: one writes and not both are atomic (the first side's site
//! must race with an access the second run made, by the second run's
//! access flags, and the second side's with the first's). Each kind of
//! access (plain or atomic read or write) has its own site variable, so a
//! race of a plain read with an atomic write names the plain read, not a
//! later atomic read of the same entry point; then the locks held in
//! every racing execution with the chosen sites, each lock checked only if
//! a model lacking it is not already at hand. The checks run on the VC of
//! the race's region alone, and the race check's own model is the first
//! one.
//!
//! # Soundness
//!
//! The verdict does not depend on the evidence; the evidence is a
//! property of real executions of the instrumented program (every site
//! and lock reported is one some racing execution has).

use super::run::PairSolver;
use super::verdict::Access;
use crate::houdini::Outcome;
use crate::instrument::lockset::LocksetProgram;
use crate::ir::{Expr, ProcId, VarId};
use crate::vcgen::pair::EntryRun;
use std::collections::HashMap;

/// What a model of a pair VC says about one entry point's end state on a
/// region: its last sites and its locksets.
pub(super) struct ModelView {
    /// The last site of each kind, by (write, atomic).
    sites: HashMap<(bool, bool), Option<i128>>,
    ls: HashMap<crate::ir::LockId, Option<bool>>,
}

impl ModelView {
    pub(super) fn of<S: PairSolver>(lp: &LocksetProgram, s: &mut S, run: &EntryRun, r: crate::ir::RegionId) -> ModelView {
        let g = &lp.ghost;
        let mut int = |v: Option<&VarId>| v.and_then(|v| run.end.exit_env.get(v)).and_then(|x| s.int_value(*x));
        let sites = [(false, false), (true, false), (false, true), (true, true)]
            .into_iter()
            .map(|(w, a)| ((w, a), int(Some(&g.site_var(r, w, a)))))
            .collect();
        let ls = g
            .cls
            .keys()
            .map(|l| {
                let value = g.ls.get(&(r, *l)).and_then(|v| run.end.exit_env.get(v)).and_then(|x| s.bool_value(*x));
                (*l, value)
            })
            .collect();
        ModelView { sites, ls }
    }
}

/// The value of a boolean formula (an equality of a variable with a
/// constant, or a variable) in the solver's last model.
fn holds<S: PairSolver>(s: &mut S, e: &Expr) -> Option<bool> {
    match e {
        Expr::Bool(b) => Some(*b),
        Expr::Var(v) => s.bool_value(*v),
        Expr::Binary(crate::ir::BinaryOp::And, a, b) => Some(holds(s, a)? && holds(s, b)?),
        Expr::Binary(crate::ir::BinaryOp::Or, a, b) => Some(holds(s, a)? || holds(s, b)?),
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
pub(super) fn canonical_evidence<S: PairSolver>(
    lp: &LocksetProgram,
    s: &mut S,
    failure: &Expr,
    runs: &[EntryRun; 2],
    entries: [usize; 2],
    r: crate::ir::RegionId,
    seen: &[ModelView; 2],
) -> ([Access; 2], usize) {
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
        // Two accesses race when one writes and not both are atomic: the
        // second side's site must race with the first side's, and the
        // first side's must race with some access of the second run (its
        // flags at the end), so that the report names two accesses that
        // race, not the last one of each direction.
        let other = &runs[1];
        let flag = |v: VarId| other.end.exit_env.get(&v).map(|x| Expr::var(*x)).unwrap_or(Expr::bool(false));
        let [pr, pw, ar, aw] = [&g.read, &g.write, &g.aread, &g.awrite].map(|m| flag(m[&r]));
        let first_kind = sides.first().map(|a: &Access| (a.write, a.atomic));
        let partner = |site: &crate::instrument::lockset::AccessSite| match first_kind {
            Some((w, a)) => ((w || site.write) && !(a && site.atomic)).then_some(Expr::bool(true)),
            None => Some(match (site.write, site.atomic) {
                (true, false) => Expr::or_all(vec![pr.clone(), pw.clone(), ar.clone(), aw.clone()]),
                (true, true) => Expr::or(pr.clone(), pw.clone()),
                (false, false) => Expr::or(pw.clone(), aw.clone()),
                (false, true) => pw.clone(),
            }),
        };
        // The site each candidate leaves in its site variable, as a formula.
        let leaves = |i: usize, site: &crate::instrument::lockset::AccessSite| {
            let var = g.site_var(r, site.write, site.atomic);
            let races = partner(site)?;
            end(var).map(|value| Expr::and(Expr::eq(value, Expr::int(i as i128)), races))
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
                    let value = seen.sites.get(&(site.write, site.atomic)).copied().flatten();
                    // The race condition implies that the second run made
                    // some access, which races with a plain write; another
                    // kind of site of the model may race with nothing.
                    let races = first_kind.is_some() || (site.write && !site.atomic);
                    races && value == Some(*number as i128)
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
            if !matches!(s.check_with(&extra), Outcome::Failing(_)) {
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
            let _ = s.check_with(&fixed);
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
            if matches!(s.check_with(&extra), Outcome::Unsat) {
                locks.push(lp.program.locks[*l].name.clone());
            }
        }
        sides.push(Access {
            entry: entry.name.clone(),
            write: chosen.is_some_and(|x| x.write),
            atomic: chosen.is_some_and(|x| x.atomic),
            span: chosen.and_then(|x| x.span.clone()),
            function: chosen.map(|x| x.function.clone()).unwrap_or_else(|| entry.name.clone()),
            expression: chosen.and_then(|x| lp.program.access_names.get(&(x.span.clone()?, x.region)).cloned()),
            locks,
        });
    }
    let second = sides.pop().expect("two sides");
    let first = sides.pop().expect("two sides");
    ([first, second], queries)
}
