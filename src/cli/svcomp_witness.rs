//! `false` for `racewatch svcomp`: a race the precise phase confirms on a
//! program whose model is faithful to the pthread program, with a witness
//! that replays.
//!
//! # Algorithm
//!
//! 1. The gate ([`gate`]): besides the checks `true` needs (no call
//!    without body or model, no unresolved function pointer, no skipped
//!    construct, no inline assembly, no escaping local, no recursion), the
//!    program may call only the modelled functions whose models are exact
//!    for an execution ([`EXACT`]: every behaviour the model allows the
//!    function has, up to the havocked results the precise phase bounds),
//!    uses no trylock and no thread-local storage (the precise phase's
//!    memory holds one instance of each variable), no approximation of the
//!    lowering at all (a lock through an unresolved pointer), and the
//!    threads (and `main`)
//!    do not read their argument (the precise phase passes an arbitrary
//!    one, not pthread_create's).
//! 2. The program the precise phase runs ([`witness_program`]): `main`
//!    and every thread function stop for good at their first
//!    `pthread_join` (the `quiesce` command posix-models marks it with) and
//!    at a call that never returns (`pthread_exit`, `abort`, `exit`); in
//!    any other function such a join ends the path. So `main`'s code after
//!    a join never runs beside a thread, whichever thread it joins.
//! 3. The precise phase in program-start mode ([`crate::precise::start`]):
//!    `main` runs alone first until it creates threads, the globals start
//!    with their static initialisers, a self-pair's two threads start at
//!    two pthread_create calls, havocked integers stay within every
//!    integer type, and the replay rejects a witness reading an initial
//!    value racewatch does not know or a value the lowering leaves
//!    uninterpreted, or switching a thread out inside an atomic section
//!    (`__VERIFIER_atomic_*`, run holding the pseudo lock
//!    `verifier-atomic`, as for the lockset phase).
//! 4. A region confirmed by a replayed witness answers `false`.
//!
//! # Soundness
//!
//! A `false` claims an execution of the C program with a data race. Every
//! step above removes executions or keeps them exact: stopping a thread
//! for good is a schedule that never runs it again (`main` blocked in the
//! join, or preempted before `exit`: a program ends only when a thread
//! calls `exit` or `main` returns, and the witness's accesses come before
//! that); the model's havocked results are restricted to values the real
//! function can return; memory starts as C11 says. The residual
//! assumptions (integers of the IR are mathematical except where the
//! lowering wraps them, which the replay refuses; C division and the
//! solver's agree on non-negative operands) are in docs/svcomp.md.

use crate::frontend::entry_points::DriverEntryPoints;
use crate::frontend::lower::LoweringStats;
use crate::ir::{Command, Expr, ProcId, Program, Terminator};
use std::collections::BTreeSet;

/// The modelled functions (posix-models/functions.xml) whose models allow
/// only behaviours of the real function, once a havocked integer result is
/// 0 or 1: a witness may pass through them. Each with why.
pub const EXACT: &[(&str, &str)] = &[
    ("pthread_create", "starts the thread (entry-points.xml); the handle written and the result (0 or an error number) are any value"),
    ("pthread_join", "the precise program stops the caller at the call, so neither its result nor its write is ever used"),
    ("pthread_detach", "no effect on program memory; the result is 0 or an error number"),
    ("pthread_exit", "never returns: the thread stops"),
    ("pthread_mutex_init", "no effect on program memory (the lock starts free, as after the call)"),
    ("pthread_mutex_destroy", "no effect on program memory"),
    ("pthread_mutexattr_init", "library state only"),
    ("pthread_mutexattr_settype", "library state only; a recursive mutex taken twice blocks in the model (fewer behaviours)"),
    ("pthread_mutexattr_destroy", "library state only"),
    ("pthread_attr_init", "library state only"),
    ("pthread_attr_destroy", "library state only"),
    ("pthread_attr_setdetachstate", "library state only"),
    ("pthread_rwlock_init", "no effect on program memory"),
    ("pthread_rwlock_destroy", "no effect on program memory"),
    ("pthread_spin_init", "no effect on program memory"),
    ("pthread_spin_destroy", "no effect on program memory"),
    ("pthread_cond_init", "library state only"),
    ("pthread_cond_destroy", "library state only"),
    ("pthread_cond_signal", "wakes a waiter; the model's waits return at once (a spurious wake-up, POSIX.1-2017 pthread_cond_wait)"),
    ("pthread_cond_broadcast", "as pthread_cond_signal"),
    ("pthread_cond_wait", "keeps the mutex held and returns at once: a spurious wake-up, without the release (fewer behaviours)"),
    ("pthread_cond_timedwait", "as pthread_cond_wait; a timeout returns at once too"),
    ("__VERIFIER_nondet_int", "any value of its type (SV-COMP rules); 0 or 1 in the precise phase, any value of the type in its last search"),
    ("__VERIFIER_nondet_uint", "as __VERIFIER_nondet_int"),
    ("__VERIFIER_nondet_long", "as __VERIFIER_nondet_int"),
    ("__VERIFIER_nondet_ulong", "as __VERIFIER_nondet_int"),
    ("__VERIFIER_nondet_short", "as __VERIFIER_nondet_int"),
    ("__VERIFIER_nondet_ushort", "as __VERIFIER_nondet_int"),
    ("__VERIFIER_nondet_char", "as __VERIFIER_nondet_int"),
    ("__VERIFIER_nondet_uchar", "as __VERIFIER_nondet_int"),
    ("__VERIFIER_nondet_bool", "as __VERIFIER_nondet_int"),
    ("__VERIFIER_nondet_size_t", "as __VERIFIER_nondet_int"),
    ("__VERIFIER_nondet_longlong", "as __VERIFIER_nondet_int"),
    ("__VERIFIER_nondet_ulonglong", "as __VERIFIER_nondet_int"),
    ("abort", "never returns: the thread stops before it"),
    ("exit", "never returns: the thread stops before it"),
    ("_exit", "never returns: the thread stops before it"),
    ("__assert_fail", "never returns: the thread stops before it"),
    ("reach_error", "never returns: the thread stops before it"),
    ("malloc", "NULL or a new object; reading its memory before a write is refused by the replay"),
    ("calloc", "as malloc (its zeroed memory is never read unwritten in an accepted witness)"),
    ("free", "no effect the precise phase models"),
    ("printf", "no effect on program memory; the result is any value"),
    ("puts", "no effect on program memory; the result is any value"),
    ("usleep", "only time passes"),
    ("sleep", "only time passes"),
    ("sched_yield", "only scheduling"),
    ("rand", "a value in 0..RAND_MAX; 0 or 1 in the precise phase"),
    ("__sync_synchronize", "a fence: the precise phase's memory is sequentially consistent"),
    ("__atomic_thread_fence", "a fence, as __sync_synchronize"),
];

/// Why a confirmed race of this program may not be an execution of it,
/// if it may not be.
pub fn gate(stats: &LoweringStats, program: &Program, eps: &DriverEntryPoints, source: &str) -> Option<String> {
    let inexact: Vec<&str> =
        stats.modelled_functions.iter().map(String::as_str).filter(|f| !EXACT.iter().any(|(name, _)| name == f)).take(3).collect();
    if !inexact.is_empty() {
        return Some(format!("calls functions whose model is not exact for a witness: {}", inexact.join(", ")));
    }
    // Any approximation of the lowering (a lock through a pointer it does
    // not resolve, a construct it simplifies) may allow what the program
    // cannot do.
    if let Some((kind, n)) = stats.approximations.iter().find(|(_, n)| **n > 0) {
        return Some(format!("{n} {kind} approximation(s)"));
    }
    // A global of unknown size has no fixed address, so the model may
    // place it over another object.
    if let Some((_, f)) = program.functions.iter().find(|(id, f)| f.params.is_empty() && f.name.starts_with("addr_") && !program.global_sizes.contains_key(id)) {
        return Some(format!("a global of unknown size ({})", f.name));
    }
    let mut trylock = false;
    for (_, p) in program.procedures.iter() {
        for (_, b) in p.blocks.iter() {
            for c in &b.commands {
                match c {
                    Command::TryLock { .. } => trylock = true,
                    Command::LockUnknown { .. } | Command::Approximation { .. } | Command::InterruptControl { .. } => {
                        return Some("a lock or construct the lowering does not resolve".into());
                    }
                    _ => {}
                }
            }
        }
    }
    if trylock {
        return Some("a trylock (the precise phase may fail it on a free lock)".into());
    }
    if has_word(source, "__thread") || has_word(source, "_Thread_local") {
        return Some("thread-local storage (one instance in the precise phase's memory)".into());
    }
    for ep in &eps.entry_points {
        let Some(p) = program.procedures.iter().find(|(_, p)| p.name == ep.function).map(|(id, _)| id) else { continue };
        if reads_parameters(program, p) {
            return Some(format!("{} reads its argument, which the precise phase leaves arbitrary", ep.function));
        }
    }
    None
}

/// Whether `word` occurs in `text` as a whole C identifier.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_some_and(ident);
        let after = text[i + word.len()..].chars().next().is_some_and(ident);
        !before && !after
    })
}

/// Whether a procedure reads a parameter other than to copy it (the
/// lowering copies each parameter into a local first), following copies.
fn reads_parameters(program: &Program, p: ProcId) -> bool {
    let proc = &program.procedures[p];
    let mut params: BTreeSet<crate::ir::VarId> = proc.params.iter().copied().collect();
    loop {
        let before = params.len();
        for (_, b) in proc.blocks.iter() {
            for c in &b.commands {
                if let Command::Assign { target, value: Expr::Var(v), .. } = c {
                    if params.contains(v) {
                        params.insert(*target);
                    }
                }
            }
        }
        if params.len() == before {
            break;
        }
    }
    proc.blocks.iter().any(|(_, b)| {
        b.commands.iter().any(|c| {
            let copy = matches!(c, Command::Assign { value: Expr::Var(v), .. } if params.contains(v));
            !copy && c.expressions().iter().any(|e| e.variables().iter().any(|v| params.contains(v)))
        })
    })
}

/// Whether a `quiesce` command is a wait for threads racewatch does not
/// resolve (posix-models: `pthread_join`).
fn is_unresolved_wait(c: &Command) -> bool {
    matches!(c, Command::Quiesce { targets, .. } if targets.is_empty())
}

/// Keeps a wait's resolved thread (posix-models: `pthread_join(t, r)`
/// names the function the registrations writing `&t` start,
/// src/frontend/lower/quiesce.rs) only where the join surely ends every
/// run of that function: the wait is in `main`'s own body (`main` runs
/// once and nothing calls it), and the function is started once
/// ([`super::svcomp::started_once`]: one `pthread_create` site, run at
/// most once) by `main` itself. Then the handle `t`, which only that
/// registration writes, names the function's only thread once it has
/// started, so the join returns only after that thread ended; before the
/// registration ran, the thread does not run yet and the registration's
/// `live` command, later on the same path, makes it live again. Any other
/// wait names no thread (it only marks the wait). The lockset phase then
/// takes `main`'s accesses after the join as not concurrent with the
/// thread ([`crate::instrument::lockset`]: `LIVE := LIVE && PARTNER ∉
/// Q`). A join in another thread is not used: it may run before `main`
/// created the thread, when the handle names none. The caller passes no
/// started-once function when the program detaches threads
/// (`pthread_detach`, `pthread_attr_setdetachstate`): joining a detached
/// thread fails at once instead of waiting.
pub fn joins_ending_threads(program: &mut Program, eps: &DriverEntryPoints, once: &BTreeSet<String>) {
    let main = eps.init_entry_point().map(|e| e.function.clone());
    let by_main = |f: &String| {
        let sites: Vec<_> = eps.registration_sites.iter().filter(|s| &s.function == f).collect();
        once.contains(f) && matches!(sites.as_slice(), [s] if s.registrar.is_some() && s.registrar == main)
    };
    for (_, p) in program.procedures.iter_mut() {
        let in_main = main.as_ref().is_some_and(|m| &p.name == m && !eps.called_directly.contains(m));
        for (_, b) in p.blocks.iter_mut() {
            for c in &mut b.commands {
                if let Command::Quiesce { targets, effective, .. } = c {
                    targets.retain(|f| in_main && by_main(f));
                    effective.retain(|f| targets.contains(f));
                }
            }
        }
    }
}

/// The program without the unresolved waits: for the lockset phase, which
/// they do not concern (they name no entry point).
pub fn without_waits(program: &mut Program) {
    for (_, p) in program.procedures.iter_mut() {
        for (_, b) in p.blocks.iter_mut() {
            b.commands.retain(|c| !is_unresolved_wait(c));
        }
    }
}

/// The program the precise phase runs for a witness: an entry point's
/// own body (not called by name) stops at its first wait (`pthread_join`,
/// resolved or not) and where it never returns; any other body ends the
/// path at such a wait.
pub fn witness_program(program: &Program, eps: &DriverEntryPoints) -> Program {
    let mut out = program.clone();
    super::svcomp_exits::atomic_functions(&mut out);
    let entries: BTreeSet<ProcId> = out
        .procedures
        .iter()
        .filter(|(_, p)| eps.entry_points.iter().any(|e| e.function == p.name) && !eps.called_directly.contains(&p.name))
        .map(|(id, _)| id)
        .collect();
    for (id, p) in out.procedures.iter_mut() {
        let stop = if entries.contains(&id) { Terminator::Return } else { Terminator::Unreachable };
        for (_, b) in p.blocks.iter_mut() {
            if let Some(i) = b.commands.iter().position(|c| matches!(c, Command::Quiesce { .. })) {
                b.commands.truncate(i);
                b.terminator = stop.clone();
            }
            if entries.contains(&id) && b.terminator == Terminator::Unreachable {
                b.terminator = Terminator::Return;
            }
        }
    }
    out
}
