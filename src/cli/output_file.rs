//! Where `check` and `report` write: the report to stdout or atomically
//! to a file ([`crate::report::output_file`]), saying why not on stderr.

use crate::report::output_file::write_atomically;
use std::io::{self, Write};
use std::path::Path;

/// Writes a result file atomically; prints `PATH: error: cannot write
/// WHAT: REASON` and returns false on failure.
pub fn emit(path: &Path, what: &str, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> bool {
    match write_atomically(path, write) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("{}: error: cannot write {what}: {e}", path.display());
            false
        }
    }
}

/// Writes the main report to `path` atomically, or to stdout without
/// one; prints why not and returns false on failure.
pub fn emit_report(path: Option<&Path>, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> bool {
    if let Some(path) = path {
        return emit(path, "the report", write);
    }
    let mut out = io::stdout().lock();
    match write(&mut out).and_then(|_| out.flush()) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("racewatch: error: cannot write output: {e}");
            false
        }
    }
}

/// Writes the partial-order-reduction hints of a whole run to `path`
/// atomically; prints why not and returns false on failure, leaving no
/// partial file.
pub fn emit_por_hints(path: &Path, results: &[crate::report::FileVerdicts], errors: &[crate::diagnostics::FileError]) -> bool {
    emit(path, "the partial-order hints", |mut out| crate::report::por_hints::write_document(&mut out, results, errors))
}
