//! `racewatch check`: the lockset verification of each file, reported
//! clang-style or as JSON, with the documented exit codes.

use super::Exit;
use super::args::InputArgs;
use crate::analyses::pairs::{Pair, candidate_pairs};
use crate::diagnostics::{FileError, render_diagnostic, render_file_error};
use crate::frontend::entry_points::UnmodelledOps;
use crate::frontend::lower::Roots;
use crate::pipeline::Session;
use crate::verify::run::{Options, verify};
use crate::verify::verdict::{PairVerdict, Totals, Verdict, clock_bound, diagnostics, totals};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Output formats of `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// clang-style diagnostics and a trailer.
    Text,
    /// One JSON document (docs/output.md).
    Json,
    /// One SARIF 2.1.0 log (docs/output.md).
    Sarif,
}

/// Options of `racewatch check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The files and directories to verify, and how to compile them.
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Seconds per solver query; a query that runs out is unknown.
    #[arg(long, value_name = "SECONDS", default_value = "10")]
    pub timeout: u64,
    /// z3's resource limit (rlimit) per query: unlike --timeout, a query
    /// that exhausts it is unknown on a loaded machine and an idle one
    /// alike [default: none].
    #[arg(long, value_name = "N")]
    pub solver_rlimit: Option<u32>,
    /// Write every solver query as a replayable .smt2 file here.
    #[arg(long, value_name = "DIR")]
    pub dump_smt: Option<PathBuf>,
    /// Print what Houdini did for each entry point, and the time spent, to
    /// stderr.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// The bounded precise phase.
    #[command(flatten)]
    pub precise: super::precise::PreciseArgs,
    /// Write partial-order-reduction hints for other bug finders here
    /// (docs/por-hints.md).
    #[arg(long, value_name = "FILE")]
    pub emit_por_hints: Option<PathBuf>,
    /// Seconds per file; a file still being analysed then is stopped and
    /// reported as a timeout (0: no limit).
    #[arg(long, value_name = "SECONDS", default_value = "600")]
    pub file_timeout: u64,
    /// Seconds for the whole run; past it, running files are stopped and
    /// the rest skipped [default: no limit].
    #[arg(long, value_name = "SECONDS")]
    pub run_timeout: Option<u64>,
    /// Address space per worker process, in MiB; a file needing more is
    /// reported as out of memory (0: no limit).
    #[arg(long, value_name = "MIB", default_value = "8192")]
    pub memory_limit: u64,
    /// Analyse every file again instead of reusing the results of an
    /// unchanged one.
    #[arg(long)]
    pub no_cache: bool,
    /// Keep the result cache here [default: $RACEWATCH_CACHE/results, else
    /// ~/.cache/racewatch/results].
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Progress on stderr: a bar on a terminal, one line per file
    /// otherwise (auto); never for a single file.
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: crate::batch::progress::Mode,
    /// Write the report to this file, atomically, instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write each pair's verdict to this file, in the original Whoop
    /// tool's `<driver><pair ep1 ep2 bug/>` form (docs/output.md).
    #[arg(long, value_name = "FILE")]
    pub pairs_xml: Option<PathBuf>,
    /// Analyse only the I-th of N deterministic, size-balanced shares of
    /// the inputs (1-based), for a run split over machines; merge the
    /// shares' --report-dir with `racewatch report`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<super::report::Shard>,
    /// Also save each file's result into this directory, for `racewatch
    /// report` (docs/cli.md).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Report only the races whose fingerprint the JSON report OLD (an
    /// earlier `check --format json`) does not have; the exit code counts
    /// only those (docs/output.md, "Baselines").
    #[arg(long, value_name = "OLD.json")]
    pub baseline: Option<PathBuf>,
}

/// One file's outcome.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct FileVerdicts {
    /// The file.
    pub file: PathBuf,
    /// Its pair verdicts, or why it could not be verified.
    pub outcome: Result<Vec<PairVerdict>, FileError>,
    /// How many entry points it has (0 when it could not be verified).
    pub entry_points: usize,
    /// Whether the result came from the cache.
    #[serde(default)]
    pub cached: bool,
    /// The peak resident memory of the process that analysed it, in bytes.
    pub peak_memory: Option<u64>,
    /// Every file its analysis read: the file and its headers.
    #[serde(skip)]
    pub inputs: Vec<PathBuf>,
    /// What Houdini and the pair checks did.
    pub stats: crate::verify::run::RunStats,
    /// Wall-clock time of the whole file.
    pub time: Duration,
    /// The front end's times (parse, extraction, lowering), when it ran.
    pub front: Option<crate::pipeline::Timings>,
    /// The precise phase's results, when it ran.
    pub precise: Vec<crate::precise::PrecisePair>,
    /// The partial-order-reduction hints, when asked for and verified.
    pub por_hints: Option<super::por_hints::DriverHints>,
    /// The accesses to per-call private memory, which are not race-checked.
    #[serde(default)]
    pub private: crate::analyses::private::PrivateReport,
    /// Kernel structures holding driver functions that no model describes:
    /// their callbacks are not entry points, so the file's verdicts
    /// exclude them (`unmodelled-ops`).
    #[serde(default)]
    pub unmodelled: Vec<UnmodelledOps>,
    /// The kernel's held-lock annotations found violated, and those taken
    /// as standing assumptions (`lock-annotation`).
    #[serde(default)]
    pub annotations: Vec<crate::analyses::annotations::AnnotationFinding>,
    /// The composite module the file was analysed as part of, when it is
    /// one: every file of it was analysed as one program.
    #[serde(default)]
    pub module: Option<crate::frontend::kbuild_module::KbuildModule>,
    /// The file's key in race fingerprints: its path relative to the input
    /// directory that named it, else its file name (set by the run; empty:
    /// the file name). Saved with the result, so a merged report keeps it.
    #[serde(default)]
    pub key: String,
    /// The fingerprints of its races that the `--baseline` report has.
    #[serde(skip)]
    pub suppressed: std::collections::BTreeSet<String>,
}

/// The pair verdicts of one file, for tests and tools using the library.
pub fn check_file_verdicts(session: &Session, file: &std::path::Path, options: &Options) -> Result<Vec<PairVerdict>, FileError> {
    check_file(session, file, options, None, false).outcome
}

/// The pair verdicts and the precise phase's results of one file, for
/// tests and tools using the library.
pub fn check_file_precise_verdicts(
    session: &Session,
    file: &std::path::Path,
    options: &Options,
    precise: &crate::precise::Options,
) -> Result<(Vec<PairVerdict>, Vec<crate::precise::PrecisePair>), FileError> {
    let r = check_file_precise(session, file, options, Some(precise), None, false);
    r.outcome.map(|v| (v, r.precise))
}

/// How a file's check ended, for the summary table and the JSON `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Verified: every pair has its verdicts.
    Verified,
    /// Parsed, but nothing in it is called by the kernel.
    NoEntryPoints,
    /// Not a unit of compilation: another file includes it and no Makefile
    /// builds it (`frontend::units`); analysed as part of its includer.
    NotAUnit,
    /// Stopped by the per-file or run budget.
    Timeout,
    /// The worker crashed or ran out of memory.
    Crash,
    /// Not analysed: the run budget was spent.
    Skipped,
    /// Could not be analysed: bad input, flags, parse errors.
    Error,
}

impl Status {
    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::NoEntryPoints => "no-entry-points",
            Status::NotAUnit => "not-a-unit",
            Status::Timeout => "timeout",
            Status::Crash => "crash",
            Status::Skipped => "skipped",
            Status::Error => "error",
        }
    }
}

impl FileVerdicts {
    /// The outcome of a file that could not be verified.
    pub fn failed(file: &std::path::Path, error: FileError, time: Duration) -> FileVerdicts {
        FileVerdicts {
            file: file.to_path_buf(),
            outcome: Err(error),
            entry_points: 0,
            cached: false,
            peak_memory: None,
            inputs: Vec::new(),
            stats: Default::default(),
            time,
            front: None,
            precise: Vec::new(),
            por_hints: None,
            private: Default::default(),
            unmodelled: Vec::new(),
            annotations: Vec::new(),
            module: None,
            key: String::new(),
            suppressed: Default::default(),
        }
    }

    /// "analysed as part of module aoe (6 files)", for a file analysed with
    /// its module.
    pub fn module_phrase(&self) -> Option<String> {
        let m = self.module.as_ref()?;
        Some(format!("analysed as part of module {} ({} files)", m.name, m.members.len()))
    }

    /// How the check ended.
    pub fn status(&self) -> Status {
        use crate::diagnostics::ErrorClass;
        match &self.outcome {
            Ok(_) if self.entry_points == 0 => Status::NoEntryPoints,
            Ok(_) => Status::Verified,
            Err(e) => match e.class {
                ErrorClass::Timeout => Status::Timeout,
                ErrorClass::Crash | ErrorClass::OutOfMemory => Status::Crash,
                ErrorClass::Skipped => Status::Skipped,
                ErrorClass::NotAUnit => Status::NotAUnit,
                _ => Status::Error,
            },
        }
    }

    /// Pairs checked.
    pub fn pair_count(&self) -> usize {
        self.outcome.as_ref().map_or(0, |p| p.len())
    }

    /// One phrase saying how the check ended, for progress lines.
    pub fn summary(&self) -> String {
        match (&self.outcome, self.status()) {
            (Ok(_), Status::NoEntryPoints) => "no entry points".to_string(),
            (Ok(pairs), _) => {
                let t = totals(pairs);
                let mut s = format!("{} pairs: {} proven, {} races, {} unknown", t.pairs, t.proven, t.races, t.unknown);
                if !self.unmodelled.is_empty() {
                    s.push_str(&format!(", {} unmodelled callback structures", self.unmodelled.len()));
                }
                s
            }
            (Err(e), _) => format!("{}: {}", e.class.as_str(), e.message),
        }
    }

    /// Whether the cache may keep this result: a finished analysis whose
    /// results no clock decided. A solver check that timed out or a time
    /// budget that ran out (Houdini's, or the file's) makes a result that
    /// another run, on a less loaded machine, may improve, so it is
    /// analysed again next time instead.
    pub fn cacheable(&self) -> bool {
        let Ok(pairs) = &self.outcome else { return false };
        let clock = |v: &Verdict| matches!(v, Verdict::Unknown(why) if clock_bound(why));
        let lockset = pairs.iter().flat_map(|p| &p.regions).any(|(_, v)| clock(v));
        let precise = self
            .precise
            .iter()
            .flat_map(|p| &p.regions)
            .any(|(_, v)| matches!(v, crate::precise::PreciseVerdict::Unknown(why) if clock_bound(why)));
        let houdini = &self.stats.houdini;
        !(lockset || precise || houdini.stop == crate::houdini::StopReason::Budget || houdini.timeouts > 0)
    }
}

/// The pairs to check (indexing the lowered program's entry points) and
/// the kernel pseudo locks each entry point runs holding, for a file's
/// extracted entry points and lowered program. A rule's `unless-called`
/// voids its pseudo lock when the driver calls (in code the lowering
/// reached) or registers one of the functions it names.
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
    let exempt = crate::analyses::pairs::reach_exemptions(entry_points, program);
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
    file: &std::path::Path,
    options: &Options,
    dump: Option<&std::path::Path>,
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
    file: &std::path::Path,
    options: &Options,
    precise: Option<&crate::precise::Options>,
    dump: Option<&std::path::Path>,
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
    file: &std::path::Path,
    unit: Option<&crate::pipeline::ModuleRequest>,
    options: &Options,
    precise: Option<&crate::precise::Options>,
    dump: Option<&std::path::Path>,
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
    let outcome = session.lower_unit_reading(file, unit, Roots::EntryPoints).map(|(entry_points, mut lowered, timings, read)| {
        front = Some(timings);
        unmodelled = entry_points.unmodelled.clone();
        private = lowered.private.clone();
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
            hints = Some(super::por_hints::build(program, &pairs, &held, &verdicts));
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
        module: unit.map(|u| u.module.clone()),
        key: String::new(),
        suppressed: Default::default(),
    }
}

/// Runs `racewatch check`.
pub fn run(args: &CheckArgs, session: Session) -> Exit {
    let (files, errors) = session.units(&args.input.paths);
    let files = match args.shard {
        Some(shard) => super::report::select(files, shard),
        None => files,
    };
    let options = Options { timeout: Duration::from_secs(args.timeout.max(1)), resource_limit: args.solver_rlimit, ..Options::default() };
    let precise = args.precise.options(options.timeout).map(|p| crate::precise::Options { resource_limit: args.solver_rlimit, ..p });
    if let Some(dir) = &args.dump_smt {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("{}: error: cannot create the query directory: {e}", dir.display());
            return Exit::Error;
        }
    }
    // Each file is verified in a worker process (src/batch), `--jobs` at
    // once; the results come back in input order, so the output does not
    // depend on the job count.
    let analysis = super::batch::Analysis {
        flags: Vec::new(),
        models: args.input.models.clone(),
        verify: options.clone(),
        precise: precise.clone(),
        dump_smt: args.dump_smt.clone(),
        por_hints: args.emit_por_hints.is_some(),
        budget: (args.file_timeout > 0).then(|| Duration::from_secs(args.file_timeout)),
        unit: None,
    };
    let baseline = match args.baseline.as_deref().map(super::baseline::Baseline::load).transpose() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: error: {e}", args.baseline.as_deref().unwrap_or(std::path::Path::new("")).display());
            return Exit::Error;
        }
    };
    let mut results = super::batch::check_files(args, &session, &files, &analysis);
    // Fingerprints key a file by its path under the input directory that
    // named it, else by its file name.
    let roots: Vec<PathBuf> = args.input.paths.iter().filter(|p| p.is_dir()).cloned().collect();
    for r in &mut results {
        r.key = crate::verify::identity::file_key(&r.file, &roots);
    }
    let applied = baseline.as_ref().map(|b| super::baseline::apply(&mut results, b));
    let results = results;
    let saved = args.report_dir.as_deref().is_none_or(|dir| results.iter().all(|r| super::report::save(dir, r, precise.as_ref())));
    // The report goes to stdout, or atomically to --output.
    let baseline_note = applied.as_ref().zip(args.baseline.as_deref());
    let report_written = emit(args.format, args.output.as_deref(), &results, &errors, precise.as_ref(), baseline_note) && saved;
    if let (Some((a, path)), false) = (baseline_note, args.format == Format::Text) {
        eprintln!("baseline {}: {a}", path.display());
    }
    if args.verbose {
        for r in &results {
            let h = &r.stats.houdini;
            eprintln!(
                "houdini {}: {:?}, {} components, {} runs, {} of {} candidates proven, {} queries ({} unknown), {:.2} s summed over threads",
                r.file.display(),
                h.stop,
                r.stats.components,
                r.stats.houdini_jobs,
                h.proven,
                h.candidates,
                h.queries,
                h.unknown,
                h.time.as_secs_f64()
            );
            let s = &r.stats;
            eprintln!(
                "phases {}: houdini {:.2} s; pairs {:.2} s ({} race checks {:.2} s, {} evidence checks {:.2} s, summed over threads)",
                r.file.display(),
                s.houdini_time.as_secs_f64(),
                s.pairs_time.as_secs_f64(),
                s.race_queries,
                s.race_time.as_secs_f64(),
                s.evidence_queries,
                s.evidence_time.as_secs_f64()
            );
            if let Some(t) = &r.front {
                eprintln!(
                    "front {}: parse {:.2} s; extract {:.2} s; lower {:.2} s",
                    r.file.display(),
                    t.parse.as_secs_f64(),
                    t.extract.as_secs_f64(),
                    t.lower.as_secs_f64()
                );
            }
            // The rule that removes races by not checking them is named.
            let p = &r.private;
            let kinds: Vec<String> = p.by_source.iter().map(|(k, n)| format!("{k}: {n}")).collect();
            eprintln!(
                "private {}: accesses to per-call private memory not race-checked: {} ({}); {} private objects, {} published",
                r.file.display(),
                p.accesses,
                if kinds.is_empty() { "none".to_string() } else { kinds.join("; ") },
                p.sources - p.escaped,
                p.escaped
            );
            eprintln!("time {} {:.2} s", r.file.display(), r.time.as_secs_f64());
        }
    }
    // The hints of the whole run, written once every file is done.
    let hints_written = args.emit_por_hints.as_deref().is_none_or(|path| super::por_hints::emit(path, &results, &errors));
    let pairs_written = args.pairs_xml.as_deref().is_none_or(|path| {
        super::output_file::emit(path, "the pair file", |mut out| super::pairs_xml::write(&mut out, &results, &errors, precise.is_some()))
    });
    let failed = !hints_written || !report_written || !pairs_written;
    for e in &errors {
        eprintln!("{}", render_file_error(e));
    }
    for r in &results {
        // A not-a-unit note is part of the report.
        if let Some(e) = r.outcome.as_ref().err().filter(|_| r.status() != Status::NotAUnit) {
            eprintln!("{}", render_file_error(e));
        }
    }
    exit_code(&results, &errors, precise.as_ref(), failed)
}

/// Writes the report of `results` in `format` to stdout, or atomically to
/// `output`; false after saying why it could not.
/// With a baseline, what it suppressed is said after the text report and
/// recorded in the JSON and SARIF ones.
pub fn emit(
    format: Format,
    output: Option<&std::path::Path>,
    results: &[FileVerdicts],
    errors: &[FileError],
    precise: Option<&crate::precise::Options>,
    baseline: Option<(&super::baseline::Applied, &std::path::Path)>,
) -> bool {
    super::output_file::emit_report(output, |mut out| match format {
        Format::Text => write_text(&mut out, results, precise)
            .and_then(|_| if results.len() + errors.len() > 1 { super::summary::write_table(&mut out, results, errors) } else { Ok(()) })
            .and_then(|_| match baseline {
                Some((a, path)) => writeln!(out, "baseline {}: {a}", path.display()),
                None => Ok(()),
            }),
        Format::Json => write_json(&mut out, results, errors, precise, baseline.map(|(a, _)| a)),
        Format::Sarif => super::sarif::write(&mut out, results, errors, precise, baseline.is_some()),
    })
}

/// The exit code of a report (docs/cli.md): an error when a file could
/// not be analysed (a time budget excepted, which is unknown) or `failed`;
/// otherwise races, unknown or success, by the precise phase's verdicts
/// when it ran.
pub fn exit_code(results: &[FileVerdicts], errors: &[FileError], precise: Option<&crate::precise::Options>, failed: bool) -> Exit {
    let mut failed = failed || !errors.is_empty();
    let mut all = Totals::default();
    let mut confirmed = 0;
    let mut violations = 0;
    for r in results {
        violations += r.annotations.iter().filter(|a| a.kind == crate::analyses::annotations::FindingKind::Violated).count();
        confirmed += super::precise::totals(&r.precise).confirmed;
        // With a baseline, only the new races count.
        let old = r.races().into_iter().filter(|(fp, _)| r.suppressed.contains(fp));
        let (old_races, old_confirmed) = old.fold((0, 0), |(n, c), (_, confirmed)| (n + 1, c + usize::from(confirmed)));
        confirmed -= old_confirmed;
        match &r.outcome {
            Ok(pairs) => {
                let t = totals(pairs);
                all.pairs += t.pairs;
                all.proven += t.proven;
                all.races += t.races.saturating_sub(old_races);
                all.unknown += t.unknown;
            }
            Err(_) => {
                // A file stopped by its time budget is unknown, like a
                // solver timeout; a file that is not a unit of compilation
                // has nothing of its own to verify, like one without entry
                // points; any other failure means a file was not analysed
                // at all.
                if r.status() == Status::Timeout {
                    all.unknown += 1;
                } else if r.status() != Status::NotAUnit {
                    failed = true;
                }
            }
        }
    }
    if failed {
        Exit::Error
    } else if precise.is_some() && confirmed > 0 {
        Exit::Races
    } else if precise.is_some() && (all.races > 0 || all.unknown > 0) {
        // Potential races neither proven nor confirmed.
        Exit::Unknown
    } else if all.races > 0 || violations > 0 {
        // A violated lock annotation is a finding too.
        Exit::Races
    } else if all.unknown > 0 {
        Exit::Unknown
    } else {
        Exit::Success
    }
}

pub fn write_text(out: &mut impl Write, results: &[FileVerdicts], precise: Option<&crate::precise::Options>) -> std::io::Result<()> {
    for r in results {
        let pairs = match &r.outcome {
            Ok(pairs) => pairs,
            Err(e) if e.class == crate::diagnostics::ErrorClass::NotAUnit => {
                writeln!(out, "{}", render_file_error(e))?;
                continue;
            }
            Err(_) => continue,
        };
        // Callbacks the models do not know are said first, and the
        // verdict line says that its proof excludes them.
        for u in &r.unmodelled {
            writeln!(out, "{}", render_diagnostic(&u.diagnostic()))?;
        }
        for a in &r.annotations {
            writeln!(out, "{}", render_diagnostic(&a.diagnostic()))?;
        }
        if r.entry_points == 0 {
            if r.unmodelled.is_empty() {
                writeln!(out, "{}: no entry points: nothing in it is called by the kernel, so nothing to verify", r.file.display())?;
            } else {
                writeln!(out, "{}: no entry points the kernel models know, so nothing verified{}", r.file.display(), exclusion(&r.unmodelled))?;
            }
            if let Some(phrase) = r.module_phrase() {
                writeln!(out, "{}: {phrase}: {}", r.file.display(), module_files(r))?;
            }
            continue;
        }
        // The races a --baseline report has are not shown.
        let shown;
        let listed = if r.suppressed.is_empty() {
            pairs
        } else {
            shown = r.shown_pairs();
            &shown
        };
        let found = match precise {
            Some(p) => super::precise::diagnostics(listed, &r.precise, p),
            None => diagnostics(listed),
        };
        for d in found {
            writeln!(out, "{}", render_diagnostic(&d))?;
        }
        let in_baseline = if r.suppressed.is_empty() { String::new() } else { format!(" ({} in the baseline, not shown)", r.suppressed.len()) };
        writeln!(out, "{}: {}{in_baseline}{}", r.file.display(), totals(pairs), exclusion(&r.unmodelled))?;
        if let Some(phrase) = r.module_phrase() {
            writeln!(out, "{}: {phrase}: {}", r.file.display(), module_files(r))?;
        }
        if let Some(p) = precise {
            writeln!(out, "{}: {}", r.file.display(), super::precise::trailer(&r.precise, p))?;
        }
    }
    Ok(())
}

/// The files of a file's module and what it left out, for the text
/// report.
fn module_files(r: &FileVerdicts) -> String {
    let Some(m) = &r.module else { return String::new() };
    let name = |p: &PathBuf| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut s = m.members.iter().map(name).collect::<Vec<_>>().join(", ");
    for (part, why) in &m.left_out {
        s.push_str(&format!("; {part} left out ({why})"));
    }
    for a in &m.assembly {
        s.push_str(&format!("; {} is assembly, not analysed", name(a)));
    }
    for u in &m.unknown {
        s.push_str(&format!("; part {u} not understood"));
    }
    s
}

/// The composite module a file was analysed with, for the JSON report.
fn module_json(m: &crate::frontend::kbuild_module::KbuildModule) -> serde_json::Value {
    let paths = |v: &[PathBuf]| v.iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
    serde_json::json!({
        "name": m.name,
        "makefile": m.makefile.display().to_string(),
        "files": paths(&m.members),
        "left_out": m.left_out.iter().map(|(part, option)| serde_json::json!({ "part": part, "because": option })).collect::<Vec<_>>(),
        "assembly": paths(&m.assembly),
        "unknown": m.unknown,
    })
}

/// What a file's verdicts do not cover, as a clause of its verdict line:
/// empty when every structure holding its functions is modelled.
pub fn exclusion(unmodelled: &[UnmodelledOps]) -> String {
    if unmodelled.is_empty() {
        return String::new();
    }
    let names: Vec<String> = unmodelled.iter().map(|u| format!("struct {}", u.record)).collect();
    format!(
        "; the proof excludes the callbacks in {} unmodelled kernel structure{} ({}) [unmodelled-ops]",
        unmodelled.len(),
        if unmodelled.len() == 1 { "" } else { "s" },
        names.join(", ")
    )
}

/// The JSON of the unmodelled structures of a file.
fn unmodelled_json(unmodelled: &[UnmodelledOps]) -> serde_json::Value {
    use serde_json::json;
    let items: Vec<serde_json::Value> = unmodelled
        .iter()
        .map(|u| {
            json!({
                "record": u.record,
                "fields": u.fields,
                "location": { "file": u.span.file.display().to_string(), "line": u.span.line, "column": u.span.column },
            })
        })
        .collect();
    json!(items)
}

fn write_json(
    out: &mut impl Write,
    results: &[FileVerdicts],
    errors: &[FileError],
    precise: Option<&crate::precise::Options>,
    applied: Option<&super::baseline::Applied>,
) -> std::io::Result<()> {
    use serde_json::{Value, json};
    let error = |e: &FileError| json!({ "file": e.path.display().to_string(), "class": e.class.as_str(), "message": e.message });
    let mut files = Vec::new();
    for r in results {
        match &r.outcome {
            Ok(pairs) => {
                let pairs_json: Vec<Value> = pairs
                    .iter()
                    .map(|p| {
                        let regions: Vec<Value> = p
                            .regions
                            .iter()
                            .map(|(name, v)| {
                                let mut region = region_json(name, v);
                                if let Some(x) = super::precise::region_json(&r.precise, p, name) {
                                    region["precise"] = x;
                                }
                                if let Some(fp) = r.race_fingerprint(p, name, v) {
                                    if applied.is_some() {
                                        region["baseline"] = json!(if r.suppressed.contains(&fp) { "unchanged" } else { "new" });
                                    }
                                    region["fingerprint"] = json!(fp);
                                }
                                region
                            })
                            .collect();
                        json!({ "first": p.first, "second": p.second, "regions": regions })
                    })
                    .collect();
                let t = totals(pairs);
                let mut file = json!({
                    "file": r.file.display().to_string(),
                    "status": r.status().as_str(),
                    "cached": r.cached,
                    "entry_points": r.entry_points,
                    "seconds": r.time.as_secs_f64(),
                    "memory_bytes": r.peak_memory,
                    "pairs": pairs_json,
                    "totals": {
                        "pairs": t.pairs, "proven": t.proven, "races": t.races, "unknown": t.unknown,
                        "unmodelled_ops": r.unmodelled.len(),
                    },
                    "unmodelled_ops": unmodelled_json(&r.unmodelled),
                    "lock_annotations": serde_json::to_value(&r.annotations).unwrap_or_default(),
                });
                if let Some(o) = precise {
                    file["precise"] = super::precise::file_json(&r.precise, o);
                }
                if let Some(m) = &r.module {
                    file["module"] = module_json(m);
                }
                files.push(file);
            }
            Err(e) => {
                // A file that is not a unit of compilation carries a note
                // naming its includer, not an error.
                let mut file = json!({
                    "file": r.file.display().to_string(),
                    "status": r.status().as_str(),
                    "cached": false,
                    "entry_points": 0,
                    "seconds": r.time.as_secs_f64(),
                    "memory_bytes": r.peak_memory,
                });
                if r.status() == Status::NotAUnit {
                    let at = e.span.as_ref().map(|s| json!({ "file": s.file.display().to_string(), "line": s.line }));
                    file["note"] = json!({ "class": e.class.as_str(), "message": e.message, "included_at": at });
                } else {
                    file["error"] = error(e);
                }
                files.push(file);
            }
        }
    }
    let mut doc = json!({
        "racewatch": env!("CARGO_PKG_VERSION"),
        "files": files,
        "errors": errors.iter().map(error).collect::<Vec<_>>(),
    });
    if let Some(a) = applied {
        doc["baseline"] = json!({ "new": a.new, "suppressed": a.suppressed, "gone": a.gone });
    }
    serde_json::to_writer_pretty(&mut *out, &doc).map_err(std::io::Error::other)?;
    writeln!(out)
}

/// The JSON of one region's lockset verdict.
fn region_json(name: &str, v: &Verdict) -> serde_json::Value {
    use serde_json::{Value, json};
    let span = |s: &Option<crate::diagnostics::Span>| match s {
        Some(s) => json!({ "file": s.file.display().to_string(), "line": s.line, "column": s.column }),
        None => Value::Null,
    };
    match v {
        Verdict::Proven => json!({ "region": name, "verdict": "proven" }),
        Verdict::Unknown(why) => json!({ "region": name, "verdict": "unknown", "reason": why }),
        Verdict::Race(accesses) => {
            let side = |a: &crate::verify::verdict::Access| {
                json!({
                    "entry_point": a.entry, "write": a.write, "atomic": a.atomic,
                    "function": a.function, "location": span(&a.span), "locks": a.locks,
                    "expression": a.expression,
                })
            };
            json!({
                "region": name, "verdict": "race", "name": crate::verify::identity::race_name(accesses),
                "accesses": [side(&accesses[0]), side(&accesses[1])],
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precise::{PrecisePair, PreciseVerdict};

    fn verified(verdict: Verdict, precise: Option<PreciseVerdict>) -> FileVerdicts {
        let pair = |regions| PairVerdict { first: "a".into(), second: "b".into(), regions };
        FileVerdicts {
            file: PathBuf::from("d.c"),
            outcome: Ok(vec![pair(vec![("r".to_string(), verdict)])]),
            entry_points: 2,
            cached: false,
            peak_memory: None,
            inputs: Vec::new(),
            stats: crate::verify::run::RunStats::default(),
            time: Duration::ZERO,
            private: Default::default(),
            unmodelled: Vec::new(),
            annotations: Vec::new(),
            module: None,
            key: String::new(),
            suppressed: Default::default(),
            front: None,
            precise: precise
                .into_iter()
                .map(|v| PrecisePair { first: "a".into(), second: "b".into(), regions: vec![("r".into(), v)], hits: Vec::new(), yields: 0, time: Duration::ZERO })
                .collect(),
            por_hints: None,
        }
    }

    /// What a clock decided is analysed again next time; everything else
    /// finished is kept.
    #[test]
    fn results_a_clock_decided_are_not_cached() {
        let unknown = |why: &str| Verdict::Unknown(why.to_string());
        assert!(verified(Verdict::Proven, None).cacheable());
        assert!(verified(unknown("solver: (incomplete (theory arithmetic))"), None).cacheable());
        assert!(verified(Verdict::Proven, Some(PreciseVerdict::NotFound)).cacheable());
        assert!(!verified(unknown("solver: timeout after 10000 ms (z3: canceled)"), None).cacheable());
        assert!(!verified(unknown(&crate::verify::run::budget_spent()), None).cacheable());
        assert!(!verified(Verdict::Proven, Some(PreciseVerdict::Unknown(crate::precise::spent()))).cacheable());
        let mut houdini_out_of_time = verified(Verdict::Proven, None);
        houdini_out_of_time.stats.houdini.stop = crate::houdini::StopReason::Budget;
        assert!(!houdini_out_of_time.cacheable());
        let mut houdini_timeout = verified(Verdict::Proven, None);
        houdini_timeout.stats.houdini.timeouts = 1;
        assert!(!houdini_timeout.cacheable());
    }
}
