//! The pipeline: the order in which stages run over a batch of files.
//!
//! For each file: check it is C, compose its flags, parse it (front end),
//! extract its entry points (front end), then the analyses. Files are
//! independent, so they run in parallel on a rayon pool of `--jobs` threads,
//! each with its own libclang index; results come back in input order, so the
//! output is the same for any job count.
//!
//! **Invariant:** nothing here prints or exits; the CLI renders what comes
//! back. One file's failure is that file's [`FileError`], never the batch's.

use crate::diagnostics::{ErrorClass, FileError};
use crate::frontend::clang::with_thread_index;
use crate::frontend::entry_points::{DriverEntryPoints, extract_entry_points};
use crate::frontend::flags::{FlagOptions, FlagSource};
use crate::frontend::input::collect_c_files;
use crate::frontend::lower::{Lowered, Roots, lower_from};
use crate::frontend::parse::parse_c_file;
use crate::models::KernelModels;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What every file of one invocation shares.
pub struct Session {
    /// The kernel models.
    pub models: KernelModels,
    /// The user's flag options.
    pub options: FlagOptions,
    /// Where flags come from, resolved once.
    pub source: FlagSource,
    /// Worker threads.
    pub jobs: usize,
}

/// Time spent per stage on one file.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Timings {
    /// libclang's parse.
    pub parse: Duration,
    /// Entry-point extraction.
    pub extract: Duration,
    /// Lowering to the IR.
    pub lower: Duration,
}

/// One file's outcome.
#[derive(Debug)]
pub struct FileResult {
    /// The file.
    pub file: PathBuf,
    /// Its entry points, or why it could not be analysed.
    pub outcome: Result<DriverEntryPoints, FileError>,
    /// Where the time went.
    pub timings: Timings,
}

impl Session {
    /// The files an invocation names: the given paths (directories searched
    /// for `*.c`), or every file of the compilation database when no path is
    /// given. Errors are for paths that name no file.
    ///
    /// With a compilation database, a named directory stands for the
    /// database's files under it, and the database's entries that name no
    /// file are errors too.
    pub fn inputs(&self, paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<FileError>) {
        let FlagSource::CompileCommands(db) = &self.source else {
            if paths.is_empty() {
                return (Vec::new(), vec![FileError::new("racewatch", ErrorClass::MissingFile, "no input files given")]);
            }
            return collect_c_files(paths);
        };
        let mut errors = db.invalid.clone();
        if paths.is_empty() {
            return (db.files(), errors);
        }
        let mut files = Vec::new();
        for path in paths {
            if path.is_dir() {
                let under = db.files_under(path);
                if under.is_empty() {
                    let message = format!("no entry of {} lies under this directory", db.path.display());
                    errors.push(FileError::new(path, ErrorClass::NoCFiles, message));
                }
                files.extend(under);
            } else {
                let (found, bad) = collect_c_files(std::slice::from_ref(path));
                files.extend(found);
                errors.extend(bad);
            }
        }
        (files, errors)
    }

    /// Extracts the entry points of every file, in parallel, in input order.
    pub fn entry_points(&self, files: &[PathBuf]) -> Vec<FileResult> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(self.jobs.max(1)).build();
        let run = || files.par_iter().map(|f| self.entry_points_of(f)).collect();
        match pool {
            Ok(pool) => pool.install(run),
            Err(_) => files.iter().map(|f| self.entry_points_of(f)).collect(),
        }
    }

    /// Lowers one file: its entry points and the IR of everything they
    /// reach.
    pub fn lower(&self, file: &Path, roots: Roots) -> Result<(DriverEntryPoints, Lowered, Timings), FileError> {
        self.lower_reading(file, roots).map(|(entry_points, lowered, timings, _)| (entry_points, lowered, timings))
    }

    /// [`Session::lower`], also returning every file the parse read (the
    /// file and its headers).
    pub fn lower_reading(&self, file: &Path, roots: Roots) -> Result<(DriverEntryPoints, Lowered, Timings, Vec<PathBuf>), FileError> {
        let flags = self.source.flags_for(file, &self.options)?;
        with_thread_index(|index| {
            let mut timings = Timings::default();
            let start = Instant::now();
            let tu = parse_c_file(index, file, &flags).map_err(|e| self.source.explain(e))?;
            timings.parse = start.elapsed();
            let start = Instant::now();
            let entry_points = extract_entry_points(&tu, &self.models);
            timings.extract = start.elapsed();
            let start = Instant::now();
            let lowered = lower_from(&tu, &self.models, &entry_points, roots);
            timings.lower = start.elapsed();
            Ok((entry_points, lowered, timings, tu.included_files()))
        })
    }

    fn entry_points_of(&self, file: &Path) -> FileResult {
        let mut timings = Timings::default();
        let outcome = self.source.flags_for(file, &self.options).and_then(|flags| {
            with_thread_index(|index| {
                let start = Instant::now();
                let tu = parse_c_file(index, file, &flags).map_err(|e| self.source.explain(e));
                timings.parse = start.elapsed();
                let tu = tu?;
                let start = Instant::now();
                let found = extract_entry_points(&tu, &self.models);
                timings.extract = start.elapsed();
                Ok(found)
            })
        });
        FileResult { file: file.to_path_buf(), outcome, timings }
    }
}
