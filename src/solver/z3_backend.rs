//! The z3 back end: translating bank terms into z3 ASTs, the z3 solver
//! object, and models.
//!
//! Everything here runs on the calling thread's z3 context (the `z3` crate
//! keeps one per thread), so nothing here is `Send`. Translation is cached
//! per [`TermId`]: a term is translated once, whatever the number of checks,
//! and since the bank hash-conses, shared subterms are translated once too.
//! The walk keeps its own stack, so deep terms cannot overflow the thread's
//! stack. A declaration becomes a z3 function declaration of the same name
//! and signature (z3 tells declarations apart by signature, as the bank
//! does).
//!
//! The `z3` crate turns a failing z3 call into a panic (it unwraps the null
//! the C API returns); [`Solver`](super::Solver) catches those. Callers of
//! this file must therefore not leave shared state half-updated across a
//! z3 call: the translation cache only ever gains complete entries.

use super::term::{Comparison, DeclId, Sort, Term, TermBank, TermId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;
use z3::ast::{Ast, Bool, Int};

/// A translated term.
#[derive(Clone)]
enum Translated {
    Bool(Bool),
    Int(Int),
}

/// The translation cache of one bank.
pub(super) struct Translator {
    bank: u64,
    terms: Vec<Option<Translated>>,
    decls: HashMap<DeclId, z3::FuncDecl>,
}

impl Translator {
    pub(super) fn new(bank: &TermBank) -> Translator {
        Translator { bank: bank.identity(), terms: Vec::new(), decls: HashMap::new() }
    }

    /// The z3 Boolean of `t`, a Boolean term of `bank`.
    pub(super) fn bool(&mut self, bank: &TermBank, t: TermId) -> Bool {
        match self.translate(bank, t) {
            Translated::Bool(b) => b,
            Translated::Int(_) => panic!("{t:?} is an integer where a Boolean is needed"),
        }
    }

    /// The z3 integer of `t`, an integer term of `bank`.
    fn int(&mut self, bank: &TermBank, t: TermId) -> Int {
        match self.translate(bank, t) {
            Translated::Int(i) => i,
            Translated::Bool(_) => panic!("{t:?} is a Boolean where an integer is needed"),
        }
    }

    fn cached(&self, t: TermId) -> Option<&Translated> {
        self.terms.get(t.index()).and_then(Option::as_ref)
    }

    /// Translates `root` and every subterm not yet translated, children
    /// before parents.
    fn translate(&mut self, bank: &TermBank, root: TermId) -> Translated {
        assert!(bank.identity() == self.bank, "a term of another bank was given to this solver");
        let mut stack = vec![root];
        while let Some(&t) = stack.last() {
            if self.cached(t).is_some() {
                stack.pop();
                continue;
            }
            let missing: Vec<TermId> = bank.term(t).children().filter(|&c| self.cached(c).is_none()).collect();
            if missing.is_empty() {
                let translated = self.node(bank, t);
                if self.terms.len() <= t.index() {
                    self.terms.resize(t.index() + 1, None);
                }
                self.terms[t.index()] = Some(translated);
                stack.pop();
            } else {
                stack.extend(missing);
            }
        }
        self.cached(root).cloned().expect("the root was just translated")
    }

    /// Translates one node whose children are translated.
    fn node(&mut self, bank: &TermBank, t: TermId) -> Translated {
        let bools = |me: &Self, ts: &[TermId]| -> Vec<Bool> {
            ts.iter()
                .map(|&c| match me.cached(c) {
                    Some(Translated::Bool(b)) => b.clone(),
                    Some(Translated::Int(_)) | None => panic!("operand {c:?} of {t:?} is not a translated Boolean"),
                })
                .collect()
        };
        let ints = |me: &Self, ts: &[TermId]| -> Vec<Int> {
            ts.iter()
                .map(|&c| match me.cached(c) {
                    Some(Translated::Int(i)) => i.clone(),
                    Some(Translated::Bool(_)) | None => panic!("operand {c:?} of {t:?} is not a translated integer"),
                })
                .collect()
        };
        let one = |me: &Self, c: TermId| me.cached(c).cloned().expect("operands are translated first");
        match bank.term(t) {
            Term::Bool(b) => Translated::Bool(Bool::from_bool(*b)),
            Term::Int(i) => Translated::Int(match i64::try_from(*i) {
                Ok(small) => Int::from_i64(small),
                Err(_) => Int::from_i128(*i),
            }),
            Term::App(d, args) => {
                let args: Vec<Translated> = args.iter().map(|&a| one(self, a)).collect();
                let f = self.decl(bank, *d);
                let dyn_args: Vec<&dyn Ast> = args
                    .iter()
                    .map(|a| match a {
                        Translated::Bool(b) => b as &dyn Ast,
                        Translated::Int(i) => i as &dyn Ast,
                    })
                    .collect();
                let applied = f.apply(&dyn_args);
                match bank.sort(t) {
                    Sort::Bool => Translated::Bool(applied.as_bool().expect("a Boolean declaration")),
                    Sort::Int => Translated::Int(applied.as_int().expect("an integer declaration")),
                }
            }
            Term::Not(a) => Translated::Bool(bools(self, &[*a])[0].not()),
            Term::And(args) => Translated::Bool(Bool::and(&bools(self, args))),
            Term::Or(args) => Translated::Bool(Bool::or(&bools(self, args))),
            Term::Implies(a, b) => {
                let ab = bools(self, &[*a, *b]);
                Translated::Bool(ab[0].implies(&ab[1]))
            }
            Term::Ite(c, a, b) => {
                let c = bools(self, &[*c]).remove(0);
                Translated::from_ite(&c, one(self, *a), one(self, *b))
            }
            Term::Eq(a, b) => Translated::Bool(match (one(self, *a), one(self, *b)) {
                (Translated::Bool(x), Translated::Bool(y)) => x.eq(&y),
                (Translated::Int(x), Translated::Int(y)) => x.eq(&y),
                (Translated::Bool(_), Translated::Int(_)) | (Translated::Int(_), Translated::Bool(_)) => {
                    panic!("{t:?} compares a Boolean with an integer")
                }
            }),
            Term::Distinct(args) => Translated::Bool(match bank.sort(args[0]) {
                Sort::Bool => Bool::distinct(&bools(self, args)),
                Sort::Int => Int::distinct(&ints(self, args)),
            }),
            Term::Compare(op, a, b) => {
                let ab = ints(self, &[*a, *b]);
                Translated::Bool(match op {
                    Comparison::Lt => ab[0].lt(&ab[1]),
                    Comparison::Le => ab[0].le(&ab[1]),
                    Comparison::Gt => ab[0].gt(&ab[1]),
                    Comparison::Ge => ab[0].ge(&ab[1]),
                })
            }
            Term::Add(args) => Translated::Int(Int::add(&ints(self, args))),
            Term::Sub(a, b) => Translated::Int(Int::sub(&ints(self, &[*a, *b]))),
            Term::Mul(args) => Translated::Int(Int::mul(&ints(self, args))),
            Term::Neg(a) => Translated::Int(ints(self, &[*a])[0].unary_minus()),
            Term::Div(a, b) => {
                let ab = ints(self, &[*a, *b]);
                Translated::Int(ab[0].div(&ab[1]))
            }
            Term::Mod(a, b) => {
                let ab = ints(self, &[*a, *b]);
                Translated::Int(ab[0].modulo(&ab[1]))
            }
        }
    }

    /// The z3 declaration of `d`, created on first use.
    fn decl(&mut self, bank: &TermBank, d: DeclId) -> &z3::FuncDecl {
        self.decls.entry(d).or_insert_with(|| {
            let decl = bank.decl(d);
            let sort = |s: Sort| match s {
                Sort::Bool => z3::Sort::bool(),
                Sort::Int => z3::Sort::int(),
            };
            let args: Vec<z3::Sort> = decl.args.iter().map(|&s| sort(s)).collect();
            let arg_refs: Vec<&z3::Sort> = args.iter().collect();
            z3::FuncDecl::new(decl.name.as_str(), &arg_refs, &sort(decl.result))
        })
    }
}

impl Translated {
    fn from_ite(c: &Bool, a: Translated, b: Translated) -> Translated {
        match (a, b) {
            (Translated::Bool(x), Translated::Bool(y)) => Translated::Bool(c.ite(&x, &y)),
            (Translated::Int(x), Translated::Int(y)) => Translated::Int(c.ite(&x, &y)),
            (Translated::Bool(_), Translated::Int(_)) | (Translated::Int(_), Translated::Bool(_)) => {
                panic!("an ite whose branches differ in sort")
            }
        }
    }
}

/// What one z3 check answered, before the session maps it to a
/// [`CheckResult`](super::CheckResult).
pub(super) enum Answer {
    /// Unsatisfiable; the positions of the assumptions in z3's core.
    Unsat(Vec<usize>),
    /// Satisfiable, with z3's model.
    Sat(Model),
    /// z3's reason for not knowing.
    Unknown(String),
}

/// The Boolean solver parameters racewatch sets.
///
/// - `ignore_solver1`: z3's default solver is a combination of a
///   non-incremental tactic solver (used for a first check without
///   assumptions, and as a fallback when the incremental one answers
///   unknown) and the incremental SMT core. The tactic solver's strategies
///   run sub-tactics under internal timers (`try_for`), which in z3 4.8.12
///   share the deadlock-prone timer pool described at [`Backend::check`];
///   and switching engines between checks makes Houdini's answers depend on
///   the order of checks. With this set, every check runs the incremental
///   core, and "incomplete" stays `Unknown`.
/// - `ctrl_c` false: by default z3 installs its own SIGINT handler during
///   every check and turns Ctrl-C into a quiet "canceled" answer; the
///   handler is process-global, so concurrent checks on several threads
///   would race to install and restore it. racewatch leaves SIGINT alone.
///
/// z3 checks parameter names only when the solver is first used, and an
/// unknown name then silently drops that first assertion (the `z3` crate
/// ignores errors of calls that return nothing); [`Backend::check`]
/// therefore compares z3's assertion count with the session's.
const SOLVER_PARAMS: [(&str, bool); 2] = [("ignore_solver1", true), ("ctrl_c", false)];

/// The process-wide z3 parameters racewatch sets, once, before its first
/// solver.
///
/// - `model.compact` false: z3 4.8.12 compacts every model it builds
///   (merging the entries of function interpretations), which nothing here
///   needs: racewatch only evaluates terms in models. On
///   ipmi_msghandler.c, a third of the stacks sampled were in
///   `Z3_solver_get_model`; without compaction its `check --no-cache -j 1`
///   took 158 CPU seconds instead of 194, and seven smaller real drivers
///   together 40.2 s instead of 46.9 s (median of three runs).
const GLOBAL_PARAMS_SET: [(&str, &str); 1] = [("model.compact", "false")];

static GLOBAL_PARAMS: std::sync::Once = std::sync::Once::new();

/// How the reason of every `Unknown` the watchdog caused begins.
pub const TIMEOUT_MARK: &str = "timeout after ";

/// How often the watchdog of a timed-out check repeats its interrupt.
const REPEAT_INTERRUPT: Duration = Duration::from_millis(10);

/// Runs `f` with a z3 context of its own, dropped when `f` returns.
///
/// z3's answers to a satisfiable check (which model) and its running
/// times depend on everything its context saw before: the order terms
/// were created in, the lemmas and the random state of earlier checks. The
/// default context is per thread and outlives every unit of work, so a
/// pair's witness depended on which pairs rayon had run on the same thread
/// before it. Inside `f`, every solver and term is in the new context,
/// so what `f` computes depends on `f` alone. Nothing made by z3 may leave
/// `f` (the `Send + Sync` bounds keep z3's objects in).
pub fn isolated<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    set_global_params();
    z3::with_z3_config(&z3::Config::new(), f)
}

/// Sets [`GLOBAL_PARAMS_SET`], the first time only: before any context
/// exists, since z3 reads some global parameters when a context is made.
fn set_global_params() {
    GLOBAL_PARAMS.call_once(|| {
        for &(name, value) in &GLOBAL_PARAMS_SET {
            z3::set_global_param(name, value);
        }
    });
}

/// A z3 solver with its translation cache and its per-check time limit.
pub(super) struct Backend {
    solver: z3::Solver,
    translator: Rc<RefCell<Translator>>,
    timeout: Option<Duration>,
}

impl Backend {
    /// A solver on this thread's context, configured for incremental use
    /// (see [`SOLVER_PARAMS`]). The time limit is kept here and enforced by
    /// [`Backend::check`], not given to z3 (see there); the resource limit
    /// is z3's `rlimit` parameter.
    pub(super) fn new(bank: &TermBank, timeout: Option<Duration>, resource_limit: Option<u32>) -> Backend {
        Backend::configured(bank, timeout, &SOLVER_PARAMS, resource_limit)
    }

    fn configured(
        bank: &TermBank,
        timeout: Option<Duration>,
        flags: &[(&str, bool)],
        resource_limit: Option<u32>,
    ) -> Backend {
        set_global_params();
        let solver = z3::Solver::new();
        let mut params = z3::Params::new();
        for &(name, value) in flags {
            params.set_bool(name, value);
        }
        if let Some(limit) = resource_limit {
            params.set_u32("rlimit", limit);
        }
        solver.set_params(&params);
        Backend { solver, translator: Rc::new(RefCell::new(Translator::new(bank))), timeout }
    }

    /// Changes the time limit of the checks to come.
    pub(super) fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }

    pub(super) fn assert(&self, bank: &TermBank, t: TermId) {
        let b = self.translator.borrow_mut().bool(bank, t);
        self.solver.assert(&b);
    }

    pub(super) fn push(&self) {
        self.solver.push();
    }

    pub(super) fn pop(&self) {
        self.solver.pop(1);
    }

    /// Checks the assertions under `assumptions`.
    ///
    /// The time limit is a watchdog thread that interrupts z3's context
    /// (`Z3_interrupt`) when the limit passes before the check returns.
    /// z3's own `timeout` parameter is not used: its timers run on a pool
    /// of threads that, since z3 4.8.10, can hand a fired timer back to the
    /// pool with its mutex still locked, and the next timer to take that
    /// thread waits for the mutex forever (Z3Prover/z3#5371, #5990). With
    /// Debian's 4.8.12, three 20 ms timeouts in a row hung every time, the
    /// checking thread blocked on a timer's mutex inside `Z3_solver_check`. An
    /// interrupt only cancels the check running at that moment (z3 undoes
    /// the cancellation when the check returns), and one that arrives
    /// before z3 has entered the cancellable part of the check is lost, so
    /// the watchdog repeats it every [`REPEAT_INTERRUPT`] until the check
    /// returns. It is joined before this function returns, so it never
    /// reaches the next check.
    ///
    /// `asserted` is the number of assertions the session made; should z3
    /// hold another number, it lost one without saying so and the answer
    /// is `Unknown`.
    pub(super) fn check(&self, bank: &TermBank, assumptions: &[TermId], asserted: usize) -> Answer {
        let held = self.solver.get_assertions().len();
        if held != asserted {
            return Answer::Unknown(format!("z3 holds {held} assertions where {asserted} were made"));
        }
        let literals: Vec<Bool> = {
            let mut translator = self.translator.borrow_mut();
            assumptions.iter().map(|&a| translator.bool(bank, a)).collect()
        };
        let context = self.solver.get_context();
        let handle = context.handle();
        let fired = AtomicBool::new(false);
        let verdict = std::thread::scope(|scope| {
            let (done, wait) = mpsc::channel::<()>();
            if let Some(limit) = self.timeout {
                let (handle, fired) = (&handle, &fired);
                scope.spawn(move || {
                    let mut pause = limit;
                    while let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(pause) {
                        fired.store(true, Ordering::SeqCst);
                        handle.interrupt();
                        pause = REPEAT_INTERRUPT;
                    }
                });
            }
            let verdict =
                if literals.is_empty() { self.solver.check() } else { self.solver.check_assumptions(&literals) };
            drop(done);
            verdict
        });
        match verdict {
            z3::SatResult::Unsat => Answer::Unsat(self.core(&literals)),
            z3::SatResult::Sat => match self.solver.get_model() {
                Some(model) => Answer::Sat(Model { model, translator: Rc::clone(&self.translator) }),
                None => Answer::Unknown("z3 answered sat but gave no model".to_string()),
            },
            z3::SatResult::Unknown => {
                let reason = match self.solver.get_reason_unknown() {
                    Some(reason) if !reason.is_empty() => reason,
                    Some(_) | None => "unknown".to_string(),
                };
                match self.timeout {
                    Some(limit) if fired.load(Ordering::SeqCst) => {
                        Answer::Unknown(format!("{TIMEOUT_MARK}{} ms (z3: {reason})", limit.as_millis()))
                    }
                    Some(_) | None => Answer::Unknown(reason),
                }
            }
        }
    }

    /// The positions in `literals` of z3's unsat core, ascending. An
    /// assumption given twice is named at each position. Should z3 name a
    /// literal that is not an assumption, every position is returned: a
    /// superset of a core is still a core, a subset might not be.
    fn core(&self, literals: &[Bool]) -> Vec<usize> {
        let mut positions: HashMap<&Bool, Vec<usize>> = HashMap::new();
        for (n, literal) in literals.iter().enumerate() {
            positions.entry(literal).or_default().push(n);
        }
        let mut core = Vec::new();
        for literal in self.solver.get_unsat_core() {
            match positions.get(&literal) {
                Some(found) => core.extend_from_slice(found),
                None => return (0..literals.len()).collect(),
            }
        }
        core.sort_unstable();
        core.dedup();
        core
    }
}

/// A satisfying assignment from a `Sat` check, with model completion: a
/// variable or function the model leaves open evaluates to a default value.
pub struct Model {
    model: z3::Model,
    translator: Rc<RefCell<Translator>>,
}

impl Model {
    /// The value of the Boolean term `t` of `terms` (the solver's bank,
    /// [`Solver::terms`](super::Solver::terms)); `None` if z3 cannot
    /// evaluate it.
    ///
    /// # Panics
    ///
    /// When `terms` is not the bank of the solver that made the model.
    pub fn eval_bool(&self, terms: &TermBank, t: TermId) -> Option<bool> {
        self.guarded(terms, || {
            let b = self.translator.borrow_mut().bool(terms, t);
            self.model.eval(&b, true).and_then(|v| v.as_bool())
        })
    }

    /// The value of the integer term `t` of `terms`; `None` if z3 cannot
    /// evaluate it or the value does not fit an `i128`.
    ///
    /// # Panics
    ///
    /// When `terms` is not the bank of the solver that made the model.
    pub fn eval_int(&self, terms: &TermBank, t: TermId) -> Option<i128> {
        self.guarded(terms, || {
            let i = self.translator.borrow_mut().int(terms, t);
            self.model.eval(&i, true).and_then(|v| v.as_i128())
        })
    }

    /// Runs `eval` after checking the bank, turning a z3 panic into `None`.
    fn guarded<T>(&self, terms: &TermBank, eval: impl FnOnce() -> Option<T>) -> Option<T> {
        assert!(terms.identity() == self.translator.borrow().bank, "a term of another bank was given to this model");
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(eval)).ok().flatten()
    }
}

impl fmt::Display for Model {
    /// z3's text of the model.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.model)
    }
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Model({})", self.model)
    }
}

#[cfg(test)]
mod tests {
    use super::{Answer, Backend, SOLVER_PARAMS};
    use crate::solver::{Sort, TermBank};

    /// z3 checks parameter names on first use and then drops the first
    /// assertion without a word; the assertion count catches it.
    #[test]
    fn a_silently_dropped_assertion_makes_the_check_unknown() {
        let mut bank = TermBank::new();
        let p = bank.var("p", Sort::Bool);
        let np = bank.not(p);
        let backend = Backend::configured(&bank, None, &[("no_such_parameter", true)], None);
        backend.assert(&bank, p);
        backend.assert(&bank, np);
        match backend.check(&bank, &[], 2) {
            Answer::Unknown(reason) => assert_eq!(reason, "z3 holds 1 assertions where 2 were made"),
            Answer::Sat(_) => panic!("z3 answered sat for p and not p: it dropped `p` and the count missed it"),
            Answer::Unsat(_) => panic!("z3 kept both assertions: the parameter check happened elsewhere"),
        }
        let sound = Backend::configured(&bank, None, &SOLVER_PARAMS, Some(1_000_000));
        sound.assert(&bank, p);
        sound.assert(&bank, np);
        assert!(matches!(sound.check(&bank, &[], 2), Answer::Unsat(_)), "racewatch's parameters are all known to z3");
    }
}
