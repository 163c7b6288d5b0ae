//! Cursors: libclang's handles to AST nodes, wrapped safely.

#![allow(non_upper_case_globals)] // clang-sys names its constants as libclang does.

use super::kinds::{BinaryOperator, CursorKind, UnaryOperator};
use super::types::Type;
use super::cx_string;
use clang_sys::*;
use std::marker::PhantomData;
use std::path::PathBuf;

/// A node of a translation unit's AST. `Copy`, and valid for `'t`, the
/// lifetime of the borrowed translation unit.
#[derive(Clone, Copy)]
pub struct Cursor<'t> {
    raw: CXCursor,
    _tu: PhantomData<&'t ()>,
}

/// A position in a source file. `file` is `None` for built-in locations
/// (predefined macros, the command line).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// The file, as clang names it.
    pub file: Option<PathBuf>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
    /// 0-based byte offset in the file.
    pub offset: u32,
}

impl Location {
    /// The expansion location of a raw location: where a macro was used, not
    /// where its text was written.
    pub(super) fn from_raw_expansion(loc: CXSourceLocation) -> Location {
        let (mut file, mut line, mut column, mut offset) = (std::ptr::null_mut(), 0, 0, 0);
        // SAFETY: all four out-pointers are valid.
        unsafe { clang_getExpansionLocation(loc, &mut file, &mut line, &mut column, &mut offset) };
        Location { file: file_path(file), line, column, offset }
    }

    fn from_raw_spelling(loc: CXSourceLocation) -> Location {
        let (mut file, mut line, mut column, mut offset) = (std::ptr::null_mut(), 0, 0, 0);
        // SAFETY: all four out-pointers are valid.
        unsafe { clang_getSpellingLocation(loc, &mut file, &mut line, &mut column, &mut offset) };
        Location { file: file_path(file), line, column, offset }
    }
}

fn file_path(file: CXFile) -> Option<PathBuf> {
    if file.is_null() {
        return None;
    }
    // SAFETY: `file` is a live CXFile of the translation unit.
    let name = unsafe { cx_string(clang_getFileName(file)) };
    (!name.is_empty()).then(|| PathBuf::from(name))
}

/// The value of a constant expression, from clang's evaluator.
#[derive(Clone, Debug, PartialEq)]
pub enum EvalValue {
    /// A signed integer.
    Int(i64),
    /// An unsigned integer too large for `i64`.
    UnsignedInt(u64),
    /// A floating-point number.
    Float(f64),
    /// A string literal or other string-like result.
    Str(String),
}

type Visitor<'a, 't> = &'a mut dyn FnMut(Cursor<'t>) -> bool;

struct VisitState<'a, 't> {
    f: Visitor<'a, 't>,
    panic: Option<Box<dyn std::any::Any + Send>>,
}

extern "C" fn visit_trampoline(c: CXCursor, _parent: CXCursor, data: CXClientData) -> CXChildVisitResult {
    // SAFETY: `data` is the `VisitState` passed by `Cursor::for_each_child`,
    // alive for the whole clang_visitChildren call.
    let state = unsafe { &mut *(data as *mut VisitState<'_, '_>) };
    let cursor = Cursor { raw: c, _tu: PhantomData };
    // A panic must not unwind through libclang's C frames: catch it here,
    // stop the walk, and resume it on the Rust side.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (state.f)(cursor))) {
        Ok(true) => CXChildVisit_Continue,
        Ok(false) => CXChildVisit_Break,
        Err(payload) => {
            state.panic = Some(payload);
            CXChildVisit_Break
        }
    }
}

impl<'t> Cursor<'t> {
    pub(super) fn from_raw(raw: CXCursor) -> Cursor<'t> {
        Cursor { raw, _tu: PhantomData }
    }

    fn non_null(raw: CXCursor) -> Option<Cursor<'t>> {
        // SAFETY: clang_Cursor_isNull only reads the cursor value.
        (unsafe { clang_Cursor_isNull(raw) } == 0).then(|| Cursor::from_raw(raw))
    }

    /// What kind of node this is.
    pub fn kind(&self) -> CursorKind {
        // SAFETY: reads the cursor value only.
        CursorKind::from_raw(unsafe { clang_getCursorKind(self.raw) })
    }

    /// The node's name (empty for most expressions).
    pub fn spelling(&self) -> String {
        // SAFETY: a live cursor; the CXString is disposed by cx_string.
        unsafe { cx_string(clang_getCursorSpelling(self.raw)) }
    }

    /// Calls `f` on each direct child in order; `f` returns `false` to stop.
    pub fn for_each_child(&self, mut f: impl FnMut(Cursor<'t>) -> bool) {
        let mut state = VisitState { f: &mut f, panic: None };
        // SAFETY: the trampoline casts `data` back to the VisitState that
        // outlives this call.
        unsafe {
            clang_visitChildren(self.raw, visit_trampoline, &mut state as *mut VisitState<'_, 't> as CXClientData)
        };
        if let Some(payload) = state.panic {
            std::panic::resume_unwind(payload);
        }
    }

    /// The direct children, in order.
    pub fn children(&self) -> Vec<Cursor<'t>> {
        let mut out = Vec::new();
        self.for_each_child(|c| {
            out.push(c);
            true
        });
        out
    }

    /// The declaration this reference or expression refers to.
    pub fn referenced(&self) -> Option<Cursor<'t>> {
        // SAFETY: a live cursor.
        Cursor::non_null(unsafe { clang_getCursorReferenced(self.raw) })
    }

    /// The definition of the entity this cursor declares or refers to.
    pub fn definition(&self) -> Option<Cursor<'t>> {
        // SAFETY: a live cursor.
        Cursor::non_null(unsafe { clang_getCursorDefinition(self.raw) })
    }

    /// The semantic parent (for a field: its record).
    pub fn semantic_parent(&self) -> Option<Cursor<'t>> {
        // SAFETY: a live cursor.
        Cursor::non_null(unsafe { clang_getCursorSemanticParent(self.raw) })
    }

    /// Whether this cursor is the definition of its entity.
    pub fn is_definition(&self) -> bool {
        // SAFETY: a live cursor.
        unsafe { clang_isCursorDefinition(self.raw) != 0 }
    }

    /// Whether this is an anonymous struct or union.
    pub fn is_anonymous(&self) -> bool {
        // SAFETY: a live cursor.
        unsafe { clang_Cursor_isAnonymous(self.raw) != 0 }
    }

    /// The type of the node.
    pub fn ty(&self) -> Type<'t> {
        // SAFETY: a live cursor.
        Type::from_raw(unsafe { clang_getCursorType(self.raw) })
    }

    /// For a function declaration, its result type.
    pub fn result_type(&self) -> Type<'t> {
        // SAFETY: a live cursor.
        Type::from_raw(unsafe { clang_getCursorResultType(self.raw) })
    }

    /// For a call or a function declaration: its arguments or parameters.
    pub fn arguments(&self) -> Vec<Cursor<'t>> {
        // SAFETY: a live cursor; indexes below the count are valid.
        unsafe {
            let n = clang_Cursor_getNumArguments(self.raw);
            (0..n.max(0) as u32).filter_map(|i| Cursor::non_null(clang_Cursor_getArgument(self.raw, i))).collect()
        }
    }

    /// The operator of a binary operator or compound assignment cursor.
    pub fn binary_operator(&self) -> BinaryOperator {
        // SAFETY: a live cursor; libclang answers Invalid for other kinds.
        BinaryOperator::from_raw(unsafe { clang_getCursorBinaryOperatorKind(self.raw) } as i32)
    }

    /// The operator of a unary operator cursor.
    pub fn unary_operator(&self) -> UnaryOperator {
        // SAFETY: a live cursor; libclang answers Invalid for other kinds.
        UnaryOperator::from_raw(unsafe { clang_getCursorUnaryOperatorKind(self.raw) } as i32)
    }

    /// Clang's constant evaluation of this expression, if it is constant.
    pub fn evaluate(&self) -> Option<EvalValue> {
        // SAFETY: a live cursor; the result is disposed before returning and
        // the string is copied out first.
        unsafe {
            let r = clang_Cursor_Evaluate(self.raw);
            if r.is_null() {
                return None;
            }
            let value = match clang_EvalResult_getKind(r) {
                CXEval_Int if clang_EvalResult_isUnsignedInt(r) != 0 => {
                    let v = clang_EvalResult_getAsUnsigned(r);
                    Some(i64::try_from(v).map_or(EvalValue::UnsignedInt(v), EvalValue::Int))
                }
                CXEval_Int => Some(EvalValue::Int(clang_EvalResult_getAsLongLong(r))),
                CXEval_Float => Some(EvalValue::Float(clang_EvalResult_getAsDouble(r))),
                CXEval_StrLiteral | CXEval_CFStr | CXEval_ObjCStrLiteral | CXEval_Other => {
                    let p = clang_EvalResult_getAsStr(r);
                    (!p.is_null()).then(|| EvalValue::Str(std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()))
                }
                _ => None,
            };
            clang_EvalResult_dispose(r);
            value
        }
    }

    /// For a field declaration: its offset in bits within its record.
    pub fn field_offset_bits(&self) -> Option<u64> {
        // SAFETY: a live cursor; negative answers are errors.
        let v = unsafe { clang_Cursor_getOffsetOfField(self.raw) };
        u64::try_from(v).ok()
    }

    /// For a bit-field declaration: its width in bits.
    pub fn bit_field_width(&self) -> Option<u32> {
        // SAFETY: a live cursor.
        unsafe {
            if clang_Cursor_isBitField(self.raw) == 0 {
                return None;
            }
            u32::try_from(clang_getFieldDeclBitWidth(self.raw)).ok()
        }
    }

    /// Whether the cursor's expansion location lies in `file`: true for a
    /// declaration that a macro used in `file` produced. (libclang's own
    /// `clang_Location_isFromMainFile` answers by the spelling location for
    /// some macro-produced declarations, such as `module_init`'s.)
    pub fn is_expanded_in(&self, file: super::FileId<'_>) -> bool {
        let mut found: CXFile = std::ptr::null_mut();
        // SAFETY: a live cursor; the unused out-pointers may be null.
        unsafe {
            clang_getExpansionLocation(
                clang_getCursorLocation(self.raw),
                &mut found,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            !found.is_null() && clang_File_isEqual(found, file.raw) != 0
        }
    }

    /// Where the node is used: for code produced by a macro, the macro's
    /// use site.
    pub fn location(&self) -> Location {
        // SAFETY: a live cursor.
        Location::from_raw_expansion(unsafe { clang_getCursorLocation(self.raw) })
    }

    /// Where the node's text was written: for code produced by a macro, the
    /// macro's definition.
    pub fn spelling_location(&self) -> Location {
        // SAFETY: a live cursor.
        Location::from_raw_spelling(unsafe { clang_getCursorLocation(self.raw) })
    }

    /// The expansion locations of the node's first and last characters.
    pub fn extent(&self) -> (Location, Location) {
        // SAFETY: a live cursor.
        unsafe {
            let range = clang_getCursorExtent(self.raw);
            (
                Location::from_raw_expansion(clang_getRangeStart(range)),
                Location::from_raw_expansion(clang_getRangeEnd(range)),
            )
        }
    }

    /// Whether the node was produced by a macro expansion.
    pub fn is_from_macro(&self) -> bool {
        self.location() != self.spelling_location()
    }

    /// The storage class of a declaration is `static`.
    pub fn is_static_storage(&self) -> bool {
        // SAFETY: a live cursor.
        unsafe { clang_Cursor_getStorageClass(self.raw) == CX_SC_Static }
    }

    /// For a variable declaration: its initializer expression, if any.
    pub fn var_initializer(&self) -> Option<Cursor<'t>> {
        // SAFETY: a live cursor; a null cursor means none.
        Cursor::non_null(unsafe { clang_Cursor_getVarDeclInitializer(self.raw) })
    }

    /// The storage class of a declaration is `register` (at file scope: a
    /// global register variable, `register unsigned long sp asm("rsp")`).
    pub fn is_register_storage(&self) -> bool {
        // SAFETY: a live cursor.
        unsafe { clang_Cursor_getStorageClass(self.raw) == CX_SC_Register }
    }

    /// A variable with thread storage duration (`__thread`,
    /// `_Thread_local`): each thread has its own instance.
    pub fn is_thread_local(&self) -> bool {
        // SAFETY: a live cursor.
        unsafe { clang_getCursorTLSKind(self.raw) != CXTLS_None }
    }

    /// The storage class of a declaration is `extern`.
    pub fn is_extern_storage(&self) -> bool {
        // SAFETY: a live cursor.
        unsafe { clang_Cursor_getStorageClass(self.raw) == CX_SC_Extern }
    }

    /// The unified symbol resolution string: equal for all declarations of
    /// one entity.
    pub fn usr(&self) -> String {
        // SAFETY: a live cursor.
        unsafe { cx_string(clang_getCursorUSR(self.raw)) }
    }
}

impl PartialEq for Cursor<'_> {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: reads both cursor values only.
        unsafe { clang_equalCursors(self.raw, other.raw) != 0 }
    }
}

impl Eq for Cursor<'_> {}

impl std::hash::Hash for Cursor<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // SAFETY: reads the cursor value only.
        unsafe { clang_hashCursor(self.raw) }.hash(state)
    }
}

impl std::fmt::Debug for Cursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let loc = self.location();
        write!(f, "{:?} {:?} at {}:{}", self.kind(), self.spelling(), loc.line, loc.column)
    }
}
