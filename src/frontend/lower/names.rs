//! Access names: the C expression of each memory access, printed as the
//! code wrote it (`*ppos`, `file->f_pos`, `tp->tx_buf[entry]`), for the
//! race report.
//!
//! # Algorithm
//!
//! Where the lowering reads or writes a place it has the lvalue's cursor;
//! [`FnLower::name_access`] prints it from the AST (names, member
//! accesses with `->` or `.` by the base's type, subscripts, dereferences,
//! parentheses, casts, calls, literals and operators; implicit conversions
//! and unnamed members are seen through) and records the text under the
//! access's span and region in [`crate::ir::Program::access_names`], the
//! first access at a span and region keeping its name. A modelled
//! function's access to what its argument points to is named after the
//! argument (`kfifo->in` for argument `kfifo` and field `in`, `x` for
//! `&x`) and the function (`__kfifo_in()`). The printing is bounded in
//! depth and length (an elided part prints as `…`), so a name costs a
//! few cursor visits.
//!
//! Code produced by a macro prints as the macro's expansion (the AST has
//! no other text), with the macro's local temporaries replaced by their
//! initialisers, `(&x)->f` printed `x.f` and `READ_ONCE(x)`'s
//! `*(volatile typeof(x) *)&(x)` printed `x`: `__tmp->kfifo.in` inside
//! `kfifo_reset(&sonypi_device.fifo)` prints `sonypi_device.fifo.kfifo.in`,
//! what the code passed to the macro. Its span still points at the
//! macro's use.
//!
//! # Soundness
//!
//! Names are report data: no analysis reads them, so they cannot change a
//! verdict.

use super::context::FnLower;
use super::place::Place;
use super::regions::RegionKey;
use crate::diagnostics::Span;
use crate::frontend::clang::{BinaryOperator as Op, CExpr, CSyntax, Cursor, CursorKind, UnaryOperator as UOp};

/// How deep the printer descends before eliding.
const MAX_DEPTH: usize = 6;

/// The longest name kept whole; longer ones are cut with `…`.
const MAX_CHARS: usize = 80;

impl<'t> FnLower<'_, '_, '_, 't> {
    /// Records the C expression `lvalue` as the name of the access to
    /// `place` at `span` (nothing for a variable, object or function
    /// place, or without a span).
    pub fn name_access(&mut self, place: &Place<'t>, span: &Option<Span>, lvalue: Cursor<'t>) {
        self.name_access_with(place, span, || print(lvalue));
    }

    /// Records `name()` as the name of the access to `place` at `span`,
    /// unless one is recorded already.
    pub fn name_access_with(&mut self, place: &Place<'t>, span: &Option<Span>, name: impl FnOnce() -> String) {
        if let Place::Mem { key, .. } | Place::BitField { key, .. } = place {
            self.name_key(key, span, name);
        }
    }

    /// Records `name()` as the name of the access to the region of `key`
    /// at `span`, unless one is recorded already.
    pub fn name_key(&mut self, key: &RegionKey, span: &Option<Span>, name: impl FnOnce() -> String) {
        let Some(span) = span else { return };
        let region = self.region(key.clone());
        let names = &mut self.b.program().access_names;
        if let std::collections::btree_map::Entry::Vacant(e) = names.entry((span.clone(), region)) {
            e.insert(clip(name()));
        }
    }
}

/// The name of a modelled function's access to what argument `arg`
/// points to: `x` for `&x`, `p->field` or `*p` otherwise, then the
/// function when given (`__kfifo_in()`).
pub fn argument_name(function: Option<&str>, arg: Cursor<'_>, field: Option<&str>) -> String {
    // A cast of the argument (`(unsigned char *)&event`) does not change
    // the object it points to.
    let mut arg = resolve(see_through(arg), 0);
    while arg.kind() == CursorKind::CStyleCastExpr {
        match arg.children().last() {
            Some(&inner) => arg = resolve(see_through(inner), 0),
            None => break,
        }
    }
    let is_addr_of = arg.kind() == crate::frontend::clang::CursorKind::UnaryOperator && arg.unary_operator() == UOp::AddrOf;
    let target = match (is_addr_of, arg.children().first()) {
        (true, Some(inner)) => match field {
            Some(f) => format!("{}.{f}", print_at(*inner, 1, true)),
            None => print_at(*inner, 1, false),
        },
        _ => match field {
            Some(f) => format!("{}->{f}", print_at(arg, 1, true)),
            None => format!("*{}", print_at(arg, 1, true)),
        },
    };
    match function {
        Some(f) => format!("{target} ({f}())"),
        None => target,
    }
}

/// The C text of an expression, as the AST has it.
pub fn print(c: Cursor<'_>) -> String {
    print_at(c, 0, false)
}

/// Cuts a name longer than [`MAX_CHARS`] characters.
fn clip(mut s: String) -> String {
    if s.chars().count() > MAX_CHARS {
        s = s.chars().take(MAX_CHARS - 1).collect();
        s.push('…');
    }
    s
}

/// An implicit conversion (an `UnexposedExpr` with one child) and
/// parentheses seen through.
fn see_through(mut c: Cursor<'_>) -> Cursor<'_> {
    loop {
        let next = match c.kind().c_syntax() {
            CSyntax::Expr(CExpr::UnexposedExpr | CExpr::ParenExpr) => match c.children().as_slice() {
                [inner] => *inner,
                _ => return c,
            },
            _ => return c,
        };
        c = next;
    }
}

/// The initialiser of the local variable `c` names, when a macro declared
/// it (`typeof(fifo) __tmp = (fifo)` in kfifo.h): the macro's temporaries
/// stand for what the code passed to the macro.
fn macro_local(c: Cursor<'_>) -> Option<Cursor<'_>> {
    let decl = c.referenced().filter(|d| d.kind() == CursorKind::VarDecl)?;
    let local = decl.semantic_parent().is_some_and(|p| p.kind() == CursorKind::FunctionDecl) && !decl.is_static_storage();
    if !local || !decl.is_from_macro() {
        return None;
    }
    decl.var_initializer()
}

/// `c` with the macro temporaries it names replaced by their initialisers
/// (implicit conversions and parentheses seen through), up to the depth
/// bound.
fn resolve(mut c: Cursor<'_>, mut depth: usize) -> Cursor<'_> {
    while depth <= MAX_DEPTH && c.kind() == CursorKind::DeclRefExpr {
        match macro_local(c) {
            Some(init) => c = see_through(init),
            None => break,
        }
        depth += 1;
    }
    c
}

/// `c` printed at `depth`; `operand`: as the operand of a postfix or
/// unary operator, where a binary expression needs parentheses.
fn print_at(c: Cursor<'_>, depth: usize, operand: bool) -> String {
    if depth > MAX_DEPTH {
        return "…".to_string();
    }
    let children = c.children();
    let child = |i: usize, operand: bool| children.get(i).map_or_else(|| "…".to_string(), |k| print_at(*k, depth + 1, operand));
    let kind = match c.kind().c_syntax() {
        CSyntax::Expr(kind) => kind,
        CSyntax::Stmt(_) | CSyntax::NotC(_) | CSyntax::Other(_) => return "…".to_string(),
    };
    let text = match kind {
        CExpr::DeclRefExpr => match macro_local(c) {
            Some(init) => return print_at(init, depth + 1, operand),
            None => c.spelling(),
        },
        CExpr::MemberRefExpr => {
            let name = c.spelling();
            let Some(&base) = children.first() else { return name };
            let base = resolve(see_through(base), depth);
            let mut arrow = super::layout::is_pointer(base.ty());
            // `(&x)->f` is `x.f`.
            let base = match base.children().first() {
                Some(&inner) if base.kind() == CursorKind::UnaryOperator && base.unary_operator() == UOp::AddrOf => {
                    arrow = false;
                    inner
                }
                _ => base,
            };
            // An unnamed member (an anonymous union or struct) is not
            // written in the code: its base and operator stand for it.
            if name.is_empty() {
                return print_at(base, depth + 1, true) + if arrow { "->" } else { "." };
            }
            let prefix = print_at(base, depth + 1, true);
            if prefix.ends_with("->") || prefix.ends_with('.') {
                return format!("{prefix}{name}");
            }
            format!("{prefix}{}{name}", if arrow { "->" } else { "." })
        }
        CExpr::ArraySubscriptExpr => format!("{}[{}]", child(0, true), child(1, false)),
        CExpr::ParenExpr => format!("({})", child(0, false)),
        CExpr::UnexposedExpr => match children.as_slice() {
            [inner] => return print_at(*inner, depth, operand),
            _ => literal(c),
        },
        CExpr::CStyleCastExpr => {
            let inner = children.last().map_or_else(|| "…".to_string(), |k| print_at(*k, depth + 1, true));
            format!("({}){inner}", c.ty().spelling())
        }
        CExpr::UnaryOperator => {
            let op = match c.unary_operator() {
                UOp::PostInc => return format!("{}++", child(0, true)),
                UOp::PostDec => return format!("{}--", child(0, true)),
                UOp::PreInc => "++",
                UOp::PreDec => "--",
                UOp::AddrOf => "&",
                UOp::Deref => match unmarked(c) {
                    // `*(volatile typeof(x) *)&(x)`, what READ_ONCE(x)
                    // expands to, is `x`.
                    Some(x) => return print_at(x, depth + 1, operand),
                    None => "*",
                },
                UOp::Plus => "+",
                UOp::Minus => "-",
                UOp::Not => "~",
                UOp::LNot => "!",
                UOp::Real => "__real__ ",
                UOp::Imag => "__imag__ ",
                UOp::Extension => "__extension__ ",
                UOp::Coawait | UOp::Invalid | UOp::Unknown => "?",
            };
            format!("{op}{}", child(0, true))
        }
        CExpr::BinaryOperator | CExpr::CompoundAssignOperator => {
            let text = format!("{} {} {}", child(0, true), binary(c.binary_operator()), child(1, true));
            return if operand { format!("({text})") } else { text };
        }
        CExpr::ConditionalOperator => {
            let text = format!("{} ? {} : {}", child(0, true), child(1, true), child(2, true));
            return if operand { format!("({text})") } else { text };
        }
        CExpr::CallExpr => {
            let callee = child(0, true);
            let args: Vec<String> = children.iter().skip(1).map(|k| print_at(*k, depth + 1, false)).collect();
            format!("{callee}({})", args.join(", "))
        }
        CExpr::IntegerLiteral | CExpr::CharacterLiteral | CExpr::FloatingLiteral | CExpr::GNUNullExpr => literal(c),
        CExpr::StringLiteral => c.spelling(),
        CExpr::UnaryExpr => "sizeof(…)".to_string(),
        CExpr::StmtExpr => "({…})".to_string(),
        CExpr::CompoundLiteralExpr | CExpr::InitListExpr => "{…}".to_string(),
        CExpr::ImaginaryLiteral
        | CExpr::FixedPointLiteral
        | CExpr::BuiltinBitCastExpr
        | CExpr::AddrLabelExpr
        | CExpr::GenericSelectionExpr => "…".to_string(),
    };
    text
}

/// For `*(T *)&x` produced by a macro (`READ_ONCE(x)`, `WRITE_ONCE(x,
/// v)`): `x`.
fn unmarked(deref: Cursor<'_>) -> Option<Cursor<'_>> {
    if !deref.is_from_macro() {
        return None;
    }
    let cast = see_through(*deref.children().first()?);
    if cast.kind() != CursorKind::CStyleCastExpr {
        return None;
    }
    let address = see_through(*cast.children().last()?);
    if address.kind() != CursorKind::UnaryOperator || address.unary_operator() != UOp::AddrOf {
        return None;
    }
    address.children().first().map(|x| see_through(*x))
}

/// A constant's value, or `…`.
fn literal(c: Cursor<'_>) -> String {
    super::expr::constant(c).map_or_else(|| "…".to_string(), |v| v.to_string())
}

/// The C spelling of a binary operator.
fn binary(op: Op) -> &'static str {
    match op {
        Op::PtrMemD => ".*",
        Op::PtrMemI => "->*",
        Op::Mul => "*",
        Op::MulAssign => "*=",
        Op::Div => "/",
        Op::DivAssign => "/=",
        Op::Rem => "%",
        Op::RemAssign => "%=",
        Op::Add => "+",
        Op::AddAssign => "+=",
        Op::Sub => "-",
        Op::SubAssign => "-=",
        Op::Shl => "<<",
        Op::ShlAssign => "<<=",
        Op::Shr => ">>",
        Op::ShrAssign => ">>=",
        Op::Cmp => "<=>",
        Op::LT => "<",
        Op::GT => ">",
        Op::LE => "<=",
        Op::GE => ">=",
        Op::EQ => "==",
        Op::NE => "!=",
        Op::And => "&",
        Op::AndAssign => "&=",
        Op::Xor => "^",
        Op::XorAssign => "^=",
        Op::Or => "|",
        Op::OrAssign => "|=",
        Op::LAnd => "&&",
        Op::LOr => "||",
        Op::Assign => "=",
        Op::Comma => ",",
        Op::Invalid | Op::Unknown => "?",
    }
}
