//! The SMT solver: racewatch's own term language, its SMT-LIB printer, and
//! incremental z3 sessions for verification conditions and Houdini.
//!
//! # How the stages use it
//!
//! VC generation builds a procedure's verification condition as terms in
//! a [`TermBank`] (hash-consed, so the DAG of a VC, a few thousand nodes,
//! is stored and translated once). A proof asserts the negated VC and
//! checks: `Unsat` proves it, `Sat` gives a counterexample [`Model`],
//! `Unknown` proves nothing. Houdini (candidate-invariant inference) asserts
//! `b_i ⇒ candidate_i` for one fresh Boolean `b_i` per candidate and the VC
//! once, then calls [`Solver::check_assuming`] with the `b_i` of the
//! candidates still alive, again and again: z3 keeps its learnt lemmas
//! between checks, nothing is re-asserted, and each refuting model tells
//! which candidates to drop ([`Model::eval_bool`]).
//!
//! # Soundness rules
//!
//! - `Unknown` is its own answer. A timeout (a watchdog thread interrupts
//!   z3 when the per-check limit passes), an exhausted resource limit
//!   (`rlimit`), an incomplete theory and any z3 failure are `Unknown`
//!   with the reason, never `Unsat`. z3's reason strings are not reliable
//!   (an interrupted nonlinear check may say `incomplete`), so a timeout is
//!   recognised by the watchdog having fired, not by z3's words.
//! - z3 never stops the process: every z3 call runs under `catch_unwind`
//!   (the `z3` crate panics on z3 errors), and a session that lost track of
//!   z3's state answers `Unknown` until the broken scope is popped
//!   (`session.rs`). The panic hook still prints the panic's message on
//!   stderr; the pipeline's own output is unaffected.
//! - z3 errors in calls that return nothing are ignored by the `z3` crate;
//!   the one that matters, an assertion z3 dropped, is caught by comparing
//!   z3's assertion count with the session's before every check.
//! - Every check runs z3's incremental SMT core (`ignore_solver1`): the
//!   answer does not depend on whether a check is the first, and z3's
//!   tactic engine, whose internal timers share the deadlock-prone timer
//!   pool of z3 4.8.12, never runs (`z3_backend.rs`).
//! - An unsat core is a set of assumption positions; when z3 names
//!   something that cannot be mapped back, every position is returned (a
//!   superset of a core is a core).

//! # Debugging
//!
//! [`Solver::dump_to`] writes the current query as a replayable SMT-LIB
//! script, and [`SolverOptions::dump_dir`] makes every check write its
//! query (with the answer appended as a comment) to `query-N.smt2`; the
//! script replays with `z3 query-N.smt2` (docs/solver.md).
//!
//! # The z3 library
//!
//! The `z3` crate 0.22 against Debian's libz3 4.8.12 (docs/solver.md says
//! why, and lists what surprised us). Only z3 C functions present in
//! 4.8.12 may be reached: the crate also binds about 115 newer ones, which
//! fail at link time. Contexts are per thread in this crate, so a
//! [`Solver`] is not `Send`; run one per worker thread. [`isolated`] gives
//! a unit of work (a pair) a context of its own, so that its answers do
//! not depend on what the thread solved before. z3's SIGINT handler
//! is switched off (`ctrl_c`), so Ctrl-C stops racewatch as usual.

//! # Modules
//!
//! - `term`: sorts, [`TermId`], [`Term`], [`TermBank`]; `fold`: its
//!   folding constructors.
//! - `smtlib`: [`Script`], the SMT-LIB text of a query.
//! - `session`: [`Solver`], [`SolverOptions`], [`CheckResult`],
//!   [`SolverStats`].
//! - `z3_backend`: translation into z3, the z3 solver, [`Model`].

mod fold;
mod session;
mod smtlib;
mod term;
mod z3_backend;

#[cfg(test)]
mod tests;

pub use session::{CheckResult, Solver, SolverOptions, SolverStats};
pub use smtlib::Script;
pub use term::{Children, Comparison, Decl, DeclId, Sort, Term, TermBank, TermId};
pub use z3_backend::{isolated, Model, TIMEOUT_MARK};
