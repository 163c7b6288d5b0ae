//! The values of atomic operations in the lowering
//! (src/frontend/lower/atomics.rs, the `op` of kernel-models/functions/
//! atomics.xml): the shape of a read-modify-write (a `load.atomic` and,
//! adjacent, a `store.atomic` of the same region and address), the exact
//! stored value and result, checked by running the lowered procedure on
//! concrete values, and the fall-back of a bit number that is not a
//! constant. Each on a snippet against the real 6.12 kernel API.

mod lowering_support;

use lowering_support::{Lowering, lower};
use racewatch::ir::{AccessKind, BinaryOp, BlockId, Command, Expr, Terminator, UnaryOp, VarId};
use std::collections::HashMap;

/// The address the tests give the driver's structure.
const BASE: i128 = 4096;

/// Owned strings, for comparing command lists.
fn lines(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// What one run of a procedure did: the atomic accesses, in order, as
/// (`load` or `store`, address, value), and the result (`None` when it
/// is arbitrary: havocked or an uninterpreted function's).
#[derive(Debug, PartialEq, Eq)]
struct Run {
    accesses: Vec<(&'static str, i128, Option<i128>)>,
    result: Option<i128>,
}

/// A value during a run: an integer, a boolean, or arbitrary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Int(i128),
    Bool(bool),
    Arbitrary,
}

fn eval(e: &Expr, env: &HashMap<VarId, Value>) -> Value {
    let int = |v: Value| match v {
        Value::Int(i) => Some(i),
        Value::Bool(_) | Value::Arbitrary => None,
    };
    match e {
        Expr::Int(i) => Value::Int(*i),
        Expr::Bool(b) => Value::Bool(*b),
        Expr::Var(v) => env.get(v).copied().unwrap_or(Value::Arbitrary),
        Expr::Unary(op, a) => match (op, eval(a, env)) {
            (UnaryOp::Neg, Value::Int(i)) => Value::Int(-i),
            (UnaryOp::Not, Value::Bool(b)) => Value::Bool(!b),
            (UnaryOp::Neg | UnaryOp::Not, _) => Value::Arbitrary,
        },
        Expr::Binary(op, a, b) => {
            let (a, b) = (eval(a, env), eval(b, env));
            let bools = |f: fn(bool, bool) -> bool| match (a, b) {
                (Value::Bool(x), Value::Bool(y)) => Value::Bool(f(x, y)),
                _ => Value::Arbitrary,
            };
            let (Some(x), Some(y)) = (int(a), int(b)) else {
                return match op {
                    BinaryOp::And => bools(|x, y| x && y),
                    BinaryOp::Or => bools(|x, y| x || y),
                    BinaryOp::Implies => bools(|x, y| !x || y),
                    BinaryOp::Eq => bools(|x, y| x == y),
                    BinaryOp::Ne => bools(|x, y| x != y),
                    _ => Value::Arbitrary,
                };
            };
            // The IR's `/` and `%` truncate, as Rust's do.
            match op {
                BinaryOp::Add => Value::Int(x + y),
                BinaryOp::Sub => Value::Int(x - y),
                BinaryOp::Mul => Value::Int(x * y),
                BinaryOp::Div => Value::Int(x / y),
                BinaryOp::Rem => Value::Int(x % y),
                BinaryOp::Eq => Value::Bool(x == y),
                BinaryOp::Ne => Value::Bool(x != y),
                BinaryOp::Lt => Value::Bool(x < y),
                BinaryOp::Le => Value::Bool(x <= y),
                BinaryOp::Gt => Value::Bool(x > y),
                BinaryOp::Ge => Value::Bool(x >= y),
                BinaryOp::And | BinaryOp::Or | BinaryOp::Implies => Value::Arbitrary,
            }
        }
        Expr::Ite(c, a, b) => match eval(c, env) {
            Value::Bool(true) => eval(a, env),
            Value::Bool(false) => eval(b, env),
            Value::Int(_) | Value::Arbitrary => Value::Arbitrary,
        },
        Expr::Apply(_, _) => Value::Arbitrary,
    }
}

/// Runs procedure `name` with its one parameter at [`BASE`], every atomic
/// load reading `memory` (plain accesses are not expected). At a branch the
/// first target whose `assume`s hold is taken: the snippets are loop-free
/// and their branches decided by the values.
fn run(l: &Lowering, name: &str, memory: i128) -> Run {
    let program = l.program();
    let procedure = &program.procedures[l.procedure_id(name)];
    let mut env: HashMap<VarId, Value> = procedure.params.iter().map(|p| (*p, Value::Int(BASE))).collect();
    let mut accesses = Vec::new();
    let outcome = walk(l, name, procedure.entry, &mut env, &mut accesses, memory);
    assert!(outcome, "{name} has no feasible path:\n{}", l.procedure(name));
    let result = procedure.returns.first().and_then(|r| match env.get(r) {
        Some(Value::Int(i)) => Some(*i),
        Some(Value::Bool(_) | Value::Arbitrary) | None => None,
    });
    Run { accesses, result }
}

fn walk(l: &Lowering, name: &str, block: BlockId, env: &mut HashMap<VarId, Value>, accesses: &mut Vec<(&'static str, i128, Option<i128>)>, memory: i128) -> bool {
    let procedure = &l.program().procedures[l.procedure_id(name)];
    let address = |e: &Expr, env: &HashMap<VarId, Value>| match eval(e, env) {
        Value::Int(a) => a,
        other => panic!("an arbitrary address {other:?} in {name}"),
    };
    for command in &procedure.blocks[block].commands {
        match command {
            Command::Assign { target, value, .. } => {
                let v = eval(value, env);
                env.insert(*target, v);
            }
            Command::Assume { cond, .. } => match eval(cond, env) {
                Value::Bool(true) => {}
                Value::Bool(false) => return false,
                other => panic!("an undecided assume ({other:?}) in {name}:\n{}", l.procedure(name)),
            },
            Command::Havoc { vars, .. } => {
                for v in vars {
                    env.insert(*v, Value::Arbitrary);
                }
            }
            Command::Load { target, address: a, access, .. } => {
                assert_eq!(*access, AccessKind::Atomic, "{name}: a plain load");
                accesses.push(("load", address(a, env), Some(memory)));
                env.insert(*target, Value::Int(memory));
            }
            Command::Store { address: a, value, access, .. } => {
                assert_eq!(*access, AccessKind::Atomic, "{name}: a plain store");
                let stored = match eval(value, env) {
                    Value::Int(i) => Some(i),
                    Value::Bool(_) | Value::Arbitrary => None,
                };
                accesses.push(("store", address(a, env), stored));
            }
            // Values handed to a call that may keep them: no effect here.
            Command::Keep { .. } => {}
            other => panic!("{name}: unexpected command {other:?}"),
        }
    }
    match &procedure.blocks[block].terminator {
        Terminator::Return => true,
        Terminator::Unreachable => false,
        Terminator::Goto(targets) => targets.iter().any(|t| {
            let (mut env2, mut accesses2) = (env.clone(), accesses.clone());
            let feasible = walk(l, name, *t, &mut env2, &mut accesses2, memory);
            if feasible {
                *env = env2;
                *accesses = accesses2;
            }
            feasible
        }),
    }
}

/// Word values that exercise the bit arithmetic: zero, single bits, all
/// ones, a negative `long` (two's complement) and the top bit.
const WORDS: &[i128] = &[0, 1, 2, 5, 0x40, 0x8000_0000, -1, -6, i64::MIN as i128, u64::MAX as i128, (1 << 63) | 0x41];

/// The model-free meaning of bit `k` of `word`, two's complement.
fn bit(word: i128, k: u32) -> i128 {
    (word >> k) & 1
}

/// `test_and_set_bit(0, &d->busy)` is exactly a load of the word, then,
/// with nothing between them, a store of it with bit 0 set; the result is
/// the old bit. The single-open idiom branches on it.
#[test]
fn test_and_set_bit_with_a_constant_bit_is_an_adjacent_exact_pair() {
    let l = lower(
        "test-and-set-bit",
        r#"
#include <linux/bitops.h>
struct dev { unsigned long busy; };
int open_once(struct dev *d) { return test_and_set_bit(0, &d->busy); }
"#,
    );
    let bit0 = "(if tmp.1 % 2 < 0 then tmp.1 % 2 + 2 else tmp.1 % 2) >= 1";
    assert_eq!(
        l.commands("open_once"),
        lines(&[
            "d.2 := d.1;",
            r#"tmp.1 := load.atomic "struct dev.busy"[d.2];"#,
            &format!(r#"store.atomic "struct dev.busy"[d.2] := if {bit0} then tmp.1 else tmp.1 + 1;"#),
            // Nothing clears the bit without holding it, so it is also the
            // bit lock's trylock (kernel-models/locks/bitlock.xml).
            r#"cond := trylock "bit 0 of struct dev.busy";"#,
            &format!("assume cond == ((if {bit0} then 1 else 0) == 0);"),
            "tmp.2 := if cond then 0 else 1;",
            "result := if -2147483648 <= tmp.2 && tmp.2 <= 2147483647 then tmp.2 else wrap_s32(tmp.2);",
        ]),
        "{}",
        l.procedure("open_once")
    );
    // The one note says why the bit is a lock.
    let warnings = l.warnings();
    assert!(warnings.len() == 1 && warnings[0].starts_with("[bit-lock] bit 0 of struct dev.busy is a bit lock"), "{warnings:?}");
}

/// Setting, clearing, flipping and testing bits with constant numbers, on
/// any word (negative ones too): the word at `addr + (nr / 64) * 8`, bit
/// `nr % 64`, exactly as the kernel's `unsigned long` arithmetic.
#[test]
fn bit_operations_with_constant_bits_are_exact_on_every_word() {
    let l = lower(
        "bit-operations",
        r#"
#include <linux/bitops.h>
struct dev { unsigned long map[4]; };
int tas(struct dev *d) { return test_and_set_bit(5, d->map); }
int tac(struct dev *d) { return test_and_clear_bit(63, d->map); }
int tach(struct dev *d) { return test_and_change_bit(130, d->map); }
void set(struct dev *d) { set_bit(64, d->map); }
void clear(struct dev *d) { clear_bit(0, d->map); }
void unlock(struct dev *d) { clear_bit_unlock(7, d->map); }
void change(struct dev *d) { change_bit(191, d->map); }
int test(struct dev *d) { return test_bit(66, d->map); }
"#,
    );
    for &word in WORDS {
        let rmw = |nr: u32, new: i128, result: Option<i128>| {
            let at = BASE + (nr as i128 / 64) * 8;
            Run { accesses: vec![("load", at, Some(word)), ("store", at, Some(new))], result }
        };
        let w = |k: u32| 1i128 << k;
        assert_eq!(run(&l, "tas", word), rmw(5, word | w(5), Some(bit(word, 5))), "test_and_set_bit(5) on {word:#x}");
        assert_eq!(run(&l, "tac", word), rmw(63, word & !w(63), Some(bit(word, 63))), "test_and_clear_bit(63) on {word:#x}");
        assert_eq!(run(&l, "tach", word), rmw(130, word ^ w(2), Some(bit(word, 2))), "test_and_change_bit(130) on {word:#x}");
        assert_eq!(run(&l, "set", word).accesses, rmw(64, word | w(0), None).accesses, "set_bit(64) on {word:#x}");
        assert_eq!(run(&l, "clear", word).accesses, rmw(0, word & !w(0), None).accesses, "clear_bit(0) on {word:#x}");
        assert_eq!(run(&l, "unlock", word).accesses, rmw(7, word & !w(7), None).accesses, "clear_bit_unlock(7) on {word:#x}");
        assert_eq!(run(&l, "change", word).accesses, rmw(191, word ^ w(63), None).accesses, "change_bit(191) on {word:#x}");
        let test = run(&l, "test", word);
        assert!(test.accesses.iter().all(|a| *a == ("load", BASE + 8, Some(word))), "test_bit(66) loads word 1 only: {test:?}");
        assert_eq!(test.result, Some(bit(word, 2)), "test_bit(66) on {word:#x}");
    }
}

/// A bit number that is not a constant falls back to the effects alone, as
/// without `op`: a load and a store of arbitrary words of the bitmap, an
/// arbitrary value stored and an arbitrary result.
#[test]
fn a_variable_bit_number_falls_back_to_arbitrary_values() {
    let l = lower(
        "variable-bit",
        r#"
#include <linux/bitops.h>
struct dev { unsigned long busy; };
int claim(struct dev *d, int nr) { return test_and_set_bit(nr, &d->busy); }
"#,
    );
    assert_eq!(
        l.commands("claim"),
        lines(&[
            "d.2 := d.1;",
            "nr.2 := nr.1;",
            // The variable bit number is an argument the call may keep.
            "keep nr.2;",
            "havoc tmp.1;",
            "assume tmp.1 >= d.2;",
            r#"tmp.2 := load.atomic "struct dev.busy"[tmp.1];"#,
            "havoc tmp.3;",
            "assume tmp.3 >= d.2;",
            "havoc tmp.4;",
            r#"store.atomic "struct dev.busy"[tmp.3] := tmp.4;"#,
            "havoc tmp.5;",
            "result := if -2147483648 <= tmp.5 && tmp.5 <= 2147483647 then tmp.5 else wrap_s32(tmp.5);",
        ]),
        "{}",
        l.procedure("claim")
    );
}

/// `atomic_cmpxchg(v, old, new)` stores `new` when the counter holds `old`
/// and the counter itself otherwise, and returns what it held;
/// `atomic_xchg` stores its operand and returns what the counter held.
#[test]
fn cmpxchg_and_xchg_are_exact() {
    let l = lower(
        "cmpxchg",
        r#"
#include <linux/atomic.h>
struct dev { int other; atomic_t state; };
int claim(struct dev *d) { return atomic_cmpxchg(&d->state, 0, 1); }
int swap(struct dev *d) { return atomic_xchg(&d->state, 7); }
"#,
    );
    assert_eq!(
        l.commands("claim")[1..3],
        lines(&[
            r#"tmp := load.atomic "struct atomic_t.counter"[d.2 + 4];"#,
            r#"store.atomic "struct atomic_t.counter"[d.2 + 4] := if tmp == 0 then 1 else tmp;"#,
        ])
    );
    let at = BASE + 4;
    for (held, stored) in [(0, 1), (1, 1), (-3, -3), (42, 42)] {
        assert_eq!(run(&l, "claim", held), Run { accesses: vec![("load", at, Some(held)), ("store", at, Some(stored))], result: Some(held) });
        assert_eq!(run(&l, "swap", held), Run { accesses: vec![("load", at, Some(held)), ("store", at, Some(7))], result: Some(held) });
    }
}

/// The counter operations: the arithmetic wraps into the counter's type as
/// C's does (an arbitrary value outside it), the `_return` forms return the
/// new value, the `fetch_` forms the old one, `_and_test` whether the new
/// value is 0, `add_negative` whether it is negative; `atomic_set` stores
/// without loading and `atomic_read` loads without storing. Note the
/// argument orders: `atomic_add(i, v)` takes the counter second.
#[test]
fn counter_operations_are_exact_inside_the_type() {
    let l = lower(
        "counters",
        r#"
#include <linux/atomic.h>
struct dev { atomic_t users; atomic64_t bytes; atomic_long_t n; };
int dec_and_test(struct dev *d) { return atomic_dec_and_test(&d->users); }
int inc_return(struct dev *d) { return atomic_inc_return(&d->users); }
int add_return(struct dev *d) { return atomic_add_return(3, &d->users); }
int fetch_sub(struct dev *d) { return atomic_fetch_sub(2, &d->users); }
int sub_and_test(struct dev *d) { return atomic_sub_and_test(2, &d->users); }
int add_negative(struct dev *d) { return atomic_add_negative(-4, &d->users); }
void set(struct dev *d) { atomic_set(&d->users, 9); }
int read(struct dev *d) { return atomic_read(&d->users); }
long long add64(struct dev *d) { return atomic64_add_return(5, &d->bytes); }
long inc_long(struct dev *d) { return atomic_long_inc_return(&d->n); }
"#,
    );
    let rmw = |at: i128, old: i128, new: Option<i128>, result: Option<i128>| Run {
        accesses: vec![("load", BASE + at, Some(old)), ("store", BASE + at, new)],
        result,
    };
    assert_eq!(run(&l, "dec_and_test", 1), rmw(0, 1, Some(0), Some(1)));
    assert_eq!(run(&l, "dec_and_test", 5), rmw(0, 5, Some(4), Some(0)));
    assert_eq!(run(&l, "dec_and_test", i32::MIN as i128), rmw(0, i32::MIN as i128, None, None), "wraps: arbitrary");
    assert_eq!(run(&l, "inc_return", 0), rmw(0, 0, Some(1), Some(1)));
    assert_eq!(run(&l, "inc_return", i32::MAX as i128), rmw(0, i32::MAX as i128, None, None), "wraps: arbitrary");
    assert_eq!(run(&l, "add_return", 4), rmw(0, 4, Some(7), Some(7)));
    assert_eq!(run(&l, "fetch_sub", 4), rmw(0, 4, Some(2), Some(4)));
    assert_eq!(run(&l, "sub_and_test", 2), rmw(0, 2, Some(0), Some(1)));
    assert_eq!(run(&l, "sub_and_test", 3), rmw(0, 3, Some(1), Some(0)));
    assert_eq!(run(&l, "add_negative", 3), rmw(0, 3, Some(-1), Some(1)));
    assert_eq!(run(&l, "add_negative", 4), rmw(0, 4, Some(0), Some(0)));
    assert_eq!(run(&l, "set", 0), Run { accesses: vec![("store", BASE, Some(9))], result: None });
    assert_eq!(run(&l, "read", 6), Run { accesses: vec![("load", BASE, Some(6))], result: Some(6) });
    let big = i32::MAX as i128;
    assert_eq!(run(&l, "add64", big), rmw(8, big, Some(big + 5), Some(big + 5)), "atomic64_t is 64 bits wide");
    assert_eq!(run(&l, "inc_long", -1), rmw(16, -1, Some(0), Some(0)));
}

/// `atomic_inc_return(&users) != 1` then `atomic_dec(&users)`: the
/// single-user idiom takes its early return exactly when the counter was
/// not 0, and undoes its increment there.
#[test]
fn the_single_user_idiom_branches_on_the_exact_value() {
    let l = lower(
        "single-user",
        r#"
#include <linux/atomic.h>
#include <linux/errno.h>
struct dev { atomic_t users; };
int open_dev(struct dev *d)
{
	if (atomic_inc_return(&d->users) != 1) {
		atomic_dec(&d->users);
		return -EBUSY;
	}
	return 0;
}
"#,
    );
    assert_eq!(run(&l, "open_dev", 0), Run { accesses: vec![("load", BASE, Some(0)), ("store", BASE, Some(1))], result: Some(0) });
    let busy = run(&l, "open_dev", 1);
    assert_eq!(busy.result, Some(-16));
    assert_eq!(busy.accesses[..2], [("load", BASE, Some(1)), ("store", BASE, Some(2))]);
    // The test's memory answers every load with the same value: what
    // matters is that the decrement stores one less than it loads.
    assert_eq!(busy.accesses[2..], [("load", BASE, Some(1)), ("store", BASE, Some(0))]);
}

/// Every value-carrying operation keeps the accesses of its model: the
/// same kinds, regions and spans as an atomic without `op` would give, and
/// each modifying one is a load immediately followed by a store to the
/// same region and address.
#[test]
fn loads_and_stores_are_adjacent_and_keep_their_regions() {
    let l = lower(
        "adjacent",
        r#"
#include <linux/atomic.h>
#include <linux/bitops.h>
struct dev { unsigned long flags; atomic_t users; };
int all(struct dev *d)
{
	int r = atomic_inc_return(&d->users);
	if (test_and_clear_bit(2, &d->flags))
		r += atomic_xchg(&d->users, 0);
	set_bit(1, &d->flags);
	atomic_sub(2, &d->users);
	return r + atomic_read(&d->users);
}
"#,
    );
    let program = l.program();
    let procedure = &program.procedures[l.procedure_id("all")];
    let mut pairs = 0;
    for block in procedure.blocks.values() {
        for (i, command) in block.commands.iter().enumerate() {
            if let Command::Store { region, address, access: AccessKind::Atomic, span, .. } = command {
                match i.checked_sub(1).map(|j| &block.commands[j]) {
                    Some(Command::Load { region: r, address: a, access: AccessKind::Atomic, span: s, .. }) => {
                        assert_eq!((r, a, s), (region, address, span), "{}", l.procedure("all"));
                        pairs += 1;
                    }
                    other => panic!("a store.atomic not right after its load.atomic: {other:?}\n{}", l.procedure("all")),
                }
            }
        }
    }
    assert_eq!(pairs, 5, "{}", l.procedure("all"));
    assert_eq!(
        l.accesses("all").iter().map(|(k, r)| format!("{k} {r}")).collect::<Vec<_>>(),
        lines(&[
            "load.atomic struct atomic_t.counter",
            "store.atomic struct atomic_t.counter",
            "load.atomic struct dev.flags",
            "store.atomic struct dev.flags",
            "load.atomic struct atomic_t.counter",
            "store.atomic struct atomic_t.counter",
            "load.atomic struct dev.flags",
            "store.atomic struct dev.flags",
            "load.atomic struct atomic_t.counter",
            "store.atomic struct atomic_t.counter",
            "load.atomic struct atomic_t.counter",
        ])
    );
}
