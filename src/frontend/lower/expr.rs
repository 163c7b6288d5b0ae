//! Expressions: C rvalues to IR expressions, with a command for every
//! memory access, call and side effect, in evaluation order.
//!
//! Values are mathematical integers. Arithmetic on C integer types is
//! wrapped by [`FnLower::fit`]: a result inside the type's range is exact,
//! one outside it is an unconstrained value of an uninterpreted wrap
//! function, so overflow never makes a feasible path infeasible. Bit
//! operations are exact where they are arithmetic (shifts by a constant,
//! masks of low bits on non-negative values) and uninterpreted otherwise.
//! `&&`, `||`, `?:` and conditions branch, so the right operand's accesses
//! happen only on the paths C evaluates them on.

use super::context::FnLower;
use super::layout::{self, Shape, is_unsigned};
use super::place::{Object, Owner, Place};
use super::regions::{MergeReason, RegionKey};
use crate::frontend::clang::{BinaryOperator as Op, CExpr, CSyntax, Cursor, CursorKind, EvalValue, Type, TypeKind, UnaryOperator as UOp};
use crate::ir::{ApproxKind, BinaryOp, BlockId, Expr};

/// Skips parentheses and `__extension__`.
pub fn strip_parens(mut c: Cursor<'_>) -> Cursor<'_> {
    loop {
        let next = match c.kind() {
            CursorKind::ParenExpr => c.children().first().copied(),
            _ => None,
        };
        match next {
            Some(n) => c = n,
            None => return c,
        }
    }
}

/// The association a `_Generic` selection chose: libclang does not say
/// which, so the one association whose type is the selection's type, if
/// there is exactly one.
pub fn generic_selected(c: Cursor<'_>) -> Option<Cursor<'_>> {
    let want = c.ty().canonical().spelling();
    let candidates: Vec<Cursor<'_>> = c
        .children()
        .into_iter()
        .skip(1)
        .filter(|a| a.kind() != CursorKind::TypeRef && a.ty().canonical().spelling() == want)
        .collect();
    match candidates.as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// The function a call's callee expression names directly, through
/// parentheses, implicit conversions and `_Generic` selections
/// (`interface_to_usbdev(intf)` is `_Generic((intf), …)(intf)`).
pub fn named_callee(callee: Cursor<'_>) -> Option<Cursor<'_>> {
    let c = strip_parens(callee);
    match c.kind() {
        CursorKind::UnexposedExpr => named_callee(*c.children().first()?),
        CursorKind::GenericSelectionExpr => named_callee(generic_selected(c)?),
        CursorKind::DeclRefExpr => c.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl),
        _ => None,
    }
}

/// The value of a condition that selects a branch at compile time.
///
/// clang folds some expressions that read memory when the value does not
/// depend on what is read (`x || 1`, `x * 0`); the reads still happen at
/// run time, and may race, so such a condition is not a constant here.
pub fn constant_condition(c: Cursor<'_>) -> Option<i128> {
    if reads_when_evaluated(c) {
        return None;
    }
    constant(c)
}

/// The integer value of a constant expression, from clang's evaluator.
pub fn constant(c: Cursor<'_>) -> Option<i128> {
    match c.evaluate()? {
        EvalValue::Int(i) => Some(i as i128),
        EvalValue::UnsignedInt(u) => Some(u as i128),
        EvalValue::Float(_) | EvalValue::Str(_) => None,
    }
}

/// Whether evaluating `c` reads a variable or calls a function: a
/// reference to a variable outside `sizeof`/`alignof` and the arms C's
/// short-circuit operators skip by a constant, or a call (other than
/// `__builtin_constant_p`, which evaluates nothing).
fn reads_when_evaluated(c: Cursor<'_>) -> bool {
    match c.kind() {
        CursorKind::DeclRefExpr => {
            // A const object is never written after its initialisation:
            // reading it cannot race.
            c.referenced().is_some_and(|d| matches!(d.kind(), CursorKind::VarDecl | CursorKind::ParmDecl) && !d.ty().is_const())
        }
        CursorKind::UnaryExpr => false,
        CursorKind::CallExpr => {
            c.referenced().is_none_or(|f| f.spelling() != "__builtin_constant_p")
        }
        CursorKind::BinaryOperator
            if matches!(c.binary_operator(), Op::LAnd | Op::LOr) =>
        {
            let children = c.children();
            let [lhs, rhs] = children.as_slice() else { return true };
            if reads_when_evaluated(*lhs) {
                return true;
            }
            let skip = match (c.binary_operator(), constant(*lhs)) {
                (Op::LAnd, Some(0)) => true,
                (Op::LOr, Some(k)) => k != 0,
                _ => false,
            };
            !skip && reads_when_evaluated(*rhs)
        }
        _ => {
            let mut reads = false;
            c.for_each_child(|child| {
                reads = reads_when_evaluated(child);
                !reads
            });
            reads
        }
    }
}

impl<'t> FnLower<'_, '_, '_, 't> {
    /// The scalar value of an expression (for a record or array: its
    /// address).
    pub fn value(&mut self, c: Cursor<'t>) -> Expr {
        self.s.stats.expressions += 1;
        match c.kind().c_syntax() {
            CSyntax::Expr(kind) => self.value_of(c, kind),
            CSyntax::Stmt(_) | CSyntax::NotC(_) | CSyntax::Other(_) => {
                self.approx(ApproxKind::UnsupportedConstruct, format!("{:?} used as a value", c.kind()), Some(c));
                Expr::var(self.havoc_tmp())
            }
        }
    }

    fn havoc_tmp(&mut self) -> crate::ir::VarId {
        let t = self.tmp();
        self.b.push(crate::ir::Command::Havoc { vars: vec![t], span: None });
        t
    }

    fn value_of(&mut self, c: Cursor<'t>, kind: CExpr) -> Expr {
        match kind {
            CExpr::IntegerLiteral | CExpr::CharacterLiteral | CExpr::GNUNullExpr => {
                Expr::int(constant(c).unwrap_or(0))
            }
            CExpr::UnaryExpr => match constant(c) {
                Some(v) => Expr::int(v),
                None => {
                    self.approx(ApproxKind::Cast, "sizeof or alignof of a variable-length type".into(), Some(c));
                    Expr::var(self.havoc_tmp())
                }
            },
            CExpr::FloatingLiteral | CExpr::ImaginaryLiteral | CExpr::FixedPointLiteral | CExpr::BuiltinBitCastExpr => {
                self.approx(ApproxKind::Cast, "floating-point or bit-cast value".into(), Some(c));
                Expr::var(self.havoc_tmp())
            }
            CExpr::StringLiteral => {
                let place = self.place(c);
                self.read(&place, None)
            }
            CExpr::ParenExpr => match c.children().first() {
                Some(inner) => self.value(*inner),
                None => Expr::int(0),
            },
            CExpr::DeclRefExpr => {
                if let Some(v) = constant_decl(c) {
                    return Expr::int(v);
                }
                self.read_lvalue(c)
            }
            CExpr::MemberRefExpr | CExpr::ArraySubscriptExpr => self.read_lvalue(c),
            CExpr::UnexposedExpr | CExpr::CStyleCastExpr => self.cast(c),
            CExpr::UnaryOperator => self.unary(c),
            CExpr::BinaryOperator => self.binary(c),
            CExpr::CompoundAssignOperator => self.compound_assign(c),
            CExpr::ConditionalOperator => self.conditional(c),
            CExpr::CallExpr => self.call(c),
            CExpr::CompoundLiteralExpr => {
                let object = self.compound_literal(c);
                if layout::shape(c.ty()) == Shape::Scalar {
                    let place = Place::Mem { key: object.field_key.clone().unwrap_or(RegionKey::Local { name: format!("{}.literal", self.name) }), address: object.address };
                    self.read(&place, None)
                } else {
                    object.address
                }
            }
            CExpr::InitListExpr => {
                // An initializer list as a value: a scalar in braces.
                match c.children().first() {
                    Some(first) if layout::shape(c.ty()) == Shape::Scalar => self.value(*first),
                    _ => {
                        let object = self.temporary_object(c.ty());
                        self.initialise(&Place::Object(object.clone()), c.ty(), c);
                        object.address
                    }
                }
            }
            CExpr::StmtExpr => self.statement_expression(c),
            CExpr::GenericSelectionExpr => self.generic_selection(c),
            CExpr::AddrLabelExpr => {
                self.approx(ApproxKind::UnsupportedConstruct, "address of a label (computed goto)".into(), Some(c));
                Expr::var(self.havoc_tmp())
            }
        }
    }

    fn read_lvalue(&mut self, c: Cursor<'t>) -> Expr {
        let place = self.place(c);
        let span = Some(self.span(c));
        self.name_access(&place, &span, c);
        self.read_as(&place, super::place::access_kind(c, self.s.models.volatile_plain), span)
    }

    /// Conversions, explicit or implicit (libclang shows an implicit cast as
    /// an `UnexposedExpr` with one child).
    fn cast(&mut self, c: Cursor<'t>) -> Expr {
        let children = c.children();
        let inner = match children.as_slice() {
            [] => {
                // A cast with no operand libclang shows: an implicit value.
                return match constant(c) {
                    Some(v) => Expr::int(v),
                    None => {
                        self.approx(ApproxKind::UnsupportedConstruct, "expression libclang does not expose".into(), Some(c));
                        Expr::var(self.havoc_tmp())
                    }
                };
            }
            // `va_arg(ap, T)`: libclang shows the `va_list` operand alone.
            [only] if is_va_list(only.ty()) && !is_va_list(c.ty()) && !layout::is_pointer(c.ty()) => {
                self.value(*only);
                self.approx(ApproxKind::Cast, "value of va_arg".into(), Some(c));
                return Expr::var(self.havoc_tmp());
            }
            [only] => *only,
            [.., last] if c.kind() == CursorKind::CStyleCastExpr => *last,
            // `__builtin_choose_expr(k, a, b)`: a constant choice.
            [cond, a, b] if constant(*cond).is_some() => {
                let chosen = if constant(*cond) != Some(0) { *a } else { *b };
                if chosen.ty().canonical().spelling() == c.ty().canonical().spelling() {
                    return self.value(chosen);
                }
                if let Some(v) = constant(c) {
                    return Expr::int(v);
                }
                self.approx(ApproxKind::UnsupportedConstruct, "compound expression libclang does not expose".into(), Some(c));
                return Expr::var(self.havoc_tmp());
            }
            // GNU `a ?: b`: libclang shows the common operand, two opaque
            // copies of it (at the same place) and the alternative.
            [common, copy1, copy2, otherwise]
                if common.location() == copy1.location() && copy1.location() == copy2.location() =>
            {
                return self.binary_conditional(*common, *otherwise);
            }
            _ => {
                if let Some(v) = constant(c) {
                    return Expr::int(v);
                }
                if let Some(v) = self.atomic_builtin(c) {
                    return v;
                }
                self.approx(ApproxKind::UnsupportedConstruct, "compound expression libclang does not expose".into(), Some(c));
                return Expr::var(self.havoc_tmp());
            }
        };
        let from = inner.ty();
        let to = c.ty();
        if inner.kind() == CursorKind::TypeRef || inner.kind() == CursorKind::InitListExpr && layout::shape(to) != Shape::Scalar {
            return self.value(inner);
        }
        // Array and function designators decay to their address.
        if layout::shape(from) == Shape::Array || matches!(from.canonical().kind(), TypeKind::FunctionProto | TypeKind::FunctionNoProto) {
            let place = self.place(inner);
            return self.address_of(&place, from, inner);
        }
        let value = self.value(inner);
        if layout::is_pointer(from) && layout::is_pointer(to) {
            self.pointer_cast(from, to);
            return value;
        }
        if layout::is_bool(to) && !layout::is_bool(from) {
            return Expr::ite(Expr::ne(value, Expr::int(0)), Expr::int(1), Expr::int(0));
        }
        if layout::is_integral(to) && layout::is_integral(from) && layout::size_of(to) < layout::size_of(from) {
            return self.fit(value, to);
        }
        if layout::is_integral(to) && layout::is_integral(from) && is_unsigned(to) != is_unsigned(from) {
            return self.fit(value, to);
        }
        value
    }

    /// A cast between pointer types: from a record to a scalar pointer
    /// (byte-wise access) or to another record merges regions; through
    /// `void *` it is assumed type-correct.
    fn pointer_cast(&mut self, from: Type<'t>, to: Type<'t>) {
        let (Some(src), Some(dst)) = (layout::pointee(from), layout::pointee(to)) else { return };
        let void = |t: Type<'_>| t.canonical().kind() == TypeKind::Void;
        if void(src) || void(dst) || layout::type_name(src) == layout::type_name(dst) {
            return;
        }
        match (layout::shape(src), layout::shape(dst)) {
            (Shape::Record, Shape::Scalar) => {
                let bytes = RegionKey::Pointee { ty: layout::type_name(dst) };
                self.merge_record_into(src, bytes, MergeReason::ByteAccess);
            }
            (Shape::Scalar, Shape::Record) => {
                let bytes = RegionKey::Pointee { ty: layout::type_name(src) };
                self.merge_record_into(dst, bytes, MergeReason::ByteAccess);
            }
            (Shape::Record, Shape::Record) => {
                let anchor = RegionKey::Pointee { ty: format!("{} as {}", layout::type_name(src), layout::type_name(dst)) };
                self.merge_record_into(src, anchor.clone(), MergeReason::RecordCast);
                self.merge_record_into(dst, anchor, MergeReason::RecordCast);
            }
            (Shape::Scalar, Shape::Scalar) => {
                let a = RegionKey::Pointee { ty: layout::type_name(src) };
                let b = RegionKey::Pointee { ty: layout::type_name(dst) };
                self.s.regions.merge(self.b.program(), a, b, MergeReason::ByteAccess);
            }
            (Shape::Array | Shape::Opaque, _) | (_, Shape::Array | Shape::Opaque) => {}
        }
    }

    /// Merges every region of a record's leaves into `into`.
    pub fn merge_record_into(&mut self, record: Type<'t>, into: RegionKey, reason: MergeReason) {
        for leaf in layout::scalar_leaves(record) {
            let key = match leaf.field {
                Some(f) if f.bit_field_width().is_some() => {
                    let parent = f.semantic_parent().map(layout::record_name).unwrap_or_default();
                    let (byte, _) = layout::field_offset(f);
                    let unit = layout::size_of(f.ty()).max(1);
                    RegionKey::BitUnit { record: parent, offset: byte / unit * unit }
                }
                Some(f) => super::place::field_key(f),
                None => RegionKey::Pointee { ty: layout::type_name(leaf.ty) },
            };
            self.s.regions.merge(self.b.program(), into.clone(), key, reason);
        }
    }

    /// Wraps an integer value into the range of `ty`: exact inside it, an
    /// unconstrained (uninterpreted) value outside.
    pub fn fit(&mut self, value: Expr, ty: Type<'_>) -> Expr {
        if !layout::is_integral(ty) || layout::is_bool(ty) {
            return value;
        }
        // Name the value once, so that nested wraps do not copy it.
        let value = match value {
            Expr::Var(_) | Expr::Int(_) => value,
            other => {
                let t = self.tmp();
                self.b.assign(t, other, None);
                Expr::var(t)
            }
        };
        self.wrapped(value, ty)
    }

    /// [`fit`](Self::fit) without naming the value, so without any command:
    /// `ite(lo <= value && value <= hi, value, wrap_X(value))` repeats the
    /// expression (an in-range constant stays itself).
    pub fn wrapped(&mut self, value: Expr, ty: Type<'_>) -> Expr {
        if !layout::is_integral(ty) || layout::is_bool(ty) {
            return value;
        }
        let bits = (layout::size_of(ty) * 8).min(127) as u32;
        let (lo, hi) = layout::integer_range(ty);
        if let Expr::Int(v) = value {
            if v >= lo && v <= hi {
                return value;
            }
        }
        let wrap = self.function(&format!("wrap_{}{bits}", if is_unsigned(ty) { "u" } else { "s" }), 1);
        let in_range = Expr::and(Expr::le(Expr::int(lo), value.clone()), Expr::le(value.clone(), Expr::int(hi)));
        Expr::ite(in_range, value.clone(), Expr::apply(wrap, vec![value]))
    }

    fn unary(&mut self, c: Cursor<'t>) -> Expr {
        let Some(&operand) = c.children().first() else {
            self.approx(ApproxKind::UnsupportedConstruct, "unary operator without operand".into(), Some(c));
            return Expr::var(self.havoc_tmp());
        };
        let span = Some(self.span(c));
        match c.unary_operator() {
            op @ (UOp::PostInc | UOp::PostDec | UOp::PreInc | UOp::PreDec) => {
                let place = self.place(operand);
                let access = super::place::access_kind(operand, self.s.models.volatile_plain);
                self.name_access(&place, &span, operand);
                let old = self.read_as(&place, access, span.clone());
                let old_var = self.tmp();
                self.b.assign(old_var, old, None);
                let step = if layout::is_pointer(operand.ty()) {
                    layout::pointee(operand.ty()).map_or(1, layout::size_of) as i128
                } else {
                    1
                };
                let raw = match op {
                    UOp::PostInc | UOp::PreInc => Expr::add(Expr::var(old_var), Expr::int(step)),
                    _ => Expr::sub(Expr::var(old_var), Expr::int(step)),
                };
                let new = self.fit(raw, operand.ty());
                let new_var = self.tmp();
                self.b.assign(new_var, new, None);
                self.write_as(&place, Expr::var(new_var), access, span);
                if matches!(op, UOp::PostInc | UOp::PostDec) { Expr::var(old_var) } else { Expr::var(new_var) }
            }
            UOp::AddrOf => {
                let place = self.place(operand);
                self.address_of(&place, operand.ty(), operand)
            }
            UOp::Deref => {
                let place = self.place(c);
                self.name_access(&place, &span, c);
                self.read_as(&place, super::place::access_kind(c, self.s.models.volatile_plain), span)
            }
            UOp::Plus | UOp::Extension => self.value(operand),
            UOp::Minus => {
                let v = self.value(operand);
                self.fit(Expr::neg(v), c.ty())
            }
            UOp::Not => {
                let v = self.value(operand);
                let f = self.function("bitnot", 1);
                self.s.stats.count_approximation(ApproxKind::BitOperation);
                Expr::apply(f, vec![v])
            }
            UOp::LNot => {
                let cond = self.condition(operand);
                Expr::ite(cond, Expr::int(0), Expr::int(1))
            }
            UOp::Real | UOp::Imag => {
                self.approx(ApproxKind::Cast, "complex-number part".into(), Some(c));
                Expr::var(self.havoc_tmp())
            }
            UOp::Coawait | UOp::Invalid | UOp::Unknown => {
                self.approx(ApproxKind::UnsupportedConstruct, "unknown unary operator".into(), Some(c));
                Expr::var(self.havoc_tmp())
            }
        }
    }

    fn binary(&mut self, c: Cursor<'t>) -> Expr {
        let children = c.children();
        let [lhs, rhs] = children.as_slice() else {
            self.approx(ApproxKind::UnsupportedConstruct, "binary operator without two operands".into(), Some(c));
            return Expr::var(self.havoc_tmp());
        };
        let (lhs, rhs) = (*lhs, *rhs);
        let span = Some(self.span(c));
        match c.binary_operator() {
            Op::Assign => {
                if layout::shape(lhs.ty()) == Shape::Record {
                    let dst = self.place(lhs);
                    let src = self.place(rhs);
                    self.copy_object(&src, &dst, lhs.ty(), span);
                    return Expr::int(0);
                }
                let place = self.place(lhs);
                let value = self.value(rhs);
                let v = self.tmp();
                self.b.assign(v, value, None);
                self.name_access(&place, &span, lhs);
                self.write_as(&place, Expr::var(v), super::place::access_kind(lhs, self.s.models.volatile_plain), span);
                Expr::var(v)
            }
            Op::Comma => {
                self.value(lhs);
                self.value(rhs)
            }
            Op::LAnd | Op::LOr | Op::LT | Op::GT | Op::LE | Op::GE | Op::EQ | Op::NE => {
                let cond = self.condition(c);
                Expr::ite(cond, Expr::int(1), Expr::int(0))
            }
            op @ (Op::Mul | Op::Div | Op::Rem | Op::Add | Op::Sub | Op::Shl | Op::Shr | Op::And | Op::Or | Op::Xor) => {
                let a = self.value(lhs);
                let b = self.value(rhs);
                self.arithmetic(op, a, b, lhs.ty(), rhs.ty(), c.ty(), c)
            }
            Op::MulAssign
            | Op::DivAssign
            | Op::RemAssign
            | Op::AddAssign
            | Op::SubAssign
            | Op::ShlAssign
            | Op::ShrAssign
            | Op::AndAssign
            | Op::XorAssign
            | Op::OrAssign => self.compound_assign(c),
            Op::PtrMemD | Op::PtrMemI | Op::Cmp | Op::Invalid | Op::Unknown => {
                self.approx(ApproxKind::UnsupportedConstruct, "operator C does not have".into(), Some(c));
                Expr::var(self.havoc_tmp())
            }
        }
    }

    /// `a op b` on values of the given C types, with pointer arithmetic.
    #[allow(clippy::too_many_arguments)]
    fn arithmetic(&mut self, op: Op, a: Expr, b: Expr, ta: Type<'t>, tb: Type<'t>, result: Type<'t>, at: Cursor<'t>) -> Expr {
        let ptr_a = layout::is_pointer(ta) || layout::shape(ta) == Shape::Array;
        let ptr_b = layout::is_pointer(tb) || layout::shape(tb) == Shape::Array;
        let elem = |t: Type<'t>| layout::pointee(t).map_or(1, layout::size_of) as i128;
        match op {
            Op::Add if ptr_a => Expr::add(a, Expr::mul(b, Expr::int(elem(ta)))),
            Op::Add if ptr_b => Expr::add(b, Expr::mul(a, Expr::int(elem(tb)))),
            Op::Sub if ptr_a && ptr_b => Expr::div(Expr::sub(a, b), Expr::int(elem(ta).max(1))),
            Op::Sub if ptr_a => Expr::sub(a, Expr::mul(b, Expr::int(elem(ta)))),
            Op::Add => self.fit(Expr::add(a, b), result),
            Op::Sub => self.fit(Expr::sub(a, b), result),
            Op::Mul => self.fit(Expr::mul(a, b), result),
            Op::Div => Expr::div(a, b),
            Op::Rem => Expr::binary(BinaryOp::Rem, a, b),
            Op::Shl => match b {
                Expr::Int(k) if (0..64).contains(&k) => self.fit(Expr::mul(a, Expr::int(1i128 << k)), result),
                _ => self.bit_function("shl", a, b, at),
            },
            Op::Shr => match b {
                Expr::Int(k) if (0..64).contains(&k) && is_unsigned(ta) => Expr::div(a, Expr::int(1i128 << k)),
                _ => self.bit_function("shr", a, b, at),
            },
            Op::And => match b {
                Expr::Int(m) if m > 0 && (m + 1) & m == 0 && is_unsigned(ta) => Expr::binary(BinaryOp::Rem, a, Expr::int(m + 1)),
                _ => self.bit_function("bitand", a, b, at),
            },
            Op::Or => self.bit_function("bitor", a, b, at),
            Op::Xor => self.bit_function("bitxor", a, b, at),
            _ => {
                self.approx(ApproxKind::UnsupportedConstruct, "arithmetic operator".into(), Some(at));
                Expr::var(self.havoc_tmp())
            }
        }
    }

    fn bit_function(&mut self, name: &str, a: Expr, b: Expr, _at: Cursor<'t>) -> Expr {
        self.s.stats.count_approximation(ApproxKind::BitOperation);
        let f = self.function(name, 2);
        Expr::apply(f, vec![a, b])
    }

    fn compound_assign(&mut self, c: Cursor<'t>) -> Expr {
        let children = c.children();
        let [lhs, rhs] = children.as_slice() else {
            self.approx(ApproxKind::UnsupportedConstruct, "compound assignment without two operands".into(), Some(c));
            return Expr::var(self.havoc_tmp());
        };
        let (lhs, rhs) = (*lhs, *rhs);
        let span = Some(self.span(c));
        let op = match c.binary_operator() {
            Op::MulAssign => Op::Mul,
            Op::DivAssign => Op::Div,
            Op::RemAssign => Op::Rem,
            Op::AddAssign => Op::Add,
            Op::SubAssign => Op::Sub,
            Op::ShlAssign => Op::Shl,
            Op::ShrAssign => Op::Shr,
            Op::AndAssign => Op::And,
            Op::XorAssign => Op::Xor,
            Op::OrAssign => Op::Or,
            other => {
                self.approx(ApproxKind::UnsupportedConstruct, format!("compound operator {other:?}"), Some(c));
                return Expr::var(self.havoc_tmp());
            }
        };
        let place = self.place(lhs);
        let access = super::place::access_kind(lhs, self.s.models.volatile_plain);
        self.name_access(&place, &span, lhs);
        let old = self.read_as(&place, access, span.clone());
        let b = self.value(rhs);
        let new = self.arithmetic(op, old, b, lhs.ty(), rhs.ty(), lhs.ty(), c);
        let v = self.tmp();
        self.b.assign(v, new, None);
        self.write_as(&place, Expr::var(v), access, span);
        Expr::var(v)
    }

    fn conditional(&mut self, c: Cursor<'t>) -> Expr {
        let children = c.children();
        let (cond, then, otherwise) = match children.as_slice() {
            [cond, then, otherwise] => (*cond, Some(*then), *otherwise),
            // GNU `a ?: b`.
            [cond, otherwise] => (*cond, None, *otherwise),
            _ => {
                self.approx(ApproxKind::UnsupportedConstruct, "malformed conditional".into(), Some(c));
                return Expr::var(self.havoc_tmp());
            }
        };
        // A condition clang can evaluate selects one arm at compile time
        // (`static_branch_likely`, `__builtin_choose_expr`-like macros):
        // the other arm is never evaluated and is not lowered.
        if let Some(k) = constant_condition(cond) {
            return match (k != 0, then) {
                (true, Some(then)) => self.value(then),
                (true, None) => Expr::int(k),
                (false, _) => self.value(otherwise),
            };
        }
        let Some(then) = then else { return self.binary_conditional(cond, otherwise) };
        let result = self.tmp();
        let join = self.b.new_block();
        let (t, f) = self.branch_blocks(cond);
        self.b.switch_to(t);
        let v = self.value(then);
        self.b.assign(result, v, None);
        self.b.goto([join]);
        self.b.switch_to(f);
        let v = self.value(otherwise);
        self.b.assign(result, v, None);
        self.b.goto([join]);
        self.b.switch_to(join);
        Expr::var(result)
    }

    /// `a ?: b`: `a` once; its value when non-zero, else `b`.
    fn binary_conditional(&mut self, common: Cursor<'t>, otherwise: Cursor<'t>) -> Expr {
        let result = self.tmp();
        let v = self.value(common);
        self.b.assign(result, v, None);
        let join = self.b.new_block();
        let (t, f) = self.b.branch(Expr::ne(Expr::var(result), Expr::int(0)), Some(self.span(common)));
        self.b.switch_to(t);
        self.b.goto([join]);
        self.b.switch_to(f);
        let v = self.value(otherwise);
        self.b.assign(result, v, None);
        self.b.goto([join]);
        self.b.switch_to(join);
        Expr::var(result)
    }

    /// A boolean for a C condition, without control flow when the operands
    /// have no side effects beyond loads, with it for `&&` and `||`.
    pub fn condition(&mut self, c: Cursor<'t>) -> Expr {
        let c = strip_parens(c);
        if c.kind() == CursorKind::BinaryOperator {
            let children = c.children();
            if let [lhs, rhs] = children.as_slice() {
                let cmp = match c.binary_operator() {
                    Op::LT => Some(BinaryOp::Lt),
                    Op::GT => Some(BinaryOp::Gt),
                    Op::LE => Some(BinaryOp::Le),
                    Op::GE => Some(BinaryOp::Ge),
                    Op::EQ => Some(BinaryOp::Eq),
                    Op::NE => Some(BinaryOp::Ne),
                    _ => None,
                };
                if let Some(cmp) = cmp {
                    let a = self.compared_value(*lhs);
                    let b = self.compared_value(*rhs);
                    return Expr::binary(cmp, a, b);
                }
                if matches!(c.binary_operator(), Op::LAnd | Op::LOr) {
                    let result = self.tmp_bool();
                    let (t, f) = self.branch_blocks(c);
                    let join = self.b.new_block();
                    self.b.switch_to(t);
                    self.b.assign(result, Expr::bool(true), None);
                    self.b.goto([join]);
                    self.b.switch_to(f);
                    self.b.assign(result, Expr::bool(false), None);
                    self.b.goto([join]);
                    self.b.switch_to(join);
                    return Expr::var(result);
                }
            }
        }
        if c.kind() == CursorKind::UnaryOperator && c.unary_operator() == UOp::LNot {
            if let Some(&operand) = c.children().first() {
                let inner = self.condition(operand);
                return Expr::not(inner);
            }
        }
        let v = self.value(c);
        Expr::ne(v, Expr::int(0))
    }

    /// An operand of a comparison. An address compared (`(uintptr_t)(addr)
    /// != (uintptr_t)NULL`, as the kernel's `bitop()` macro does) is not an
    /// address that escapes: a comparison keeps no pointer, so `&x` and an
    /// array decaying are evaluated without merging their regions.
    fn compared_value(&mut self, c: Cursor<'t>) -> Expr {
        let mut inner = strip_parens(c);
        while matches!(inner.kind(), CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr) {
            match inner.children().as_slice() {
                [.., last] if layout::is_pointer(last.ty()) && (layout::is_pointer(inner.ty()) || layout::is_integral(inner.ty())) => inner = strip_parens(*last),
                _ => break,
            }
        }
        let object = if inner.kind() == CursorKind::UnaryOperator && inner.unary_operator() == UOp::AddrOf {
            inner.children().first().copied().filter(|o| layout::shape(o.ty()) == Shape::Scalar)
        } else {
            let array = super::place::see_through_decay(inner);
            (array != inner && layout::pointee(array.ty()).is_some_and(|e| layout::shape(e) == Shape::Scalar)).then_some(array)
        };
        let Some(object) = object else { return self.value(c) };
        match self.place(object) {
            Place::Mem { address, .. } => address,
            Place::Object(o) => o.address,
            other => self.address_of(&other, object.ty(), object),
        }
    }

    /// Branches on a C condition: returns the blocks where it holds and
    /// where it does not, short-circuiting `&&` and `||`.
    pub fn branch_blocks(&mut self, c: Cursor<'t>) -> (BlockId, BlockId) {
        let c = strip_parens(c);
        if c.kind() == CursorKind::BinaryOperator && matches!(c.binary_operator(), Op::LAnd | Op::LOr) {
            let children = c.children();
            if let [lhs, rhs] = children.as_slice() {
                let (yes, no) = (self.b.new_block(), self.b.new_block());
                let (lt, lf) = self.branch_blocks(*lhs);
                let and = c.binary_operator() == Op::LAnd;
                // `a && b`: b is evaluated where a holds; `a || b`: where it does not.
                let (eval_rhs, short) = if and { (lt, lf) } else { (lf, lt) };
                self.b.switch_to(short);
                self.b.goto([if and { no } else { yes }]);
                self.b.switch_to(eval_rhs);
                let (rt, rf) = self.branch_blocks(*rhs);
                self.b.switch_to(rt);
                self.b.goto([yes]);
                self.b.switch_to(rf);
                self.b.goto([no]);
                return (yes, no);
            }
        }
        let cond = self.condition(c);
        let span = Some(self.span(c));
        self.b.branch(cond, span)
    }

    fn statement_expression(&mut self, c: Cursor<'t>) -> Expr {
        let Some(body) = c.children().into_iter().find(|k| k.kind() == CursorKind::CompoundStmt) else {
            self.approx(ApproxKind::UnsupportedConstruct, "statement expression without a body".into(), Some(c));
            return Expr::var(self.havoc_tmp());
        };
        let statements = body.children();
        let Some((last, init)) = statements.split_last() else { return Expr::int(0) };
        for s in init {
            self.lower_stmt(*s);
        }
        match last.kind().c_syntax() {
            CSyntax::Expr(_) if !self.b.is_terminated() => self.value(*last),
            CSyntax::Expr(_) | CSyntax::Stmt(_) | CSyntax::NotC(_) | CSyntax::Other(_) => {
                self.lower_stmt(*last);
                Expr::int(0)
            }
        }
    }

    /// `_Generic(x, T1: e1, …)`: libclang does not say which association
    /// was selected, so the one whose type is the expression's type is
    /// taken; when none or several match, the value is arbitrary.
    fn generic_selection(&mut self, c: Cursor<'t>) -> Expr {
        match generic_selected(c) {
            Some(only) => self.value(only),
            None => {
                self.approx(ApproxKind::UnsupportedConstruct, "_Generic selection libclang does not resolve".into(), Some(c));
                Expr::var(self.havoc_tmp())
            }
        }
    }

    /// A fresh thread-private object of a type, for temporaries.
    pub fn temporary_object(&mut self, ty: Type<'t>) -> Object<'t> {
        let key = RegionKey::Local { name: format!("{}.temporary", self.name) };
        let address = self.b.add_local("addr_tmp", crate::ir::Sort::Int, None);
        self.b.push(crate::ir::Command::Havoc { vars: vec![address], span: None });
        self.b.assume(Expr::gt(Expr::var(address), Expr::int(0)), None);
        self.s.privacy.locals.push(address);
        Object { address: Expr::var(address), ty, owner: Owner::Local(key.clone()), field_key: Some(key) }
    }

    /// `(T){ … }`: a thread-private object initialised in place.
    pub fn compound_literal(&mut self, c: Cursor<'t>) -> Object<'t> {
        let object = self.temporary_object(c.ty());
        if let Some(init) = c.children().into_iter().find(|k| k.kind() == CursorKind::InitListExpr) {
            self.initialise(&Place::Object(object.clone()), c.ty(), init);
        }
        object
    }

    /// Copies a record from one place to another, leaf by leaf.
    pub fn copy_object(&mut self, src: &Place<'t>, dst: &Place<'t>, ty: Type<'t>, span: Option<crate::diagnostics::Span>) {
        let (Place::Object(s), Place::Object(d)) = (src, dst) else {
            self.approx(ApproxKind::UnsupportedConstruct, "record copy between non-object places".into(), None);
            return;
        };
        for leaf in layout::scalar_leaves(ty) {
            let from = self.leaf_place(s, &leaf);
            let to = self.leaf_place(d, &leaf);
            let v = self.read(&from, span.clone());
            self.write(&to, v, span.clone());
        }
    }

    /// The place of one scalar leaf of an object. A leaf repeated over an
    /// array (or an array leaf) is accessed at an arbitrary address within
    /// its extent, which covers every element.
    pub fn leaf_place(&mut self, object: &Object<'t>, leaf: &layout::Leaf<'t>) -> Place<'t> {
        let key = match (&object.owner, leaf.field) {
            (Owner::Local(key), _) => key.clone(),
            (_, Some(f)) if f.bit_field_width().is_none() => super::place::field_key(f),
            (_, Some(f)) => {
                let parent = f.semantic_parent().map(layout::record_name).unwrap_or_default();
                let (byte, _) = layout::field_offset(f);
                let unit = layout::size_of(f.ty()).max(1);
                RegionKey::BitUnit { record: parent, offset: byte / unit * unit }
            }
            (_, None) => object.field_key.clone().unwrap_or_else(|| RegionKey::Pointee { ty: layout::type_name(leaf.ty) }),
        };
        let start = super::place::add_offset(object.address.clone(), leaf.offset as i128);
        let end = leaf.repeats_until.map(|e| e as i128).unwrap_or(leaf.offset as i128 + leaf.size as i128);
        // A flexible array member (`T data[]`, size 0) ends where the
        // allocation ends, not at the record's static size: its leaves
        // reach every address from their first one on (an empty range
        // here made every path through a whole-record access infeasible).
        let flexible = end <= leaf.offset as i128;
        let single = !flexible && leaf.repeats_until.is_none() && leaf.size <= layout::size_of(leaf.ty);
        if single {
            return Place::Mem { key, address: start };
        }
        let a = self.tmp();
        self.b.push(crate::ir::Command::Havoc { vars: vec![a], span: None });
        self.s.privacy.within.push((a, object.address.clone()));
        let from = Expr::le(start, Expr::var(a));
        let range = if flexible { from } else { Expr::and(from, Expr::lt(Expr::var(a), super::place::add_offset(object.address.clone(), end))) };
        self.b.assume(range, None);
        Place::Mem { key, address: Expr::var(a) }
    }
}

/// Whether a type is `va_list` (`__builtin_va_list`).
fn is_va_list(ty: Type<'_>) -> bool {
    let t = ty.canonical().spelling();
    t.contains("__va_list_tag") || t.contains("__builtin_va_list")
}

/// Enum constants and other declarations with a constant value.
fn constant_decl(c: Cursor<'_>) -> Option<i128> {
    let decl = c.referenced()?;
    (decl.kind() == CursorKind::EnumConstantDecl).then(|| constant(c)).flatten()
}
