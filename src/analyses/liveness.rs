//! Which loads of a procedure read a value nobody uses.
//!
//! # Algorithm
//!
//! Classic backward liveness of the procedure's own variables (its locals
//! and parameters) over its control flow graph, iterated to a fixpoint:
//! a variable is live before a command when the command reads it, or when
//! it is live after the command and the command does not assign it. At a
//! `return`, the procedure's results are live; globals are live
//! everywhere, since callers and later entry points may read them. A
//! load whose target is not live after it is dead: its value flows
//! nowhere. The lowering makes many such loads, for instance the reads it
//! assumes an external function makes through each pointer argument,
//! which the lockset phase needs as accesses but whose values nothing
//! uses.
//!
//! # Soundness
//!
//! Liveness is a may-analysis over all paths: a variable that some path
//! reads before assigning it is live, so a load reported dead has no
//! reader on any path, and dropping its value changes no other value the
//! procedure computes. Whether the access itself still matters (a race
//! check on its region) is the caller's decision.

use crate::ir::{BlockId, Procedure, Program, Scope, Terminator, VarId};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The loads (block, index of the command in the block) whose target is
/// dead after them.
pub fn dead_loads(program: &Program, procedure: &Procedure) -> HashSet<(BlockId, usize)> {
    let own = |v: VarId| matches!(program.variables[v].scope, Scope::Local(_) | Scope::Param(_));
    let blocks: Vec<BlockId> = procedure.blocks.iter().map(|(id, _)| id).collect();
    let mut predecessors: HashMap<BlockId, Vec<BlockId>> = HashMap::new();
    for &b in &blocks {
        if let Terminator::Goto(targets) = &procedure.blocks[b].terminator {
            for &s in targets {
                predecessors.entry(s).or_default().push(b);
            }
        }
    }
    let at_exit: BTreeSet<VarId> = procedure.returns.iter().copied().filter(|&v| own(v)).collect();
    let mut live_in: HashMap<BlockId, BTreeSet<VarId>> = HashMap::new();
    let live_out = |b: BlockId, live_in: &HashMap<BlockId, BTreeSet<VarId>>| -> BTreeSet<VarId> {
        match &procedure.blocks[b].terminator {
            Terminator::Goto(targets) => targets.iter().filter_map(|s| live_in.get(s)).flatten().copied().collect(),
            Terminator::Return => at_exit.clone(),
            Terminator::Unreachable => BTreeSet::new(),
        }
    };
    let transfer = |b: BlockId, mut live: BTreeSet<VarId>, mut dead: Option<&mut HashSet<(BlockId, usize)>>| {
        for (i, c) in procedure.blocks[b].commands.iter().enumerate().rev() {
            let targets = c.targets();
            if let (Some(dead), crate::ir::Command::Load { target, .. }) = (dead.as_deref_mut(), c) {
                if own(*target) && !live.contains(target) {
                    dead.insert((b, i));
                }
            }
            for t in targets {
                live.remove(&t);
            }
            for e in c.expressions() {
                live.extend(e.variables().into_iter().filter(|&v| own(v)));
            }
        }
        live
    };
    let mut work: Vec<BlockId> = blocks.clone();
    let mut queued: HashSet<BlockId> = blocks.iter().copied().collect();
    while let Some(b) = work.pop() {
        queued.remove(&b);
        let live = transfer(b, live_out(b, &live_in), None);
        if live_in.get(&b) != Some(&live) {
            live_in.insert(b, live);
            for &p in predecessors.get(&b).into_iter().flatten() {
                if queued.insert(p) {
                    work.push(p);
                }
            }
        }
    }
    let mut dead = HashSet::new();
    for &b in &blocks {
        transfer(b, live_out(b, &live_in), Some(&mut dead));
    }
    dead
}
