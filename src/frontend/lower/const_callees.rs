//! Callees called with constant arguments: each calling context gets the
//! branches its constants allow.
//!
//! # Why
//!
//! The lockset phase checks a helper's accesses once for all its callers
//! (its summary holds for every call), so a helper that writes a field
//! only `if (level)` counts that write for the caller that passes
//! `level = 0` too: `foo_stop` calling `foo_set_timeout(wdd, 0)`, which
//! stores the timeout only when it is not 0, was reported as writing the
//! timeout without a lock, and the same for `set_dor(fdc, mask, 0)`-style
//! helpers whose constant arguments rule a branch out.
//!
//! # Algorithm
//!
//! For each procedure with a body, its **relevant** parameters are those
//! a branch depends on: the parameter, or a variable assigned from an
//! expression over it (flow-insensitively, transitively), appears in the
//! condition of an `assume` (the lowering's branches) or is passed as it
//! is to a procedure with a body. Each call of the procedure is keyed by
//! the constants it passes to relevant parameters: a literal argument, or
//! a variable of the caller that holds a constant (a parameter this pass
//! constrained and nothing assigns, or a local whose one assignment copies
//! such a parameter or a literal in the entry block, before the call).
//! Calls are grouped by key; a group whose key has a constant is given a
//! procedure that starts with `assume p == c` for each of its constants:
//! the procedure itself for the first such group when every call passes a
//! constant to some relevant parameter and the kernel never calls it (it
//! is no entry point), otherwise a copy
//! ([`crate::ir::Program::clone_procedure`], with the lowering's facts)
//! that the group's calls are redirected to. Three rounds, so that a
//! constant passed on through a helper's own parameter follows. At most
//! [`MAX_COPIES`] copies per driver, of procedures of at most
//! [`MAX_COMMANDS`] commands; beyond the bounds the calls keep their
//! callee, which is checked for every context as before. Recursive
//! procedures (on a cycle of calls) are left alone.
//!
//! # Soundness
//!
//! Exact: an `assume p == c` is added only to a procedure all of whose
//! call sites pass `c` for `p`, so it drops no execution. The call sites
//! of a round include those of the copies made in it (a copy of a caller
//! may know other constants for the variables its calls pass), and the
//! assumptions go in at the end of the round, so that no recorded call
//! moves. Later copies of a caller copy its call commands with the same
//! arguments, so the property survives them; an argument read from a caller's variable is
//! constant only when nothing else assigns it (a variable is assigned only
//! by commands of its procedure) and its one assignment, a copy of a
//! constant, runs before the call (in the entry block, which runs first,
//! and before the call when the call is there too). An entry point is
//! never constrained itself, since the kernel calls it with any
//! arguments: the driver's own calls of it with constants go to copies.
//! A copy runs the same commands as its original.

use crate::analyses::private::Facts;
use crate::ir::{Command, Expr, ProcId, Program, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// The most procedures copied for one driver.
pub const MAX_COPIES: usize = 200;

/// The largest procedure copied, in commands.
pub const MAX_COMMANDS: usize = 400;

/// Rounds: a constant passed on by a helper to its own helper needs the
/// second.
const ROUNDS: usize = 3;

/// What the pass did, for the lowering's statistics.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantContexts {
    /// Procedures given `assume p == c` at their entry.
    pub constrained: usize,
    /// Of which copies made for a group of calls.
    pub copies: usize,
}

/// A literal argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Constant {
    Int(i128),
    Bool(bool),
}

impl Constant {
    fn of(e: &Expr) -> Option<Constant> {
        match e {
            Expr::Int(n) => Some(Constant::Int(*n)),
            Expr::Bool(b) => Some(Constant::Bool(*b)),
            _ => None,
        }
    }

    fn expr(self) -> Expr {
        match self {
            Constant::Int(n) => Expr::Int(n),
            Constant::Bool(b) => Expr::Bool(b),
        }
    }
}

/// Where a call is: caller, block and index.
type CallAt = (ProcId, crate::ir::BlockId, usize);

/// Gives each group of calls passing the same constants to the parameters
/// a procedure branches on a procedure that assumes them (module comment).
pub(super) fn specialise(program: &mut Program, facts: &mut Facts) -> ConstantContexts {
    let entries: BTreeSet<ProcId> = program.entry_points.values().map(|e| e.procedure).collect();
    let mut done = ConstantContexts::default();
    // The constants each constrained procedure's parameters hold on entry.
    let mut known: BTreeMap<ProcId, BTreeMap<VarId, Constant>> = BTreeMap::new();
    // A recursive procedure calls itself with other arguments: a copy
    // would only separate its outermost call, and the precise phase's
    // recursion bound would count the copy and the original apart.
    let recursive = recursive_procedures(program);
    for _ in 0..ROUNDS {
        let mut changed = false;
        // Call sites stay where they are during a round: the assumptions
        // are put in at its end, and a copy's own calls are added here.
        let mut calls = calls_by_callee(program);
        let mut pending: Vec<(ProcId, Vec<Command>)> = Vec::new();
        let procedures: Vec<ProcId> = program.procedures.iter().map(|(id, _)| id).collect();
        for q in procedures {
            if !program.procedures[q].body || recursive.contains(&q) {
                continue;
            }
            let Some(sites) = calls.get(&q).cloned() else { continue };
            let relevant = relevant_params(program, q);
            if relevant.is_empty() {
                continue;
            }
            // Group the calls by the constants they pass to relevant
            // parameters that this procedure does not assume already.
            let already = known.get(&q).cloned().unwrap_or_default();
            let mut groups: BTreeMap<Vec<Option<Constant>>, Vec<CallAt>> = BTreeMap::new();
            for &at in &sites {
                let Some(Command::Call { args, .. }) = program.procedures[at.0].blocks[at.1].commands.get(at.2) else { continue };
                let key: Vec<Option<Constant>> = relevant
                    .iter()
                    .map(|&i| {
                        let param = program.procedures[q].params[i];
                        if already.contains_key(&param) {
                            return None;
                        }
                        args.get(i).and_then(|a| constant_arg(program, &known, at, a))
                    })
                    .collect();
                groups.entry(key).or_default().push(at);
            }
            // The procedure itself serves the first group with constants
            // when no call passes it anything unknown, unless the kernel
            // calls it too (an entry point, which gets any arguments). The
            // copies are made first, from the procedure as it is.
            let mut original_free = !entries.contains(&q) && !groups.keys().any(|k| k.iter().all(Option::is_none));
            let mut targets: Vec<(ProcId, Vec<Option<Constant>>)> = Vec::new();
            for (key, group) in groups {
                if key.iter().all(Option::is_none) {
                    continue;
                }
                if original_free {
                    original_free = false;
                    targets.push((q, key));
                    continue;
                }
                let size: usize = program.procedures[q].blocks.values().map(|b| b.commands.len()).sum();
                if done.copies >= MAX_COPIES || size > MAX_COMMANDS {
                    continue;
                }
                let (copy, map) = program.clone_procedure(q);
                super::fresh_callees::copy_facts(facts, q, copy, &map);
                for &(caller, block, index) in &group {
                    if let Some(Command::Call { procedure, .. }) = program.procedures[caller].blocks[block].commands.get_mut(index) {
                        *procedure = copy;
                    }
                }
                // The copy calls what the original calls, with the same
                // arguments: its call sites count for its callees' groups.
                for (b, block) in program.procedures[copy].blocks.iter() {
                    for (i, c) in block.commands.iter().enumerate() {
                        if let Command::Call { procedure: callee, .. } = c {
                            calls.entry(*callee).or_default().push((copy, b, i));
                        }
                    }
                }
                let inherited: BTreeMap<VarId, Constant> = already.iter().filter_map(|(v, c)| Some((*map.get(v)?, *c))).collect();
                known.insert(copy, inherited);
                done.copies += 1;
                targets.push((copy, key));
            }
            for (target, key) in targets {
                let mut assumptions = Vec::new();
                for (&i, constant) in relevant.iter().zip(&key) {
                    let Some(constant) = constant else { continue };
                    let param = program.procedures[target].params[i];
                    assumptions.push(Command::Assume { cond: Expr::eq(Expr::var(param), constant.expr()), span: None });
                    known.entry(target).or_default().insert(param, *constant);
                }
                pending.push((target, assumptions));
                done.constrained += 1;
                changed = true;
            }
        }
        for (target, assumptions) in pending {
            let entry = program.procedures[target].entry;
            program.procedures[target].blocks[entry].commands.splice(0..0, assumptions);
        }
        if !changed {
            break;
        }
    }
    done
}

/// The procedures on a cycle of calls (a strongly connected component of
/// the call graph with two or more procedures, or one that calls itself).
fn recursive_procedures(program: &Program) -> BTreeSet<ProcId> {
    use petgraph::graph::{DiGraph, NodeIndex};
    let mut graph: DiGraph<ProcId, ()> = DiGraph::new();
    let nodes: BTreeMap<ProcId, NodeIndex> = program.procedures.iter().map(|(p, _)| (p, graph.add_node(p))).collect();
    let mut out = BTreeSet::new();
    for (p, procedure) in program.procedures.iter() {
        for c in procedure.blocks.values().flat_map(|b| &b.commands) {
            if let Command::Call { procedure: callee, .. } = c {
                if *callee == p {
                    out.insert(p);
                }
                graph.add_edge(nodes[&p], nodes[callee], ());
            }
        }
    }
    for component in petgraph::algo::tarjan_scc(&graph) {
        if component.len() > 1 {
            out.extend(component.iter().map(|n| graph[*n]));
        }
    }
    out
}

/// The call commands naming each procedure.
fn calls_by_callee(program: &Program) -> BTreeMap<ProcId, Vec<CallAt>> {
    let mut out: BTreeMap<ProcId, Vec<CallAt>> = BTreeMap::new();
    for (p, procedure) in program.procedures.iter() {
        for (b, block) in procedure.blocks.iter() {
            for (i, c) in block.commands.iter().enumerate() {
                if let Command::Call { procedure, .. } = c {
                    out.entry(*procedure).or_default().push((p, b, i));
                }
            }
        }
    }
    out
}

/// The indices of `q`'s parameters that a branch of `q` depends on, or
/// that `q` passes on to a procedure with a body.
fn relevant_params(program: &Program, q: ProcId) -> Vec<usize> {
    let procedure = &program.procedures[q];
    let assigns: Vec<(VarId, BTreeSet<VarId>)> = procedure
        .blocks
        .values()
        .flat_map(|b| &b.commands)
        .filter_map(|c| match c {
            Command::Assign { target, value, .. } => Some((*target, value.variables())),
            _ => None,
        })
        .collect();
    // What branches test, and what is passed on to a procedure with a
    // body (whose own branches may test it: a later round).
    let conditions: BTreeSet<VarId> = procedure
        .blocks
        .values()
        .flat_map(|b| &b.commands)
        .flat_map(|c| match c {
            Command::Assume { cond, .. } => cond.variables().into_iter().collect::<Vec<_>>(),
            Command::Call { procedure: callee, args, .. } if program.procedures[*callee].body => {
                args.iter().filter_map(|a| if let Expr::Var(v) = a { Some(*v) } else { None }).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    (0..procedure.params.len())
        .filter(|&i| {
            let mut depends: BTreeSet<VarId> = BTreeSet::from([procedure.params[i]]);
            loop {
                let before = depends.len();
                for (target, uses) in &assigns {
                    if !depends.contains(target) && uses.iter().any(|u| depends.contains(u)) {
                        depends.insert(*target);
                    }
                }
                if depends.len() == before {
                    break;
                }
            }
            depends.iter().any(|v| conditions.contains(v))
        })
        .collect()
}

/// The constant an argument of the call at `at` has: a literal, a
/// parameter of the caller `known` to hold one on entry and assigned
/// nowhere, or a local whose one assignment, in the entry block and before
/// the call, copies such a parameter or a literal.
fn constant_arg(program: &Program, known: &BTreeMap<ProcId, BTreeMap<VarId, Constant>>, at: CallAt, arg: &Expr) -> Option<Constant> {
    let caller = at.0;
    match arg {
        Expr::Int(_) | Expr::Bool(_) => Constant::of(arg),
        Expr::Var(v) => {
            let empty = BTreeMap::new();
            let constants = known.get(&caller).unwrap_or(&empty);
            let procedure = &program.procedures[caller];
            if let Some(c) = constants.get(v) {
                // A parameter assigned nowhere in its procedure keeps it.
                let assigned = procedure.blocks.values().flat_map(|b| &b.commands).any(|c| assigns(c, *v));
                return (!assigned).then_some(*c);
            }
            // A local copy of a constant parameter: its only assignment.
            let mut sites = procedure.blocks.iter().flat_map(|(b, block)| block.commands.iter().enumerate().map(move |(i, c)| (b, i, c))).filter(|(_, _, c)| assigns(c, *v));
            let (block, index, command) = sites.next()?;
            if sites.next().is_some() || block != procedure.entry {
                return None;
            }
            // The entry block runs first, so the assignment precedes every
            // use elsewhere; in the entry block itself, the call must come
            // after it.
            if at.1 == block && at.2 <= index {
                return None;
            }
            let Command::Assign { value, .. } = command else { return None };
            match value {
                Expr::Int(_) | Expr::Bool(_) => Constant::of(value),
                Expr::Var(p) => {
                    let c = constants.get(p)?;
                    let assigned = procedure.blocks.values().flat_map(|b| &b.commands).any(|c| assigns(c, *p));
                    (!assigned).then_some(*c)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether command `c` assigns variable `v`.
fn assigns(c: &Command, v: VarId) -> bool {
    c.targets().contains(&v)
}
