//! C types as the lowering needs them: which values are scalars, what a
//! pointer points to, which record declares a field and at which byte
//! offset, and the scalar leaves of a record (for `memset`, struct copies
//! and unification).
//!
//! Offsets and sizes come from clang's own layout (`clang_Type_getSizeOf`,
//! `clang_Cursor_getOffsetOfField`), so they are the x86-64 layout the
//! kernel is compiled with.

use crate::frontend::clang::{Cursor, CursorKind, Type, TypeKind};

/// How a C type is represented in the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// An integer, enum, pointer, boolean or floating-point value: one
    /// mathematical integer (floating point is abstracted).
    Scalar,
    /// A struct or union, stored field by field.
    Record,
    /// An array of elements, stored element by element.
    Array,
    /// `void`, a function type, or an incomplete type: no value.
    Opaque,
}

/// Classifies a type.
pub fn shape(ty: Type<'_>) -> Shape {
    let t = ty.canonical();
    match t.kind() {
        TypeKind::Record => Shape::Record,
        TypeKind::ConstantArray | TypeKind::IncompleteArray | TypeKind::VariableArray | TypeKind::DependentSizedArray => {
            Shape::Array
        }
        TypeKind::Void | TypeKind::FunctionProto | TypeKind::FunctionNoProto | TypeKind::Invalid | TypeKind::Unexposed => {
            Shape::Opaque
        }
        _ => Shape::Scalar,
    }
}

/// Whether the type is a pointer (after removing typedefs).
pub fn is_pointer(ty: Type<'_>) -> bool {
    ty.canonical().kind() == TypeKind::Pointer
}

/// Whether the type is `_Bool`.
pub fn is_bool(ty: Type<'_>) -> bool {
    ty.canonical().kind() == TypeKind::Bool
}

/// Whether the type is an unsigned integer type (or bool).
fn is_unsigned_integer(kind: TypeKind) -> bool {
    matches!(
        kind,
        TypeKind::Bool
            | TypeKind::Char_U
            | TypeKind::UChar
            | TypeKind::Char16
            | TypeKind::Char32
            | TypeKind::UShort
            | TypeKind::UInt
            | TypeKind::ULong
            | TypeKind::ULongLong
            | TypeKind::UInt128
    )
}

/// Whether the type is a signed or unsigned integer, enum or bool.
pub fn is_integral(ty: Type<'_>) -> bool {
    let kind = ty.canonical().kind();
    is_unsigned_integer(kind)
        || matches!(
            kind,
            TypeKind::Char_S
                | TypeKind::SChar
                | TypeKind::WChar
                | TypeKind::Short
                | TypeKind::Int
                | TypeKind::Long
                | TypeKind::LongLong
                | TypeKind::Int128
                | TypeKind::Enum
        )
}

/// Whether values of the type are unsigned: unsigned integers, bool and
/// pointers (an enum counts as signed).
pub fn is_unsigned(ty: Type<'_>) -> bool {
    let kind = ty.canonical().kind();
    is_unsigned_integer(kind) || kind == TypeKind::Pointer
}

/// The values an integer type of this size and signedness holds,
/// inclusive (two's complement).
pub fn integer_range(ty: Type<'_>) -> (i128, i128) {
    let bits = (size_of(ty) * 8).min(127) as u32;
    if is_unsigned(ty) { (0, (1i128 << bits) - 1) } else { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) }
}

/// The size in bytes; 1 for `void` and function types, as GNU C's pointer
/// arithmetic has it.
pub fn size_of(ty: Type<'_>) -> u64 {
    let t = ty.canonical();
    match t.kind() {
        TypeKind::Void | TypeKind::FunctionProto | TypeKind::FunctionNoProto => 1,
        _ => t.size_of().unwrap_or(1),
    }
}

/// For a pointer or array: the element type.
pub fn pointee<'t>(ty: Type<'t>) -> Option<Type<'t>> {
    let t = ty.canonical();
    t.pointee().or_else(|| t.element())
}

/// The canonical spelling of a type, used in region names: `int`,
/// `unsigned char`, `struct foo`.
pub fn type_name(ty: Type<'_>) -> String {
    let t = ty.canonical().unqualified();
    // Qualifiers below the top level (`int *volatile *`) stay in the
    // spelling; they do not change what memory the type reaches.
    t.spelling().replace("const ", "").replace("volatile ", "").replace(" *const", " *").replace(" *volatile", " *").replace(" *restrict", " *")
}

/// The record declaration of a record type.
pub fn record_decl<'t>(ty: Type<'t>) -> Option<Cursor<'t>> {
    let t = ty.canonical();
    (t.kind() == TypeKind::Record).then(|| t.declaration()).flatten()
}

/// Whether a record declaration is a union.
pub fn is_union(record: Cursor<'_>) -> bool {
    record.kind() == CursorKind::UnionDecl
}

/// The display name of a record: `struct file`, `union ktime`; an anonymous
/// record is named after the innermost named record containing it and the
/// field that holds it.
pub fn record_name(record: Cursor<'_>) -> String {
    let keyword = if is_union(record) { "union" } else { "struct" };
    if !record.is_anonymous() && !record.spelling().is_empty() && !record.spelling().contains("unnamed at") {
        return format!("{keyword} {}", record.spelling());
    }
    match record.semantic_parent().filter(|p| matches!(p.kind(), CursorKind::StructDecl | CursorKind::UnionDecl)) {
        // The anonymous members of one record are told apart by their first
        // named field (C gives the fields of anonymous members one name
        // space with the enclosing record's): `struct net_device_stats.
        // <anonymous union rx_packets>`.
        Some(parent) => match first_named_field(record, 0) {
            Some(first) => format!("{}.<anonymous {keyword} {first}>", record_name(parent)),
            None => format!("{}.<anonymous {keyword}>", record_name(parent)),
        },
        None => {
            let loc = record.location();
            format!("<anonymous {keyword} at line {}>", loc.line)
        }
    }
}

/// The first named field of a record, looking into its anonymous members.
fn first_named_field(record: Cursor<'_>, depth: u32) -> Option<String> {
    if depth > MAX_NESTING {
        return None;
    }
    for f in record.ty().canonical().fields() {
        let name = f.spelling();
        if !name.is_empty() && !name.contains("unnamed at") && !name.contains("anonymous at") {
            return Some(name);
        }
        if let Some(inner) = record_decl(f.ty()) {
            if let Some(name) = first_named_field(inner, depth + 1) {
                return Some(name);
            }
        }
    }
    None
}

/// A field's byte offset within its record, and its bit offset within that
/// byte (non-zero only for bit-fields).
pub fn field_offset(field: Cursor<'_>) -> (u64, u64) {
    let bits = field.field_offset_bits().unwrap_or(0);
    (bits / 8, bits % 8)
}

/// The byte range that field `path` (`in`, or a dotted path `buf.tail`
/// through nested records) takes in a record of type `ty`, looking into
/// anonymous members as C does. `None` when some step names no field of
/// its record or a size is unknown.
pub fn field_path_range(ty: Type<'_>, path: &str) -> Option<std::ops::Range<u64>> {
    let mut record = ty.canonical();
    let mut start = 0;
    let mut size = None;
    for name in path.split('.') {
        start += record.offset_of(name)? / 8;
        let field = named_field(record, name)?;
        size = Some(field.ty().size_of()?);
        record = field.ty().canonical();
    }
    Some(start..start + size?)
}

/// The declaration of field `name` of a record type, looking into its
/// anonymous members.
fn named_field<'t>(record: Type<'t>, name: &str) -> Option<Cursor<'t>> {
    record.fields().into_iter().find_map(|f| {
        let spelling = f.spelling();
        if spelling == name {
            Some(f)
        } else if spelling.is_empty() || spelling.contains("unnamed at") || spelling.contains("anonymous at") {
            named_field(f.ty().canonical(), name)
        } else {
            None
        }
    })
}

/// One scalar leaf of a record or array: where it is and what declares it.
#[derive(Clone, Debug)]
pub struct Leaf<'t> {
    /// Byte offset from the start of the enclosing object.
    pub offset: u64,
    /// The field declaring the leaf (none for the object itself or an
    /// array element of a top-level array).
    pub field: Option<Cursor<'t>>,
    /// The leaf's type (an array of scalars counts as one leaf).
    pub ty: Type<'t>,
    /// Its size in bytes (the whole array for an array leaf).
    pub size: u64,
    /// For a leaf inside an array of records: the end of that array; the
    /// leaf repeats at every element up to there.
    pub repeats_until: Option<u64>,
}

impl Leaf<'_> {
    /// Whether the leaf is a flexible array member (`u8 data[];`), which
    /// takes no room in its record: it lies where the next member starts.
    pub fn is_flexible_array(&self) -> bool {
        self.field.is_some_and(|f| f.ty().canonical().kind() == TypeKind::IncompleteArray)
    }
}

/// The scalar leaves of an object of type `ty`, in offset order: each
/// scalar field, and each array of scalars as one leaf spanning the array.
/// Arrays of records are expanded once, at the first element's offsets,
/// each leaf marked as repeating to the array's end.
pub fn scalar_leaves<'t>(ty: Type<'t>) -> Vec<Leaf<'t>> {
    let mut out = Vec::new();
    collect_leaves(ty, 0, None, None, &mut out, 0);
    out
}

/// Records nest only as deep as their declarations; this bounds a walk over
/// a malformed or self-referential type.
pub(super) const MAX_NESTING: u32 = 32;

fn collect_leaves<'t>(
    ty: Type<'t>,
    base: u64,
    field: Option<Cursor<'t>>,
    repeats_until: Option<u64>,
    out: &mut Vec<Leaf<'t>>,
    depth: u32,
) {
    if depth > MAX_NESTING {
        return;
    }
    match shape(ty) {
        Shape::Scalar | Shape::Opaque => out.push(Leaf { offset: base, field, ty, size: size_of(ty), repeats_until }),
        Shape::Record => {
            for f in ty.canonical().fields() {
                let (offset, _) = field_offset(f);
                collect_leaves(f.ty(), base + offset, Some(f), repeats_until, out, depth + 1);
            }
        }
        Shape::Array => {
            let Some(element) = pointee(ty) else { return };
            match shape(element) {
                Shape::Record | Shape::Array => {
                    let end = repeats_until.unwrap_or(base + size_of(ty));
                    collect_leaves(element, base, field, Some(end), out, depth + 1);
                }
                Shape::Scalar | Shape::Opaque => {
                    out.push(Leaf { offset: base, field, ty: element, size: size_of(ty), repeats_until });
                }
            }
        }
    }
}
