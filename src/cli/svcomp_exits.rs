//! The termination assumption, removed for `racewatch svcomp`.
//!
//! The lockset phase checks a pair's race assertion where both entry points
//! reach their end (Whoop's encoding, docs/soundness.md): an access made
//! on a path that never returns (a thread looping forever, a path ending in
//! `abort()` or `pthread_exit`) is not checked. SV-COMP's threads often
//! never return, so before the check every procedure body gets, at the
//! source of each back edge of its control flow graph (depth-first search
//! from the entry) and at each block that ends unreachable (a call of a
//! function that never returns), a nondeterministic branch to the block
//! that returns (the encoding of a body has one returning block).
//!
//! **Soundness.** A real execution prefix of an entry point ends in a loop
//! that runs forever, a call that never returns, or the entry point's end:
//! an infinite run passes the source of a back edge infinitely often (every
//! cycle of a graph has a depth-first back edge), so every accessing prefix
//! now extends to a path that reaches the end with the same accesses and
//! locksets, and the race assertion sees it. Only paths are added: an
//! over-approximation (the code after the new returns, in the callers, may
//! run where it really does not, which adds accesses, never removes one).
//! Recursion (a call chain that never returns without any loop) is not
//! covered: [`recursive`] finds it, and `svcomp` answers unknown then.

use crate::ir::{Block, Command, Program, Terminator};
use std::collections::{BTreeMap, BTreeSet};

/// Adds the exits described in the module documentation to every body.
/// Returns false when a body has several returning blocks (never made by
/// the lowering), which the encoding does not support.
pub fn add_exits(program: &mut Program) -> bool {
    let mut flag = false;
    let unsupported = &mut flag;
    for (_, p) in program.procedures.iter_mut() {
        if !p.body {
            continue;
        }
        // Depth-first search for the back edges' sources.
        let mut sources = BTreeSet::new();
        let mut state: BTreeMap<crate::ir::BlockId, u8> = BTreeMap::new();
        let mut stack = vec![(p.entry, 0usize)];
        state.insert(p.entry, 1);
        while let Some((b, i)) = stack.pop() {
            let succs: Vec<_> = match &p.blocks[b].terminator {
                Terminator::Goto(t) => t.clone(),
                _ => Vec::new(),
            };
            if i < succs.len() {
                stack.push((b, i + 1));
                let s = succs[i];
                match state.get(&s) {
                    None => {
                        state.insert(s, 1);
                        stack.push((s, 0));
                    }
                    Some(1) => {
                        sources.insert(b);
                    }
                    _ => {}
                }
            } else {
                state.insert(b, 2);
            }
        }
        let ids: Vec<_> = p.blocks.ids().collect();
        let unreachable: Vec<_> =
            ids.into_iter().filter(|b| state.contains_key(b) && p.blocks[*b].terminator == Terminator::Unreachable).collect();
        if sources.is_empty() && unreachable.is_empty() {
            continue;
        }
        // The encoder expects one returning block: reuse the body's.
        let returning: Vec<_> = p.blocks.iter().filter(|(_, b)| b.terminator == Terminator::Return).map(|(id, _)| id).collect();
        let exit = match returning.as_slice() {
            [one] => *one,
            [] => p.blocks.push(Block { commands: Vec::new(), terminator: Terminator::Return }),
            _ => {
                *unsupported = true;
                continue;
            }
        };
        for b in sources {
            if let Terminator::Goto(t) = &mut p.blocks[b].terminator {
                t.push(exit);
            }
        }
        for b in unreachable {
            p.blocks[b].terminator = Terminator::Goto(vec![exit]);
        }
    }
    !flag
}

/// Whether a procedure with a body can call itself, directly or not.
pub fn recursive(program: &Program) -> Option<String> {
    let mut calls: BTreeMap<crate::ir::ProcId, BTreeSet<crate::ir::ProcId>> = BTreeMap::new();
    for (id, p) in program.procedures.iter() {
        for (_, b) in p.blocks.iter() {
            for c in &b.commands {
                if let Command::Call { procedure, .. } = c {
                    if program.procedures[*procedure].body {
                        calls.entry(id).or_default().insert(*procedure);
                    }
                }
            }
        }
    }
    for (&start, _) in calls.iter() {
        let mut seen = BTreeSet::new();
        let mut work: Vec<_> = calls[&start].iter().copied().collect();
        while let Some(f) = work.pop() {
            if f == start {
                return Some(program.procedures[start].name.clone());
            }
            if seen.insert(f) {
                work.extend(calls.get(&f).into_iter().flatten().copied());
            }
        }
    }
    None
}

/// SV-COMP's atomic functions: a function whose name starts with
/// `__VERIFIER_atomic_` runs atomically (SV-COMP rules, "Definitions"), as
/// if inside `__VERIFIER_atomic_begin/end`. Each such body takes the pseudo
/// lock `verifier-atomic` (the one posix-models/locks.xml gives
/// `__VERIFIER_atomic_begin`) at its entry and releases it before it
/// returns. Returns how many bodies were wrapped.
pub fn atomic_functions(program: &mut Program) -> usize {
    use crate::ir::{Lock, LockKind, LockMode};
    let wanted: Vec<_> = program
        .procedures
        .iter()
        .filter(|(_, p)| p.body && p.name.starts_with("__VERIFIER_atomic_"))
        .map(|(id, _)| id)
        .collect();
    if wanted.is_empty() {
        return 0;
    }
    let existing = program.locks.iter().find(|(_, l)| l.name == "verifier-atomic" && l.kind == LockKind::Pseudo).map(|(id, _)| id);
    let lock = existing.unwrap_or_else(|| program.locks.push(Lock { name: "verifier-atomic".into(), kind: LockKind::Pseudo }));
    for id in &wanted {
        let p = &mut program.procedures[*id];
        let entry = p.entry;
        p.blocks[entry].commands.insert(0, Command::Lock { lock, mode: LockMode::Exclusive, span: None });
        let returning: Vec<_> = p.blocks.iter().filter(|(_, b)| b.terminator == Terminator::Return).map(|(b, _)| b).collect();
        for b in returning {
            p.blocks[b].commands.push(Command::Unlock { lock, mode: LockMode::Exclusive, span: None });
        }
    }
    wanted.len()
}
