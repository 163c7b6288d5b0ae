//! Tests of the IR as a whole: a hand-built example program covering every
//! command, its exact printed text, and the validator's verdicts on it and on
//! malformed variants of it.

mod printing;
mod validation;

use super::*;
use crate::diagnostics::Span;
use crate::models::EntryKind;
use std::path::Path;
use std::sync::Arc;

/// A span in `dev.c`, under a directory that the printer must not show.
fn span(line: u32, column: u32) -> Option<Span> {
    Some(Span { file: Arc::from(Path::new("/src/drivers/char/dev.c")), line, column })
}

/// The ids of the example that the tests refer to.
struct Example {
    program: Program,
    dev_read: ProcId,
    dev_misc: ProcId,
    dev_helper: ProcId,
    i: VarId,
    ok: VarId,
}

/// A small driver: a bodiless helper, a reader with a loop, a call, a
/// trylock and two name clashes, and a procedure using every other command.
fn example() -> Example {
    let mut program = Program::new();
    let counter = program.regions.push(Region {
        name: "global counter".into(),
        element: Sort::Int,
        kind: RegionKind::Global,
        thread_private: false,
    });
    let buffer = program.regions.push(Region {
        name: "struct dev.buf".into(),
        element: Sort::Int,
        kind: RegionKind::Field,
        thread_private: false,
    });
    let stack = program.regions.push(Region {
        name: "int (pointee)".into(),
        element: Sort::Int,
        kind: RegionKind::Pointee,
        thread_private: true,
    });
    let dev_mutex = program.locks.push(Lock { name: "dev_mutex".into(), kind: LockKind::Mutex });
    let dev_lock = program.locks.push(Lock { name: "struct dev.lock".into(), kind: LockKind::Spinlock });
    let cfg_sem = program.locks.push(Lock { name: "cfg_sem".into(), kind: LockKind::RwSemaphore });
    let bitand = program.functions.push(UninterpretedFn {
        name: "bitand".into(),
        params: vec![Sort::Int; 2],
        result: Sort::Int,
    });
    let global_count = program.add_global("count", Sort::Int, span(3, 12));
    let in_irq = program.add_ghost_global("in_irq", Sort::Bool);

    let mut helper = ProcedureBuilder::new(&mut program, "dev_helper", None);
    let n = helper.add_param("n", Sort::Int);
    let r = helper.add_return("r", Sort::Int);
    helper.ensures(Expr::ge(Expr::var(r), Expr::var(n)), true);
    let dev_helper = helper.finish_declaration();

    let mut b = ProcedureBuilder::new(&mut program, "dev_read", span(8, 1));
    let dev = b.add_param("dev", Sort::Int);
    let count = b.add_param("count", Sort::Int);
    let ret = b.add_return("ret", Sort::Int);
    let i = b.add_local("i", Sort::Int, span(9, 6));
    let (tmp1, tmp2) = (b.add_local("tmp", Sort::Int, None), b.add_local("tmp", Sort::Int, None));
    let ok = b.add_local("ok", Sort::Bool, None);
    b.requires(Expr::and(Expr::ge(Expr::var(count), Expr::int(0)), Expr::not(Expr::var(in_irq))), false);
    b.ensures(Expr::le(Expr::var(ret), Expr::var(count)), true);
    b.push(Command::Lock { lock: dev_mutex, mode: LockMode::Exclusive, span: span(10, 2) });
    b.assign(i, Expr::int(0), None);
    let header = b.new_block();
    b.goto([header]);
    b.switch_to(header);
    let (body, exit) = b.branch(Expr::lt(Expr::var(i), Expr::var(count)), None);
    b.switch_to(body);
    let address = Expr::add(Expr::var(dev), Expr::mul(Expr::int(8), Expr::var(i)));
    b.push(Command::Load { target: tmp1, region: buffer, address, access: AccessKind::Plain, span: span(12, 9) });
    b.assign(tmp2, Expr::add(Expr::apply(bitand, vec![Expr::var(tmp1), Expr::int(255)]), Expr::int(1)), None);
    let value = Expr::add(Expr::var(global_count), Expr::var(tmp2));
    b.push(Command::Store {
        region: counter,
        address: Expr::int(0),
        value,
        access: AccessKind::Plain,
        span: span(13, 3),
    });
    b.assign(i, Expr::add(Expr::var(i), Expr::int(1)), None);
    b.goto([header]);
    b.switch_to(exit);
    b.push(Command::Unlock { lock: dev_mutex, mode: LockMode::Exclusive, span: span(15, 2) });
    b.push(Command::TryLock { lock: dev_lock, mode: LockMode::Exclusive, success: ok, span: span(16, 6) });
    let (locked, busy) = b.branch(Expr::var(ok), span(16, 6));
    let join = b.new_block();
    b.switch_to(locked);
    let argument = Expr::mul(Expr::var(i), Expr::sub(Expr::var(i), Expr::int(1)));
    b.push(Command::Call { procedure: dev_helper, args: vec![argument], results: vec![ret], span: span(17, 9) });
    b.push(Command::Unlock { lock: dev_lock, mode: LockMode::Exclusive, span: span(18, 3) });
    b.goto([join]);
    b.switch_to(busy);
    b.push(Command::Havoc { vars: vec![ret, tmp1], span: None });
    b.goto([join]);
    b.switch_to(join);
    let postcondition = Expr::or(Expr::ge(Expr::var(ret), Expr::int(0)), Expr::eq(Expr::var(ret), Expr::int(-1)));
    b.push(Command::Assert { cond: postcondition, check: CheckKind::User, span: span(20, 2) });
    b.ret();
    let dev_read = b.finish();

    let mut b = ProcedureBuilder::new(&mut program, "dev_misc", span(24, 1));
    let dev_misc = b.id();
    let dev = b.add_param("dev", Sort::Int);
    let v = b.add_local("v", Sort::Int, None);
    let taken = b.add_local("taken", Sort::Bool, None);
    let held = b.add_ghost_local("held_cfg_sem", Sort::Bool);
    let misc_entry = b.program().entry_points.push(EntryPointInfo {
        name: "dev_misc".into(),
        procedure: dev_misc,
        kind: EntryKind::Irq,
        span: span(24, 1).unwrap(),
        objects: Vec::new(),
        held_by_object: Vec::new(),
    });
    b.push(Command::InterruptControl { op: IrqOp::Save, span: span(26, 2) });
    b.push(Command::Lock { lock: cfg_sem, mode: LockMode::Shared, span: None });
    b.assign(held, Expr::bool(true), None);
    b.push(Command::Load {
        target: v,
        region: buffer,
        address: Expr::var(dev),
        access: AccessKind::Atomic,
        span: None,
    });
    let address = Expr::sub(Expr::var(dev), Expr::int(-8));
    let value = Expr::neg(Expr::neg(Expr::var(v)));
    b.push(Command::Store { region: stack, address, value, access: AccessKind::Atomic, span: None });
    let address = Expr::var(dev);
    b.push(Command::GhostAccess { region: buffer, address, write: true, entry_point: misc_entry, span: span(27, 2) });
    b.push(Command::LockUnknown { reason: "element of dev->queues[]".into(), span: span(28, 2) });
    b.push(Command::Approximation { kind: ApproxKind::ExternalCall, detail: "printk".into(), span: span(29, 2) });
    b.push(Command::Call {
        procedure: dev_misc,
        args: vec![Expr::sub(Expr::var(dev), Expr::int(1))],
        results: vec![],
        span: None,
    });
    let magnitude = Expr::ite(Expr::gt(Expr::var(v), Expr::int(0)), Expr::var(v), Expr::neg(Expr::var(v)));
    b.assign(v, magnitude, None);
    let p =
        Expr::eq(Expr::sub(Expr::mul(Expr::add(Expr::var(v), Expr::int(1)), Expr::int(2)), Expr::int(3)), Expr::int(4));
    let q = Expr::ne(Expr::rem(Expr::var(v), Expr::int(2)), Expr::int(0));
    b.assume(Expr::implies(Expr::implies(p, q), Expr::bool(true)), None);
    b.push(Command::TryLock { lock: cfg_sem, mode: LockMode::Shared, success: taken, span: None });
    b.push(Command::Unlock { lock: cfg_sem, mode: LockMode::Shared, span: None });
    b.push(Command::InterruptControl { op: IrqOp::Restore, span: None });
    let (zero, nonzero) = b.branch(Expr::eq(Expr::var(v), Expr::int(0)), None);
    b.switch_to(zero);
    b.push(Command::Assert { cond: Expr::bool(false), check: CheckKind::Bound, span: None });
    b.unreachable();
    b.switch_to(nonzero);
    b.ret();
    b.finish();
    Example { program, dev_read, dev_misc, dev_helper, i, ok }
}
