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
/// region: its last sites, its access flags and its locksets.
pub(super) struct ModelView {
    /// The last site of each kind, by (write, atomic).
    sites: HashMap<(bool, bool), Option<i128>>,
    /// The access flags, by (write, atomic).
    flags: HashMap<(bool, bool), Option<bool>>,
    /// The locksets, by (over the writes, lock): `LSW` or `LSR`.
    ls: HashMap<(bool, crate::ir::LockId), Option<bool>>,
    /// The exclusive locksets, by (over the writes, lock): `LSX` or `LSRX`.
    lsx: HashMap<(bool, crate::ir::LockId), Option<bool>>,
}

/// The four kinds of access, as (write, atomic).
const KINDS: [(bool, bool); 4] = [(false, false), (true, false), (false, true), (true, true)];

/// Two kinds of access conflict when one writes and not both are atomic.
fn conflicts(a: (bool, bool), b: (bool, bool)) -> bool {
    (a.0 || b.0) && !(a.1 && b.1)
}

impl ModelView {
    pub(super) fn of<S: PairSolver>(lp: &LocksetProgram, s: &mut S, run: &EntryRun, r: crate::ir::RegionId) -> ModelView {
        let g = &lp.ghost;
        let env = &run.end.exit_env;
        let sites = KINDS.into_iter().map(|k| (k, env.get(&g.site_var(r, k.0, k.1)).and_then(|x| s.int_value(*x)))).collect();
        let flags = KINDS.into_iter().map(|k| (k, env.get(&g.flag_var(r, k.0, k.1)).and_then(|x| s.bool_value(*x)))).collect();
        let mut bool_of = |v: Option<&VarId>| v.and_then(|v| env.get(v)).and_then(|x| s.bool_value(*x));
        let mut ls = HashMap::new();
        let mut lsx = HashMap::new();
        for l in g.cls.keys() {
            ls.insert((true, *l), bool_of(g.lsw.get(&(r, *l))));
            ls.insert((false, *l), bool_of(g.lsr.get(&(r, *l))));
            // No variable: never held exclusively at that kind of access.
            let mut exclusive = |sets: &std::collections::BTreeMap<(crate::ir::RegionId, crate::ir::LockId), VarId>| match sets.get(&(r, *l)) {
                Some(v) => bool_of(Some(v)),
                None => Some(false),
            };
            lsx.insert((true, *l), exclusive(&g.lsx));
            lsx.insert((false, *l), exclusive(&g.lsrx));
        }
        ModelView { sites, flags, ls, lsx }
    }
}

/// Whether the model seen says that an access of kind `first` by the first
/// run conflicts with one of kind `second` (any kind the second run made,
/// if none) with no lock protecting the two: a start for the descent that
/// needs no check. Unknown values answer no.
fn seen_races(lp: &LocksetProgram, seen: &[ModelView; 2], first: (bool, bool), second: Option<(bool, bool)>) -> bool {
    let kinds: Vec<(bool, bool)> = match second {
        Some(k) => vec![k],
        None => KINDS.into_iter().filter(|k| seen[1].flags.get(k).copied().flatten() == Some(true)).collect(),
    };
    kinds.into_iter().filter(|k| conflicts(first, *k)).any(|k| {
        let protected = lp.ghost.cls.keys().any(|l| {
            let held = |i: usize, w: bool| seen[i].ls.get(&(w, *l)).copied().flatten();
            let exclusive = |i: usize, w: bool| seen[i].lsx.get(&(w, *l)).copied().flatten();
            let shared_mode = lp.ghost.clx.contains_key(l);
            // An unknown value counts as protecting, so that the start is
            // never a pair the model does not show unprotected.
            let both = held(0, first.0) != Some(false) && held(1, k.0) != Some(false);
            // Either access's exclusive hold excludes the other holder.
            let exclusive = exclusive(0, first.0) != Some(false) || exclusive(1, k.0) != Some(false);
            both && (!shared_mode || exclusive)
        });
        !protected
    })
}

/// The value of a boolean formula (made of variables, equalities of a
/// variable with a constant, negations, conjunctions and disjunctions) in
/// the solver's last model.
fn holds<S: PairSolver>(s: &mut S, e: &Expr) -> Option<bool> {
    match e {
        Expr::Bool(b) => Some(*b),
        Expr::Var(v) => s.bool_value(*v),
        Expr::Unary(crate::ir::UnaryOp::Not, a) => Some(!holds(s, a)?),
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
    let seen_both = seen;
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
        // Two accesses race when one writes, not both are atomic, and no
        // lock is held at both: the second side's site must race with the
        // first side's, and the first side's with some access of the
        // second run (its flags at the end), each pair of kinds with the
        // locksets of its kinds (`LSW`, `LSR`), so that the report names two
        // accesses that race, with the locks each held, not the last one
        // of each direction.
            let unprotected = |first: (bool, bool), second: (bool, bool)| {
            let mut value = |i: usize, v: VarId| runs[i].end.exit_env.get(&v).map(|x| Expr::var(*x));
            Expr::not(crate::vcgen::pair::protection(lp, r, [first.0, second.0], &mut value))
        };
        let other = &runs[1];
        let flag = |k: (bool, bool)| {
            other.end.exit_env.get(&g.flag_var(r, k.0, k.1)).map(|x| Expr::var(*x)).unwrap_or(Expr::bool(false))
        };
        let first_kind = sides.first().map(|a: &Access| (a.write, a.atomic));
        let partner = |site: &crate::instrument::lockset::AccessSite| {
            let kind = (site.write, site.atomic);
            match first_kind {
                Some(first) => conflicts(first, kind).then(|| unprotected(first, kind)),
                None => {
                    let options: Vec<Expr> = KINDS
                        .into_iter()
                        .filter(|k| conflicts(kind, *k))
                        .map(|k| Expr::and(flag(k), unprotected(kind, k)))
                        .collect();
                    (!options.is_empty()).then(|| Expr::or_all(options))
                }
            }
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
                    let kind = (site.write, site.atomic);
                    let value = seen.sites.get(&kind).copied().flatten();
                    value == Some(*number as i128) && seen_races(lp, seen_both, first_kind.unwrap_or(kind), first_kind.map(|_| kind))
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
        let write = chosen.is_some_and(|x| x.write);
        let sets = if write { &g.lsw } else { &g.lsr };
        for l in g.cls.keys() {
            let Some(ls) = sets.get(&(r, *l)).and_then(|v| end(*v)) else { continue };
            let lacking = if as_seen { seen.ls.get(&(write, *l)).copied().flatten() == Some(false) } else { holds(s, &ls) == Some(false) };
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
