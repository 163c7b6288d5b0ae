//! The per-file pipeline of `check` as a library call: lower a file (with
//! its composite module), pick the pairs of entry points and the pseudo
//! locks each runs holding, check the held-lock annotations, run the
//! lockset verification, then the precise phase and the
//! partial-order-reduction hints when asked; the outcome is the report
//! model ([`FileVerdicts`]) every renderer of [`crate::report`] reads.
//!
//! [`analyse_file`] is the whole of it from a path and [`Options`]; the
//! batch worker (`racewatch worker`) and the CLI's `kbuild` command call
//! [`check_unit_precise`] with a session they built, and tests call
//! [`check_file_verdicts`].
//!
//! **Invariant:** nothing here prints or exits; a file that cannot be
//! analysed is its [`FileVerdicts::outcome`]'s error.

use super::Session;
use crate::analyses::pairs::{Pair, candidate_pairs};
use crate::diagnostics::{ErrorClass, FileError};
use crate::frontend::flags::{FlagOptions, FlagSource};
use crate::frontend::lower::Roots;
use crate::models::KernelModels;
use crate::report::FileVerdicts;
use crate::verify::run::verify;
use crate::verify::verdict::PairVerdict;
use std::path::{Path, PathBuf};

/// What the analysis of one file needs besides the file.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The kernel models' directory; none: the built-in models.
    pub models: Option<PathBuf>,
    /// How to compile the file (`--kernel`, `--compile-commands`, `-I`, ...).
    pub flags: FlagOptions,
    /// The lockset phase's options.
    pub verify: crate::verify::run::Options,
    /// The precise phase's options, when it runs.
    pub precise: Option<crate::precise::Options>,
    /// Write every solver query as a replayable .smt2 file here.
    pub dump_smt: Option<PathBuf>,
    /// Whether to compute the partial-order-reduction hints.
    pub por_hints: bool,
    /// Worker threads (0: as many as the machine has).
    pub jobs: usize,
}

/// Analyses one file as `racewatch check` does, without the CLI's worker
/// processes, cache or renderers: the report of the file (and of its
/// composite module, when it is part of one).
///
/// The error is for an analysis that cannot start (the kernel models or
/// the flag source are unusable); a file that cannot be analysed (bad
/// flags, parse errors, not a unit of compilation) comes back as a report
/// whose [`FileVerdicts::outcome`] is its error, as the CLI renders it.
pub fn analyse_file(path: &Path, options: &Options) -> Result<FileVerdicts, FileError> {
    let models = KernelModels::load(options.models.as_deref())
        .map_err(|e| FileError::new(path, ErrorClass::Flags, format!("cannot read the kernel models: {e}")))?;
    let source = FlagSource::resolve(&options.flags)?;
    let jobs = if options.jobs > 0 { options.jobs } else { std::thread::available_parallelism().map_or(1, |n| n.get()) };
    let session = Session { models, options: options.flags.clone(), source, jobs };
    let run = || check_file_precise(&session, path, &options.verify, options.precise.as_ref(), options.dump_smt.as_deref(), options.por_hints);
    Ok(match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    })
}

/// The pair verdicts of one file, for tests and tools using the library.
pub fn check_file_verdicts(session: &Session, file: &Path, options: &crate::verify::run::Options) -> Result<Vec<PairVerdict>, FileError> {
    check_file(session, file, options, None, false).outcome
}

/// The pair verdicts and the precise phase's results of one file, for
/// tests and tools using the library.
pub fn check_file_precise_verdicts(
    session: &Session,
    file: &Path,
    options: &crate::verify::run::Options,
    precise: &crate::precise::Options,
) -> Result<(Vec<PairVerdict>, Vec<crate::precise::PrecisePair>), FileError> {
    let r = check_file_precise(session, file, options, Some(precise), None, false);
    r.outcome.map(|v| (v, r.precise))
}


/// The pairs to check (indexing the lowered program's entry points) and
/// the kernel pseudo locks each entry point runs holding, for a file's
/// extracted entry points and lowered program. A rule's `unless-called`
/// voids its pseudo lock, or the pairs it removes, when the driver calls
/// (in code the lowering reached) or registers one of the functions it
/// names.
pub fn pairs_and_held(
    session: &Session,
    entry_points: &crate::frontend::entry_points::DriverEntryPoints,
    lowered: &crate::frontend::lower::Lowered,
) -> (Vec<Pair>, Vec<Vec<String>>) {
    pairs_and_held_in(session, entry_points, &lowered.program, &lowered.stats.external_functions)
}

/// [`pairs_and_held`] for a program derived from the lowered one;
/// `external` are the functions without body or model the lowering met.
pub fn pairs_and_held_in(
    session: &Session,
    entry_points: &crate::frontend::entry_points::DriverEntryPoints,
    program: &crate::ir::Program,
    external: &std::collections::BTreeSet<String>,
) -> (Vec<Pair>, Vec<Vec<String>>) {
    let used = |f: &String| external.contains(f) || entry_points.externals.iter().any(|x| &x.function == f);
    // Pairs index the extracted entry points; the lowered program lists
    // them by name.
    let index: std::collections::HashMap<&str, usize> =
        program.entry_points.values().enumerate().map(|(i, e)| (e.name.as_str(), i)).collect();
    let exempt = crate::analyses::pairs::exemptions(entry_points, &session.models.serialisation, program, &used);
    let pairs: Vec<Pair> = candidate_pairs(entry_points, &session.models, &exempt)
        .into_iter()
        .filter_map(|p| {
            let a = *index.get(entry_points.entry_points[p.first].function.as_str())?;
            let b = *index.get(entry_points.entry_points[p.second].function.as_str())?;
            Some(Pair { first: a, second: b })
        })
        .collect();
    // Kernel pseudo locks each entry point runs holding.
    let held: Vec<Vec<String>> = program
        .entry_points
        .values()
        .map(|e| {
            let Some(ep) = entry_points.entry_points.iter().find(|x| x.function == e.name) else { return Vec::new() };
            crate::analyses::pairs::held_pseudo_locks(ep, &session.models, &used)
        })
        .collect();
    (pairs, held)
}

/// Verifies one file; with `por_hints`, computes its partial-order-reduction
/// hints too.
pub fn check_file(
    session: &Session,
    file: &Path,
    options: &crate::verify::run::Options,
    dump: Option<&Path>,
    por_hints: bool,
) -> FileVerdicts {
    check_file_precise(session, file, options, None, dump, por_hints)
}

/// Verifies one file, then runs the precise phase on what stays unproven
/// when `precise` is given; with `por_hints`, computes its
/// partial-order-reduction hints too. Every file the parse read is
/// recorded in [`FileVerdicts::inputs`] (for the result cache).
pub fn check_file_precise(
    session: &Session,
    file: &Path,
    options: &crate::verify::run::Options,
    precise: Option<&crate::precise::Options>,
    dump: Option<&Path>,
    por_hints: bool,
) -> FileVerdicts {
    let start = std::time::Instant::now();
    match session.unit_of(file) {
        Ok(unit) => check_unit_precise(session, file, unit.as_ref(), options, precise, dump, por_hints),
        Err(e) => FileVerdicts::failed(file, e, start.elapsed()),
    }
}

/// [`check_file_precise`] for `file` analysed with its composite module
/// `unit` (computed by the parent process for a worker), or alone.
pub fn check_unit_precise(
    session: &Session,
    file: &Path,
    unit: Option<&super::ModuleRequest>,
    options: &crate::verify::run::Options,
    precise: Option<&crate::precise::Options>,
    dump: Option<&Path>,
    por_hints: bool,
) -> FileVerdicts {
    let start = std::time::Instant::now();
    let mut entry_count = 0;
    let mut inputs = Vec::new();
    let mut stats = crate::verify::run::RunStats::default();
    let mut front = None;
    let mut precise_results = Vec::new();
    let mut hints = None;
    let mut private = Default::default();
    let mut unmodelled = Vec::new();
    let mut annotations = Vec::new();
    let mut object_locks = Vec::new();
    let outcome = session.lower_unit_reading(file, unit, Roots::EntryPoints).map(|(entry_points, mut lowered, timings, read)| {
        front = Some(timings);
        unmodelled = entry_points.unmodelled.clone();
        private = lowered.private.clone();
        object_locks = crate::report::model::ObjectLock::of(&lowered.program);
        entry_count = entry_points.entry_points.len();
        inputs = read;
        let (pairs, held) = pairs_and_held(session, &entry_points, &lowered);
        annotations = crate::analyses::annotations::check(&mut lowered.program, &held);
        let program = &lowered.program;
        let make = || crate::verify::solving::SolverAdapter::limited(program, options.timeout, options.resource_limit, dump.map(|d| d.to_path_buf()));
        let (verdicts, run) = verify(&lowered.program, &pairs, &held, options, &make);
        stats = run;
        if let Some(p) = precise {
            let p = crate::precise::Options { dump_dir: dump.map(|d| d.to_path_buf()), ..p.clone() };
            precise_results = crate::precise::check(program, &pairs, &verdicts, &held, &p);
        }
        if por_hints {
            hints = Some(crate::report::por_hints::build(program, &pairs, &held, &verdicts));
        }
        verdicts
    });
    FileVerdicts {
        file: file.to_path_buf(),
        outcome,
        entry_points: entry_count,
        cached: false,
        peak_memory: None,
        inputs,
        stats,
        time: start.elapsed(),
        front,
        precise: precise_results,
        por_hints: hints,
        private,
        unmodelled,
        annotations,
        object_locks,
        module: unit.map(|u| u.module.clone()),
        key: String::new(),
        suppressed: Default::default(),
    }
}
