//! The values of modelled atomic operations: a function model's `<atomic>`
//! with an `op` (src/models/atomic_values.rs) lowers to the exact value it
//! stores and the exact result of the call, for the checkers that execute
//! the IR with real memory.
//!
//! **The shape.** For a counter (or bitmap word) in region `R` at address
//! `a`, an operation that loads and stores becomes exactly
//!
//! ```text
//! old := load.atomic R[a];
//! store.atomic R[a] := f(old, operands);
//! ```
//!
//! as two ADJACENT commands of one block, the load first, with nothing
//! between them, the same region and the same address expression. That
//! adjacency is the invariant a precise checker relies on to execute the
//! pair as one indivisible read-modify-write. A `load` or `test-bit` is the
//! load alone, a `store` the store alone. The call's result is an
//! expression over `old` and the operands, built without any command. The
//! operands are the call's arguments, evaluated (with their own accesses)
//! before the load.
//!
//! **The arithmetic.** IR integers are unbounded. A counter's new value is
//! wrapped into its C type's range as every C arithmetic result is
//! ([`FnLower::wrapped`]): exact inside it, an uninterpreted `wrap_X`
//! value outside. A bit operation with a constant bit number `nr` works on
//! the 64-bit word at `a + (nr / 64) * 8` (BITS_PER_LONG is 64 on x86_64)
//! and its bit `k = nr % 64`, with linear arithmetic only: the low `k + 1`
//! bits `low = ite(old % 2^(k+1) < 0, old % 2^(k+1) + 2^(k+1), old % 2^(k+1))`
//! (the remainder of a floored division, so a negative `old` is read as
//! two's complement), the bit is set when `low >= 2^k`, setting it adds
//! `2^k`, clearing it subtracts `2^k`.
//!
//! **The fall-back.** A bit number that is not an integer literal after
//! evaluation, a pointer argument that is NULL, a pointee that is not one
//! integer scalar (a record with one scalar field, `atomic_t`'s `counter`,
//! counts as that field), or a bit operation on a word that is not 8 bytes
//! get today's effects instead: the accesses of the model's `access` and
//! `extent`, a stored value and a result that are arbitrary (an
//! over-approximation, docs/soundness.md).

use super::context::FnLower;
use super::layout::{self, Shape};
use super::place::{Object, Owner, Place, add_offset};
use super::regions::RegionKey;
use crate::diagnostics::Span;
use crate::frontend::clang::{Cursor, Type};
use crate::ir::{AccessKind, Command, Expr};
use crate::models::{AtomicAccess, AtomicEffect, AtomicOp, AtomicResult, AtomicValue, BitUpdate};

/// The bits of an `unsigned long`, a bitmap's word, on x86_64.
const BITS_PER_LONG: i128 = 64;

/// The bytes of an `unsigned long` on x86_64.
const BYTES_PER_LONG: i128 = 8;

/// The one integer scalar an atomic operation works on.
struct Counter<'t> {
    /// Its region key.
    key: RegionKey,
    /// Its address.
    address: Expr,
    /// Its C type, which decides the wrapping of its arithmetic.
    ty: Type<'t>,
}

/// Where a constant bit number lands: the word's byte offset from the
/// bitmap's address and the bit within that word.
#[derive(Clone, Copy)]
struct BitPosition {
    word_offset: i128,
    bit: u32,
}

impl BitPosition {
    /// The position of bit `nr` (a non-negative constant).
    fn of(nr: i128) -> Option<BitPosition> {
        if nr < 0 {
            return None;
        }
        let bit = u32::try_from(nr % BITS_PER_LONG).ok()?;
        Some(BitPosition { word_offset: (nr / BITS_PER_LONG) * BYTES_PER_LONG, bit })
    }
}

/// Whether bit `k` of `word` is 1, by linear arithmetic, exact for every
/// integer (a negative one read as two's complement).
fn bit_is_set(word: &Expr, k: u32) -> Expr {
    let modulus = 1i128 << (k + 1);
    let remainder = Expr::rem(word.clone(), Expr::int(modulus));
    let low = Expr::ite(
        Expr::lt(remainder.clone(), Expr::int(0)),
        Expr::add(remainder.clone(), Expr::int(modulus)),
        remainder,
    );
    Expr::ge(low, Expr::int(1i128 << k))
}

/// 1 if `condition` holds, else 0: a C truth value.
fn truth(condition: Expr) -> Expr {
    Expr::ite(condition, Expr::int(1), Expr::int(0))
}

impl<'t> FnLower<'_, '_, '_, 't> {
    /// Lowers an atomic access with a value operation to its exact load,
    /// store and result, as the module comment describes; `None`, having
    /// emitted nothing, when the value cannot be exact (the caller then
    /// lowers the access as one without `op`).
    pub(super) fn atomic_operation(&mut self, args: &[Cursor<'t>], values: &[Expr], effect: &AtomicEffect, value: AtomicValue, span: Option<Span>) -> Option<Expr> {
        let position = match value.op {
            AtomicOp::Bit { bit_arg, .. } => {
                // Only an integer literal picks one word and one bit.
                let Expr::Int(nr) = values.get(bit_arg)? else { return None };
                Some(BitPosition::of(*nr)?)
            }
            AtomicOp::Load
            | AtomicOp::Store { .. }
            | AtomicOp::Add { .. }
            | AtomicOp::Sub { .. }
            | AtomicOp::Inc
            | AtomicOp::Dec
            | AtomicOp::Xchg { .. }
            | AtomicOp::Cmpxchg { .. } => None,
        };
        let word_offset = position.map_or(0, |p| p.word_offset);
        let operand = |i: usize| values.get(i).cloned();
        // Every operand is fetched, and the counter found, before anything
        // is emitted, so that a fall-back leaves no trace.
        let operands = match value.op {
            AtomicOp::Store { value_arg } | AtomicOp::Add { value_arg } | AtomicOp::Sub { value_arg } | AtomicOp::Xchg { value_arg } => {
                vec![operand(value_arg)?]
            }
            AtomicOp::Cmpxchg { expected_arg, value_arg } => vec![operand(expected_arg)?, operand(value_arg)?],
            AtomicOp::Load | AtomicOp::Inc | AtomicOp::Dec | AtomicOp::Bit { .. } => Vec::new(),
        };
        let counter = self.counter(args, values, effect.arg, word_offset)?;
        if position.is_some() && layout::size_of(counter.ty) as i128 != BYTES_PER_LONG {
            return None;
        }
        // Only a `store` does not load; `old` is its loaded value.
        let loads = value.op.access() != AtomicAccess::Write;
        let old_var = loads.then(|| self.tmp());
        let old = old_var.map(Expr::var);
        let is_set = position.zip(old.as_ref()).map(|(p, old)| bit_is_set(old, p.bit));
        let stored = match (value.op, operands.as_slice(), &old, position.zip(is_set.clone())) {
            (AtomicOp::Load, _, _, _) => None,
            (AtomicOp::Store { .. }, [v], _, _) => Some(v.clone()),
            (AtomicOp::Xchg { .. }, [v], Some(_), _) => Some(v.clone()),
            (AtomicOp::Add { .. }, [v], Some(old), _) => Some(self.wrapped(Expr::add(old.clone(), v.clone()), counter.ty)),
            (AtomicOp::Sub { .. }, [v], Some(old), _) => Some(self.wrapped(Expr::sub(old.clone(), v.clone()), counter.ty)),
            (AtomicOp::Inc, _, Some(old), _) => Some(self.wrapped(Expr::add(old.clone(), Expr::int(1)), counter.ty)),
            (AtomicOp::Dec, _, Some(old), _) => Some(self.wrapped(Expr::sub(old.clone(), Expr::int(1)), counter.ty)),
            (AtomicOp::Cmpxchg { .. }, [expected, v], Some(old), _) => {
                Some(Expr::ite(Expr::eq(old.clone(), expected.clone()), v.clone(), old.clone()))
            }
            (AtomicOp::Bit { update, .. }, _, Some(old), Some((p, set))) => {
                let weight = Expr::int(1i128 << p.bit);
                let (plus, minus) = (Expr::add(old.clone(), weight.clone()), Expr::sub(old.clone(), weight));
                match update {
                    BitUpdate::Keep => None,
                    BitUpdate::Set => Some(Expr::ite(set, old.clone(), plus)),
                    BitUpdate::Clear => Some(Expr::ite(set, minus, old.clone())),
                    BitUpdate::Change => Some(Expr::ite(set, minus, plus)),
                }
            }
            // Operands, the loaded value or a bit position missing for their
            // op: the loader and the code above rule these out, and nothing
            // has been emitted yet.
            (
                AtomicOp::Store { .. }
                | AtomicOp::Xchg { .. }
                | AtomicOp::Add { .. }
                | AtomicOp::Sub { .. }
                | AtomicOp::Inc
                | AtomicOp::Dec
                | AtomicOp::Cmpxchg { .. }
                | AtomicOp::Bit { .. },
                _,
                _,
                _,
            ) => return None,
        };
        // The counter's value once the operation is done.
        let after = stored.clone().or_else(|| old.clone());
        let result = match value.returns {
            AtomicResult::None => Expr::int(0),
            AtomicResult::Old => old.clone()?,
            AtomicResult::New => after?,
            AtomicResult::NewIsZero => truth(Expr::eq(after?, Expr::int(0))),
            AtomicResult::NewIsNegative => truth(Expr::lt(after?, Expr::int(0))),
            AtomicResult::OldBit => truth(is_set?),
        };
        if let Some(&arg) = args.get(effect.arg) {
            self.name_key(&counter.key, &span, || super::names::argument_name(None, arg, None));
        }
        let region = self.region(counter.key);
        if let Some(target) = old_var {
            self.s.stats.loads += 1;
            self.b.push(Command::Load { target, region, address: counter.address.clone(), access: AccessKind::Atomic, span: span.clone() });
        }
        if let Some(stored) = stored {
            // The exact bit operations are the writes a bit lock can tell
            // apart from a clear of its own bit (super::bitlocks).
            if let (AtomicOp::Bit { update, .. }, Some(p)) = (value.op, position) {
                let at = self.next_command();
                self.s.bit_locks.bit_stores.insert(at, (p.bit, update));
            }
            self.s.stats.stores += 1;
            self.b.push(Command::Store { region, address: counter.address, value: stored, access: AccessKind::Atomic, span });
        }
        Some(result)
    }

    /// The integer scalar that pointer argument `arg` points to, moved on
    /// by `word_offset` bytes, in the region the access without `op` would
    /// use; `None` for a NULL argument or a pointee that is not one integer
    /// scalar. It emits no command.
    fn counter(&mut self, args: &[Cursor<'t>], values: &[Expr], arg: usize, word_offset: i128) -> Option<Counter<'t>> {
        let (&cursor, address) = (args.get(arg)?, values.get(arg)?);
        if super::expr::constant(cursor) == Some(0) || *address == Expr::int(0) {
            return None;
        }
        let inner = super::calls::see_through_void_casts(cursor);
        let pointee = layout::pointee(inner.ty())?;
        // The scalar: the pointee itself, or the one scalar field of a
        // record (`atomic_t`'s `counter`, `refcount_t`'s `refs.counter`).
        let leaf = match layout::shape(pointee) {
            Shape::Scalar => None,
            Shape::Record => match layout::scalar_leaves(pointee).as_slice() {
                [leaf] if leaf.repeats_until.is_none() && leaf.size <= layout::size_of(leaf.ty) && layout::shape(leaf.ty) == Shape::Scalar => Some(leaf.clone()),
                _ => return None,
            },
            Shape::Array | Shape::Opaque => return None,
        };
        let ty = leaf.as_ref().map_or(pointee, |l| l.ty);
        if !layout::is_integral(ty) || layout::is_bool(ty) {
            return None;
        }
        if let Some(key) = self.local_object(inner) {
            let offset = leaf.as_ref().map_or(0, |l| l.offset as i128) + word_offset;
            return Some(Counter { key, address: add_offset(address.clone(), offset), ty });
        }
        let place = match &leaf {
            None => self.argument_scalar_place(inner, address.clone(), pointee),
            Some(leaf) => {
                let object = Object { address: address.clone(), ty: pointee, owner: Owner::Heap, field_key: None };
                self.leaf_place(&object, leaf)
            }
        };
        match place {
            Place::Mem { key, address } => Some(Counter { key, address: add_offset(address, word_offset), ty }),
            Place::Var(_) | Place::BitField { .. } | Place::Object(_) | Place::Function(_) => None,
        }
    }
}
