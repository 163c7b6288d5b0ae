//! [`Solver`]: an incremental z3 session over one [`TermBank`], with an
//! assertion stack, checks under assumption literals, query dumps and
//! statistics.
//!
//! The session keeps its own copy of the assertion stack (the term ids, per
//! scope) beside z3's, so that it can print the current query at any time
//! without asking z3, and so that a dump always describes what was checked.
//! Every z3 call runs under `catch_unwind`: the `z3` crate panics when z3
//! reports an error, and a verifier must report "don't know" rather than
//! stop. A failed `assert`, `push` or `pop` leaves z3's state unknown to us,
//! so the session is *broken* from then on and every check answers
//! `Unknown` with the original failure: an assertion that z3 never received
//! could otherwise turn into a wrong `Sat`, and a lost `pop` into a wrong
//! `Unsat`. A failed `assert` breaks only its scope: popping that scope
//! discards the assertion on both sides and heals the session.

use super::smtlib::Script;
use super::term::{Sort, TermBank, TermId};
use super::z3_backend::{Answer, Backend, Model};
use std::any::Any;
use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How a [`Solver`] checks and what it records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolverOptions {
    /// The wall-clock limit of one check, `Duration::MAX` for none. A
    /// watchdog thread interrupts z3 when it passes (z3's own `timeout`
    /// parameter deadlocks in 4.8.12; `z3_backend.rs` says how).
    pub timeout: Duration,
    /// z3's deterministic resource limit (`rlimit`) per check, if any: unlike
    /// the timeout, it answers the same on a loaded machine as on an idle one.
    pub resource_limit: Option<u32>,
    /// When set, every check first writes its query to
    /// `dump_dir/query-N.smt2` (N counts the dumped checks of the process,
    /// so sessions on several threads can share the directory) and appends
    /// the answer as a comment once z3 has given it.
    pub dump_dir: Option<PathBuf>,
}

impl SolverOptions {
    /// A timeout, no resource limit, no dumps.
    pub fn new(timeout: Duration) -> SolverOptions {
        SolverOptions { timeout, resource_limit: None, dump_dir: None }
    }
}

/// The answer of one check.
#[derive(Debug)]
pub enum CheckResult {
    /// The assertions and assumptions are unsatisfiable; `core` holds the
    /// positions (ascending) of the assumptions z3 used, empty for a check
    /// without assumptions.
    Unsat {
        /// Positions in the assumption list.
        core: Vec<usize>,
    },
    /// Satisfiable.
    Sat {
        /// A satisfying assignment.
        model: Model,
    },
    /// Neither: a timeout, an exhausted resource limit, an incomplete
    /// theory, or a z3 failure. Never to be read as either answer.
    Unknown {
        /// z3's reason (`timeout`, `canceled`, ...) or the failure.
        reason: String,
    },
}

impl CheckResult {
    /// Whether the answer is `Unsat`.
    pub fn is_unsat(&self) -> bool {
        matches!(self, CheckResult::Unsat { .. })
    }

    /// Whether the answer is `Sat`.
    pub fn is_sat(&self) -> bool {
        matches!(self, CheckResult::Sat { .. })
    }

    /// One line for logs and dumps: `unsat (core: 0 2)`, `sat`,
    /// `unknown (timeout)`.
    pub fn summary(&self) -> String {
        match self {
            CheckResult::Unsat { core } if core.is_empty() => "unsat".to_string(),
            CheckResult::Unsat { core } => {
                let mut text = "unsat (core:".to_string();
                for n in core {
                    let _ = write!(text, " {n}");
                }
                text + ")"
            }
            CheckResult::Sat { .. } => "sat".to_string(),
            CheckResult::Unknown { reason } => format!("unknown ({reason})"),
        }
    }
}

/// What a [`Solver`] has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolverStats {
    /// Checks run, with or without assumptions.
    pub checks: u64,
    /// Checks that answered `Sat`.
    pub sat: u64,
    /// Checks that answered `Unsat`.
    pub unsat: u64,
    /// Checks that answered `Unknown`.
    pub unknown: u64,
    /// Wall-clock time inside z3's checks (translation included, dumps not).
    pub solver_time: Duration,
    /// Query dumps that could not be written.
    pub dump_failures: u64,
}

/// The number of the next dumped query, shared by every session of the
/// process.
static NEXT_QUERY: AtomicU64 = AtomicU64::new(1);

/// Why the session no longer trusts z3's state, and the scope depth whose
/// removal would restore it (0: never).
struct Broken {
    depth: usize,
    reason: String,
}

/// An incremental z3 session on the calling thread (not `Send`: z3
/// contexts are per thread). Build terms in [`Solver::terms_mut`], assert
/// them, check.
pub struct Solver {
    terms: TermBank,
    options: SolverOptions,
    backend: Option<Backend>,
    assertions: Vec<TermId>,
    scopes: Vec<usize>,
    last_assumptions: Option<Vec<TermId>>,
    broken: Option<Broken>,
    stats: SolverStats,
    last_dump_error: Option<io::Error>,
}

impl Solver {
    /// A session with a per-check timeout and an empty bank.
    pub fn new(timeout: Duration) -> Solver {
        Solver::with_options(SolverOptions::new(timeout))
    }

    /// A session with `options` and an empty bank.
    pub fn with_options(options: SolverOptions) -> Solver {
        Solver::with_terms(options, TermBank::new())
    }

    /// A session over terms already built (for instance on another thread).
    pub fn with_terms(options: SolverOptions, terms: TermBank) -> Solver {
        let timeout = (options.timeout != Duration::MAX).then_some(options.timeout);
        let made = guard(|| Backend::new(&terms, timeout, options.resource_limit));
        let (backend, broken) = match made {
            Ok(backend) => (Some(backend), None),
            Err(reason) => (None, Some(Broken { depth: 0, reason: format!("z3 could not make a solver: {reason}") })),
        };
        Solver {
            terms,
            options,
            backend,
            assertions: Vec::new(),
            scopes: Vec::new(),
            last_assumptions: None,
            broken,
            stats: SolverStats::default(),
            last_dump_error: None,
        }
    }

    /// Changes the per-check time limit for the checks to come.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.options.timeout = timeout;
        if let Some(backend) = &mut self.backend {
            backend.set_timeout((timeout != Duration::MAX).then_some(timeout));
        }
    }

    /// The bank the session's terms live in.
    pub fn terms(&self) -> &TermBank {
        &self.terms
    }

    /// The bank, to build terms in.
    pub fn terms_mut(&mut self) -> &mut TermBank {
        &mut self.terms
    }

    /// The options the session was made with.
    pub fn options(&self) -> &SolverOptions {
        &self.options
    }

    /// Every assertion of every open scope, oldest first.
    pub fn assertions(&self) -> &[TermId] {
        &self.assertions
    }

    /// How many scopes are open.
    pub fn scope_depth(&self) -> usize {
        self.scopes.len()
    }

    /// What the session has done so far.
    pub fn stats(&self) -> SolverStats {
        self.stats
    }

    /// Why the last query dump failed, if it did.
    pub fn last_dump_error(&self) -> Option<&io::Error> {
        self.last_dump_error.as_ref()
    }

    /// Adds `t` to the current scope.
    ///
    /// # Panics
    ///
    /// When `t` is not a Boolean term of the bank.
    pub fn assert(&mut self, t: TermId) {
        assert!(self.terms.sort(t) == Sort::Bool, "asserted {t:?} is not Boolean");
        self.assertions.push(t);
        let depth = self.scopes.len();
        if let (None, Some(backend)) = (&self.broken, &self.backend)
            && let Err(reason) = guard(|| backend.assert(&self.terms, t))
        {
            self.broken = Some(Broken { depth, reason: format!("z3 failed on an assertion: {reason}") });
        }
    }

    /// Opens a scope.
    pub fn push(&mut self) {
        self.scopes.push(self.assertions.len());
        if let (None, Some(backend)) = (&self.broken, &self.backend)
            && let Err(reason) = guard(|| backend.push())
        {
            self.broken = Some(Broken { depth: 0, reason: format!("z3 failed on push: {reason}") });
        }
    }

    /// Closes the innermost scope, dropping its assertions.
    ///
    /// # Panics
    ///
    /// When no scope is open.
    pub fn pop(&mut self) {
        let start = self.scopes.pop().expect("pop without a matching push");
        self.assertions.truncate(start);
        // While broken, z3 received no push, pop or assertion; the scope
        // that broke was pushed on z3's side before the failure, so popping
        // it heals the session and is popped on z3's side below.
        if self.broken.as_ref().is_some_and(|broken| broken.depth > self.scopes.len()) {
            self.broken = None;
        }
        if let (None, Some(backend)) = (&self.broken, &self.backend)
            && let Err(reason) = guard(|| backend.pop())
        {
            self.broken = Some(Broken { depth: 0, reason: format!("z3 failed on pop: {reason}") });
        }
    }

    /// Checks the assertions.
    pub fn check(&mut self) -> CheckResult {
        self.run(None)
    }

    /// Checks the assertions under `assumptions`, typically one Boolean
    /// variable per candidate (Houdini): an `Unsat` core names positions
    /// in `assumptions`.
    ///
    /// # Panics
    ///
    /// When an assumption is not a Boolean term of the bank.
    pub fn check_assuming(&mut self, assumptions: &[TermId]) -> CheckResult {
        for &a in assumptions {
            assert!(self.terms.sort(a) == Sort::Bool, "assumption {a:?} is not Boolean");
        }
        self.run(Some(assumptions))
    }

    /// The current query (the assertions, and the assumptions of the last
    /// check if it had some) as an SMT-LIB script.
    pub fn smtlib(&self) -> String {
        self.script(&[]).to_string()
    }

    /// Writes [`Solver::smtlib`] to `path`.
    pub fn dump_to(&self, path: &Path) -> io::Result<()> {
        std::fs::write(path, self.smtlib())
    }

    fn script(&self, comments: &[String]) -> Script<'_> {
        let mut script = Script::new(&self.terms, &self.assertions);
        for line in comments {
            script = script.comment(line.clone());
        }
        match &self.last_assumptions {
            Some(assumptions) => script.assuming(assumptions),
            None => script,
        }
    }

    fn run(&mut self, assumptions: Option<&[TermId]>) -> CheckResult {
        self.last_assumptions = assumptions.map(<[TermId]>::to_vec);
        let dump = self.options.dump_dir.clone().map(|dir| {
            let n = NEXT_QUERY.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("query-{n}.smt2"));
            let header = vec![
                format!("racewatch query {n}"),
                format!("{} assertions in {} scopes", self.assertions.len(), self.scopes.len() + 1),
                format!(
                    "options: timeout {} ms, rlimit {:?}",
                    self.options.timeout.as_millis(),
                    self.options.resource_limit
                ),
            ];
            let written = std::fs::write(&path, self.script(&header).to_string());
            (path, written)
        });
        let started = Instant::now();
        let result = match (&self.broken, &self.backend) {
            (Some(broken), _) => CheckResult::Unknown { reason: format!("not checked: {}", broken.reason) },
            (None, None) => CheckResult::Unknown { reason: "not checked: no z3 solver".to_string() },
            (None, Some(backend)) => {
                match guard(|| backend.check(&self.terms, assumptions.unwrap_or(&[]), self.assertions.len())) {
                    Ok(Answer::Unsat(core)) => CheckResult::Unsat { core },
                    Ok(Answer::Sat(model)) => CheckResult::Sat { model },
                    Ok(Answer::Unknown(reason)) => CheckResult::Unknown { reason },
                    Err(reason) => CheckResult::Unknown { reason: format!("z3 failed: {reason}") },
                }
            }
        };
        let elapsed = started.elapsed();
        self.stats.checks += 1;
        self.stats.solver_time += elapsed;
        match &result {
            CheckResult::Unsat { .. } => self.stats.unsat += 1,
            CheckResult::Sat { .. } => self.stats.sat += 1,
            CheckResult::Unknown { .. } => self.stats.unknown += 1,
        }
        if let Some((path, written)) = dump {
            let appended = written.and_then(|()| {
                let mut file = std::fs::OpenOptions::new().append(true).open(&path)?;
                writeln!(file, "; result: {}, {:.3} ms", result.summary(), elapsed.as_secs_f64() * 1e3)
            });
            if let Err(error) = appended {
                self.stats.dump_failures += 1;
                self.last_dump_error = Some(error);
            }
        }
        result
    }
}

/// Runs `f`, turning a panic into its message.
fn guard<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_message(payload.as_ref()))
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text.to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::{Broken, CheckResult, Solver, guard};
    use crate::solver::Sort;
    use std::time::Duration;

    #[test]
    fn panics_become_messages() {
        assert_eq!(guard(|| -> u32 { panic!("z3 said no") }), Err("z3 said no".to_string()));
        assert_eq!(guard(|| -> u32 { panic!("{} said no", "z3") }), Err("z3 said no".to_string()));
        assert_eq!(guard(|| 7), Ok(7));
    }

    #[test]
    fn a_broken_scope_answers_unknown_until_popped() {
        let mut s = Solver::new(Duration::from_secs(10));
        let t = s.terms_mut();
        let p = t.var("p", Sort::Bool);
        let np = t.not(p);
        s.assert(p);
        s.push();
        s.assert(np);
        // As if z3 had failed on the assertion of scope 1.
        s.broken = Some(Broken { depth: 1, reason: "injected".to_string() });
        s.push();
        match s.check() {
            CheckResult::Unknown { reason } => assert!(reason.contains("injected"), "{reason}"),
            other => panic!("a broken session answered {}", other.summary()),
        }
        s.pop();
        assert!(matches!(s.check(), CheckResult::Unknown { .. }), "scope 1 is still open");
        s.pop();
        assert!(s.check().is_sat(), "popping the broken scope heals the session");
        s.broken = Some(Broken { depth: 0, reason: "for good".to_string() });
        s.push();
        s.pop();
        assert!(matches!(s.check(), CheckResult::Unknown { .. }), "depth 0 never heals");
    }
}
