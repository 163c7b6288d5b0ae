//! Callees that initialise a fresh object: the accesses a helper makes
//! through a parameter that holds an object nobody else reaches yet.
//!
//! # Why
//!
//! The per-call private memory analysis (src/analyses/private.rs) leaves
//! an object that is published later private before its publication, but
//! only in the procedure that allocates it: a driver that fills a new URB
//! with `usb_fill_int_urb` (a static inline of include/linux/usb.h), or
//! initialises a new device structure in a helper before registering it,
//! had those writes race-checked against the callbacks that read the
//! object once it is published, which is the init-order false alarm.
//!
//! # Algorithm
//!
//! [`crate::analyses::private::fresh_calls`] finds the calls that pass, at
//! a point before any command that may publish it, an address derived only
//! from a fresh object (an allocation or an address-taken local of the
//! caller, or a parameter already seeded so) to a parameter the callee
//! never publishes (`publishing_params`: no store of it elsewhere than into
//! its own object, no model, external call or function pointer that may
//! keep it, no callee that may publish it), of a callee the kernel never
//! calls itself (not an entry point), unless the flow-insensitive rule
//! makes the parameter's accesses private already (every value it gets is
//! an object that never escapes: splitting such a call off would leave the
//! callee's other calls fewer private sources, a null pointer alone, say).
//! Such a parameter is **seeded**: the
//! callee's own forward must-analysis starts with it holding the object,
//! so its accesses through it are private up to a command that may publish
//! the object. A callee with one call site is seeded as it is; a callee
//! called from several places is copied for the call
//! ([`crate::ir::Program::clone_procedure`], with the lowering's facts about
//! its variables), so that each copy has one call site and one calling
//! context. Up to three rounds, so that a helper's own helpers follow.
//! Copies are bounded (at most [`MAX_COPIES`] per driver, of callees of at
//! most [`MAX_COMMANDS`] commands); a call beyond the bounds keeps its
//! callee's accesses checked.
//!
//! # Soundness
//!
//! A seeded parameter's procedure has exactly one call site, at which the
//! object is unpublished, and the callee does not publish it (checked again
//! after the last round, to a fixpoint: a seed whose procedure gained a
//! call site, because its caller was copied, or whose call no longer passes
//! the object unpublished, because the seed of its caller went, is
//! dropped); so while the callee runs no other
//! thread reaches the object, until a command inside the callee that may
//! publish it, which the must-analysis honours as in the caller. A copy
//! runs the same commands as its original, so the program's behaviour is
//! unchanged.

use crate::analyses::private::{Facts, FreshParam, PrivateParam, fresh_calls};
use crate::ir::{Command, FuncId, ProcId, Program, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// The most procedures copied for one driver.
pub const MAX_COPIES: usize = 200;

/// The largest callee copied, in commands.
pub const MAX_COMMANDS: usize = 400;

/// Rounds of seeding: a helper's helper needs a second.
const ROUNDS: usize = 3;

/// Seeds the parameters that receive unpublished fresh objects, copying
/// callees called from several places; returns the seeds.
pub(super) fn specialise(program: &mut Program, facts: &mut Facts, opaque: &BTreeSet<FuncId>, entries: &[ProcId], params: &[PrivateParam]) -> Vec<FreshParam> {
    let mut seeds: Vec<FreshParam> = Vec::new();
    let mut copies = 0;
    for _ in 0..ROUNDS {
        let calls = fresh_calls(program, facts, opaque.clone(), entries, params, &seeds);
        let mut sites = call_sites(program);
        let mut changed = false;
        for call in calls {
            if seeds.iter().any(|s| s.procedure == call.callee) {
                continue;
            }
            let target = if sites.get(&call.callee) == Some(&1) {
                call.callee
            } else {
                let size: usize = program.procedures[call.callee].blocks.values().map(|b| b.commands.len()).sum();
                if copies >= MAX_COPIES || size > MAX_COMMANDS {
                    continue;
                }
                let (copy, map) = program.clone_procedure(call.callee);
                copy_facts(facts, call.callee, copy, &map);
                if let Some(Command::Call { procedure, .. }) = program.procedures[call.caller].blocks[call.block].commands.get_mut(call.index) {
                    *procedure = copy;
                }
                *sites.entry(call.callee).or_default() -= 1;
                sites.insert(copy, 1);
                copies += 1;
                copy
            };
            seeds.extend(call.params.iter().map(|(index, source)| FreshParam { procedure: target, index: *index, source: *source }));
            changed = true;
        }
        if !changed {
            break;
        }
    }
    // Every seed must still be justified: its procedure called once (a
    // copied caller calls its callees a second time), by a call that passes
    // the object unpublished given the other seeds. Dropping one may
    // unjustify another (a helper's helper), so to a fixpoint.
    loop {
        let sites = call_sites(program);
        seeds.retain(|s| sites.get(&s.procedure) == Some(&1));
        // Nothing left to justify: no second run of the analysis (most
        // drivers seed nothing).
        if seeds.is_empty() {
            return seeds;
        }
        let calls = fresh_calls(program, facts, opaque.clone(), entries, params, &seeds);
        let before = seeds.len();
        seeds.retain(|s| calls.iter().any(|c| c.callee == s.procedure && c.params.contains(&(s.index, s.source))));
        if seeds.len() == before {
            return seeds;
        }
    }
}

/// How many call commands name each procedure.
fn call_sites(program: &Program) -> BTreeMap<ProcId, usize> {
    let mut out = BTreeMap::new();
    for p in program.procedures.values() {
        for b in p.blocks.values() {
            for c in &b.commands {
                if let Command::Call { procedure, .. } = c {
                    *out.entry(*procedure).or_default() += 1;
                }
            }
        }
    }
    out
}

/// The lowering's facts about the original's variables, for the copy's.
pub(super) fn copy_facts(facts: &mut Facts, from: ProcId, to: ProcId, map: &BTreeMap<VarId, VarId>) {
    let mut rename = |v: VarId| map.get(&v).copied().unwrap_or(v);
    let mentions = |e: &crate::ir::Expr| e.variables().iter().any(|v| map.contains_key(v));
    let allocations: Vec<_> = facts.allocations.iter().filter_map(|(v, n)| Some((*map.get(v)?, n.clone()))).collect();
    facts.allocations.extend(allocations);
    let locals: Vec<_> = facts.locals.iter().filter_map(|v| map.get(v).copied()).collect();
    facts.locals.extend(locals);
    let within: Vec<_> = facts.within.iter().filter_map(|(v, base)| Some((*map.get(v)?, base.map_vars(&mut rename)))).collect();
    facts.within.extend(within);
    let kept: Vec<_> = facts.kept.iter().filter(|e| mentions(e)).map(|e| e.map_vars(&mut rename)).collect();
    facts.kept.extend(kept);
    let kept_at: Vec<_> = facts.kept_at.iter().filter(|(p, ..)| *p == from).map(|(_, b, at, e)| (to, *b, *at, e.map_vars(&mut rename))).collect();
    facts.kept_at.extend(kept_at);
}
