//! The command line: one closed enum of commands, their options, thin
//! command functions that call the library (the per-file pipeline,
//! [`crate::pipeline::check`], and the renderers, [`crate::report`]) and
//! the exit codes.
//!
//! **Invariant:** only this module prints and chooses the process's exit
//! code. Exit codes (docs/cli.md): 0 success, 1 races reported, 2 error (bad
//! input, usage), 3 some results unknown.

mod args;
mod batch;
mod check;
mod ivl;
mod kbuild_check;
mod output_file;
mod precise;
mod report;
mod svcomp;
mod svcomp_exits;
mod svcomp_order;
mod svcomp_witness;

pub use args::{Cli, Command};
// The per-file pipeline is the library's (crate::pipeline::check); the
// names stay reachable here for the tests and tools that use them.
pub use crate::pipeline::check::{check_file, check_file_precise_verdicts, check_file_verdicts, pairs_and_held};

use crate::analyses::pairs::{classify_pairs, classify_pairs_exempt, exemptions};
use crate::diagnostics::{FileError, render_file_error};
use crate::frontend::flags::FlagSource;
use crate::models::KernelModels;
use crate::pipeline::{FileResult, Session};
use args::InputArgs;
use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

/// The process exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Everything analysed; nothing to report.
    Success = 0,
    /// Potential races were reported.
    Races = 1,
    /// Bad input or usage: at least one path could not be analysed.
    Error = 2,
    /// Some results are unknown (solver timeout, unsupported construct).
    Unknown = 3,
}

/// Parses the arguments, runs the command, and returns its exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help and version to stdout with success, errors to
            // stderr; usage errors exit with our error code.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { Exit::Error as u8 } else { Exit::Success as u8 });
        }
    };
    let exit = match cli.command {
        Command::EntryPoints(args) => run_entry_points(&args.input, args.xml, args.timings),
        Command::Pairs(args) => run_pairs(&args.input, args.xml, args.verbose),
        Command::Ivl(args) => run_ivl(&args),
        Command::Check(args) => match session(&args.input) {
            Ok(session) => check::run(&args, session),
            Err(exit) => exit,
        },
        Command::Svcomp(args) => svcomp::run(&args),
        Command::Kbuild(args) => kbuild_check::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Worker => return ExitCode::from(crate::batch::analysis::serve_worker()),
    };
    ExitCode::from(exit as u8)
}

/// Builds the session, or prints why not.
fn session(input: &InputArgs) -> Result<Session, Exit> {
    let models = KernelModels::load(input.models.as_deref());
    let models = models.map_err(|e| {
        eprintln!("{e}");
        Exit::Error
    })?;
    let options = input.flag_options();
    let source = FlagSource::resolve(&options).map_err(|e| {
        eprintln!("{}", render_file_error(&e));
        Exit::Error
    })?;
    let jobs = input.jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), usize::from);
    Ok(Session { models, options, source, jobs })
}

/// Runs the front end over the inputs; prints path errors as they are known.
fn analyse(input: &InputArgs) -> Result<(Vec<FileResult>, Vec<FileError>), Exit> {
    let session = session(input)?;
    let (files, errors) = session.inputs(&input.paths);
    let results = session.entry_points(&files);
    Ok((results, errors))
}

/// Prints every error to stderr and picks the exit code.
fn finish(results: &[FileResult], errors: &[FileError]) -> Exit {
    let mut stderr = std::io::stderr().lock();
    let mut failed = !errors.is_empty();
    for e in errors {
        let _ = writeln!(stderr, "{}", render_file_error(e));
    }
    for r in results {
        if let Err(e) = &r.outcome {
            // A file that is not a unit of compilation is a note.
            failed |= e.class != crate::diagnostics::ErrorClass::NotAUnit;
            let _ = writeln!(stderr, "{}", render_file_error(e));
        }
    }
    if failed { Exit::Error } else { Exit::Success }
}

fn run_entry_points(input: &InputArgs, as_xml: bool, timings: bool) -> Exit {
    let (results, errors) = match analyse(input) {
        Ok(r) => r,
        Err(exit) => return exit,
    };
    let mut stdout = std::io::stdout().lock();
    let written = if as_xml {
        crate::report::xml::write_entry_points(&mut stdout, &results, &errors)
    } else {
        crate::report::entry_points::write_entry_points(&mut stdout, &results)
    };
    if let Err(e) = written.and_then(|_| stdout.flush()) {
        eprintln!("racewatch: error: cannot write output: {e}");
        return Exit::Error;
    }
    if timings {
        crate::report::entry_points::write_timings(&mut std::io::stderr().lock(), &results);
    }
    finish(&results, &errors)
}

fn run_ivl(args: &args::IvlArgs) -> Exit {
    let session = match session(&args.input) {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let (files, errors) = session.units(&args.input.paths);
    if !errors.is_empty() {
        return finish(&[], &errors);
    }
    let mut failed = Vec::new();
    for file in &files {
        let roots = if args.all { crate::frontend::lower::Roots::AllDefined } else { crate::frontend::lower::Roots::EntryPoints };
        // The program `check` verifies: a file of a composite module
        // with the whole module.
        match session.lower_reading(file, roots) {
            Ok((_, lowered, timings, _)) => {
                if args.timings {
                    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                    eprintln!(
                        "timing {} parse {:.2} extract {:.2} lower {:.2}",
                        file.display(),
                        ms(timings.parse),
                        ms(timings.extract),
                        ms(timings.lower)
                    );
                }
                if let Err(e) = ivl::write(&mut std::io::stdout().lock(), file, &lowered, args) {
                    eprintln!("racewatch: error: cannot write output: {e}");
                    return Exit::Error;
                }
            }
            Err(e) => failed.push(e),
        }
    }
    finish(&[], &failed)
}

fn run_pairs(input: &InputArgs, as_xml: bool, verbose: bool) -> Exit {
    let session = match session(input) {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let (files, errors) = session.inputs(&input.paths);
    let results = session.entry_points(&files);
    let rules = &session.models.serialisation;
    // A rule's `unless-reaches` and a pair rule's `unless-called` need the
    // lowered code: the file is lowered alone for them, and a file that does
    // not lower gets no such rule.
    let reaching = rules.iter().any(|r| r.needs_lowered_code());
    let classify = |r: &FileResult, d: &crate::frontend::entry_points::DriverEntryPoints| {
        let lowered = reaching.then(|| session.lower(&r.file, crate::frontend::lower::Roots::EntryPoints).ok()).flatten();
        match lowered {
            Some((_, lowered, _)) => {
                let external = &lowered.stats.external_functions;
                let used = |f: &String| external.contains(f) || d.externals.iter().any(|x| &x.function == f);
                classify_pairs_exempt(d, rules, &exemptions(d, rules, &lowered.program, &used))
            }
            None => classify_pairs(d, rules),
        }
    };
    let pairs: Vec<_> = results.iter().map(|r| r.outcome.as_ref().ok().map(|d| (d, classify(r, d)))).collect();
    let mut stdout = std::io::stdout().lock();
    let written = if as_xml {
        crate::report::xml::write_pairs(&mut stdout, &results, &pairs)
    } else {
        crate::report::entry_points::write_pairs(&mut stdout, &results, &pairs, verbose)
    };
    if let Err(e) = written.and_then(|_| stdout.flush()) {
        eprintln!("racewatch: error: cannot write output: {e}");
        return Exit::Error;
    }
    finish(&results, &errors)
}
