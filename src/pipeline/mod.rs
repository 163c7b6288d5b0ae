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

pub mod check;

use crate::diagnostics::{ErrorClass, FileError};
use crate::frontend::clang::with_thread_index;
use crate::frontend::entry_points::{DriverEntryPoints, extract_entry_points};
use crate::frontend::flags::{FlagOptions, FlagSource};
use crate::frontend::input::collect_c_files;
use crate::frontend::compose::{Definitions, merge};
use crate::frontend::kbuild::KernelConfig;
use crate::frontend::kbuild_module::{KbuildModule, module_of, same_file};
use crate::frontend::lower::{Lowered, Roots, lower_from, lower_unit};
use crate::frontend::parse::parse_c_file;
use crate::models::KernelModels;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A composite module to analyse as one unit, with each file's flags
/// (composed by the parent process, sent to the worker).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ModuleRequest {
    /// The module and its files.
    pub module: KbuildModule,
    /// Each file of the module with its clang arguments, in the Makefile's
    /// order.
    pub flags: Vec<(PathBuf, Vec<String>)>,
}

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
        self.named_files(paths)
    }

    /// [`Session::inputs`] for the commands that analyse modules (`check`,
    /// `ivl`): a composite module is one unit ([`Session::unit_of`]), and
    /// of its files only the first named stands for it.
    pub fn units(&self, paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<FileError>) {
        let (files, errors) = self.named_files(paths);
        (self.one_per_unit(files), errors)
    }

    /// Drops every file of a composite module but the first.
    fn one_per_unit(&self, files: Vec<PathBuf>) -> Vec<PathBuf> {
        let empty = KernelConfig::default();
        let config = match &self.source {
            FlagSource::Kernel(tree) => &tree.config,
            _ => &empty,
        };
        let mut seen: Vec<PathBuf> = Vec::new();
        let mut out = Vec::new();
        for file in files {
            match module_of(&file, config).filter(KbuildModule::is_composite) {
                Some(module) => {
                    if !seen.contains(&module.makefile.join(&module.name)) {
                        seen.push(module.makefile.join(&module.name));
                        out.push(file);
                    }
                }
                None => out.push(file),
            }
        }
        out
    }

    fn named_files(&self, paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<FileError>) {
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

    /// Lowers one file alone: its entry points and the IR of everything
    /// they reach (`racewatch ivl`; `check` lowers a file's whole module,
    /// [`Session::lower_reading`]).
    pub fn lower(&self, file: &Path, roots: Roots) -> Result<(DriverEntryPoints, Lowered, Timings), FileError> {
        self.lower_file(file, roots).map(|(entry_points, lowered, timings, _)| (entry_points, lowered, timings))
    }

    /// Lowers the unit `file` belongs to (its composite module, or the file
    /// alone), also returning every file the parses read (the files and
    /// their headers).
    pub fn lower_reading(&self, file: &Path, roots: Roots) -> Result<(DriverEntryPoints, Lowered, Timings, Vec<PathBuf>), FileError> {
        let unit = self.unit_of(file)?;
        self.lower_unit_reading(file, unit.as_ref(), roots)
    }

    /// The `not-a-unit` note of a file another one includes and no Makefile
    /// builds (`frontend::units`): it is analysed as part of its includer,
    /// not on its own. A compilation database decides units by itself.
    pub fn not_a_unit(&self, file: &Path) -> Option<FileError> {
        match self.source {
            FlagSource::CompileCommands(_) | FlagSource::Given(_) => None,
            _ => crate::frontend::units::not_a_unit(file),
        }
    }

    /// The composite module `file` is analysed with, and each file's flags;
    /// `None` when the file is analysed alone (no composite module, or flags
    /// given for this one file: a worker, which receives its unit).
    pub fn unit_of(&self, file: &Path) -> Result<Option<ModuleRequest>, FileError> {
        let empty = KernelConfig::default();
        let config = match &self.source {
            FlagSource::Kernel(tree) => &tree.config,
            FlagSource::CompileCommands(_) | FlagSource::Plain => &empty,
            FlagSource::Given(_) => return Ok(None),
        };
        if let Some(note) = self.not_a_unit(file) {
            return Err(note);
        }
        let Some(mut module) = module_of(file, config) else { return Ok(None) };
        // With a compilation database, the parts are those it compiled.
        if let FlagSource::CompileCommands(db) = &self.source {
            let compiled = db.files();
            let (kept, dropped): (Vec<PathBuf>, Vec<PathBuf>) =
                module.members.drain(..).partition(|m| compiled.iter().any(|c| same_file(c, m)));
            module.members = kept;
            for d in dropped {
                let part = d.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                module.left_out.push((part, format!("not in {}", db.path.display())));
            }
        }
        if !module.is_composite() {
            return Ok(None);
        }
        if !module.missing.is_empty() {
            let names: Vec<String> = module.missing.iter().map(|m| m.display().to_string()).collect();
            let message = format!(
                "part of module {} ({}), which also needs {}: not found (a generated file, or one the tree lacks)",
                module.name,
                module.makefile.display(),
                names.join(", ")
            );
            return Err(FileError::new(file, ErrorClass::MissingFile, message));
        }
        let mut flags = Vec::new();
        for member in &module.members {
            flags.push((member.clone(), self.source.flags_for(member, &self.options)?));
        }
        Ok(Some(ModuleRequest { module, flags }))
    }

    /// Lowers `file`, or the module `unit` when given: every file parsed
    /// with its own flags, entry points joined, one program
    /// ([`crate::frontend::compose`]).
    pub fn lower_unit_reading(
        &self,
        file: &Path,
        unit: Option<&ModuleRequest>,
        roots: Roots,
    ) -> Result<(DriverEntryPoints, Lowered, Timings, Vec<PathBuf>), FileError> {
        let Some(unit) = unit else { return self.lower_file(file, roots) };
        with_thread_index(|index| {
            let mut timings = Timings::default();
            let start = Instant::now();
            let mut tus = Vec::new();
            for (member, flags) in &unit.flags {
                let tu = parse_c_file(index, member, flags).map_err(|e| {
                    let mut e = self.source.explain(e);
                    e.message.push_str(&format!(
                        " (in {}, part of module {}: {} is analysed with all of {})",
                        member.display(),
                        unit.module.name,
                        file.display(),
                        unit.module.members.iter().map(|m| m.display().to_string()).collect::<Vec<_>>().join(", ")
                    ));
                    e.path = file.to_path_buf();
                    e
                })?;
                tus.push(tu);
            }
            timings.parse = start.elapsed();
            let refs: Vec<&crate::frontend::clang::TranslationUnit<'_>> = tus.iter().collect();
            let start = Instant::now();
            let parts: Vec<DriverEntryPoints> = refs.iter().map(|tu| extract_entry_points(tu, &self.models)).collect();
            let definitions = Definitions::of(&refs);
            let entry_points = merge(parts, &definitions);
            timings.extract = start.elapsed();
            let start = Instant::now();
            let lowered = lower_unit(&refs, &definitions.by_name, &definitions.external, &self.models, &entry_points, roots);
            timings.lower = start.elapsed();
            let mut read: Vec<PathBuf> = refs.iter().flat_map(|tu| tu.included_files()).collect();
            read.push(unit.module.makefile.clone());
            read.sort();
            read.dedup();
            Ok((entry_points, lowered, timings, read))
        })
    }

    /// Lowers one file alone.
    fn lower_file(&self, file: &Path, roots: Roots) -> Result<(DriverEntryPoints, Lowered, Timings, Vec<PathBuf>), FileError> {
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
        if let Some(note) = self.not_a_unit(file) {
            return FileResult { file: file.to_path_buf(), outcome: Err(note), timings };
        }
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
