//! Parsing one file, and turning clang's errors into a [`FileError`].
//!
//! A file with any error diagnostic is refused: the AST clang recovers after
//! an error may lack declarations, and a verdict on it would not be sound.
//! The first error is reported with clang's own `file:line:col`; a missing
//! header gets its own class because its cure (flags, another architecture)
//! differs from that of a syntax error.

use super::clang::{Index, Severity, TranslationUnit};
use super::input::check_c_source;
use crate::diagnostics::{ErrorClass, FileError, Span};
use std::path::Path;
use std::sync::Arc;

/// Checks, parses, and refuses a file that clang reports errors in.
pub fn parse_c_file<'i>(index: &'i Index, file: &Path, flags: &[String]) -> Result<TranslationUnit<'i>, FileError> {
    check_c_source(file)?;
    let tu = index
        .parse(file, flags)
        .map_err(|failure| FileError::new(file, ErrorClass::Libclang, failure.to_string()))?;
    let errors: Vec<_> = tu.diagnostics().into_iter().filter(|d| d.severity >= Severity::Error).collect();
    let Some(first) = errors.first() else {
        return Ok(tu);
    };
    let class = if first.message.ends_with("file not found") { ErrorClass::MissingHeader } else { ErrorClass::ParseError };
    let mut message = first.message.clone();
    if errors.len() > 1 {
        message.push_str(&format!(" (and {} more error{})", errors.len() - 1, if errors.len() > 2 { "s" } else { "" }));
    }
    let span = first.location.file.as_ref().map(|f| Span {
        file: Arc::from(f.as_path()),
        line: first.location.line,
        column: first.location.column,
    });
    Err(FileError { path: file.to_path_buf(), class, message, span })
}
