//! What the replay (replay.rs) knows about the identity of the objects a
//! witness's two racing accesses reach: which record type and offset an
//! address lies at, and which pointer fields of the initial memory it was
//! computed from.
//!
//! Soundness: both checks can only reject a witness (the region's verdict
//! becomes unknown), never confirm one or hide a race. `same_object` rests
//! on a layout fact (two objects of one record type never overlap
//! partially); `one_buffer` is an assumption written in docs/soundness.md
//! (two pointer fields nothing in the run wrote are not taken to point into
//! one buffer).

use crate::ir::RegionId;

/// The regions (pointer fields) of the initial memory that the pointers an
/// access's address is computed from were read from, before the run wrote
/// them; empty when none was.
pub(super) type Origins = std::collections::BTreeSet<RegionId>;

/// The smallest magnitude of a value taken for a pointer when tracing
/// where an address came from (smaller values are indices and flags).
pub(super) const POINTER_LIKE: i128 = 1 << 11;

/// An access's record type and offset inside an object of that type, when
/// its address is a pointer to the record plus a constant offset inside it
/// ([`crate::ir::Program::record_bases`]).
pub(super) type Typed = Option<(RecordName, i128)>;

/// A record type, by the variable-independent name the lowering gave it.
pub(super) type RecordName = std::rc::Rc<str>;

/// Whether two accesses at one address can be to the same bytes of the
/// same object: not when both are inside objects of one record type at
/// different offsets, since two objects of one type would then overlap
/// partially (their bases differ by less than the type's size), which no
/// kernel object layout has.
pub(super) fn same_object(a: &Typed, b: &Typed) -> bool {
    match (a, b) {
        (Some((ta, ca)), Some((tb, cb))) => ta != tb || ca == cb,
        _ => true,
    }
}

/// Whether two accesses to a pointee region are shown to reach one
/// buffer: unless both reach it only through pointers read from the
/// initial values of different fields. Two pointer fields that nothing in
/// the run wrote point into one buffer only by an assumption about the
/// state before the run (the URB buffer and the control buffer of
/// appledisplay, a TX bounce buffer and a device's name), which the witness
/// does not show.
pub(super) fn one_buffer(a: &Origins, b: &Origins) -> bool {
    a.is_empty() || b.is_empty() || !a.is_disjoint(b)
}
