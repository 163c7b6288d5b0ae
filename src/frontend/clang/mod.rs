//! The one front door to libclang.
//!
//! Every `unsafe` call into libclang lives in this module and its children;
//! the rest of racewatch sees safe types only:
//!
//! * [`Index`]: a libclang index. libclang indexes are not thread-safe, so an
//!   `Index` is neither `Send` nor `Sync`; [`with_thread_index`] gives each
//!   thread (each rayon worker) its own, which lets files parse in parallel.
//! * [`TranslationUnit`]: a parsed file, borrowing its index. Its
//!   [`ClangDiagnostic`]s carry clang's own `file:line:col`.
//! * [`Cursor`] and [`Type`]: copies of libclang handles whose lifetime `'t`
//!   ties them to their translation unit, so none outlives the memory it
//!   points into.
//!
//! Kinds come as closed enums ([`CursorKind`], [`TypeKind`],
//! [`BinaryOperator`], [`UnaryOperator`], generated from clang-sys), so a
//! `match` over them is checked for exhaustiveness.

#![allow(non_upper_case_globals)] // clang-sys names its constants as libclang does.

mod c_syntax;
mod cursor;
mod kinds;
mod types;

pub use cursor::{Cursor, EvalValue, Location};

pub use c_syntax::{CExpr, CStmt, CSyntax};
pub use kinds::{BinaryOperator, CursorKind, TypeKind, UnaryOperator};
pub use types::Type;

use clang_sys::*;
use std::cell::OnceCell;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::os::raw::c_char;
use std::path::{Path, PathBuf};

/// A libclang index: the owner of translation units. Not `Send`.
pub struct Index {
    raw: CXIndex,
    _not_send: PhantomData<*mut ()>,
}

impl Index {
    /// Creates an index that prints no diagnostics of its own.
    pub fn new() -> Index {
        // SAFETY: both arguments are plain flags; a null result is checked.
        let raw = unsafe { clang_createIndex(0, 0) };
        assert!(!raw.is_null(), "libclang could not create an index");
        Index { raw, _not_send: PhantomData }
    }

    /// Parses `file` with the given compiler arguments (no program name, no
    /// file name among them).
    pub fn parse(&self, file: &Path, args: &[String]) -> Result<TranslationUnit<'_>, ParseFailure> {
        let c_file = path_to_cstring(file)?;
        let c_args: Vec<CString> = args
            .iter()
            .map(|a| CString::new(a.as_bytes()).map_err(|_| ParseFailure::InvalidArgument(a.clone())))
            .collect::<Result<_, _>>()?;
        let arg_ptrs: Vec<*const c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
        let mut tu: CXTranslationUnit = std::ptr::null_mut();
        // KeepGoing: report every error rather than stopping at the first
        // fatal one; the caller decides what an error means for the file.
        let options = CXTranslationUnit_KeepGoing | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles;
        // SAFETY: every pointer is valid for the duration of the call: the
        // C strings live in `c_file`/`c_args`, `tu` is a valid out-pointer.
        let code = unsafe {
            clang_parseTranslationUnit2(
                self.raw,
                c_file.as_ptr(),
                arg_ptrs.as_ptr(),
                arg_ptrs.len() as i32,
                std::ptr::null_mut(),
                0,
                options,
                &mut tu,
            )
        };
        if code != CXError_Success || tu.is_null() {
            return Err(ParseFailure::LibclangError(code));
        }
        Ok(TranslationUnit { raw: tu, main_file: file.to_path_buf(), _index: PhantomData })
    }
}

impl Default for Index {
    fn default() -> Self {
        Index::new()
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        // SAFETY: `raw` came from clang_createIndex; every translation unit
        // borrowing it has been dropped (the borrow checker saw to that).
        unsafe { clang_disposeIndex(self.raw) }
    }
}

thread_local! {
    static THREAD_INDEX: OnceCell<Index> = const { OnceCell::new() };
}

/// Runs `f` with this thread's own index, created on first use.
pub fn with_thread_index<R>(f: impl FnOnce(&Index) -> R) -> R {
    THREAD_INDEX.with(|cell| f(cell.get_or_init(Index::new)))
}

/// Why libclang produced no translation unit at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseFailure {
    /// An argument or the path holds a NUL byte.
    InvalidArgument(String),
    /// libclang's own error code (`CXErrorCode`).
    LibclangError(CXErrorCode),
}

impl std::fmt::Display for ParseFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseFailure::InvalidArgument(a) => write!(f, "argument holds a NUL byte: {a:?}"),
            ParseFailure::LibclangError(code) => {
                let what = match *code {
                    CXError_Crashed => "libclang crashed",
                    CXError_InvalidArguments => "libclang rejected the arguments",
                    CXError_ASTReadError => "libclang could not read the AST",
                    _ => "libclang failed",
                };
                write!(f, "{what} (error code {code})")
            }
        }
    }
}

fn path_to_cstring(path: &Path) -> Result<CString, ParseFailure> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| ParseFailure::InvalidArgument(path.display().to_string()))
}

/// A parsed translation unit; it borrows the index that made it.
pub struct TranslationUnit<'i> {
    raw: CXTranslationUnit,
    main_file: PathBuf,
    _index: PhantomData<&'i Index>,
}

impl<'i> TranslationUnit<'i> {
    /// The translation unit's root cursor.
    pub fn root(&self) -> Cursor<'_> {
        // SAFETY: `raw` is a live translation unit.
        Cursor::from_raw(unsafe { clang_getTranslationUnitCursor(self.raw) })
    }

    /// The handle of the parsed file, for [`Cursor::is_expanded_in`].
    pub fn main_file_id(&self) -> Option<FileId<'_>> {
        let name = path_to_cstring(&self.main_file).ok()?;
        // SAFETY: a live unit; the name is a valid C string.
        let raw = unsafe { clang_getFile(self.raw, name.as_ptr()) };
        (!raw.is_null()).then_some(FileId { raw, _tu: PhantomData })
    }

    /// The file that was parsed, as it was named to [`Index::parse`].
    pub fn main_file(&self) -> &Path {
        &self.main_file
    }

    /// Every diagnostic clang produced, in clang's order.
    pub fn diagnostics(&self) -> Vec<ClangDiagnostic> {
        // SAFETY: indexes below clang_getNumDiagnostics are valid; each
        // diagnostic is disposed after its fields are copied out.
        unsafe {
            let n = clang_getNumDiagnostics(self.raw);
            (0..n)
                .map(|i| {
                    let d = clang_getDiagnostic(self.raw, i);
                    let severity = match clang_getDiagnosticSeverity(d) {
                        CXDiagnostic_Fatal => Severity::Fatal,
                        CXDiagnostic_Error => Severity::Error,
                        CXDiagnostic_Warning => Severity::Warning,
                        _ => Severity::Note,
                    };
                    let location = Location::from_raw_expansion(clang_getDiagnosticLocation(d));
                    let message = cx_string(clang_getDiagnosticSpelling(d));
                    clang_disposeDiagnostic(d);
                    ClangDiagnostic { severity, location, message }
                })
                .collect()
        }
    }

    /// Every file the unit read: the parsed file and each header it
    /// includes, directly or not, each once, in clang's order. The result
    /// cache (src/batch/cache.rs) keeps a file's verdicts only while all of
    /// these are unchanged.
    pub fn included_files(&self) -> Vec<PathBuf> {
        extern "C" fn visit(file: CXFile, _stack: *mut CXSourceLocation, _depth: std::os::raw::c_uint, data: CXClientData) {
            // SAFETY: `data` is the `Vec` passed below, alive for the call;
            // `file` is a file of the live unit.
            unsafe {
                let files = &mut *(data as *mut Vec<PathBuf>);
                let name = cx_string(clang_getFileName(file));
                if !name.is_empty() {
                    files.push(PathBuf::from(name));
                }
            }
        }
        let mut files: Vec<PathBuf> = Vec::new();
        // SAFETY: a live unit; the visitor only pushes into `files`.
        unsafe { clang_getInclusions(self.raw, visit, &mut files as *mut Vec<PathBuf> as CXClientData) };
        let mut seen = std::collections::HashSet::new();
        files.retain(|f| seen.insert(f.clone()));
        files
    }

    /// The text of one of the unit's files as clang read it, so that it
    /// matches the offsets clang reports.
    pub fn file_text(&self, path: &Path) -> Option<&'_ [u8]> {
        // SAFETY: clang_getFile returns null or a file of this unit; the
        // buffer returned by clang_getFileContents lives as long as the unit.
        unsafe {
            let name = path_to_cstring(path).ok()?;
            let file = clang_getFile(self.raw, name.as_ptr());
            if file.is_null() {
                return None;
            }
            let mut size: usize = 0;
            let data = clang_getFileContents(self.raw, file, &mut size);
            if data.is_null() {
                return None;
            }
            Some(std::slice::from_raw_parts(data as *const u8, size))
        }
    }
}

impl Drop for TranslationUnit<'_> {
    fn drop(&mut self) {
        // SAFETY: `raw` came from clang_parseTranslationUnit2; no cursor of
        // it outlives `self` because cursors borrow it.
        unsafe { clang_disposeTranslationUnit(self.raw) }
    }
}

/// A file of a translation unit, as libclang identifies it: comparing two
/// is a pointer comparison, far cheaper than comparing paths.
#[derive(Clone, Copy)]
pub struct FileId<'t> {
    pub(crate) raw: CXFile,
    _tu: PhantomData<&'t ()>,
}

/// How serious a clang diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// A note or remark.
    Note,
    /// A warning.
    Warning,
    /// An error: the file is not valid C for these flags.
    Error,
    /// A fatal error, such as a missing header.
    Fatal,
}

/// One diagnostic of clang's, with its expansion location.
#[derive(Clone, Debug)]
pub struct ClangDiagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// Where clang reported it.
    pub location: Location,
    /// Clang's message, without location or severity.
    pub message: String,
}

/// Copies a CXString out and disposes of it.
///
/// # Safety
/// `s` must be a CXString returned by libclang and not yet disposed.
unsafe fn cx_string(s: CXString) -> String {
    // SAFETY: per the contract, `s` is live; clang_getCString gives a
    // NUL-terminated string or null, which we copy before disposing.
    unsafe {
        let p = clang_getCString(s);
        let out = if p.is_null() { String::new() } else { CStr::from_ptr(p).to_string_lossy().into_owned() };
        clang_disposeString(s);
        out
    }
}
