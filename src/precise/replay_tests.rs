//! Tests of the witness replay and of memory separation, on small
//! programs built by hand and searched as the precise phase searches.

use super::exec::{Bounds, Exec};
use super::memory::{Cell, Memory, Who};
use super::replay::{Choice, Claim, Oracle, Outcome, replay};
use super::yields::{Footprint, YieldMode, YieldPolicy};
use crate::ir::{AccessKind, Address, Command, Expr, ProcId, Program, Region, RegionId, RegionKind, Sort};
use crate::solver::{CheckResult, Solver, SolverOptions};
use std::collections::BTreeSet;
use std::time::Duration;

const K: u32 = 2;

/// `int (pointee)`, shared.
fn program() -> (Program, RegionId) {
    let mut program = Program::new();
    let r = program.regions.push(Region { name: "int (pointee)".into(), element: Sort::Int, kind: RegionKind::Pointee, thread_private: false });
    (program, r)
}

/// `void NAME(int p) { *p = value; }`, or with `allocate`,
/// `q = alloc(); *q = value;` with an allocator that cannot fail (one
/// that can would let both threads write NULL).
fn writer(program: &mut Program, r: RegionId, name: &str, value: i128, allocate: bool) -> ProcId {
    let mut b = crate::ir::ProcedureBuilder::new(program, name, None);
    let p = b.add_param("p", Sort::Int);
    let target = if allocate {
        let q = b.add_local("q", Sort::Int, None);
        b.push(Command::Havoc { vars: vec![q], span: None });
        b.assume(Expr::gt(Expr::var(q), Expr::int(0)), None);
        b.program().addresses.insert(q, Address::Allocation { may_fail: false });
        q
    } else {
        p
    };
    b.push(Command::Store { region: r, address: Expr::var(target), value: Expr::int(value), access: AccessKind::Plain, span: None });
    b.ret();
    b.finish()
}

/// Runs the pair `a`, `b` and solves for a failing check of `r`: the
/// outcome of the replay of the real witness, and of `doctor`'s version
/// of it; `None` when no check can fail.
fn search(program: &Program, r: RegionId, a: ProcId, b: ProcId, doctor: impl Fn(&mut super::replay::Trace, &mut Claim) + Send + Sync) -> Option<(Outcome, Outcome)> {
    crate::solver::isolated(|| {
        let private = BTreeSet::<Cell>::new();
        let threads = [Footprint::of(program, a, &[]), Footprint::of(program, b, &[])];
        let policy = YieldPolicy::new(YieldMode::All, BTreeSet::new(), false, threads);
        let bounds = Bounds { k: K, unroll: 2, init_unroll: 2, inline_depth: 4, max_commands: 10_000, max_term_bytes: usize::MAX };
        let mut exec = Exec::new(program, Memory::new(K, private, true), policy, BTreeSet::from([r]), false, bounds);
        exec.separate_globals();
        exec.thread(Who::T1, a, &[], false);
        exec.thread(Who::T2, b, &[], false);
        let roots: Vec<_> = exec.constraints.iter().copied().chain(exec.checks.iter().map(|c| c.fail)).collect();
        let consistency = exec.mem.consistency(&mut exec.t, &roots);
        exec.constraints.extend(consistency.assumptions);
        let Exec { t, constraints, checks, steps, mut trace, .. } = exec;
        let mut solver = Solver::with_terms(SolverOptions::new(Duration::from_secs(10)), t);
        let all = solver.terms_mut().and(&constraints);
        solver.assert(all);
        let fails: Vec<_> = checks.iter().map(|c| c.fail).collect();
        let any = solver.terms_mut().or(&fails);
        let CheckResult::Sat { model } = solver.check_assuming(&[any]) else { return None };
        let c = checks.iter().find(|c| model.eval_bool(solver.terms(), c.fail) == Some(true))?;
        let mut claim = Claim { who: c.who, site: steps[c.access].site, region: c.region, strict: false, program_start: false };
        let real = replay(program, &trace, &mut Oracle { terms: solver.terms_mut(), model: &model }, K, true, claim.clone(), &Default::default());
        doctor(&mut trace, &mut claim);
        let doctored = replay(program, &trace, &mut Oracle { terms: solver.terms_mut(), model: &model }, K, true, claim, &Default::default());
        Some((real, doctored))
    })
}

#[test]
fn a_real_witness_replays_and_a_doctored_one_does_not() {
    let (mut program, r) = program();
    let a = writer(&mut program, r, "w1", 1, false);
    let b = writer(&mut program, r, "w2", 2, false);
    // The doctored witness claims the race at the other thread's write.
    let (real, doctored) = search(&program, r, a, b, |_, claim| {
        claim.who = if claim.who == Who::T1 { Who::T2 } else { Who::T1 };
    })
    .expect("two unprotected writes to one address race");
    assert_eq!(real, Outcome::Reproduced);
    assert!(matches!(doctored, Outcome::Rejected(_)), "{doctored:?}");
}

#[test]
fn a_witness_without_its_interleaving_does_not_replay() {
    let (mut program, r) = program();
    let a = writer(&mut program, r, "w1", 1, false);
    let b = writer(&mut program, r, "w2", 2, false);
    // The doctored witness forgets every yield: the threads run one after
    // the other, and nothing comes between an access and its check.
    let (real, doctored) = search(&program, r, a, b, |trace, _| {
        for choices in trace.choices.values_mut() {
            choices.retain(|c| !matches!(c, Choice::Switch(_)));
        }
    })
    .expect("two unprotected writes to one address race");
    assert_eq!(real, Outcome::Reproduced);
    assert!(matches!(doctored, Outcome::Rejected(_)), "{doctored:?}");
}

#[test]
fn two_allocations_never_share_an_address() {
    let (mut program, r) = program();
    let a = writer(&mut program, r, "w1", 1, true);
    let b = writer(&mut program, r, "w2", 2, true);
    assert!(search(&program, r, a, b, |_, _| {}).is_none(), "each thread writes its own allocation");
}

/// `void NAME(void) { q = *(int **)8192; v = *q; }`, the pointer read
/// from `pointers`, a region nothing writes (initial memory).
fn reader(program: &mut Program, r: RegionId, pointers: RegionId, name: &str) -> ProcId {
    let mut b = crate::ir::ProcedureBuilder::new(program, name, None);
    let q = b.add_local("q", Sort::Int, None);
    let v = b.add_local("v", Sort::Int, None);
    b.push(Command::Load { target: q, region: pointers, address: Expr::int(8192), access: AccessKind::Plain, span: None });
    b.push(Command::Load { target: v, region: r, address: Expr::var(q), access: AccessKind::Plain, span: None });
    b.ret();
    b.finish()
}

/// An injected spurious witness: the search, given nothing that keeps
/// initial memory out of an object the other thread allocates during the
/// pair (the precise phase bounds initial values by the allocations'
/// end, which this search leaves out), races a read through a pointer
/// read from initial memory with the write into the new object. The replay must reject
/// it, blaming that object, and the search's refinement (mod.rs), which
/// keeps the blamed value out of the object, must leave no witness.
#[test]
fn a_witness_reaching_an_object_through_an_argument_is_rejected_and_refined_away() {
    let (mut program, r) = program();
    let pointers = program.regions.push(Region { name: "int * (pointee)".into(), element: Sort::Int, kind: RegionKind::Pointee, thread_private: false });
    let w = writer(&mut program, r, "w", 1, true);
    let rd = reader(&mut program, r, pointers, "rd");
    crate::solver::isolated(|| {
        let private = BTreeSet::<Cell>::new();
        let threads = [Footprint::of(&program, w, &[]), Footprint::of(&program, rd, &[])];
        let policy = YieldPolicy::new(YieldMode::All, BTreeSet::new(), false, threads);
        let bounds = Bounds { k: K, unroll: 2, init_unroll: 2, inline_depth: 4, max_commands: 10_000, max_term_bytes: usize::MAX };
        let mut exec = Exec::new(&program, Memory::new(K, private, true), policy, BTreeSet::from([r]), false, bounds);
        exec.separate_globals();
        exec.thread(Who::T1, w, &[], false);
        exec.thread(Who::T2, rd, &[], false);
        let roots: Vec<_> = exec.constraints.iter().copied().chain(exec.checks.iter().map(|c| c.fail)).collect();
        let consistency = exec.mem.consistency(&mut exec.t, &roots);
        exec.constraints.extend(consistency.assumptions);
        let Exec { t, constraints, checks, steps, trace, .. } = exec;
        let mut solver = Solver::with_terms(SolverOptions::new(Duration::from_secs(10)), t);
        let all = solver.terms_mut().and(&constraints);
        solver.assert(all);
        let fails: Vec<_> = checks.iter().map(|c| c.fail).collect();
        let any = solver.terms_mut().or(&fails);
        let mut assumptions = vec![any];
        let mut rejected = 0;
        for _ in 0..4 {
            let CheckResult::Sat { model } = solver.check_assuming(&assumptions) else { break };
            let c = checks.iter().find(|c| model.eval_bool(solver.terms(), c.fail) == Some(true)).expect("a failing check");
            let claim = Claim { who: c.who, site: steps[c.access].site, region: c.region, strict: false, program_start: false };
            let (outcome, blame, _) =
                super::replay::replay_blamed(&program, &trace, &mut Oracle { terms: solver.terms_mut(), model: &model }, K, true, claim, &Default::default(), None);
            assert!(matches!(outcome, Outcome::Rejected(_)), "initial memory cannot hold the new object's address: {outcome:?}");
            let super::replay::Blame { bases, term, .. } = blame.expect("the replay blames the new object");
            let base = bases[0];
            assert!(super::separation::in_heap(base), "the blamed object is one the pair allocated");
            let term = term.expect("the initial value has a term");
            rejected += 1;
            let t = solver.terms_mut();
            let lo = t.int(base);
            let hi = t.int(base + super::separation::STRIDE);
            let below = t.lt(term, lo);
            let above = t.le(hi, term);
            let outside = t.or(&[below, above]);
            assumptions.push(outside);
        }
        assert!(rejected >= 1, "the search found the spurious witness");
        assert!(
            matches!(solver.check_assuming(&assumptions), CheckResult::Unsat { .. }),
            "with the initial value kept out of the new object, nothing races"
        );
    });
}

#[test]
fn a_pair_past_its_term_budget_stops_and_says_so() {
    let (mut program, r) = program();
    let a = writer(&mut program, r, "w1", 1, false);
    let b = writer(&mut program, r, "w2", 2, false);
    let run = |max_term_bytes: usize| {
        crate::solver::isolated(|| {
            let threads = [Footprint::of(&program, a, &[]), Footprint::of(&program, b, &[])];
            let policy = YieldPolicy::new(YieldMode::All, BTreeSet::new(), false, threads);
            let bounds = Bounds { k: K, unroll: 2, init_unroll: 2, inline_depth: 4, max_commands: 10_000, max_term_bytes };
            let mut exec = Exec::new(&program, Memory::new(K, BTreeSet::new(), true), policy, BTreeSet::from([r]), false, bounds);
            exec.thread(Who::T1, a, &[], false);
            exec.thread(Who::T2, b, &[], false);
            exec.exceeded
        })
    };
    assert_eq!(run(usize::MAX), None, "an unbounded budget is not exceeded");
    assert_eq!(run(1), Some(super::exec::Budget::Memory), "a one-byte budget stops the expansion and names memory as the cause");
}
