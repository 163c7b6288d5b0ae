//! Which files an invocation names, and the checks that turn bad input into
//! clean errors before libclang ever sees it.
//!
//! A named path that does not exist, a directory holding no `.c` file, a
//! file that is not C (by extension, or binary by content), an empty file:
//! each becomes a [`FileError`] for that path alone, so one bad path never
//! stops the others.

use crate::diagnostics::{ErrorClass, FileError};
use std::path::{Path, PathBuf};

/// The C files to analyse, in a stable order, and the errors for the paths
/// that named none.
pub fn collect_c_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<FileError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                errors.push(FileError::new(path, ErrorClass::MissingFile, "no such file or directory"));
            }
            Err(e) => errors.push(FileError::new(path, ErrorClass::Unreadable, format!("cannot read: {e}"))),
            Ok(meta) if meta.is_dir() => {
                let before = files.len();
                if let Err(e) = walk(path, &mut files) {
                    errors.push(FileError::new(path, ErrorClass::Unreadable, format!("cannot read directory: {e}")));
                } else if files.len() == before {
                    errors.push(FileError::new(path, ErrorClass::NoCFiles, "directory holds no C files (*.c)"));
                }
            }
            Ok(_) => files.push(path.clone()),
        }
    }
    (files, errors)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let hidden = p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if p.is_dir() {
            walk(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "c") {
            out.push(p);
        }
    }
    Ok(())
}

/// Checks that a file is a readable, non-empty C source before parsing.
pub fn check_c_source(path: &Path) -> Result<(), FileError> {
    if path.extension().is_none_or(|e| e != "c") {
        return Err(FileError::new(path, ErrorClass::NotC, "not a C source file (expected a .c file)"));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        let class = if e.kind() == std::io::ErrorKind::NotFound { ErrorClass::MissingFile } else { ErrorClass::Unreadable };
        FileError::new(path, class, format!("cannot read: {e}"))
    })?;
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(FileError::new(path, ErrorClass::Empty, "file is empty"));
    }
    if bytes.iter().take(64 * 1024).any(|&b| b == 0) {
        return Err(FileError::new(path, ErrorClass::NotC, "binary file, not C source (it holds NUL bytes)"));
    }
    Ok(())
}
