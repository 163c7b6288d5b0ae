//! Places: what a C lvalue designates, and reading and writing it.
//!
//! A scalar place is an IR variable or scalar memory (a region key and a
//! byte address); a record or array place is an object at an address whose
//! scalar leaves are accessed one by one. The region key of a leaf is
//! decided here, following [`super::regions`]: the field's innermost named
//! record, the union that overlaps it, the bit-field storage unit, the global
//! or the local that owns it, or the pointee type of a plain pointer.

use super::context::{FnLower, Storage};
use super::layout::{self, Shape};
use super::regions::{MergeReason, RegionKey};
use crate::diagnostics::Span;
use crate::frontend::clang::{Cursor, CursorKind, Type, UnaryOperator};
use crate::ir::{AccessKind, ApproxKind, Command, Expr, VarId};

/// Who owns an object, which decides the region keys of its leaves.
#[derive(Clone, Debug)]
pub enum Owner {
    /// A local (or compound literal) of the function: one thread-private
    /// region for all of it.
    Local(RegionKey),
    /// A global variable: its scalar elements go to `global NAME`, its
    /// fields to their records' regions.
    Global,
    /// Memory reached through a pointer: fields go to their records'
    /// regions, scalars to their pointee type's region.
    Heap,
}

/// An object (record or array) at an address.
#[derive(Clone, Debug)]
pub struct Object<'t> {
    /// Its address.
    pub address: Expr,
    /// Its type.
    pub ty: Type<'t>,
    /// Who owns it.
    pub owner: Owner,
    /// For an array that is a record field, the field's region key (its
    /// elements are that field's storage).
    pub field_key: Option<RegionKey>,
}

/// What an lvalue designates.
#[derive(Clone, Debug)]
pub enum Place<'t> {
    /// An IR variable.
    Var(VarId),
    /// Scalar memory.
    Mem {
        /// Its region key.
        key: RegionKey,
        /// Its byte address.
        address: Expr,
    },
    /// A bit-field: its storage unit in memory.
    BitField {
        /// The unit's region key.
        key: RegionKey,
        /// The unit's address.
        address: Expr,
        /// Bit offset within the unit.
        bit: u64,
        /// Width in bits.
        width: u32,
    },
    /// A record or array.
    Object(Object<'t>),
    /// A function designator.
    Function(Cursor<'t>),
}

/// The name of a global variable's region: its C name, or `function.name`
/// for a static local.
pub fn global_name(decl: Cursor<'_>) -> String {
    if decl.semantic_parent().is_some_and(|p| p.kind() == CursorKind::FunctionDecl) {
        format!("{}.{}", decl.semantic_parent().map(|p| p.spelling()).unwrap_or_default(), decl.spelling())
    } else {
        decl.spelling()
    }
}

/// [`global_name`] in a unit of several files: a variable with internal
/// linkage (a `static` global or a static local, whose USR names its file,
/// `c:a.c@count`, unlike an external one's `c:@count`) whose name is in
/// `qualified` (several files define one of that name) gets its file's
/// name appended, so that the files' statics stay distinct objects, as the
/// linker keeps them.
pub fn global_symbol(decl: Cursor<'_>, qualified: &std::collections::HashSet<String>) -> String {
    let name = global_name(decl);
    if !qualified.contains(&name) || decl.usr().starts_with("c:@") {
        return name;
    }
    let file = decl.location().file.and_then(|f| f.as_path().file_name().map(|n| n.to_string_lossy().into_owned()));
    match file {
        Some(file) => format!("{name}@{file}"),
        None => name,
    }
}

/// The names ([`global_name`]) of the variables with internal linkage
/// that more than one of the units' files define in its own code.
pub fn colliding_statics<'t>(tus: &[&'t crate::frontend::clang::TranslationUnit<'t>]) -> std::collections::HashSet<String> {
    fn walk(c: Cursor<'_>, main: crate::frontend::clang::FileId<'_>, out: &mut std::collections::BTreeSet<String>) {
        c.for_each_child(|child| {
            if !child.is_expanded_in(main) {
                return true;
            }
            if child.kind() == CursorKind::VarDecl && child.is_static_storage() && !child.usr().starts_with("c:@") {
                out.insert(global_name(child));
            }
            walk(child, main, out);
            true
        });
    }
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    if tus.len() < 2 {
        return Default::default();
    }
    for tu in tus {
        let Some(main) = tu.main_file_id() else { continue };
        let mut here = std::collections::BTreeSet::new();
        walk(tu.root(), main, &mut here);
        for name in here {
            *seen.entry(name).or_default() += 1;
        }
    }
    seen.into_iter().filter(|(_, n)| *n > 1).map(|(name, _)| name).collect()
}

/// The USRs of the globals the initialiser of a file-scope variable
/// names (a constant initialiser can only take their address: `&v`,
/// `&v.field`, an array decaying): `module_param(v, …)`'s `struct
/// kernel_param` points at `v`, and the module loader's `parse_args`
/// writes it before module init.
pub fn initializer_addressed<'t>(tus: &[&'t crate::frontend::clang::TranslationUnit<'t>]) -> std::collections::HashSet<String> {
    let mut vars = Vec::new();
    for tu in tus {
        tu.root().for_each_child(|top| {
            if let Some(init) = top.var_initializer().filter(|_| top.kind() == CursorKind::VarDecl) {
                crate::frontend::registered::references(init, &mut Vec::new(), &mut vars);
            }
            true
        });
    }
    vars.iter().map(|v| v.usr()).collect()
}

/// The region key of a scalar field, given the field declaration: its
/// innermost named record, or the union any anonymous level belongs to.
pub fn field_key(field: Cursor<'_>) -> RegionKey {
    let mut record = field.semantic_parent();
    while let Some(r) = record {
        if layout::is_union(r) {
            return RegionKey::Union { name: layout::record_name(r) };
        }
        let anonymous = r.is_anonymous() || r.spelling().is_empty() || r.spelling().contains("unnamed at");
        if !anonymous {
            return RegionKey::Field { record: layout::record_name(r), field: field.spelling() };
        }
        record = r.semantic_parent().filter(|p| matches!(p.kind(), CursorKind::StructDecl | CursorKind::UnionDecl));
        if record.is_none() {
            return RegionKey::Field { record: layout::record_name(r), field: field.spelling() };
        }
    }
    RegionKey::Field { record: "<unknown record>".into(), field: field.spelling() }
}

impl<'t> FnLower<'_, '_, '_, 't> {
    /// Notes where the lowering is (`file:line in function`), for the log
    /// of region merges.
    pub fn note_merge_site(&mut self, c: Cursor<'_>) {
        let location = c.location();
        let file = location.file.as_ref().and_then(|f| f.file_name()).map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        self.s.regions.site = format!("{file}:{} in {}", location.line, self.name);
    }

    /// The value of a pointer argument that a kernel function model does
    /// not keep (`keeps`, src/models/functions.rs) when it is the address of a
    /// scalar (`&dev->count`, `&global`) or an array of scalars decaying
    /// (`info->driver`, a string literal): its address, without the merge
    /// an escaping address makes, provided the model's accesses through it
    /// ([`argument_scalar_place`](Self::argument_scalar_place)) use the
    /// very region every other access of that storage uses. `None`, having
    /// emitted nothing, for any other argument.
    pub fn unescaped_argument(&mut self, argument: Cursor<'t>) -> Option<Expr> {
        if !layout::is_pointer(argument.ty()) {
            return None;
        }
        let inner = super::expr::strip_parens(super::calls::see_through_void_casts(argument));
        let (object, pointee) = if inner.kind() == CursorKind::UnaryOperator && inner.unary_operator() == UnaryOperator::AddrOf {
            let object = *inner.children().first()?;
            (layout::shape(object.ty()) == Shape::Scalar).then_some((object, object.ty()))?
        } else {
            let array = see_through_decay(inner);
            let element = layout::pointee(array.ty())?;
            (array != inner && layout::shape(element) == Shape::Scalar).then_some((array, element))?
        };
        let place = self.place(object);
        let own = match &place {
            Place::Mem { key, address } => Some((key.clone(), address.clone())),
            Place::Object(o) => o.field_key.clone().map(|k| (k, o.address.clone())),
            Place::Var(_) | Place::BitField { .. } | Place::Function(_) => None,
        };
        if let Some((key, address)) = own {
            let modelled = match self.argument_scalar_place(inner, address.clone(), pointee) {
                Place::Mem { key, .. } => Some(key),
                _ => None,
            };
            if modelled.as_ref() == Some(&key) {
                self.s.stats.unescaped_arguments += 1;
                return Some(address);
            }
        }
        // The model would reach the storage under another key: the address
        // escapes as it does anywhere else.
        Some(self.address_of(&place, object.ty(), object))
    }

    /// The place an lvalue designates, emitting the loads its address needs.
    pub fn place(&mut self, c: Cursor<'t>) -> Place<'t> {
        let c = super::expr::strip_parens(c);
        // An implicit conversion that keeps the type (lvalue-to-rvalue, no
        // op) designates what its operand designates.
        if c.kind() == CursorKind::UnexposedExpr {
            if let [inner] = c.children().as_slice() {
                if inner.ty().canonical().spelling() == c.ty().canonical().spelling() && !matches!(inner.kind(), CursorKind::TypeRef) {
                    return self.place(*inner);
                }
            }
        }
        match c.kind() {
            CursorKind::DeclRefExpr => self.decl_place(c),
            CursorKind::MemberRefExpr => self.member_place(c),
            CursorKind::ArraySubscriptExpr => self.subscript_place(c),
            CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::Deref => match c.children().first() {
                // `*&x`, and `*(volatile T *)&x` as READ_ONCE writes it, is `x`.
                Some(&operand) if address_of_same_type(operand, c) => {
                    let object = strip_pointer_casts(operand).children()[0];
                    self.place(object)
                }
                Some(&operand) => {
                    let pointer = self.value(operand);
                    self.pointee_place(pointer, c.ty())
                }
                None => self.malformed_place(c),
            },
            CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::Extension => match c.children().first() {
                Some(&inner) => self.place(inner),
                None => self.malformed_place(c),
            },
            CursorKind::CompoundLiteralExpr => {
                let object = self.compound_literal(c);
                Place::Object(object)
            }
            CursorKind::StringLiteral => {
                let f = self.function("string_literal", 0);
                // Every literal lies in one read-only block of its own
                // (separation for the precise phase).
                self.b.program().global_sizes.insert(f, STRING_LITERALS_SIZE);
                self.b.program().read_only.insert(f);
                let key = RegionKey::Global { name: "string literals".into() };
                Place::Object(Object { address: Expr::apply(f, vec![]), ty: c.ty(), owner: Owner::Global, field_key: Some(key) })
            }
            _ => {
                // A call or statement expression yielding a record, or an
                // lvalue C does not have: its value lives in a temporary.
                let value = self.value(c);
                let key = RegionKey::Local { name: format!("{}.temporary", self.name) };
                if layout::shape(c.ty()) == Shape::Scalar {
                    let t = self.tmp();
                    self.b.assign(t, value, None);
                    Place::Var(t)
                } else {
                    Place::Object(Object { address: value, ty: c.ty(), owner: Owner::Local(key), field_key: None })
                }
            }
        }
    }

    fn malformed_place(&mut self, c: Cursor<'t>) -> Place<'t> {
        self.approx(ApproxKind::UnsupportedConstruct, format!("malformed {:?}", c.kind()), Some(c));
        Place::Var(self.tmp())
    }

    fn decl_place(&mut self, c: Cursor<'t>) -> Place<'t> {
        let Some(decl) = c.referenced() else {
            self.approx(ApproxKind::UnsupportedConstruct, "reference to an unknown declaration".into(), Some(c));
            return Place::Var(self.tmp());
        };
        match decl.kind() {
            CursorKind::FunctionDecl => Place::Function(decl),
            CursorKind::VarDecl | CursorKind::ParmDecl => {
                if let Some(storage) = self.locals.get(&decl.usr()).cloned() {
                    return match storage {
                        Storage::Var(v) => Place::Var(v),
                        Storage::Shared { address } => self.object_or_scalar(Expr::var(address), decl.ty(), Owner::Heap, None),
                        Storage::Memory { key, address } => self.object_or_scalar(Expr::var(address), decl.ty(), Owner::Local(key.clone()), Some(key)),
                    };
                }
                // A global register variable is a CPU register, private to
                // whoever runs: not memory any other thread can touch.
                if decl.is_register_storage() {
                    let key = RegionKey::Local { name: format!("register {}", decl.spelling()) };
                    let address = self.global_address(&decl.spelling());
                    return self.object_or_scalar(address, decl.ty(), Owner::Local(key.clone()), Some(key));
                }
                // A thread-local variable (C11 6.2.4p4): each thread
                // has its own instance, private to it, as long as its
                // address is never taken (counted in the statistics for
                // the callers that must know).
                if decl.is_thread_local() {
                    let key = RegionKey::Local { name: format!("thread-local {}", decl.spelling()) };
                    let address = self.sized_global_address(&format!("tls_{}", decl.spelling()), decl.ty());
                    return self.object_or_scalar(address, decl.ty(), Owner::Local(key.clone()), Some(key));
                }
                // A global, or a static local.
                let name = global_symbol(decl, &self.s.qualified_statics);
                let address = self.sized_global_address(&name, decl.ty());
                self.record_initial_value(decl, &address);
                let key = RegionKey::Global { name: name.clone() };
                self.object_or_scalar(address, decl.ty(), Owner::Global, Some(key))
            }
            _ => {
                self.approx(ApproxKind::UnsupportedConstruct, format!("lvalue naming a {:?}", decl.kind()), Some(c));
                Place::Var(self.tmp())
            }
        }
    }

    /// The fixed address of a global: an uninterpreted constant.
    pub fn global_address(&mut self, name: &str) -> Expr {
        let f = self.function(&format!("addr_{}", super::context::sanitise(name)), 0);
        Expr::apply(f, vec![])
    }

    /// [`Self::global_address`], recording the global's size for the
    /// precise phase's separation.
    fn sized_global_address(&mut self, name: &str, ty: crate::frontend::clang::Type<'t>) -> Expr {
        let address = self.global_address(name);
        // A global of unknown size (an array declared `extern T a[];`)
        // gets no separation.
        if let (Expr::Apply(f, _), Some(size)) = (&address, ty.canonical().size_of()) {
            self.b.program().global_sizes.insert(*f, size.max(1));
        }
        address
    }

    /// Records what a global holds at program start, when its definition
    /// in this file says so exactly: zero without an initialiser (C11
    /// 6.7.9p10), the constant of a scalar integer initialiser, the address
    /// of the one function a function pointer's initialiser names. Anything
    /// else (no definition here, an aggregate or pointer initialiser) is
    /// left unrecorded: unknown.
    fn record_initial_value(&mut self, decl: Cursor<'t>, address: &Expr) {
        let Expr::Apply(f, _) = address else { return };
        // A tentative definition (`int x;` at file scope, C11 6.9.2p2) is
        // no definition for libclang, but makes the object, zero, when no
        // declaration of the file gives it an initialiser.
        let Some(def) = decl.definition().or_else(|| (!decl.is_extern_storage()).then_some(decl)) else { return };
        let value = match def.var_initializer() {
            None => Some(0),
            Some(init) if matches!(layout::shape(def.ty()), Shape::Scalar) && is_integer(def.ty().canonical().kind()) => match init.evaluate() {
                Some(crate::frontend::clang::EvalValue::Int(v)) => Some(i128::from(v)),
                Some(crate::frontend::clang::EvalValue::UnsignedInt(v)) => Some(i128::from(v)),
                _ => None,
            },
            Some(_) => None,
        };
        if let Some(function) = def.var_initializer().filter(|_| def.ty().is_function_pointer()).and_then(designated_function) {
            if let Expr::Apply(g, _) = self.function_address(function) {
                self.b.program().global_functions.insert(*f, g);
            }
        }
        let addressed = self.s.initializer_addressed.contains(&def.usr()) || self.s.initializer_addressed.contains(&decl.usr());
        let program = self.b.program();
        if addressed {
            program.initializer_addressed.insert(*f);
        }
        match value {
            Some(0) => {
                program.zero_globals.insert(*f);
            }
            Some(v) => {
                program.global_values.insert(*f, v);
            }
            None => {}
        }
    }

    /// A scalar in memory or an object, by type.
    fn object_or_scalar(&mut self, address: Expr, ty: Type<'t>, owner: Owner, key: Option<RegionKey>) -> Place<'t> {
        match layout::shape(ty) {
            Shape::Scalar | Shape::Opaque => {
                let key = key.unwrap_or_else(|| RegionKey::Pointee { ty: layout::type_name(ty) });
                Place::Mem { key, address }
            }
            Shape::Record | Shape::Array => Place::Object(Object { address, ty, owner, field_key: key }),
        }
    }

    /// `*p` for a pointer value `p` to `ty`.
    pub fn pointee_place(&mut self, pointer: Expr, ty: Type<'t>) -> Place<'t> {
        match layout::shape(ty) {
            Shape::Scalar => Place::Mem { key: RegionKey::Pointee { ty: layout::type_name(ty) }, address: pointer },
            Shape::Opaque if matches!(ty.canonical().kind(), crate::frontend::clang::TypeKind::FunctionProto | crate::frontend::clang::TypeKind::FunctionNoProto) => {
                Place::Mem { key: RegionKey::Pointee { ty: "function".into() }, address: pointer }
            }
            Shape::Opaque => Place::Mem { key: RegionKey::Pointee { ty: layout::type_name(ty) }, address: pointer },
            Shape::Record | Shape::Array => Place::Object(Object { address: pointer, ty, owner: Owner::Heap, field_key: None }),
        }
    }

    fn member_place(&mut self, c: Cursor<'t>) -> Place<'t> {
        let children = c.children();
        let Some(field) = c.referenced().filter(|f| f.kind() == CursorKind::FieldDecl) else {
            self.approx(ApproxKind::UnsupportedConstruct, "member access to an unknown field".into(), Some(c));
            return Place::Var(self.tmp());
        };
        let Some(&base) = children.first() else {
            self.approx(ApproxKind::UnsupportedConstruct, "member access without a base".into(), Some(c));
            return Place::Var(self.tmp());
        };
        let base_ty = base.ty();
        let (base_address, record_ty, owner) = if layout::is_pointer(base_ty) {
            let pointer = self.value(base);
            let record = layout::pointee(base_ty).unwrap_or(base_ty);
            self.note_record_base(&pointer, record);
            (pointer, record, Owner::Heap)
        } else {
            match self.place(base) {
                Place::Object(o) => (o.address, o.ty, o.owner),
                other => {
                    self.approx(ApproxKind::UnsupportedConstruct, format!("member of a non-object place {other:?}"), Some(c));
                    return Place::Var(self.tmp());
                }
            }
        };
        let offset_bits = record_ty.canonical().offset_of(&field.spelling()).or_else(|| field.field_offset_bits()).unwrap_or(0);
        let address = add_offset(base_address, (offset_bits / 8) as i128);
        // A record member of a union overlaps the union's other members.
        if let Some(record) = layout::record_decl(record_ty) {
            if layout::is_union(record) && layout::shape(field.ty()) == Shape::Record {
                self.merge_union_member(record, field.ty());
            }
        }
        if let Owner::Local(key) = &owner {
            let key = key.clone();
            return match layout::shape(field.ty()) {
                Shape::Scalar | Shape::Opaque => Place::Mem { key, address },
                Shape::Record | Shape::Array => Place::Object(Object { address, ty: field.ty(), owner, field_key: Some(key) }),
            };
        }
        if let Some(width) = field.bit_field_width() {
            let record = layout::record_decl(record_ty).map(layout::record_name).unwrap_or_default();
            let unit = layout::size_of(field.ty()).max(1);
            let unit_offset = (offset_bits / 8) / unit * unit;
            let unit_address = add_offset(add_offset(address, -((offset_bits / 8) as i128)), unit_offset as i128);
            let key = RegionKey::BitUnit { record, offset: unit_offset };
            return Place::BitField { key, address: unit_address, bit: offset_bits - unit_offset * 8, width };
        }
        let key = field_key(field);
        match layout::shape(field.ty()) {
            Shape::Scalar | Shape::Opaque => Place::Mem { key, address },
            Shape::Record => Place::Object(Object { address, ty: field.ty(), owner: Owner::Heap, field_key: None }),
            Shape::Array => Place::Object(Object { address, ty: field.ty(), owner: Owner::Heap, field_key: Some(key) }),
        }
    }

    /// Notes that `pointer`, when it is a variable, points to a `record`
    /// (the precise phase's replay keeps two objects of one record type
    /// from overlapping partially, [`crate::ir::Program::record_bases`]);
    /// a variable dereferenced as two different records gets no type.
    fn note_record_base(&mut self, pointer: &Expr, record: Type<'t>) {
        let Expr::Var(v) = pointer else { return };
        let Some(decl) = layout::record_decl(record).filter(|d| !layout::is_union(*d)) else { return };
        let size = layout::size_of(record);
        if size == 0 {
            return;
        }
        let typed = Some((layout::record_name(decl), size));
        let bases = &mut self.b.program().record_bases;
        match bases.get(v) {
            Some(known) if *known != typed => {
                bases.insert(*v, None);
            }
            Some(_) => {}
            None => {
                bases.insert(*v, typed);
            }
        }
    }

    /// All regions of a record that is a member of a union merge with the
    /// union's region.
    fn merge_union_member(&mut self, union: Cursor<'t>, member: Type<'t>) {
        let union_key = RegionKey::Union { name: layout::record_name(union) };
        for leaf in layout::scalar_leaves(member) {
            let key = match leaf.field {
                Some(f) => field_key(f),
                None => continue,
            };
            self.s.regions.merge(self.b.program(), union_key.clone(), key, MergeReason::Union);
        }
    }

    fn subscript_place(&mut self, c: Cursor<'t>) -> Place<'t> {
        let children = c.children();
        let [base, index] = children.as_slice() else {
            self.approx(ApproxKind::UnsupportedConstruct, "malformed subscript".into(), Some(c));
            return Place::Var(self.tmp());
        };
        // `i[a]` is legal C: the pointer is whichever operand is one.
        let (base, index) = if layout::is_pointer(index.ty()) || layout::shape(index.ty()) == Shape::Array {
            (*index, *base)
        } else {
            (*base, *index)
        };
        let element = c.ty();
        // `a[i]` with `a` an array: libclang shows `a` wrapped in its implicit
        // decay to a pointer; subscript the array itself, so that the
        // element keeps the array's region.
        let base = see_through_decay(base);
        let (base_address, owner, field_key) = if layout::shape(base.ty()) == Shape::Array {
            match self.place(base) {
                Place::Object(o) => (o.address, o.owner, o.field_key),
                other => {
                    self.approx(ApproxKind::UnsupportedConstruct, format!("subscript of a non-object place {other:?}"), Some(c));
                    return Place::Var(self.tmp());
                }
            }
        } else {
            (self.value(base), Owner::Heap, None)
        };
        let i = self.value(index);
        let size = layout::size_of(element) as i128;
        let address = Expr::add(base_address, Expr::mul(i, Expr::int(size)));
        match (layout::shape(element), &owner) {
            (Shape::Scalar | Shape::Opaque, Owner::Local(key)) => Place::Mem { key: key.clone(), address },
            (Shape::Scalar | Shape::Opaque, _) => {
                let key = field_key.unwrap_or_else(|| RegionKey::Pointee { ty: layout::type_name(element) });
                Place::Mem { key, address }
            }
            (Shape::Record | Shape::Array, _) => {
                let field_key = match owner {
                    Owner::Local(ref key) => Some(key.clone()),
                    _ => field_key.filter(|_| layout::shape(element) == Shape::Array),
                };
                Place::Object(Object { address, ty: element, owner, field_key })
            }
        }
    }

    /// Reads a scalar place with a plain access.
    pub fn read(&mut self, place: &Place<'t>, span: Option<Span>) -> Expr {
        self.read_as(place, AccessKind::Plain, span)
    }

    /// Reads a scalar place with the given kind of access (marked for a
    /// volatile lvalue, see [`access_kind`]).
    pub fn read_as(&mut self, place: &Place<'t>, access: AccessKind, span: Option<Span>) -> Expr {
        if access == AccessKind::Atomic && matches!(place, Place::Mem { .. }) {
            self.s.stats.marked_accesses += 1;
        }
        match place {
            Place::Var(v) => Expr::var(*v),
            Place::Mem { key, address } => {
                let region = self.region(key.clone());
                let t = self.tmp();
                self.s.stats.loads += 1;
                self.b.push(Command::Load { target: t, region, address: address.clone(), access, span });
                Expr::var(t)
            }
            Place::BitField { key, address, bit, width } => {
                let region = self.region(key.clone());
                let unit = self.tmp();
                self.s.stats.loads += 1;
                self.b.push(Command::Load { target: unit, region, address: address.clone(), access: AccessKind::Plain, span });
                let f = self.function("bitfield_get", 3);
                Expr::apply(f, vec![Expr::var(unit), Expr::int(*bit as i128), Expr::int(*width as i128)])
            }
            Place::Object(o) => o.address.clone(),
            Place::Function(f) => self.function_address(*f),
        }
    }

    /// Writes a scalar place with a plain access.
    pub fn write(&mut self, place: &Place<'t>, value: Expr, span: Option<Span>) {
        self.write_as(place, value, AccessKind::Plain, span)
    }

    /// Writes a scalar place with the given kind of access.
    pub fn write_as(&mut self, place: &Place<'t>, value: Expr, access: AccessKind, span: Option<Span>) {
        if access == AccessKind::Atomic && matches!(place, Place::Mem { .. }) {
            self.s.stats.marked_accesses += 1;
        }
        match place {
            Place::Var(v) => self.b.assign(*v, value, span),
            Place::Mem { key, address } => {
                let region = self.region(key.clone());
                self.s.stats.stores += 1;
                self.b.push(Command::Store { region, address: address.clone(), value, access, span });
            }
            Place::BitField { key, address, bit, width } => {
                // A bit-field write reads and writes its whole storage unit.
                let region = self.region(key.clone());
                let unit = self.tmp();
                self.s.stats.loads += 1;
                self.s.stats.stores += 1;
                self.b.push(Command::Load { target: unit, region, address: address.clone(), access: AccessKind::Plain, span: span.clone() });
                let f = self.function("bitfield_set", 4);
                let new = Expr::apply(f, vec![Expr::var(unit), Expr::int(*bit as i128), Expr::int(*width as i128), value]);
                self.b.push(Command::Store { region, address: address.clone(), value: new, access: AccessKind::Plain, span });
            }
            Place::Object(_) | Place::Function(_) => {
                self.approx(ApproxKind::UnsupportedConstruct, "scalar write to a record, array or function".into(), None);
            }
        }
    }

    /// The address of a function: an uninterpreted constant per function.
    pub fn function_address(&mut self, f: Cursor<'_>) -> Expr {
        self.function_address_named(&super::context::sanitise(&f.spelling()))
    }

    /// The address of the function whose procedure is named `name` (a
    /// procedure is named by its function's sanitised spelling), recorded
    /// among the program's function addresses for the precise phase's
    /// separation.
    pub fn function_address_named(&mut self, name: &str) -> Expr {
        let g = self.function(&format!("fn_{name}"), 0);
        self.b.program().function_addresses.insert(g);
        Expr::apply(g, vec![])
    }

    /// The address of a place, for `&x`. A scalar whose address escapes as
    /// a plain pointer merges its region with its type's pointee region.
    pub fn address_of(&mut self, place: &Place<'t>, ty: Type<'t>, at: Cursor<'t>) -> Expr {
        let thread_local = |key: &RegionKey| matches!(key, RegionKey::Local { name } if name.starts_with("thread-local "));
        let addressed = match place {
            Place::Mem { key, .. } => thread_local(key),
            Place::Object(o) => matches!(&o.owner, Owner::Local(key) if thread_local(key)),
            _ => false,
        };
        if addressed {
            self.s.stats.thread_local_addresses += 1;
        }
        match place {
            Place::Var(_) => {
                self.approx(ApproxKind::UnsupportedConstruct, "address of a register variable".into(), Some(at));
                let t = self.tmp();
                Expr::var(t)
            }
            Place::Mem { key, address } => {
                if !matches!(key, RegionKey::Local { .. } | RegionKey::Pointee { .. }) {
                    let pointee = RegionKey::Pointee { ty: layout::type_name(ty) };
                    self.s.regions.merge(self.b.program(), key.clone(), pointee, MergeReason::AddressTaken);
                }
                address.clone()
            }
            Place::BitField { .. } => {
                self.approx(ApproxKind::UnsupportedConstruct, "address of a bit-field".into(), Some(at));
                let t = self.tmp();
                Expr::var(t)
            }
            Place::Object(o) => {
                // An array decaying to a pointer: its elements may now be
                // reached through that pointer type.
                if let (Some(key), Some(element)) = (&o.field_key, layout::pointee(o.ty)) {
                    let escapes = layout::shape(o.ty) == Shape::Array
                        && layout::shape(element) == Shape::Scalar
                        && !matches!(key, RegionKey::Local { .. } | RegionKey::Pointee { .. });
                    if escapes {
                        let pointee = RegionKey::Pointee { ty: layout::type_name(element) };
                        self.s.regions.merge(self.b.program(), key.clone(), pointee, MergeReason::AddressTaken);
                    }
                }
                let _ = ty;
                o.address.clone()
            }
            Place::Function(f) => self.function_address(*f),
        }
    }
}

/// The operand with pointer casts (implicit or explicit) removed.
fn strip_pointer_casts(mut c: Cursor<'_>) -> Cursor<'_> {
    loop {
        let next = match c.kind() {
            CursorKind::ParenExpr => c.children().first().copied(),
            CursorKind::CStyleCastExpr | CursorKind::UnexposedExpr if layout::is_pointer(c.ty()) => match c.children().as_slice() {
                [.., last] if layout::is_pointer(last.ty()) => Some(*last),
                _ => None,
            },
            _ => None,
        };
        match next {
            Some(n) => c = n,
            None => return c,
        }
    }
}

/// Whether `pointer` is `&x` (through pointer casts) with `x` of the type
/// the dereference `deref` reads, qualifiers aside.
fn address_of_same_type(pointer: Cursor<'_>, deref: Cursor<'_>) -> bool {
    let inner = strip_pointer_casts(pointer);
    if inner.kind() != CursorKind::UnaryOperator || inner.unary_operator() != UnaryOperator::AddrOf {
        return false;
    }
    inner.children().first().is_some_and(|x| layout::type_name(x.ty()) == layout::type_name(deref.ty()))
}

/// The kind of access an lvalue makes: **marked** (`AccessKind::Atomic`)
/// when its type is `volatile`-qualified and it is a scalar of at most 8
/// bytes, plain otherwise.
///
/// This is the kernel's own definition. `READ_ONCE(x)` and `WRITE_ONCE(x,
/// v)` access `x` through a `volatile` pointer (`__READ_ONCE`,
/// `__WRITE_ONCE` in include/asm-generic/rwonce.h of 6.12), and KCSAN
/// treats every aligned volatile access of at most 8 bytes as atomic
/// (`DEFINE_TSAN_VOLATILE_READ_WRITE` in kernel/kcsan/core.c), so two such
/// accesses are not a data race under the LKMM (tools/memory-model,
/// "plain accesses"); a marked access racing with a plain one still is.
/// Alignment is assumed (natural alignment of C objects).
///
/// Under C11's definition (`volatile_plain`, the POSIX models) a volatile
/// access is plain; under both, an lvalue of `_Atomic` type is atomic (C11
/// 5.1.2.4: atomic operations never form a data race).
pub fn access_kind(lvalue: Cursor<'_>, volatile_plain: bool) -> AccessKind {
    let ty = lvalue.ty();
    if ty.canonical().kind() == crate::frontend::clang::TypeKind::Atomic {
        return AccessKind::Atomic;
    }
    let small = matches!(layout::shape(ty), Shape::Scalar) && layout::size_of(ty) <= 8;
    if small && ty.is_volatile() && !volatile_plain { AccessKind::Atomic } else { AccessKind::Plain }
}

/// An expression through an implicit array-to-pointer decay.
pub fn see_through_decay(c: Cursor<'_>) -> Cursor<'_> {
    if c.kind() == CursorKind::UnexposedExpr {
        if let [inner] = c.children().as_slice() {
            if layout::shape(inner.ty()) == Shape::Array {
                return *inner;
            }
        }
    }
    c
}

/// `base + offset`, folding a zero offset.
pub fn add_offset(base: Expr, offset: i128) -> Expr {
    if offset == 0 { base } else { Expr::add(base, Expr::int(offset)) }
}

/// Whether a (canonical) type kind is an integer type: `_Bool`, the
/// character and integer types, an enumeration.
fn is_integer(kind: crate::frontend::clang::TypeKind) -> bool {
    use crate::frontend::clang::TypeKind as K;
    (K::Bool as i32..=K::Int128 as i32).contains(&(kind as i32)) || kind == K::Enum
}
/// The bytes the precise phase sets aside for all string literals
/// together (one address function stands for them all): more than any
/// driver's literals.
const STRING_LITERALS_SIZE: u64 = 1 << 32;

/// The function an initialiser names (`f`, `&f`, `(T) f`), or `None` for
/// any other expression.
fn designated_function(c: Cursor<'_>) -> Option<Cursor<'_>> {
    match c.kind() {
        CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr => designated_function(*c.children().last()?),
        CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::AddrOf => designated_function(*c.children().last()?),
        CursorKind::DeclRefExpr => c.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl),
        _ => None,
    }
}
