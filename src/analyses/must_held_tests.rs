//! Tests of the must-held analysis on hand-built programs: straight-line
//! locking, joins and modes, both trylock encodings of the lowering, calls
//! (callee entry sets per entry point, gains and releases), recursion,
//! loops, pseudo locks and liveness.

use super::*;
use crate::ir::{Lock, LockKind, ProcedureBuilder, Region, RegionId, RegionKind, Sort};

/// A program with one shared region, a mutex `m` and a reader-writer
/// semaphore `rw`.
fn base() -> (Program, RegionId, LockId, LockId) {
    let mut program = Program::new();
    let region = program.regions.push(Region {
        name: "global counter".into(),
        element: Sort::Int,
        kind: RegionKind::Global,
        thread_private: false,
    });
    let m = program.locks.push(Lock { name: "m".into(), kind: LockKind::Mutex });
    let rw = program.locks.push(Lock { name: "rw".into(), kind: LockKind::RwSemaphore });
    (program, region, m, rw)
}

fn store(region: RegionId) -> Command {
    Command::Store { region, address: Expr::int(0), value: Expr::int(1), access: crate::ir::AccessKind::Plain, span: None }
}

fn lock(lock: LockId, mode: LockMode) -> Command {
    Command::Lock { lock, mode, span: None }
}

fn unlock(lock: LockId) -> Command {
    Command::Unlock { lock, mode: LockMode::Exclusive, span: None }
}

fn call(procedure: ProcId) -> Command {
    Command::Call { procedure, args: Vec::new(), results: Vec::new(), span: None }
}

fn root(procedure: ProcId) -> EntryRoot {
    EntryRoot { procedure, held: BTreeSet::new(), init: false }
}

/// The locks at each access of one entry point, in program order.
fn locks_at(program: &Program, entry: EntryRoot) -> Vec<Vec<(LockId, LockMode)>> {
    let facts = must_held_at_accesses(program, &[entry]).remove(0);
    facts.values().map(|f| f.locks.iter().map(|(l, m)| (*l, *m)).collect()).collect()
}

#[test]
fn lock_and_unlock_bracket_an_access() {
    let (mut program, r, m, _) = base();
    let mut b = ProcedureBuilder::new(&mut program, "f", None);
    b.push(store(r));
    b.push(lock(m, LockMode::Exclusive));
    b.push(store(r));
    b.push(unlock(m));
    b.push(store(r));
    b.ret();
    let f = b.finish();
    assert_eq!(locks_at(&program, root(f)), [vec![], vec![(m, LockMode::Exclusive)], vec![]]);
}

#[test]
fn a_join_keeps_what_both_paths_hold_in_the_weaker_mode() {
    let (mut program, r, m, rw) = base();
    let mut b = ProcedureBuilder::new(&mut program, "f", None);
    let c = b.add_param("c", Sort::Bool);
    let (then_block, else_block) = b.branch(Expr::var(c), None);
    let join = b.new_block();
    b.switch_to(then_block);
    b.push(lock(m, LockMode::Exclusive));
    b.push(lock(rw, LockMode::Exclusive));
    b.goto([join]);
    b.switch_to(else_block);
    b.push(lock(rw, LockMode::Shared));
    b.goto([join]);
    b.switch_to(join);
    b.push(store(r));
    b.ret();
    let f = b.finish();
    assert_eq!(locks_at(&program, root(f)), [vec![(rw, LockMode::Shared)]]);
}

/// `ok := trylock m; t := if ok then 1 else 0; if (!t) { store } else { store }`,
/// as the lowering writes `if (!mutex_trylock(&m))`.
#[test]
fn a_trylock_holds_its_lock_on_the_success_branch_only() {
    let (mut program, r, m, _) = base();
    let mut b = ProcedureBuilder::new(&mut program, "f", None);
    let ok = b.add_local("ok", Sort::Bool, None);
    let t = b.add_local("t", Sort::Int, None);
    let converted = b.add_local("converted", Sort::Int, None);
    let wrap = b.program().functions.push(crate::ir::UninterpretedFn {
        name: "wrap_s32".into(),
        params: vec![Sort::Int],
        result: Sort::Int,
    });
    b.push(Command::TryLock { lock: m, mode: LockMode::Exclusive, success: ok, span: None });
    b.assign(t, Expr::ite(Expr::var(ok), Expr::int(1), Expr::int(0)), None);
    // A C conversion of the 0/1 result keeps it.
    let in_range = Expr::and(Expr::le(Expr::int(-2147483648), Expr::var(t)), Expr::le(Expr::var(t), Expr::int(2147483647)));
    b.assign(converted, Expr::ite(in_range, Expr::var(t), Expr::Apply(wrap, vec![Expr::var(t)])), None);
    let (failed, taken) = b.branch(Expr::not(Expr::ne(Expr::var(converted), Expr::int(0))), None);
    b.switch_to(failed);
    b.push(store(r));
    b.ret();
    b.switch_to(taken);
    b.push(store(r));
    b.ret();
    let f = b.finish();
    // Blocks in id order: the failure branch, then the success branch.
    assert_eq!(locks_at(&program, root(f)), [vec![], vec![(m, LockMode::Exclusive)]]);
}

/// `ok := trylock rw; havoc r; assume ok == (r == 0); if (r) … else …`,
/// as the lowering writes `if (down_read_killable(&rw))`.
#[test]
fn a_lock_that_may_fail_holds_on_the_zero_result_branch() {
    let (mut program, r, _, rw) = base();
    let mut b = ProcedureBuilder::new(&mut program, "f", None);
    let ok = b.add_local("ok", Sort::Bool, None);
    let result = b.add_local("result", Sort::Int, None);
    b.push(Command::TryLock { lock: rw, mode: LockMode::Shared, success: ok, span: None });
    b.push(Command::Havoc { vars: vec![result], span: None });
    b.assume(Expr::eq(Expr::var(ok), Expr::eq(Expr::var(result), Expr::int(0))), None);
    let (failed, taken) = b.branch(Expr::ne(Expr::var(result), Expr::int(0)), None);
    b.switch_to(failed);
    b.push(store(r));
    b.ret();
    b.switch_to(taken);
    b.push(store(r));
    b.ret();
    let f = b.finish();
    assert_eq!(locks_at(&program, root(f)), [vec![], vec![(rw, LockMode::Shared)]]);
}

#[test]
fn an_unrecognised_use_of_a_trylock_result_acquires_nothing() {
    let (mut program, r, m, _) = base();
    let mut b = ProcedureBuilder::new(&mut program, "f", None);
    let ok = b.add_local("ok", Sort::Bool, None);
    let x = b.add_local("x", Sort::Int, None);
    b.push(Command::TryLock { lock: m, mode: LockMode::Exclusive, success: ok, span: None });
    b.assign(x, Expr::add(Expr::ite(Expr::var(ok), Expr::int(1), Expr::int(0)), Expr::int(1)), None);
    b.assume(Expr::gt(Expr::var(x), Expr::int(1)), None);
    b.push(store(r));
    // The outcome dies with an unlock, even on the success path.
    b.assume(Expr::var(ok), None);
    b.push(unlock(m));
    b.assume(Expr::var(ok), None);
    b.push(store(r));
    b.ret();
    let f = b.finish();
    assert_eq!(locks_at(&program, root(f)), [vec![], vec![]]);
}

/// `helper` stores; `locked` calls it holding `m`, `unlocked` without.
#[test]
fn a_callee_starts_with_the_meet_of_its_call_sites_from_each_entry_point() {
    let (mut program, r, m, _) = base();
    let mut b = ProcedureBuilder::new(&mut program, "helper", None);
    b.push(store(r));
    b.ret();
    let helper = b.finish();
    let mut b = ProcedureBuilder::new(&mut program, "locked", None);
    b.push(lock(m, LockMode::Exclusive));
    b.push(call(helper));
    b.push(call(helper));
    b.push(unlock(m));
    b.ret();
    let locked = b.finish();
    let mut b = ProcedureBuilder::new(&mut program, "both", None);
    b.push(call(locked));
    b.push(call(helper));
    b.ret();
    let both = b.finish();
    let facts = must_held_at_accesses(&program, &[root(locked), root(both)]);
    let helper_store = CommandAt { procedure: helper, block: program.procedures[helper].entry, index: 0 };
    assert_eq!(facts[0][&helper_store].locks, BTreeMap::from([(m, LockMode::Exclusive)]));
    assert_eq!(facts[1][&helper_store].locks, BTreeMap::new());
}

#[test]
fn a_call_adds_what_the_callee_takes_and_drops_what_it_may_release() {
    let (mut program, r, m, rw) = base();
    let mut b = ProcedureBuilder::new(&mut program, "take", None);
    b.push(lock(m, LockMode::Exclusive));
    b.ret();
    let take = b.finish();
    let mut b = ProcedureBuilder::new(&mut program, "maybe_drop", None);
    let c = b.add_param("c", Sort::Bool);
    let (then_block, else_block) = b.branch(Expr::var(c), None);
    b.switch_to(then_block);
    b.push(unlock(rw));
    b.ret();
    b.switch_to(else_block);
    b.ret();
    let maybe_drop = b.finish();
    let mut b = ProcedureBuilder::new(&mut program, "f", None);
    b.push(lock(rw, LockMode::Exclusive));
    b.push(call(take));
    b.push(store(r));
    b.push(call(maybe_drop));
    b.push(store(r));
    b.ret();
    let f = b.finish();
    let expected = [vec![(m, LockMode::Exclusive), (rw, LockMode::Exclusive)], vec![(m, LockMode::Exclusive)]];
    assert_eq!(locks_at(&program, root(f)), expected);
}

/// `rec` stores, then maybe calls itself; the entry point calls it holding
/// `m`, and it takes `rw` before recursing.
#[test]
fn recursion_reaches_the_greatest_fixpoint() {
    let (mut program, r, m, rw) = base();
    let rec = program.procedures.push(crate::ir::Procedure::declaration("rec"));
    let mut b = ProcedureBuilder::resume(&mut program, rec);
    let c = b.add_param("c", Sort::Bool);
    b.push(store(r));
    let (then_block, else_block) = b.branch(Expr::var(c), None);
    b.switch_to(then_block);
    b.push(lock(rw, LockMode::Shared));
    b.push(call(rec));
    b.ret();
    b.switch_to(else_block);
    b.ret();
    b.finish();
    let mut b = ProcedureBuilder::new(&mut program, "f", None);
    b.push(lock(m, LockMode::Exclusive));
    b.push(call(rec));
    b.push(store(r));
    b.ret();
    let f = b.finish();
    let facts = must_held_at_accesses(&program, &[root(f)]).remove(0);
    let in_rec = CommandAt { procedure: rec, block: program.procedures[rec].entry, index: 0 };
    assert_eq!(facts[&in_rec].locks, BTreeMap::from([(m, LockMode::Exclusive)]));
    // `rec` keeps `m` (it never unlocks) but may return without `rw`.
    let after = facts.iter().find(|(at, _)| at.procedure == f).map(|(_, x)| x.locks.clone());
    assert_eq!(after, Some(BTreeMap::from([(m, LockMode::Exclusive)])));
}

#[test]
fn a_loop_body_holds_its_own_lock_and_the_head_does_not() {
    let (mut program, r, m, _) = base();
    let mut b = ProcedureBuilder::new(&mut program, "f", None);
    let head = b.new_block();
    let body = b.new_block();
    let exit = b.new_block();
    b.goto([head]);
    b.switch_to(head);
    b.push(store(r));
    b.goto([body, exit]);
    b.switch_to(body);
    b.push(lock(m, LockMode::Exclusive));
    b.push(store(r));
    b.push(unlock(m));
    b.goto([head]);
    b.switch_to(exit);
    b.ret();
    let f = b.finish();
    assert_eq!(locks_at(&program, root(f)), [vec![], vec![(m, LockMode::Exclusive)]]);
}

#[test]
fn pseudo_locks_hold_from_the_start_and_init_is_not_live_until_it_registers() {
    let (mut program, r, m, rw) = base();
    let mut b = ProcedureBuilder::new(&mut program, "register", None);
    b.push(Command::MakeLive { function: "misc_register".into(), targets: None, assumed: false, span: None });
    b.ret();
    let register = b.finish();
    let mut b = ProcedureBuilder::new(&mut program, "probe", None);
    b.push(store(r));
    b.push(call(register));
    b.push(store(r));
    b.ret();
    let probe = b.finish();
    let entry = EntryRoot { procedure: probe, held: BTreeSet::from([rw]), init: true };
    let facts = must_held_at_accesses(&program, &[entry, root(probe)]);
    let before: Vec<bool> = facts[0].values().map(|f| f.before_live).collect();
    assert_eq!(before, [true, false]);
    assert!(facts[0].values().all(|f| f.locks == BTreeMap::from([(rw, LockMode::Exclusive)])));
    assert!(facts[1].values().all(|f| !f.before_live && f.locks.is_empty()));
    let _ = m;
}
