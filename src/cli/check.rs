//! `racewatch check`: its options, the run over the inputs (each file
//! analysed by the library's pipeline, [`crate::pipeline::check`], in a
//! worker), the report in the chosen format ([`crate::report`]) and the
//! documented exit codes.

use super::Exit;
use super::args::InputArgs;
use crate::diagnostics::{FileError, render_file_error};
use crate::pipeline::Session;
use crate::report::{FileVerdicts, Status};
use crate::verify::run::Options;
use crate::verify::verdict::{Totals, totals};
use clap::{Args, ValueEnum};
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
    let analysis = crate::batch::analysis::Analysis {
        flags: Vec::new(),
        models: args.input.models.clone(),
        verify: options.clone(),
        precise: precise.clone(),
        dump_smt: args.dump_smt.clone(),
        por_hints: args.emit_por_hints.is_some(),
        budget: (args.file_timeout > 0).then(|| Duration::from_secs(args.file_timeout)),
        unit: None,
    };
    let baseline = match args.baseline.as_deref().map(crate::report::baseline::Baseline::load).transpose() {
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
    let applied = baseline.as_ref().map(|b| crate::report::baseline::apply(&mut results, b));
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
            // So is the open objects' bit locks, which prove pairs.
            for l in &r.object_locks {
                eprintln!(
                    "object-lock {}: {} is held by each object its begin callback opens, shared in {}, exclusively in {}",
                    r.file.display(),
                    l.lock,
                    if l.shared.is_empty() { "none".to_string() } else { l.shared.join(", ") },
                    if l.exclusive.is_empty() { "none".to_string() } else { l.exclusive.join(", ") }
                );
            }
            eprintln!("time {} {:.2} s", r.file.display(), r.time.as_secs_f64());
        }
    }
    // The hints of the whole run, written once every file is done.
    let hints_written = args.emit_por_hints.as_deref().is_none_or(|path| super::output_file::emit_por_hints(path, &results, &errors));
    let pairs_written = args.pairs_xml.as_deref().is_none_or(|path| {
        super::output_file::emit(path, "the pair file", |mut out| crate::report::pairs_xml::write(&mut out, &results, &errors, precise.is_some()))
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
    baseline: Option<(&crate::report::baseline::Applied, &std::path::Path)>,
) -> bool {
    super::output_file::emit_report(output, |mut out| match format {
        Format::Text => crate::report::text::write_text(&mut out, results, precise)
            .and_then(|_| if results.len() + errors.len() > 1 { crate::report::summary::write_table(&mut out, results, errors) } else { Ok(()) })
            .and_then(|_| match baseline {
                Some((a, path)) => writeln!(out, "baseline {}: {a}", path.display()),
                None => Ok(()),
            }),
        Format::Json => crate::report::json::write_json(&mut out, results, errors, precise, baseline.map(|(a, _)| a)),
        Format::Sarif => crate::report::sarif::write(&mut out, results, errors, precise, baseline.is_some()),
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
        confirmed += crate::report::precise::totals(&r.precise).confirmed;
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

