//! Result files written atomically: the report of `check --output`, the
//! pair file of `--pairs-xml` and the hints of `--emit-por-hints`.
//!
//! A result file is first written in full to a temporary file in the
//! target's directory (`.NAME.racewatch-tmp.PID.N`, created exclusively so
//! that nothing else is overwritten), flushed and synced to disk, then
//! renamed over the target; the directory is synced so that the rename
//! itself survives a crash. A rename within one file system is atomic,
//! so a reader sees either the old file or the complete new one, never a
//! half-written report. On any error, and on a panic inside the writer,
//! the temporary file is removed and the target is left untouched; only a
//! process killed mid-write leaves its temporary file behind, and the
//! target is still untouched then.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Temporary files made by this process so far, so that two result files
/// written to the same target in one run never share a temporary name.
static TEMPORARIES: AtomicU64 = AtomicU64::new(0);

/// How many names to try when a temporary name is taken (left behind by
/// a killed run of a process with the same id).
const NAME_ATTEMPTS: u32 = 100;

/// The temporary file of one write, removed when dropped unless the
/// rename made it the target.
struct Temporary {
    path: PathBuf,
    renamed: bool,
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The directory a path's file lives in (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Creates a fresh temporary file next to `path`.
fn create_temporary(path: &Path) -> io::Result<(Temporary, File)> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path does not name a file"))?
        .to_string_lossy()
        .into_owned();
    let dir = directory_of(path);
    let mut last = None;
    for _ in 0..NAME_ATTEMPTS {
        let n = TEMPORARIES.fetch_add(1, Ordering::Relaxed);
        let candidate = dir.join(format!(".{name}.racewatch-tmp.{}.{n}", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&candidate) {
            Ok(file) => return Ok((Temporary { path: candidate, renamed: false }, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Writes `path` atomically with what `write` produces: the target is
/// replaced only once everything was written and synced, and is left
/// untouched (with no temporary file behind) on any error.
pub fn write_atomically(path: &Path, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let (mut temporary, file) = create_temporary(path)?;
    let mut out = BufWriter::new(file);
    write(&mut out)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&temporary.path, path)?;
    temporary.renamed = true;
    // The rename is durable once the directory is synced; a file system
    // that cannot sync a directory has still renamed the file.
    if let Ok(dir) = File::open(directory_of(path)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::write_atomically;
    use std::io;
    use std::path::PathBuf;

    /// A fresh scratch directory for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("racewatch-output-file-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_failing_writer_leaves_the_target_and_no_temporary_file() {
        let dir = scratch("failing");
        let target = dir.join("report");
        std::fs::write(&target, "old").unwrap();
        let failed = write_atomically(&target, |w| {
            w.write_all(b"half a rep")?;
            Err(io::Error::other("interrupted"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "interrupted");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(names(&dir), ["report"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_panicking_writer_leaves_no_temporary_file() {
        let dir = scratch("panicking");
        let target = dir.join("report");
        let outcome = std::panic::catch_unwind(|| {
            let _ = write_atomically(&target, |w| {
                w.write_all(b"partial")?;
                panic!("the writer panicked");
            });
        });
        assert!(outcome.is_err());
        assert!(names(&dir).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_complete_write_replaces_the_target() {
        let dir = scratch("complete");
        let target = dir.join("report");
        std::fs::write(&target, "old").unwrap();
        write_atomically(&target, |w| w.write_all(b"new report\n")).unwrap();
        write_atomically(&target, |w| w.write_all(b"newer report\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "newer report\n");
        assert_eq!(names(&dir), ["report"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_path_without_a_file_name_is_refused() {
        assert!(write_atomically(std::path::Path::new("/"), |w| w.write_all(b"x")).is_err());
    }
}
