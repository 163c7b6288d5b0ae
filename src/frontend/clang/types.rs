//! Types: libclang's handles to C types, wrapped safely.

use super::cursor::Cursor;
use super::cx_string;
use super::kinds::TypeKind;
use clang_sys::*;
use std::marker::PhantomData;

/// A C type of a translation unit, valid for `'t`.
#[derive(Clone, Copy)]
pub struct Type<'t> {
    raw: CXType,
    _tu: PhantomData<&'t ()>,
}

extern "C" fn field_trampoline(c: CXCursor, data: CXClientData) -> CXVisitorResult {
    // SAFETY: `data` is the Vec passed by `Type::fields`, alive for the call.
    let out = unsafe { &mut *(data as *mut Vec<CXCursor>) };
    out.push(c);
    CXVisit_Continue
}

impl<'t> Type<'t> {
    pub(super) fn from_raw(raw: CXType) -> Type<'t> {
        Type { raw, _tu: PhantomData }
    }

    /// What kind of type this is.
    pub fn kind(&self) -> TypeKind {
        TypeKind::from_raw(self.raw.kind)
    }

    /// The type as C would write it.
    pub fn spelling(&self) -> String {
        // SAFETY: a live type.
        unsafe { cx_string(clang_getTypeSpelling(self.raw)) }
    }

    /// The type with typedefs and sugar removed.
    pub fn canonical(&self) -> Type<'t> {
        // SAFETY: a live type.
        Type::from_raw(unsafe { clang_getCanonicalType(self.raw) })
    }

    /// The type without `const`, `volatile` or `restrict`.
    pub fn unqualified(&self) -> Type<'t> {
        // SAFETY: a live type.
        Type::from_raw(unsafe { clang_getUnqualifiedType(self.raw) })
    }

    /// Whether the type itself (not what it points to) is
    /// `const`-qualified, through typedefs.
    pub fn is_const(&self) -> bool {
        // SAFETY: a live type.
        unsafe { clang_isConstQualifiedType(self.canonical().raw) != 0 }
    }

    /// Whether the type itself (not what it points to) is
    /// `volatile`-qualified, through typedefs.
    pub fn is_volatile(&self) -> bool {
        // SAFETY: a live type.
        unsafe { clang_isVolatileQualifiedType(self.canonical().raw) != 0 }
    }

    /// For a pointer: what it points to.
    pub fn pointee(&self) -> Option<Type<'t>> {
        // SAFETY: a live type; Invalid means "not a pointer".
        let t = Type::from_raw(unsafe { clang_getPointeeType(self.raw) });
        (t.kind() != TypeKind::Invalid).then_some(t)
    }

    /// For an array: its element type.
    pub fn element(&self) -> Option<Type<'t>> {
        // SAFETY: a live type; Invalid means "not an array".
        let t = Type::from_raw(unsafe { clang_getArrayElementType(self.raw) });
        (t.kind() != TypeKind::Invalid).then_some(t)
    }

    /// For a constant-size array: its length.
    pub fn array_len(&self) -> Option<u64> {
        // SAFETY: a live type; negative answers mean "not a constant array".
        u64::try_from(unsafe { clang_getArraySize(self.raw) }).ok()
    }

    /// The declaration of a record, enum or typedef type.
    pub fn declaration(&self) -> Option<Cursor<'t>> {
        // SAFETY: a live type; the cursor is checked for null by `kind`.
        let c = Cursor::from_raw(unsafe { clang_getTypeDeclaration(self.raw) });
        (c.kind() != super::CursorKind::NoDeclFound).then_some(c)
    }

    /// The size in bytes, if the type is complete.
    pub fn size_of(&self) -> Option<u64> {
        // SAFETY: a live type; negative answers are errors.
        u64::try_from(unsafe { clang_Type_getSizeOf(self.raw) }).ok()
    }

    /// The alignment in bytes, if the type is complete.
    pub fn align_of(&self) -> Option<u64> {
        // SAFETY: a live type; negative answers are errors.
        u64::try_from(unsafe { clang_Type_getAlignOf(self.raw) }).ok()
    }

    /// For a record type: the offset in bits of the named field, looking
    /// into anonymous members as C does.
    pub fn offset_of(&self, field: &str) -> Option<u64> {
        let name = std::ffi::CString::new(field).ok()?;
        // SAFETY: a live type and a valid C string; negative answers are errors.
        u64::try_from(unsafe { clang_Type_getOffsetOf(self.raw, name.as_ptr()) }).ok()
    }

    /// For a function type: its result type.
    pub fn result(&self) -> Option<Type<'t>> {
        // SAFETY: a live type; Invalid means "not a function type".
        let t = Type::from_raw(unsafe { clang_getResultType(self.raw) });
        (t.kind() != TypeKind::Invalid).then_some(t)
    }

    /// For a record type: its fields in declaration order (anonymous
    /// members included as fields of an anonymous record type).
    pub fn fields(&self) -> Vec<Cursor<'t>> {
        let mut raw: Vec<CXCursor> = Vec::new();
        // SAFETY: the trampoline casts `data` back to `raw`, alive here.
        unsafe { clang_Type_visitFields(self.raw, field_trampoline, &mut raw as *mut Vec<CXCursor> as CXClientData) };
        raw.into_iter().map(Cursor::from_raw).collect()
    }

    /// Whether this is a pointer to a function (after removing sugar).
    pub fn is_function_pointer(&self) -> bool {
        let canonical = self.canonical();
        canonical.kind() == TypeKind::Pointer
            && canonical
                .pointee()
                .is_some_and(|p| matches!(p.canonical().kind(), TypeKind::FunctionProto | TypeKind::FunctionNoProto))
    }
}

impl std::fmt::Debug for Type<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} {:?}", self.kind(), self.spelling())
    }
}
