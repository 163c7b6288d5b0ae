//! The writes assumed of a function with neither body nor model.
//!
//! C lets a callee write through any non-`const` pointer it is given, and
//! the kernel's helpers do: `mii_ethtool_set_link_ksettings` stores into
//! the driver's `struct mii_if_info`, `ktime_get_real_ts64` into the
//! driver's `struct timespec64`. Assuming that such a call writes nothing
//! hid those races, so a call to a function without body or model now
//! stores through each argument that points to **driver storage** whose
//! declared pointee is neither `const`, `void` nor a function:
//!
//! - every scalar of the record or array it points to (one level: not
//!   through the pointers stored there) except inside the locks it embeds
//!   (a kernel function changes a lock only through the lock's own
//!   operations), or anywhere in the object for a pointer to a scalar (a
//!   buffer);
//! - driver storage is what the driver declared: the address of (a part of)
//!   one of its variables (`&stamp`, `&priv->mii`, a decayed array), or a
//!   pointer to a record type the driver itself declares (a type declared
//!   outside every `include` directory: the driver's `.c` files and its
//!   local headers).
//!
//! Objects of the kernel's own types that the driver merely holds a pointer
//! to (`struct input_dev *`, `struct urb *`, `struct platform_device *`,
//! `struct inode *`, a `char *` of unknown origin) are the kernel's: their
//! state is changed by the kernel's functions under the kernel's own locks
//! (`input_event` takes `dev->event_lock`), so those functions are assumed
//! not to write them in a way the driver races with. That, memory reached
//! only through `void *`, pointers stored inside an argument, and calls
//! back into the driver stay the counted `external-call` approximation
//! (docs/soundness.md, Lowering).
//!
//! The stores are marked in [`crate::ir::Program::assumed_writes`]: the
//! lockset phase checks them like any store (sound for what they cover),
//! and the precise phase never confirms a race that rests on one, since the
//! function may write nothing at all.

use super::context::FnLower;
use super::layout::{self, Shape};
use crate::frontend::clang::{Cursor, CursorKind, Type, UnaryOperator};
use crate::ir::{AccessKind, Expr};
use crate::models::Extent;

impl<'t> FnLower<'_, '_, '_, 't> {
    /// Emits the stores assumed of the call `c` to `name`, whose arguments
    /// `args` were evaluated to `values`, and marks the call when it has
    /// any.
    pub(super) fn assumed_writes(&mut self, c: Cursor<'t>, name: &str, args: &[Cursor<'t>], values: &[Expr]) {
        let params: Vec<_> = c
            .referenced()
            .filter(|f| f.kind() == CursorKind::FunctionDecl)
            .map(|f| f.arguments().into_iter().map(|p| p.ty()).collect())
            .unwrap_or_default();
        let span = Some(self.span(c));
        let before = self.s.stats.stores;
        for (i, arg) in args.iter().enumerate() {
            let declared = params.get(i).copied().unwrap_or_else(|| arg.ty());
            let Some(pointee) = layout::pointee(declared) else { continue };
            if declared.canonical().pointee().is_none() || pointee.is_const() || pointee.canonical().is_const() {
                continue;
            }
            let extent = match layout::shape(pointee) {
                Shape::Opaque => continue,
                Shape::Record | Shape::Array => Extent::Pointee,
                Shape::Scalar => Extent::Unbounded,
            };
            if !driver_storage(*arg) {
                continue;
            }
            let mut locks = Vec::new();
            self.lock_ranges(pointee, 0, &mut locks, 0);
            self.memory_effect(name, args, values, i, extent, None, &locks, true, AccessKind::Plain, span.clone());
        }
        if self.s.stats.stores > before {
            if let Some(span) = span {
                self.b.program().assumed_writes.insert(span, name.to_string());
            }
        }
    }
}

impl FnLower<'_, '_, '_, '_> {
    /// The byte ranges of the locks inside an object of type `ty` at
    /// `base` (lock types come from kernel-models/locks/types.xml): a
    /// kernel function changes a lock only through the lock's operations,
    /// which never race, so no plain store is assumed there.
    fn lock_ranges(&self, ty: Type<'_>, base: u64, out: &mut Vec<std::ops::Range<u64>>, depth: u32) {
        if depth > layout::MAX_NESTING || layout::shape(ty) != Shape::Record {
            return;
        }
        if self.lock_kind_of(ty).is_some() {
            out.push(base..base + ty.size_of().unwrap_or(1).max(1));
            return;
        }
        for f in ty.canonical().fields() {
            self.lock_ranges(f.ty(), base + layout::field_offset(f).0, out, depth + 1);
        }
    }
}

/// Whether the pointer argument `arg` points to storage the driver owns:
/// the address of (a part of) one of its variables, a decayed array of its
/// own, or a pointer to a record type it declares.
fn driver_storage(arg: Cursor<'_>) -> bool {
    let arg = strip(arg);
    if arg.kind() == CursorKind::UnaryOperator && arg.unary_operator() == UnaryOperator::AddrOf {
        return arg.children().first().is_some_and(|lvalue| lvalue_in_driver(*lvalue));
    }
    if layout::shape(arg.ty()) == Shape::Array {
        return lvalue_in_driver(arg);
    }
    layout::pointee(arg.ty()).is_some_and(driver_record)
}

/// Whether the lvalue `c` lies in storage the driver owns.
fn lvalue_in_driver(c: Cursor<'_>) -> bool {
    let c = strip(c);
    match c.kind() {
        CursorKind::DeclRefExpr => c.referenced().is_some_and(|d| {
            matches!(d.kind(), CursorKind::VarDecl | CursorKind::ParmDecl) && !in_include_directory(d)
        }),
        CursorKind::MemberRefExpr | CursorKind::ArraySubscriptExpr => {
            let Some(base) = c.children().first().map(|b| strip(*b)) else { return false };
            if layout::shape(base.ty()) == Shape::Record || layout::shape(base.ty()) == Shape::Array {
                lvalue_in_driver(base)
            } else {
                // `p->field` or `p[i]`: the storage is what `p` points to.
                layout::pointee(base.ty()).is_some_and(driver_record)
            }
        }
        CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::Deref => {
            c.children().first().and_then(|p| layout::pointee(p.ty())).is_some_and(driver_record)
        }
        _ => false,
    }
}

/// Whether `ty` is a record type the driver declares (outside every
/// `include` directory).
fn driver_record(ty: Type<'_>) -> bool {
    let t = ty.canonical();
    layout::shape(t) == Shape::Record && t.declaration().is_some_and(|d| !in_include_directory(d))
}

/// Whether the declaration `d` lies in a header under an `include`
/// directory (the kernel's own headers: include/, arch/*/include/).
fn in_include_directory(d: Cursor<'_>) -> bool {
    d.location().file.is_some_and(|f| f.components().any(|c| c.as_os_str() == "include"))
}

/// `c` without parentheses and implicit conversions (array decay, lvalue
/// to rvalue, qualification).
fn strip(mut c: Cursor<'_>) -> Cursor<'_> {
    while matches!(c.kind(), CursorKind::ParenExpr | CursorKind::UnexposedExpr) {
        match c.children().last() {
            Some(inner) => c = *inner,
            None => break,
        }
    }
    c
}
