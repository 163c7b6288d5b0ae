//! Checks the kernel's held-lock annotations (`held L "macro"`, lowered
//! from `lockdep_assert_held`, `ASSERT_RTNL` and `__must_hold` by
//! src/frontend/lower/annotations.rs) and decides which may be assumed.
//!
//! # Algorithm
//!
//! One run of the must-held analysis ([`super::must_held`]) per entry
//! point, with the kernel pseudo locks it runs holding, gives the locks
//! certainly held at every annotation and at every call of a procedure
//! that contains one. For each annotation of procedure P and each entry
//! point that reaches it:
//!
//! - the lock is certainly held there: fine;
//! - else, when the entry point takes the lock nowhere (no `lock` or
//!   `trylock` of it in anything it reaches, and the kernel does not call
//!   it holding it), each call of P it reaches without the lock is a
//!   **violation**, reported at that call;
//! - else, when it takes the lock on some paths (a lock taken under a
//!   condition the analysis does not correlate with the annotation's path,
//!   as loop.c's `loop_global_lock_killable(lo, is_loop)`), the annotation
//!   is **unchecked**: a note, not assumed;
//! - else, when P is the entry point's own procedure, only the kernel's
//!   call can establish the lock: a **standing assumption**, reported and
//!   counted (lockdep checks it on every call in debug kernels);
//! - else (P releases or only sometimes takes the lock before the
//!   annotation), a violation reported at the annotation.
//!
//! An annotation without violations becomes trusted (`held.trusted`), and
//! the lockset and precise phases assume it; one with a violation stays
//! unchecked and is not assumed.
//!
//! # Soundness
//!
//! A trusted annotation adds nothing the program does not already
//! guarantee, except the standing assumption on the kernel's call of an
//! entry point (docs/soundness.md, counted in `check`'s output). The
//! must-held analysis under-approximates held locks, so an imprecision can
//! only cost a reported violation and a missing assumption, never a
//! trusted annotation that does not hold.

use super::must_held::{AccessFacts, CommandAt, EntryRoot, must_held_at};
use crate::diagnostics::{Diagnostic, Level, Span};
use crate::ir::{Command, LockId, LockMode, ProcId, Program};
use crate::models::Role;
use std::collections::{BTreeMap, BTreeSet};

/// What the check found about one annotation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AnnotationFinding {
    /// Violated (not assumed) or a standing assumption.
    pub kind: FindingKind,
    /// The macro (`lockdep_assert_held`).
    pub annotation: String,
    /// The lock, as users read it.
    pub lock: String,
    /// The function holding the annotation.
    pub function: String,
    /// The entry point whose path shows it.
    pub entry_point: String,
    /// The annotation.
    pub at: Option<Span>,
    /// The call that reaches it without the lock, for a violation found at
    /// a call.
    pub call: Option<Span>,
}

/// The two outcomes worth reporting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// A path reaches the annotation without the lock.
    Violated,
    /// Only the kernel's call of an entry point can establish it: assumed.
    Assumed,
    /// The entry point takes the lock on some paths only, which the
    /// must-held analysis cannot tie to the annotation: not assumed.
    Unchecked,
}

impl AnnotationFinding {
    /// The finding as a diagnostic, at the call (or the annotation).
    pub fn diagnostic(&self) -> Diagnostic {
        let place = self.at.as_ref().map(|s| format!(" at {s}")).unwrap_or_default();
        match self.kind {
            FindingKind::Violated => Diagnostic {
                level: Level::Warning,
                check: "lock-annotation",
                message: match &self.call {
                    Some(_) => format!(
                        "`{}` is called without {}, which it says is held ({}{place})",
                        self.function, self.lock, self.annotation
                    ),
                    None => format!("{} may not be held here, though {} says so", self.lock, self.annotation),
                },
                span: self.call.clone().or_else(|| self.at.clone()),
                notes: vec![(format!("reached from entry point `{}`; the annotation is not assumed", self.entry_point), None)],
            },
            FindingKind::Unchecked => Diagnostic {
                level: Level::Note,
                check: "lock-annotation",
                message: format!(
                    "not checked: `{}` takes {} on some paths only, so racewatch cannot show it is held where {} says so{place}",
                    self.entry_point, self.lock, self.annotation
                ),
                span: self.call.clone().or_else(|| self.at.clone()),
                notes: vec![("the annotation is not assumed".into(), None)],
            },
            FindingKind::Assumed => Diagnostic {
                level: Level::Note,
                check: "lock-annotation",
                message: format!(
                    "assumed: the kernel calls `{}` holding {}, as {} says{place}",
                    self.entry_point, self.lock, self.annotation
                ),
                span: self.at.clone(),
                notes: vec![("lockdep (CONFIG_PROVE_LOCKING) checks this on every call; racewatch cannot see the caller".into(), None)],
            },
        }
    }
}

/// Checks every held-lock annotation of `program`, marks the ones that may
/// be assumed trusted, and returns the violations and assumptions. `held`
/// gives, per entry point in the program's order, the names of the kernel
/// pseudo locks it runs holding.
pub fn check(program: &mut Program, held: &[Vec<String>]) -> Vec<AnnotationFinding> {
    let mut annotations: Vec<(CommandAt, LockId, Option<LockMode>)> = Vec::new();
    for (procedure, p) in program.procedures.iter() {
        for (block, b) in p.blocks.iter() {
            for (index, c) in b.commands.iter().enumerate() {
                if let Command::HeldAnnotation { lock, mode, .. } = c {
                    annotations.push((CommandAt { procedure, block, index }, *lock, *mode));
                }
            }
        }
    }
    if annotations.is_empty() {
        return Vec::new();
    }
    let annotated: BTreeSet<ProcId> = annotations.iter().map(|(at, _, _)| at.procedure).collect();
    let mut calls: BTreeMap<ProcId, Vec<CommandAt>> = BTreeMap::new();
    for (procedure, p) in program.procedures.iter() {
        for (block, b) in p.blocks.iter() {
            for (index, c) in b.commands.iter().enumerate() {
                if let Command::Call { procedure: q, .. } = c {
                    if annotated.contains(q) {
                        calls.entry(*q).or_default().push(CommandAt { procedure, block, index });
                    }
                }
            }
        }
    }
    let roots: Vec<EntryRoot> = program
        .entry_points
        .values()
        .enumerate()
        .map(|(i, e)| EntryRoot {
            procedure: e.procedure,
            held: program.locks.iter().filter(|(_, l)| held.get(i).is_some_and(|h| h.contains(&l.name))).map(|(id, _)| id).collect(),
            init: e.kind.role() == Role::Init,
        })
        .collect();
    let wanted: BTreeSet<CommandAt> = annotations.iter().map(|(at, _, _)| *at).chain(calls.values().flatten().copied()).collect();
    let facts = must_held_at(program, &roots, &wanted);
    // A held lock satisfies the annotation when it is the same lock, or
    // the same lock object written another way (a global structure's lock
    // and a pointer to that structure's type: `Program::lock_keys`).
    let no_keys = BTreeSet::new();
    let keys = |l: LockId| program.lock_keys.get(&l).unwrap_or(&no_keys);
    let holds = |f: &AccessFacts, lock: LockId, mode: Option<LockMode>| {
        f.locks.iter().any(|(held, held_mode)| {
            let same = *held == lock || !keys(*held).is_disjoint(keys(lock));
            same && (mode != Some(LockMode::Exclusive) || *held_mode == LockMode::Exclusive)
        })
    };
    let span_at = |at: CommandAt| program.procedures[at.procedure].blocks[at.block].commands[at.index].span().cloned();
    let names: Vec<String> = program.entry_points.values().map(|e| e.name.clone()).collect();
    // The locks each entry point may take anywhere, or runs holding.
    let takes: Vec<BTreeSet<LockId>> = roots
        .iter()
        .map(|root| {
            let mut set: BTreeSet<LockId> = root.held.iter().copied().collect();
            for p in program.reachable(root.procedure) {
                for (_, b) in program.procedures[p].blocks.iter() {
                    for c in &b.commands {
                        if let Command::Lock { lock, .. } | Command::TryLock { lock, .. } = c {
                            set.insert(*lock);
                        }
                    }
                }
            }
            set
        })
        .collect();
    let may_take = |r: usize, lock: LockId| takes[r].iter().any(|l| *l == lock || !keys(*l).is_disjoint(keys(lock)));
    let mut findings = Vec::new();
    let mut trusted = Vec::new();
    for (at, lock, mode) in &annotations {
        let Command::HeldAnnotation { annotation, .. } = &program.procedures[at.procedure].blocks[at.block].commands[at.index] else {
            continue;
        };
        let finding = |kind, entry_point: &str, call| AnnotationFinding {
            kind,
            annotation: annotation.clone(),
            lock: program.locks[*lock].name.clone(),
            function: program.procedures[at.procedure].name.clone(),
            entry_point: entry_point.to_string(),
            at: span_at(*at),
            call,
        };
        let mut violated = false;
        let mut found: Vec<AnnotationFinding> = Vec::new();
        for (r, root) in roots.iter().enumerate() {
            let Some(f) = facts[r].get(at) else { continue };
            if holds(f, *lock, *mode) {
                continue;
            }
            let culprits: Vec<CommandAt> = calls
                .get(&at.procedure)
                .into_iter()
                .flatten()
                .filter(|c| facts[r].get(c).is_some_and(|cf| !holds(cf, *lock, *mode)))
                .copied()
                .collect();
            if root.procedure != at.procedure && may_take(r, *lock) {
                // Taken on some paths: not provable either way.
                violated = true;
                found.push(finding(FindingKind::Unchecked, &names[r], culprits.first().and_then(|c| span_at(*c))));
            } else if !culprits.is_empty() {
                violated = true;
                found.extend(culprits.into_iter().map(|c| finding(FindingKind::Violated, &names[r], span_at(c))));
            } else if root.procedure == at.procedure {
                found.push(finding(FindingKind::Assumed, &names[r], None));
            } else {
                violated = true;
                found.push(finding(FindingKind::Violated, &names[r], None));
            }
        }
        // One report per place and kind.
        let mut seen = BTreeSet::new();
        found.retain(|f| seen.insert((f.kind == FindingKind::Violated, f.call.as_ref().map(|s| (s.line, s.column)), f.entry_point.clone())));
        if violated {
            found.retain(|f| f.kind != FindingKind::Assumed);
        } else {
            trusted.push(*at);
        }
        findings.extend(found);
    }
    for at in trusted {
        if let Command::HeldAnnotation { trusted, .. } = &mut program.procedures[at.procedure].blocks[at.block].commands[at.index] {
            *trusted = true;
        }
    }
    // A violation found from several entry points is one report per call.
    let mut seen = BTreeSet::new();
    findings.retain(|f| {
        f.kind == FindingKind::Assumed || seen.insert((f.kind, f.call.as_ref().map(|s| (s.line, s.column)), f.at.as_ref().map(|s| (s.line, s.column))))
    });
    findings
}
