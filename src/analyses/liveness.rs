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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{AccessKind, Command, Expr, ProcedureBuilder, Region, RegionId, RegionKind, Sort};

    fn program() -> (Program, RegionId) {
        let mut program = Program::new();
        let region = program.regions.push(Region { name: "r".into(), element: Sort::Int, kind: RegionKind::Global, thread_private: false });
        (program, region)
    }

    fn load(target: VarId, region: RegionId) -> Command {
        Command::Load { target, region, address: Expr::int(0), access: AccessKind::Plain, span: None }
    }

    /// The indices of the dead loads of the procedure's entry block and of
    /// every other block, sorted.
    fn dead(program: &Program, p: crate::ir::ProcId) -> Vec<usize> {
        let mut out: Vec<usize> = dead_loads(program, &program.procedures[p]).into_iter().map(|(_, i)| i).collect();
        out.sort();
        out
    }

    #[test]
    fn a_load_overwritten_before_any_use_is_dead() {
        let (mut program, r) = program();
        let mut b = ProcedureBuilder::new(&mut program, "f", None);
        let x = b.add_local("x", Sort::Int, None);
        let out = b.add_return("out", Sort::Int);
        b.push(load(x, r)); // dead: overwritten next
        b.push(load(x, r)); // live: returned
        b.assign(out, Expr::Var(x), None);
        b.ret();
        let f = b.finish();
        assert_eq!(dead(&program, f), vec![0]);
    }

    #[test]
    fn a_use_on_one_path_keeps_a_load_live() {
        let (mut program, r) = program();
        let mut b = ProcedureBuilder::new(&mut program, "f", None);
        let x = b.add_local("x", Sort::Int, None);
        let y = b.add_local("y", Sort::Int, None);
        b.push(load(x, r)); // live: stored on one branch
        b.push(load(y, r)); // dead: used nowhere
        let (then, other) = b.branch(Expr::gt(Expr::var(x), Expr::int(0)), None);
        b.switch_to(then);
        b.push(Command::Store { region: r, address: Expr::int(0), value: Expr::Var(x), access: AccessKind::Plain, span: None });
        b.ret();
        b.switch_to(other);
        b.ret();
        let f = b.finish();
        assert_eq!(dead(&program, f), vec![1]);
    }

    #[test]
    fn a_value_carried_around_a_loop_is_live() {
        let (mut program, r) = program();
        let mut b = ProcedureBuilder::new(&mut program, "f", None);
        let x = b.add_local("x", Sort::Int, None);
        let head = b.new_block();
        b.goto([head]);
        b.switch_to(head);
        let (body, exit) = b.branch(Expr::gt(Expr::var(x), Expr::int(0)), None);
        b.switch_to(body);
        b.push(load(x, r)); // live: read by the loop's condition
        b.goto([head]);
        b.switch_to(exit);
        b.ret();
        let f = b.finish();
        assert_eq!(dead(&program, f), Vec::<usize>::new());
    }
}
