//! Tests of the solver against z3: answers over integers, Booleans and
//! uninterpreted functions, cores, timeouts, models, scopes and dumps.

use super::smtlib::tests::replay_if_z3_is_installed;
use super::{CheckResult, Comparison, Solver, SolverOptions, Sort, TermId};
use std::path::PathBuf;
use std::time::Duration;

fn solver() -> Solver {
    Solver::new(Duration::from_secs(10))
}

fn unsat_core(result: CheckResult) -> Vec<usize> {
    match result {
        CheckResult::Unsat { core } => core,
        other => panic!("expected unsat, got {}", other.summary()),
    }
}

/// `a³ + b³ = c³` with `a, b, c > 1`: Fermat's case n = 3, unsatisfiable but
/// far beyond z3's nonlinear integer reasoning, so any limit runs out.
fn assert_fermat(s: &mut Solver) {
    let t = s.terms_mut();
    let one = t.int(1);
    let [a, b, c] = ["a", "b", "c"].map(|n| t.var(n, Sort::Int));
    let cube = |t: &mut super::TermBank, v: TermId| t.mul(&[v, v, v]);
    let (a3, b3, c3) = (cube(t, a), cube(t, b), cube(t, c));
    let sum = t.add(&[a3, b3]);
    let eq = t.eq(sum, c3);
    let bounds: Vec<TermId> = [a, b, c].iter().map(|&v| t.gt(v, one)).collect();
    let all = t.and(&[&[eq][..], &bounds].concat());
    s.assert(all);
}

#[test]
fn integer_constraints_are_sat_or_unsat() {
    let mut s = solver();
    let t = s.terms_mut();
    let x = t.var("x", Sort::Int);
    let (three, four, five) = (t.int(3), t.int(4), t.int(5));
    let above = t.gt(x, three);
    let below = t.lt(x, five);
    s.assert(above);
    s.assert(below);
    match s.check() {
        CheckResult::Sat { model } => assert_eq!(model.eval_int(s.terms(), x), Some(4)),
        other => panic!("expected sat, got {}", other.summary()),
    }
    let not_four = s.terms_mut().ne(x, four);
    s.assert(not_four);
    assert_eq!(unsat_core(s.check()), Vec::<usize>::new());
}

#[test]
fn boolean_and_uninterpreted_function_constraints() {
    let mut s = solver();
    let t = s.terms_mut();
    let (p, q) = (t.var("p", Sort::Bool), t.var("q", Sort::Bool));
    let nq = t.not(q);
    let pq = t.implies(p, q);
    let contradiction = t.and(&[p, nq, pq]);
    s.push();
    s.assert(contradiction);
    assert!(s.check().is_unsat());
    s.pop();
    assert!(s.check().is_sat(), "pop removes the contradiction");

    // Congruence: x = y forces f(x) = f(y).
    let t = s.terms_mut();
    let f = t.declare("f", &[Sort::Int], Sort::Int);
    let (x, y) = (t.var("x", Sort::Int), t.var("y", Sort::Int));
    let (fx, fy) = (t.apply(f, &[x]), t.apply(f, &[y]));
    let same_arg = t.eq(x, y);
    let different_value = t.ne(fx, fy);
    s.push();
    s.assert(same_arg);
    s.assert(different_value);
    assert!(s.check().is_unsat());
    s.pop();
    s.assert(different_value);
    match s.check() {
        CheckResult::Sat { model } => {
            let (vx, vy) = (model.eval_int(s.terms(), x), model.eval_int(s.terms(), y));
            assert!(vx.is_some() && vx != vy, "f(x) != f(y) needs x != y, got {vx:?} and {vy:?}");
        }
        other => panic!("expected sat, got {}", other.summary()),
    }
}

#[test]
fn division_is_euclidean_and_large_integers_survive() {
    let mut s = solver();
    let t = s.terms_mut();
    let (a, b) = (t.var("a", Sort::Int), t.var("b", Sort::Int));
    let (minus_seven, two) = (t.int(-7), t.int(2));
    let (q, r) = (t.div(a, b), t.modulo(a, b));
    let big = t.int(1 << 100);
    let huge = t.var("huge", Sort::Int);
    let pins = [t.eq(a, minus_seven), t.eq(b, two), t.eq(huge, big)];
    for pin in pins {
        s.assert(pin);
    }
    match s.check() {
        CheckResult::Sat { model } => {
            assert_eq!(model.eval_int(s.terms(), q), Some(-4));
            assert_eq!(model.eval_int(s.terms(), r), Some(1));
            assert_eq!(model.eval_int(s.terms(), huge), Some(1 << 100));
        }
        other => panic!("expected sat, got {}", other.summary()),
    }
}

#[test]
fn unsat_cores_name_exactly_the_needed_assumptions() {
    let mut s = solver();
    let t = s.terms_mut();
    let x = t.var("x", Sort::Int);
    let y = t.var("y", Sort::Int);
    let [p0, p1, p2, p3] = ["p0", "p1", "p2", "p3"].map(|n| t.var(n, Sort::Bool));
    let (zero, five, ten) = (t.int(0), t.int(5), t.int(10));
    let both = t.and(&[p0, p1]);
    let x_big = t.gt(x, ten);
    let x_small = t.lt(x, five);
    let y_positive = t.gt(y, zero);
    let rules = [t.implies(both, x_big), t.implies(p2, x_small), t.implies(p3, y_positive)];
    for rule in rules {
        s.assert(rule);
    }
    assert_eq!(unsat_core(s.check_assuming(&[p3, p0, p2, p1])), vec![1, 2, 3]);
    assert!(s.check_assuming(&[p0, p2, p3]).is_sat(), "without p1 nothing conflicts");
    assert_eq!(unsat_core(s.check_assuming(&[p1, p2, p0])), vec![0, 1, 2]);
    // An assumption that is a formula rather than a literal.
    let x_tiny = s.terms_mut().compare(Comparison::Lt, x, zero);
    let np2 = s.terms_mut().not(p2);
    assert_eq!(unsat_core(s.check_assuming(&[np2, x_tiny, p0, p1])), vec![1, 2, 3]);
    let stats = s.stats();
    assert_eq!((stats.checks, stats.sat, stats.unsat, stats.unknown), (4, 1, 3, 0));
}

/// Runs `work` on its own thread and fails if it takes longer than a
/// minute, so that a hang inside z3 fails the test instead of the run.
fn within_a_minute<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(work()));
    match wait.recv_timeout(Duration::from_secs(60)) {
        Ok(value) => value,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("z3 hung for a minute"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("the worker thread panicked"),
    }
}

#[test]
fn timeouts_are_unknown_never_unsat_and_never_hang() {
    // Several timed-out checks in a row, on one session and on fresh ones:
    // with z3 4.8.12's own timeout parameter the second or third one hangs.
    let summaries = within_a_minute(|| {
        let mut summaries = Vec::new();
        let mut s = Solver::new(Duration::from_millis(1));
        assert_fermat(&mut s);
        for _ in 0..3 {
            summaries.push(s.check().summary());
        }
        for _ in 0..3 {
            let mut fresh = Solver::new(Duration::from_millis(20));
            assert_fermat(&mut fresh);
            summaries.push(fresh.check().summary());
        }
        let unknown = s.stats().unknown;
        summaries.push(format!("{unknown} unknown"));
        summaries
    });
    for summary in &summaries[..6] {
        assert!(summary.starts_with("unknown (timeout after "), "a timed-out check answered {summary}");
    }
    assert_eq!(summaries[6], "3 unknown");
}

#[test]
fn no_timeout_means_no_watchdog() {
    let mut s = Solver::new(Duration::MAX);
    let p = s.terms_mut().var("p", Sort::Bool);
    s.assert(p);
    assert!(s.check().is_sat());
}

#[test]
fn an_exhausted_resource_limit_is_unknown() {
    let mut options = SolverOptions::new(Duration::from_secs(20));
    options.resource_limit = Some(20_000);
    let mut s = Solver::with_options(options);
    assert_fermat(&mut s);
    match s.check() {
        CheckResult::Unknown { reason } => assert!(!reason.is_empty()),
        other => panic!("a resource-limited check of Fermat's n = 3 answered {}", other.summary()),
    }
}

#[test]
fn models_complete_unconstrained_terms() {
    let mut s = solver();
    let t = s.terms_mut();
    let p = t.var("p", Sort::Bool);
    let unused = t.var("never asserted", Sort::Int);
    let g = t.declare("g", &[Sort::Int], Sort::Bool);
    let one = t.int(1);
    let g1 = t.apply(g, &[one]);
    s.assert(p);
    match s.check() {
        CheckResult::Sat { model } => {
            assert_eq!(model.eval_bool(s.terms(), p), Some(true));
            assert!(model.eval_int(s.terms(), unused).is_some());
            assert!(model.eval_bool(s.terms(), g1).is_some());
            let np = s.terms_mut().not(p);
            assert_eq!(model.eval_bool(s.terms(), np), Some(false), "terms built after the check evaluate too");
        }
        other => panic!("expected sat, got {}", other.summary()),
    }
}

#[test]
fn the_current_query_prints_as_smtlib() {
    let mut s = solver();
    let t = s.terms_mut();
    let x = t.var("x", Sort::Int);
    let candidate = t.var("b0", Sort::Bool);
    let zero = t.int(0);
    let positive = t.gt(x, zero);
    let guarded = t.implies(candidate, positive);
    s.assert(guarded);
    s.check_assuming(&[candidate]);
    let expected = "(set-option :produce-models true)
(set-logic QF_UFLIA)
(declare-fun b0 () Bool)
(declare-fun x () Int)
(assert (=> b0 (> x 0)))
(check-sat-assuming (b0))
(get-model)
";
    assert_eq!(s.smtlib(), expected);
}

/// A fresh directory under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("racewatch-solver-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_check_dumps_its_query_with_the_answer() {
    let dir = scratch("dumps");
    let mut options = SolverOptions::new(Duration::from_secs(10));
    options.dump_dir = Some(dir.clone());
    let mut s = Solver::with_options(options);
    let t = s.terms_mut();
    let p = t.var("p", Sort::Bool);
    let np = t.not(p);
    s.assert(np);
    s.check();
    s.check_assuming(&[p]);
    let mut files: Vec<(u64, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let n = name.strip_prefix("query-").and_then(|r| r.strip_suffix(".smt2")).expect("query-N.smt2");
            (n.parse().unwrap(), std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 2);
    // The counter is the process's; another test's check may come between.
    assert!(files[1].0 > files[0].0, "increasing query numbers");
    let (first, second) = (&files[0].1, &files[1].1);
    assert!(first.contains("(assert (not p))\n(check-sat)\n(get-model)\n; result: sat, "), "{first}");
    assert!(second.contains("(check-sat-assuming (p))\n(get-model)\n; result: unsat (core: 0), "), "{second}");
    assert!(second.starts_with(&format!("; racewatch query {}\n", files[1].0)), "{second}");
    // dump_to writes the same query, without the header and the answer.
    let path = dir.join("state.smt2");
    s.dump_to(&path).unwrap();
    let state = std::fs::read_to_string(&path).unwrap();
    assert_eq!(state, s.smtlib());
    assert!(second.contains(&state), "{second}\n---\n{state}");
    assert_eq!(s.stats().dump_failures, 0);
    replay_if_z3_is_installed(&state, "unsat");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unwritable_dump_directory_counts_a_failure_but_checks() {
    let mut options = SolverOptions::new(Duration::from_secs(10));
    options.dump_dir = Some(PathBuf::from("/nonexistent/racewatch/dumps"));
    let mut s = Solver::with_options(options);
    let p = s.terms_mut().var("p", Sort::Bool);
    s.assert(p);
    assert!(s.check().is_sat());
    assert_eq!(s.stats().dump_failures, 1);
    assert!(s.last_dump_error().is_some());
}

#[test]
fn sessions_run_on_several_threads_at_once() {
    let workers: Vec<_> = (0..4)
        .map(|n| {
            std::thread::spawn(move || {
                let mut s = solver();
                let t = s.terms_mut();
                let x = t.var("x", Sort::Int);
                let k = t.int(n);
                let eq = t.eq(x, k);
                s.assert(eq);
                match s.check() {
                    CheckResult::Sat { model } => model.eval_int(s.terms(), x),
                    other => panic!("expected sat, got {}", other.summary()),
                }
            })
        })
        .collect();
    let values: Vec<Option<i128>> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    assert_eq!(values, vec![Some(0), Some(1), Some(2), Some(3)]);
}

#[test]
#[should_panic(expected = "a term of another bank")]
fn terms_of_another_bank_are_refused() {
    let mut s = solver();
    let p = s.terms_mut().var("p", Sort::Bool);
    s.assert(p);
    let CheckResult::Sat { model } = s.check() else { panic!("expected sat") };
    let other = super::TermBank::new();
    model.eval_bool(&other, p);
}
