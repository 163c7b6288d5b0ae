//! Memory effects of modelled calls: the reads and writes a function
//! model (kernel-models/functions/) makes through a pointer argument, over
//! the extent it names, in the regions the argument's place or pointee
//! type selects.
//!
//! A sized effect (`size-arg`) is made only when its count is positive: an
//! empty byte range touches nothing, and must not end the path that makes
//! the call (docs/soundness.md).

use super::calls::{see_through_same_type, see_through_void_casts};
use super::context::FnLower;
use super::layout::{self, Shape};
use super::place::{Object, Owner, Place};
use crate::frontend::clang::{Cursor, CursorKind, UnaryOperator};
use crate::ir::{AccessKind, Command, Expr};
use crate::models::Extent;

impl<'t> FnLower<'_, '_, '_, 't> {
    /// A read or write of what argument `arg` points to: the place itself
    /// when the argument is `&lvalue`, else the pointee type's leaves, over
    /// the modelled extent (inside `field` only, and outside the byte
    /// ranges `skip` of a record).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn memory_effect(
        &mut self,
        function: &str,
        args: &[Cursor<'t>],
        values: &[Expr],
        arg: usize,
        extent: Extent,
        field: Option<&str>,
        skip: &[std::ops::Range<u64>],
        write: bool,
        access: AccessKind,
        span: Option<crate::diagnostics::Span>,
    ) {
        let (Some(&cursor), Some(address)) = (args.get(arg), values.get(arg)) else { return };
        // An optional pointer argument passed as NULL: no access at all.
        if super::expr::constant(cursor) == Some(0) || *address == Expr::int(0) {
            return;
        }
        // See through `(void *)&x`: the pointee's real type.
        let inner = see_through_void_casts(cursor);
        // A local object (`copy_to_user(buf, tmp, n)` with `u8 tmp[]`): its
        // own thread-private region, anywhere in it.
        // The bytes a sized effect covers: `[address, address + n)`.
        let size = match extent {
            Extent::SizeArg(i) => values.get(i).cloned(),
            Extent::Pointee | Extent::Unbounded => None,
        };
        // A sized effect touches nothing when its size is not positive
        // (`memcpy(d, s, 0)`, a command with no input buffer): the access
        // is made only on the branch where it is, so that a call with an
        // empty range does not block the path that makes it.
        let join = match &size {
            Some(Expr::Int(n)) if *n <= 0 => return,
            Some(Expr::Int(_)) | None => None,
            Some(n) => {
                let (then_block, else_block) = self.b.branch(Expr::gt(n.clone(), Expr::int(0)), None);
                let join = self.b.new_block();
                self.b.switch_to(else_block);
                self.b.goto([join]);
                self.b.switch_to(then_block);
                Some(join)
            }
        };
        let whole_object = match extent {
            Extent::Pointee => false,
            Extent::SizeArg(_) | Extent::Unbounded => true,
        };
        self.sized_effect(function, cursor, inner, address, size, whole_object, field, skip, write, access, span);
        if let Some(join) = join {
            self.b.goto([join]);
            self.b.switch_to(join);
        }
    }

    /// [`Self::memory_effect`]'s access itself, once the size is known to
    /// be positive (or absent).
    #[allow(clippy::too_many_arguments)]
    fn sized_effect(
        &mut self,
        function: &str,
        cursor: Cursor<'t>,
        inner: Cursor<'t>,
        address: &Expr,
        size: Option<Expr>,
        whole_object: bool,
        field: Option<&str>,
        skip: &[std::ops::Range<u64>],
        write: bool,
        access: AccessKind,
        span: Option<crate::diagnostics::Span>,
    ) {
        if let Some(key) = self.local_object(inner) {
            let a = self.havoc();
            self.s.privacy.within.push((a, address.clone()));
            self.b.assume(Expr::ge(Expr::var(a), address.clone()), None);
            if let Some(n) = &size {
                self.b.assume(Expr::lt(Expr::var(a), Expr::add(address.clone(), n.clone())), None);
            }
            let place = Place::Mem { key, address: Expr::var(a) };
            self.name_access_with(&place, &span, || super::names::argument_name(Some(function), cursor, None));
            self.access(&place, write, access, span);
            return;
        }
        let Some(pointee) = layout::pointee(inner.ty()) else { return };
        match layout::shape(pointee) {
            Shape::Scalar if !whole_object => {
                let place = self.argument_scalar_place(inner, address.clone(), pointee);
                self.name_access_with(&place, &span, || super::names::argument_name(Some(function), cursor, field));
                self.access(&place, write, access, span);
            }
            Shape::Scalar | Shape::Opaque => {
                let place = self.argument_scalar_place(inner, address.clone(), pointee);
                let ranged = match place {
                    Place::Mem { key, address } => {
                        let a = self.havoc();
                        self.s.privacy.within.push((a, address.clone()));
                        self.b.assume(Expr::ge(Expr::var(a), address.clone()), None);
                        if let Some(n) = &size {
                            self.b.assume(Expr::lt(Expr::var(a), Expr::add(address, n.clone())), None);
                        }
                        Place::Mem { key, address: Expr::var(a) }
                    }
                    other => other,
                };
                self.name_access_with(&ranged, &span, || super::names::argument_name(Some(function), cursor, field));
                self.access(&ranged, write, access, span);
            }
            Shape::Record | Shape::Array => {
                let object = match self.local_object(inner) {
                    Some(key) => Object { address: address.clone(), ty: pointee, owner: Owner::Local(key.clone()), field_key: Some(key) },
                    None => Object { address: address.clone(), ty: pointee, owner: Owner::Heap, field_key: None },
                };
                // `field="F"` or `field="F.G"`: the leaves inside that
                // (nested) field only (all of them when the record has no
                // such field, which is sound).
                let range = field.and_then(|f| layout::field_path_range(pointee, f));
                // A leaf of no size (a flexible array member) at the start
                // of the field belongs to the member before it.
                let outside = |r: &std::ops::Range<u64>, leaf: &layout::Leaf<'_>| !r.contains(&leaf.offset) || (leaf.is_flexible_array() && leaf.offset == r.start);
                for leaf in layout::scalar_leaves(pointee) {
                    if range.as_ref().is_some_and(|r| outside(r, &leaf)) || skip.iter().any(|r| r.contains(&leaf.offset)) {
                        continue;
                    }
                    let place = self.leaf_place(&object, &leaf);
                    let leaf_name = leaf.field.map(|f| f.spelling()).filter(|f| !f.is_empty());
                    self.name_access_with(&place, &span, || super::names::argument_name(Some(function), cursor, leaf_name.as_deref()));
                    self.access(&place, write, access, span.clone());
                }
            }
        }
    }

    /// The scalar place a pointer argument (seen through `void *` casts)
    /// points to, for an argument already evaluated to `address`: the
    /// object itself for `&object`, else the pointee type's place. It emits
    /// no command.
    pub(super) fn argument_scalar_place(&mut self, argument: Cursor<'t>, address: Expr, pointee: crate::frontend::clang::Type<'t>) -> Place<'t> {
        let c = super::expr::strip_parens(argument);
        if c.kind() == CursorKind::UnaryOperator && c.unary_operator() == UnaryOperator::AddrOf {
            if let Some(&object) = c.children().first() {
                if layout::shape(object.ty()) == Shape::Scalar {
                    return self.place_no_loads(object, address);
                }
            }
        }
        // An array of scalars decaying to a pointer to its first element:
        // the array's own storage.
        let array = super::place::see_through_decay(c);
        if array != c && layout::pointee(array.ty()).is_some_and(|e| layout::shape(e) == Shape::Scalar) {
            let array = see_through_same_type(super::expr::strip_parens(array));
            match array.kind() {
                CursorKind::MemberRefExpr | CursorKind::DeclRefExpr => return self.place_no_loads(array, address),
                CursorKind::StringLiteral => return Place::Mem { key: super::regions::RegionKey::Global { name: "string literals".into() }, address },
                _ => {}
            }
        }
        self.pointee_place(address, pointee)
    }

    /// The thread-private region of the local a pointer argument designates
    /// (`&x`, or a local array decaying), if it is one.
    pub(super) fn local_object(&self, argument: Cursor<'t>) -> Option<super::regions::RegionKey> {
        let c = super::place::see_through_decay(super::expr::strip_parens(argument));
        let target = if c.kind() == CursorKind::UnaryOperator && c.unary_operator() == UnaryOperator::AddrOf {
            super::expr::strip_parens(*c.children().first()?)
        } else {
            c
        };
        let decl = (target.kind() == CursorKind::DeclRefExpr).then(|| target.referenced()).flatten()?;
        match self.locals.get(&decl.usr())? {
            super::context::Storage::Memory { key, .. } => Some(key.clone()),
            super::context::Storage::Var(_) | super::context::Storage::Shared { .. } => None,
        }
    }

    /// The place of `&object` for an argument already evaluated to
    /// `address`, without evaluating the object's address again.
    fn place_no_loads(&mut self, object: Cursor<'t>, address: Expr) -> Place<'t> {
        let object = super::expr::strip_parens(object);
        match object.kind() {
            CursorKind::MemberRefExpr => match object.referenced() {
                Some(field) if field.bit_field_width().is_none() => Place::Mem { key: super::place::field_key(field), address },
                _ => self.pointee_place(address, layout::pointee(object.ty()).filter(|_| layout::shape(object.ty()) == Shape::Array).unwrap_or(object.ty())),
            },
            CursorKind::DeclRefExpr => match object.referenced() {
                Some(decl) => match self.locals.get(&decl.usr()).cloned() {
                    Some(super::context::Storage::Memory { key, .. }) => Place::Mem { key, address },
                    Some(super::context::Storage::Shared { .. }) => self.pointee_place(address, object.ty()),
                    Some(super::context::Storage::Var(v)) => Place::Var(v),
                    None => Place::Mem { key: super::regions::RegionKey::Global { name: super::place::global_symbol(decl, &self.s.qualified_statics) }, address },
                },
                None => self.pointee_place(address, object.ty()),
            },
            _ => self.pointee_place(address, object.ty()),
        }
    }

    /// One modelled access of a place.
    fn access(&mut self, place: &Place<'t>, write: bool, access: AccessKind, span: Option<crate::diagnostics::Span>) {
        let (key, address) = match place {
            Place::Mem { key, address } | Place::BitField { key, address, .. } => (key.clone(), address.clone()),
            Place::Var(v) => {
                if write {
                    self.b.push(Command::Havoc { vars: vec![*v], span });
                }
                return;
            }
            Place::Object(_) | Place::Function(_) => return,
        };
        let region = self.region(key);
        if write {
            let value = self.havoc();
            self.s.stats.stores += 1;
            self.b.push(Command::Store { region, address, value: Expr::var(value), access, span });
        } else {
            let target = self.tmp();
            self.s.stats.loads += 1;
            self.b.push(Command::Load { target, region, address, access, span });
        }
    }
}
