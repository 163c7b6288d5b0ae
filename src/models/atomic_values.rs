//! The values of atomic operations: what an `<atomic>` access of a function
//! model stores and what the function returns, for the checkers that
//! execute the IR with real memory (the lockset phase needs only the
//! accesses themselves).
//!
//! The schema adds optional attributes to `<atomic>`:
//!
//! ```xml
//! <function name="atomic_read" reason="…"><atomic arg="0" access="read" op="load" returns="old"/></function>
//! <function name="atomic_set" reason="…"><atomic arg="0" access="write" op="store" value-arg="1" returns="none"/></function>
//! <function name="atomic_add_return" reason="…"><atomic arg="1" access="rmw" op="add" value-arg="0" returns="new"/></function>
//! <function name="atomic_dec_and_test" reason="…"><atomic arg="0" access="rmw" op="dec" returns="new-is-zero"/></function>
//! <function name="atomic_cmpxchg" reason="…"><atomic arg="0" access="rmw" op="cmpxchg" expected-arg="1" value-arg="2" returns="old"/></function>
//! <function name="test_and_set_bit" reason="…"><atomic arg="1" access="rmw" extent="unbounded" op="set-bit" bit-arg="0" returns="old-bit"/></function>
//! ```
//!
//! `op` names what is stored, as a function of the value `old` the
//! operation loads from the counter (or bitmap word) and of its operands,
//! which are other arguments of the call; `returns` names what the call
//! returns. The two are independent: `test_and_set_bit` is `op="set-bit"`
//! with `returns="old-bit"`, `set_bit` the same op with `returns="none"`.
//! The ops, with the operand attributes each requires (0-based argument
//! indices, never the counter's own `arg`) and the `access` each implies:
//!
//! | `op` | operands | access | stores |
//! | --- | --- | --- | --- |
//! | `load` | | `read` | nothing |
//! | `store` | `value-arg` | `write` | `value` (nothing is loaded) |
//! | `add`, `sub` | `value-arg` | `rmw` | `old + value`, `old - value` |
//! | `inc`, `dec` | | `rmw` | `old + 1`, `old - 1` |
//! | `xchg` | `value-arg` | `rmw` | `value` |
//! | `cmpxchg` | `expected-arg`, `value-arg` | `rmw` | `value` if `old == expected`, else `old` |
//! | `set-bit`, `clear-bit`, `change-bit` | `bit-arg` | `rmw` | `old` with bit `nr` set, cleared, flipped |
//! | `test-bit` | `bit-arg` | `read` | nothing |
//!
//! The results: `none` (the function returns `void`), `old`, `new` (what
//! was stored), `new-is-zero` and `new-is-negative` (1 or 0), `old-bit`
//! (bit `nr` of `old`, 1 or 0). Each op allows only the results that mean
//! something for it ([`AtomicOp::allows`]). The exact arithmetic (the
//! counter's C type wraps; a bit number picks a 64-bit word) is the
//! lowering's (src/frontend/lower/atomics.rs), documented in
//! docs/kernel-models.md.

use super::choice;
use super::functions::AtomicAccess;

/// How a bit operation changes the bit it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitUpdate {
    /// It only reads the bit (`test_bit`).
    Keep,
    /// It sets the bit to 1.
    Set,
    /// It sets the bit to 0.
    Clear,
    /// It flips the bit.
    Change,
}

/// What an atomic operation stores, as a function of the value it loads
/// and of its operands (argument indices of the call).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// Loads the counter and stores nothing.
    Load,
    /// Stores the operand without loading.
    Store {
        /// The argument holding the value stored.
        value_arg: usize,
    },
    /// Stores `old + value`.
    Add {
        /// The argument holding the addend.
        value_arg: usize,
    },
    /// Stores `old - value`.
    Sub {
        /// The argument holding the subtrahend.
        value_arg: usize,
    },
    /// Stores `old + 1`.
    Inc,
    /// Stores `old - 1`.
    Dec,
    /// Stores the operand (and the call usually returns `old`).
    Xchg {
        /// The argument holding the value stored.
        value_arg: usize,
    },
    /// Stores the operand if `old` equals the expected value, else `old`.
    Cmpxchg {
        /// The argument holding the value compared with `old`.
        expected_arg: usize,
        /// The argument holding the value stored when they are equal.
        value_arg: usize,
    },
    /// Reads, and possibly changes, one bit of a bitmap word.
    Bit {
        /// The argument holding the bit number, counted from bit 0 of the
        /// word the pointer argument points to.
        bit_arg: usize,
        /// What happens to the bit.
        update: BitUpdate,
    },
}

impl AtomicOp {
    /// The access the op performs: a load, a store, or both.
    pub fn access(self) -> AtomicAccess {
        match self {
            AtomicOp::Load | AtomicOp::Bit { update: BitUpdate::Keep, .. } => AtomicAccess::Read,
            AtomicOp::Store { .. } => AtomicAccess::Write,
            AtomicOp::Add { .. }
            | AtomicOp::Sub { .. }
            | AtomicOp::Inc
            | AtomicOp::Dec
            | AtomicOp::Xchg { .. }
            | AtomicOp::Cmpxchg { .. }
            | AtomicOp::Bit { update: BitUpdate::Set | BitUpdate::Clear | BitUpdate::Change, .. } => AtomicAccess::Rmw,
        }
    }

    /// Whether a call of this op can return `result`.
    pub fn allows(self, result: AtomicResult) -> bool {
        match (self, result) {
            (AtomicOp::Load, AtomicResult::Old) => true,
            (AtomicOp::Load, AtomicResult::None | AtomicResult::New | AtomicResult::NewIsZero | AtomicResult::NewIsNegative | AtomicResult::OldBit) => false,
            (AtomicOp::Store { .. }, AtomicResult::None) => true,
            (AtomicOp::Store { .. }, AtomicResult::Old | AtomicResult::New | AtomicResult::NewIsZero | AtomicResult::NewIsNegative | AtomicResult::OldBit) => false,
            (
                AtomicOp::Add { .. } | AtomicOp::Sub { .. } | AtomicOp::Inc | AtomicOp::Dec,
                AtomicResult::None | AtomicResult::Old | AtomicResult::New | AtomicResult::NewIsZero | AtomicResult::NewIsNegative,
            ) => true,
            (AtomicOp::Add { .. } | AtomicOp::Sub { .. } | AtomicOp::Inc | AtomicOp::Dec, AtomicResult::OldBit) => false,
            (AtomicOp::Xchg { .. } | AtomicOp::Cmpxchg { .. }, AtomicResult::None | AtomicResult::Old) => true,
            (
                AtomicOp::Xchg { .. } | AtomicOp::Cmpxchg { .. },
                AtomicResult::New | AtomicResult::NewIsZero | AtomicResult::NewIsNegative | AtomicResult::OldBit,
            ) => false,
            (AtomicOp::Bit { update: BitUpdate::Keep, .. }, AtomicResult::OldBit) => true,
            (
                AtomicOp::Bit { update: BitUpdate::Keep, .. },
                AtomicResult::None | AtomicResult::Old | AtomicResult::New | AtomicResult::NewIsZero | AtomicResult::NewIsNegative,
            ) => false,
            (AtomicOp::Bit { update: BitUpdate::Set | BitUpdate::Clear | BitUpdate::Change, .. }, AtomicResult::None | AtomicResult::OldBit) => true,
            (
                AtomicOp::Bit { update: BitUpdate::Set | BitUpdate::Clear | BitUpdate::Change, .. },
                AtomicResult::Old | AtomicResult::New | AtomicResult::NewIsZero | AtomicResult::NewIsNegative,
            ) => false,
        }
    }

    /// The operand attributes `value-arg`, `expected-arg` and `bit-arg`, in
    /// that order, with the argument each names if the op takes it.
    fn operand_attributes(self) -> [(&'static str, Option<usize>); 3] {
        let (value, expected, bit) = match self {
            AtomicOp::Load | AtomicOp::Inc | AtomicOp::Dec => (None, None, None),
            AtomicOp::Store { value_arg } | AtomicOp::Add { value_arg } | AtomicOp::Sub { value_arg } | AtomicOp::Xchg { value_arg } => {
                (Some(value_arg), None, None)
            }
            AtomicOp::Cmpxchg { expected_arg, value_arg } => (Some(value_arg), Some(expected_arg), None),
            AtomicOp::Bit { bit_arg, .. } => (None, None, Some(bit_arg)),
        };
        [("value-arg", value), ("expected-arg", expected), ("bit-arg", bit)]
    }
}

/// What a call of an atomic operation returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicResult {
    /// Nothing: the function returns `void`.
    None,
    /// The value loaded.
    Old,
    /// The value stored.
    New,
    /// 1 if the value stored is 0, else 0 (`atomic_dec_and_test`).
    NewIsZero,
    /// 1 if the value stored is negative, else 0 (`atomic_add_negative`).
    NewIsNegative,
    /// Bit `nr` of the value loaded, 1 or 0 (`test_and_set_bit`, `test_bit`).
    OldBit,
}

/// The value semantics of one atomic access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomicValue {
    /// What it stores.
    pub op: AtomicOp,
    /// What the call returns.
    pub returns: AtomicResult,
}

/// The value attributes of an `<atomic>` as written.
pub(super) struct WrittenValue<'a> {
    pub op: Option<&'a str>,
    pub returns: Option<&'a str>,
    pub value_arg: Option<usize>,
    pub expected_arg: Option<usize>,
    pub bit_arg: Option<usize>,
}

/// The spellings of `op`, without their operands.
#[derive(Clone, Copy)]
enum OpName {
    Load,
    Store,
    Add,
    Sub,
    Inc,
    Dec,
    Xchg,
    Cmpxchg,
    Bit(BitUpdate),
}

const OPS: &[(&str, OpName)] = &[
    ("load", OpName::Load),
    ("store", OpName::Store),
    ("add", OpName::Add),
    ("sub", OpName::Sub),
    ("inc", OpName::Inc),
    ("dec", OpName::Dec),
    ("xchg", OpName::Xchg),
    ("cmpxchg", OpName::Cmpxchg),
    ("set-bit", OpName::Bit(BitUpdate::Set)),
    ("clear-bit", OpName::Bit(BitUpdate::Clear)),
    ("change-bit", OpName::Bit(BitUpdate::Change)),
    ("test-bit", OpName::Bit(BitUpdate::Keep)),
];

const RESULTS: &[(&str, AtomicResult)] = &[
    ("none", AtomicResult::None),
    ("old", AtomicResult::Old),
    ("new", AtomicResult::New),
    ("new-is-zero", AtomicResult::NewIsZero),
    ("new-is-negative", AtomicResult::NewIsNegative),
    ("old-bit", AtomicResult::OldBit),
];

/// Checks and converts the value attributes of one `<atomic arg="…">`
/// whose access is `access`: none of them, or `op` and `returns` with
/// exactly the operands the op takes.
pub(super) fn atomic_value(context: &str, arg: usize, access: AtomicAccess, w: &WrittenValue<'_>) -> Result<Option<AtomicValue>, String> {
    let Some(op) = w.op else {
        let given = [("returns", w.returns.is_some()), ("value-arg", w.value_arg.is_some()), ("expected-arg", w.expected_arg.is_some()), ("bit-arg", w.bit_arg.is_some())];
        return match given.iter().find(|(_, present)| *present) {
            Some((attribute, _)) => Err(format!("{context}: {attribute} is only for an atomic with op")),
            None => Ok(None),
        };
    };
    let name = choice(context, "op", op, OPS)?;
    let required = |attribute: &str, value: Option<usize>| value.ok_or_else(|| format!("{context}: op=\"{op}\" needs {attribute}"));
    let op_value = match name {
        OpName::Load => AtomicOp::Load,
        OpName::Inc => AtomicOp::Inc,
        OpName::Dec => AtomicOp::Dec,
        OpName::Store => AtomicOp::Store { value_arg: required("value-arg", w.value_arg)? },
        OpName::Add => AtomicOp::Add { value_arg: required("value-arg", w.value_arg)? },
        OpName::Sub => AtomicOp::Sub { value_arg: required("value-arg", w.value_arg)? },
        OpName::Xchg => AtomicOp::Xchg { value_arg: required("value-arg", w.value_arg)? },
        OpName::Cmpxchg => {
            AtomicOp::Cmpxchg { expected_arg: required("expected-arg", w.expected_arg)?, value_arg: required("value-arg", w.value_arg)? }
        }
        OpName::Bit(update) => AtomicOp::Bit { bit_arg: required("bit-arg", w.bit_arg)?, update },
    };
    let written = [w.value_arg, w.expected_arg, w.bit_arg];
    for ((attribute, taken), given) in op_value.operand_attributes().into_iter().zip(written) {
        match (taken, given) {
            (None, Some(_)) => return Err(format!("{context}: op=\"{op}\" takes no {attribute}")),
            (Some(operand), _) if operand == arg => {
                return Err(format!("{context}: {attribute} {operand} is the counter argument itself"));
            }
            (Some(_), _) | (None, None) => {}
        }
    }
    if op_value.access() != access {
        let implied = match op_value.access() {
            AtomicAccess::Read => "read",
            AtomicAccess::Write => "write",
            AtomicAccess::Rmw => "rmw",
        };
        return Err(format!("{context}: op=\"{op}\" is an access=\"{implied}\""));
    }
    let Some(written_result) = w.returns else { return Err(format!("{context}: op=\"{op}\" needs returns")) };
    let returns = choice(context, "returns", written_result, RESULTS)?;
    if !op_value.allows(returns) {
        let allowed: Vec<&str> = RESULTS.iter().filter(|(_, r)| op_value.allows(*r)).map(|(s, _)| *s).collect();
        return Err(format!("{context}: op=\"{op}\" cannot return `{written_result}` (it returns {})", allowed.join(" or ")));
    }
    Ok(Some(AtomicValue { op: op_value, returns }))
}

#[cfg(test)]
mod tests {
    use super::super::{KernelModels, ModelError, ReturnModel};
    use super::*;
    use std::path::PathBuf;

    fn load(rules: &str) -> Result<KernelModels, ModelError> {
        let xml = format!(r#"<kernel-model kernel="6.12">{rules}</kernel-model>"#);
        KernelModels::from_files(&[(PathBuf::from("atomics.xml"), xml)])
    }

    fn value_of(rules: &str) -> AtomicValue {
        let m = load(rules).unwrap_or_else(|e| panic!("{rules}: {e}"));
        let f = m.functions.values().next().expect("one function");
        assert_eq!(f.returns, ReturnModel::Atomic, "the atomic's result is the call's");
        f.atomics[0].value.expect("an op")
    }

    fn rejected(rules: &str, expected: &str) {
        let e = load(rules).expect_err(rules);
        assert!(e.message.contains(expected), "expected `{expected}` in: {}", e.message);
    }

    #[test]
    fn ops_with_their_operands_and_results() {
        let cmpxchg = value_of(
            r#"<function name="atomic_cmpxchg" reason="r"><atomic arg="0" access="rmw" op="cmpxchg" expected-arg="1" value-arg="2" returns="old"/></function>"#,
        );
        assert_eq!(cmpxchg, AtomicValue { op: AtomicOp::Cmpxchg { expected_arg: 1, value_arg: 2 }, returns: AtomicResult::Old });
        let add = value_of(r#"<function name="atomic_add_negative" reason="r"><atomic arg="1" access="rmw" op="add" value-arg="0" returns="new-is-negative"/></function>"#);
        assert_eq!(add, AtomicValue { op: AtomicOp::Add { value_arg: 0 }, returns: AtomicResult::NewIsNegative });
        let test_and_set = value_of(
            r#"<function name="test_and_set_bit" reason="r"><atomic arg="1" access="rmw" extent="unbounded" op="set-bit" bit-arg="0" returns="old-bit"/></function>"#,
        );
        assert_eq!(test_and_set, AtomicValue { op: AtomicOp::Bit { bit_arg: 0, update: BitUpdate::Set }, returns: AtomicResult::OldBit });
        let test = value_of(r#"<function name="_test_bit" reason="r"><atomic arg="1" access="read" op="test-bit" bit-arg="0" returns="old-bit"/></function>"#);
        assert_eq!(test.op, AtomicOp::Bit { bit_arg: 0, update: BitUpdate::Keep });
        let set = value_of(r#"<function name="atomic_set" reason="r"><atomic arg="0" access="write" op="store" value-arg="1" returns="none"/></function>"#);
        assert_eq!(set, AtomicValue { op: AtomicOp::Store { value_arg: 1 }, returns: AtomicResult::None });
    }

    #[test]
    fn an_atomic_without_op_keeps_the_havoc_result() {
        let m = load(r#"<function name="atomic_or" reason="r"><atomic arg="1" access="rmw"/></function>"#).unwrap();
        assert_eq!(m.functions["atomic_or"].atomics[0].value, None);
        assert_eq!(m.functions["atomic_or"].returns, ReturnModel::Havoc);
    }

    #[test]
    fn values_are_checked() {
        let f = |atomic: &str| format!(r#"<function name="f" reason="r">{atomic}</function>"#);
        rejected(&f(r#"<atomic arg="0" access="rmw" op="inc-not-zero" returns="old"/>"#), "unknown op `inc-not-zero` (expected one of load, store,");
        rejected(&f(r#"<atomic arg="0" access="rmw" op="inc" returns="true"/>"#), "unknown returns `true`");
        rejected(&f(r#"<atomic arg="0" access="rmw" op="inc"/>"#), "op=\"inc\" needs returns");
        rejected(&f(r#"<atomic arg="0" access="rmw" returns="old"/>"#), "returns is only for an atomic with op");
        rejected(&f(r#"<atomic arg="1" access="rmw" bit-arg="0"/>"#), "bit-arg is only for an atomic with op");
        rejected(&f(r#"<atomic arg="1" access="rmw" op="add" returns="new"/>"#), "op=\"add\" needs value-arg");
        rejected(&f(r#"<atomic arg="0" access="rmw" op="inc" value-arg="1" returns="new"/>"#), "op=\"inc\" takes no value-arg");
        rejected(&f(r#"<atomic arg="0" access="rmw" op="cmpxchg" value-arg="2" returns="old"/>"#), "needs expected-arg");
        rejected(&f(r#"<atomic arg="0" access="rmw" op="add" value-arg="0" returns="new"/>"#), "value-arg 0 is the counter argument itself");
        rejected(&f(r#"<atomic arg="0" access="read" op="inc" returns="new"/>"#), "op=\"inc\" is an access=\"rmw\"");
        rejected(&f(r#"<atomic arg="0" access="rmw" op="load" returns="old"/>"#), "op=\"load\" is an access=\"read\"");
        rejected(&f(r#"<atomic arg="1" access="rmw" op="set-bit" bit-arg="0" returns="new"/>"#), "cannot return `new` (it returns none or old-bit)");
        rejected(&f(r#"<atomic arg="0" access="write" op="store" value-arg="1" returns="old"/>"#), "cannot return `old`");
        rejected(&f(r#"<atomic arg="0" access="rmw" op="inc" returns="new"/><returns kind="havoc"/>"#), "exclude each other");
        rejected(
            &f(r#"<atomic arg="0" access="rmw" op="inc" returns="new"/><atomic arg="1" access="rmw" op="dec" returns="new"/>"#),
            "2 <atomic> elements have an op",
        );
        rejected(&f(r#"<atomic arg="0" access="rmw" op="inc" returns="new" operand="1"/>"#), "operand");
    }
}
