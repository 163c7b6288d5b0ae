//! One diagnostic model for every stage, rendered by the CLI.
//!
//! Stages never print: they return [`Diagnostic`]s (findings, warnings about
//! approximations) and [`FileError`]s (a file that could not be analysed).
//! Both carry [`Span`]s taken from clang's cursors, never recovered from
//! printed text. Check ids are stable kebab-case strings (`[unmodelled-ops]`),
//! because users filter on them.

mod render;

pub use render::{render_file_error, render_diagnostic};

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A place in a source file: clang's expansion location (the use site of a
/// macro, not its definition).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Span {
    /// The file, shared between the spans of one file.
    pub file: Arc<Path>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Extra information attached to another diagnostic, or a remark.
    Note,
    /// Something the user should look at: a potential race, an
    /// approximation that may hide one.
    Warning,
    /// A confirmed problem.
    Error,
}

impl Level {
    /// The word clang prints for this level.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// A finding or a warning, with its place and any notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// How serious it is.
    pub level: Level,
    /// Stable kebab-case check id, shown as `[check]`.
    pub check: &'static str,
    /// A terse message.
    pub message: String,
    /// Where it is, when it has a place.
    pub span: Option<Span>,
    /// Details: further places and explanations.
    pub notes: Vec<(String, Option<Span>)>,
}

/// Why a file could not be analysed. The kebab-case names are part of the
/// output formats and of the test expectations (`@expect error CLASS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorClass {
    /// The path does not exist.
    MissingFile,
    /// The path exists but cannot be read.
    Unreadable,
    /// Not a C source file (wrong extension, or binary content).
    NotC,
    /// The file is empty.
    Empty,
    /// A directory holding no C files.
    NoCFiles,
    /// An `#include` names a header that the flags do not reach.
    MissingHeader,
    /// Clang reported an error in the C code.
    ParseError,
    /// The compilation flags could not be composed (no kernel headers, a
    /// broken compile_commands.json, a file without an entry there).
    Flags,
    /// libclang itself failed.
    Libclang,
    /// The file's analysis ran out of its time budget (`--file-timeout`)
    /// and was stopped.
    Timeout,
    /// The process analysing the file died (a signal, a panic): a bug in
    /// racewatch or in a library it uses, reported for this file alone.
    Crash,
    /// The file's analysis ran out of its memory budget (`--memory-limit`).
    OutOfMemory,
    /// The file was not analysed because the run's time budget
    /// (`--run-timeout`) was spent.
    Skipped,
    /// Not a unit of compilation: no Makefile builds the file, and another
    /// file `#include`s it (`frontend::units`). Not an error: its code is
    /// analysed as part of the includer; rendered as a note.
    NotAUnit,
}

impl ErrorClass {
    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::MissingFile => "missing-file",
            ErrorClass::Unreadable => "unreadable",
            ErrorClass::NotC => "not-c",
            ErrorClass::Empty => "empty",
            ErrorClass::NoCFiles => "no-c-files",
            ErrorClass::MissingHeader => "missing-header",
            ErrorClass::ParseError => "parse-error",
            ErrorClass::Flags => "flags",
            ErrorClass::Libclang => "libclang",
            ErrorClass::Timeout => "timeout",
            ErrorClass::Crash => "crash",
            ErrorClass::OutOfMemory => "out-of-memory",
            ErrorClass::Skipped => "skipped",
            ErrorClass::NotAUnit => "not-a-unit",
        }
    }

    /// Every class, for documentation and for parsing expectations.
    pub const ALL: [ErrorClass; 14] = [
        ErrorClass::MissingFile,
        ErrorClass::Unreadable,
        ErrorClass::NotC,
        ErrorClass::Empty,
        ErrorClass::NoCFiles,
        ErrorClass::MissingHeader,
        ErrorClass::ParseError,
        ErrorClass::Flags,
        ErrorClass::Libclang,
        ErrorClass::Timeout,
        ErrorClass::Crash,
        ErrorClass::OutOfMemory,
        ErrorClass::Skipped,
        ErrorClass::NotAUnit,
    ];

    /// The level a file of this class is reported at: a note for a file
    /// that is not a unit of compilation, an error otherwise.
    pub fn level(self) -> Level {
        if self == ErrorClass::NotAUnit { Level::Note } else { Level::Error }
    }
}

/// A file (or directory, or flags database) that could not be analysed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileError {
    /// The path the user named (or the file found under a named directory).
    pub path: PathBuf,
    /// What went wrong, as a class.
    pub class: ErrorClass,
    /// One sentence.
    pub message: String,
    /// Clang's location of a C error; may lie in a header.
    pub span: Option<Span>,
}

impl FileError {
    /// An error without a source location.
    pub fn new(path: impl Into<PathBuf>, class: ErrorClass, message: impl Into<String>) -> FileError {
        FileError { path: path.into(), class, message: message.into(), span: None }
    }
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&render_file_error(self))
    }
}

impl std::error::Error for FileError {}
