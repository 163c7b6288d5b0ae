//! `racewatch svcomp TASK.yml`: one SV-COMP task of the NoDataRace
//! category (task-definition format 2.0), one verdict line.
//!
//! # Algorithm
//!
//! 1. Read the task definition: its input file (relative to the .yml), the
//!    `no-data-race.prp` property (a task without it is refused) and the
//!    data model (`ILP32`: clang's `-m32`, an i386 target; `LP64`: x86-64).
//! 2. Analyse the input as plain C with the POSIX models (`posix-models/`,
//!    built in; `--models DIR` replaces them): `main` is the init entry
//!    point, every function passed to `pthread_create` a thread entry point
//!    paired with every other and with itself, `volatile` accesses are
//!    plain (C11's data-race definition).
//! 3. Print `true` only if the lockset phase proved every region of every
//!    pair **and** nothing the analysis assumed may hide a race here:
//!    no call to a function with neither body nor model, no function
//!    pointer call without known targets, no skipped construct, no inline
//!    assembly, no thread started through a function-pointer variable, no
//!    address-taken local whose address may reach another thread (the
//!    lowering keeps a local's own accesses thread-private). Thread-local
//!    variables are lowered as shared globals (more races, never fewer).
//!    Everything else prints `unknown`, with the reason on stderr.
//!
//! Paths that never return are checked too: [`super::svcomp_exits`] gives
//! every loop and every call that never returns an exit first.
//!
//! 4. Otherwise print `false` when the precise phase, run on a program
//!    faithful to the pthread program, confirms a race whose witness
//!    replays ([`super::svcomp_witness`]), with the witness after it.
//!
//! # Exit code
//!
//! 0 for any verdict printed (`true`, `false`, `unknown`); 2 when the task
//! definition cannot be read or has no no-data-race property.

use super::Exit;
use crate::frontend::flags::{FlagOptions, FlagSource};
use crate::frontend::lower::Roots;
use crate::models::KernelModels;
use crate::pipeline::Session;
use crate::verify::run::{Options, verify};
use crate::verify::verdict::Verdict;
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of `racewatch svcomp`.
#[derive(Debug, Args)]
pub struct SvcompArgs {
    /// The task definition (format 2.0 .yml).
    pub task: PathBuf,
    /// Read the POSIX models from this directory instead of the built-in
    /// ones.
    #[arg(long, value_name = "DIR")]
    pub models: Option<PathBuf>,
    /// Seconds per solver query.
    #[arg(long, value_name = "SECONDS", default_value = "10")]
    pub timeout: u64,
    /// Seconds for the whole analysis; Houdini stops by then and what is
    /// undecided is unknown.
    #[arg(long, value_name = "SECONDS", default_value = "50")]
    pub time_limit: u64,
    /// Iterations of the loops `main`'s thread runs (in `main` and the
    /// functions it calls) in the second search for a witness, made when
    /// the first confirmed nothing (threads are often started in a loop;
    /// races after it are found only past it). A bound limits what is
    /// found, never a `true`.
    #[arg(long, value_name = "N", default_value = "64")]
    pub main_unroll: u32,
    /// Iterations of every loop in the third search for a witness, made
    /// when the first (loops unrolled twice) found nothing.
    #[arg(long, value_name = "N", default_value = "11")]
    pub retry_unroll: u32,
    /// Print the pairs' verdicts to stderr.
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

/// What a task definition says.
#[derive(Debug, PartialEq, Eq)]
pub struct Task {
    /// The input file, resolved against the .yml's directory.
    pub input: PathBuf,
    /// The expected verdict of the no-data-race property, if given.
    pub expected: Option<bool>,
    /// `true` for ILP32, `false` for LP64.
    pub ilp32: bool,
}

/// Reads the fields racewatch needs from a format-2.0 task definition: a
/// line-based reading of the few keys the format has (`input_files` as a
/// string or a one-element list, `properties` entries, `data_model`).
pub fn read_task(path: &Path) -> Result<Task, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let unquote = |s: &str| s.trim().trim_matches(|c| c == '\'' || c == '"').to_string();
    let mut input = None;
    let mut in_inputs = false;
    let mut property = None;
    let mut expected = None;
    let mut current_property = String::new();
    let mut ilp32 = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || trimmed.is_empty() {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("input_files:") {
            let rest = rest.trim();
            if rest.is_empty() {
                in_inputs = true;
            } else {
                let rest = rest.trim_start_matches('[').trim_end_matches(']');
                if rest.contains(',') {
                    return Err(format!("{}: more than one input file", path.display()));
                }
                input = Some(unquote(rest));
            }
            continue;
        }
        if in_inputs {
            if let Some(item) = trimmed.strip_prefix("- ") {
                if input.is_some() {
                    return Err(format!("{}: more than one input file", path.display()));
                }
                input = Some(unquote(item));
                continue;
            }
            in_inputs = false;
        }
        let entry = trimmed.trim_start_matches("- ");
        if let Some(p) = entry.strip_prefix("property_file:") {
            current_property = unquote(p);
            if current_property.ends_with("no-data-race.prp") {
                property = Some(current_property.clone());
            }
        } else if let Some(v) = entry.strip_prefix("expected_verdict:") {
            if current_property.ends_with("no-data-race.prp") {
                expected = match unquote(v).as_str() {
                    "true" => Some(true),
                    "false" => Some(false),
                    other => return Err(format!("{}: expected_verdict `{other}`", path.display())),
                };
            }
        } else if let Some(m) = entry.strip_prefix("data_model:") {
            ilp32 = match unquote(m).as_str() {
                "ILP32" => Some(true),
                "LP64" => Some(false),
                other => return Err(format!("{}: unknown data_model `{other}`", path.display())),
            };
        }
    }
    let input = input.ok_or_else(|| format!("{}: no input_files", path.display()))?;
    if property.is_none() {
        return Err(format!("{}: no no-data-race.prp property", path.display()));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    Ok(Task { input: dir.join(input), expected, ilp32: ilp32.unwrap_or(false) })
}

/// The verdict of one task, with the reason for `unknown`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SvVerdict {
    /// Proven free of data races.
    True,
    /// A race, with its replayed witness in words.
    False(Vec<String>),
    /// Not decided, and why.
    Unknown(String),
}

/// Runs `racewatch svcomp`.
pub fn run(args: &SvcompArgs) -> Exit {
    let task = match read_task(&args.task) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Error;
        }
    };
    let verdict = analyse(&task, args);
    match verdict {
        SvVerdict::True => println!("true"),
        SvVerdict::False(witness) => {
            println!("false");
            for line in witness {
                println!("{line}");
            }
        }
        SvVerdict::Unknown(why) => {
            println!("unknown");
            eprintln!("unknown: {why}");
        }
    }
    Exit::Success
}

/// The analysis of one task.
pub fn analyse(task: &Task, args: &SvcompArgs) -> SvVerdict {
    let models = match &args.models {
        Some(dir) => KernelModels::from_dir(dir),
        None => KernelModels::embedded_posix(),
    };
    let models = match models {
        Ok(m) => m,
        Err(e) => return SvVerdict::Unknown(format!("models: {e}")),
    };
    // The front end takes .c files: a preprocessed .i is copied under a
    // .c name (clang parses it the same).
    let scratch = std::env::temp_dir().join(format!("racewatch-svcomp-{}", std::process::id()));
    let file = match prepare_input(&task.input, &scratch) {
        Ok(f) => f,
        Err(e) => return SvVerdict::Unknown(e),
    };
    let target = if task.ilp32 { "--target=i386-pc-linux-gnu" } else { "--target=x86_64-pc-linux-gnu" };
    let options = FlagOptions {
        no_kernel: true,
        extra: vec![target.to_string(), "-w".to_string(), "-Wno-error".to_string()],
        ..FlagOptions::default()
    };
    let verdict = match FlagSource::resolve(&options) {
        Ok(source) => {
            let session = Session { models, options, source, jobs: 1 };
            let source = std::fs::read_to_string(&file).unwrap_or_default();
            decide(&session, &file, &source, args)
        }
        Err(e) => SvVerdict::Unknown(format!("flags: {}", e.message)),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    verdict
}

fn prepare_input(input: &Path, scratch: &Path) -> Result<PathBuf, String> {
    if input.extension().is_some_and(|e| e == "c") {
        return Ok(input.to_path_buf());
    }
    std::fs::create_dir_all(scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let stem = input.file_stem().map_or_else(|| "input".into(), |s| s.to_string_lossy().into_owned());
    let file = scratch.join(format!("{stem}.c"));
    std::fs::copy(input, &file).map_err(|e| format!("{}: cannot read: {e}", input.display()))?;
    Ok(file)
}

/// The soundness gate and the lockset phase.
fn decide(session: &Session, file: &Path, source: &str, args: &SvcompArgs) -> SvVerdict {
    let (entry_points, lowered, _, _) = match session.lower_reading(file, Roots::EntryPoints) {
        Ok(x) => x,
        Err(e) => return SvVerdict::Unknown(format!("front end: {} ({})", e.message, e.class.as_str())),
    };
    if entry_points.init.is_none() {
        return SvVerdict::Unknown("no main function".into());
    }
    if let Some(r) = entry_points.unresolved_registrations.first() {
        return SvVerdict::Unknown(format!("a thread started through a function pointer ({r})"));
    }
    let stats = &lowered.stats;
    if !stats.external_functions.is_empty() {
        let names: Vec<&str> = stats.external_functions.iter().map(String::as_str).take(5).collect();
        return SvVerdict::Unknown(format!("calls of functions with neither body nor model: {}", names.join(", ")));
    }
    for kind in ["external-call", "function-pointer", "unsupported-construct", "inline-asm"] {
        // An empty `asm` (a compiler barrier) runs no instruction.
        let harmless = if kind == "inline-asm" { stats.empty_asm } else { 0 };
        if let Some(n) = stats.approximations.get(kind).map(|n| n.saturating_sub(harmless)).filter(|n| *n > 0) {
            return SvVerdict::Unknown(format!("{n} {kind} approximation(s) in reachable code"));
        }
    }
    if lowered.private.escaped_locals > 0 {
        return SvVerdict::Unknown(format!(
            "{} address-taken local(s) whose address may reach another thread",
            lowered.private.escaped_locals
        ));
    }
    if stats.thread_local_addresses > 0 {
        return SvVerdict::Unknown(format!(
            "{} address(es) of thread-local variables, which may reach another thread",
            stats.thread_local_addresses
        ));
    }
    if let Some(f) = super::svcomp_exits::recursive(&lowered.program) {
        return SvVerdict::Unknown(format!("recursion ({f}): a call that never returns is not covered"));
    }
    let mut program = lowered.program.clone();
    // A function called through a constant function pointer is called.
    let mut called = entry_points.clone();
    called.called_directly.extend(stats.constant_pointer_targets.iter().cloned());
    let once = if stats.indirect_calls_resolved == 0 { started_once(&called) } else { Default::default() };
    // A detached thread cannot be joined (the join fails at once): no join
    // is trusted in a program that detaches threads.
    let detaches = ["pthread_detach", "pthread_attr_setdetachstate"].iter().any(|f| stats.modelled_functions.contains(*f) || stats.external_functions.contains(*f));
    let joinable = if detaches { Default::default() } else { once.clone() };
    super::svcomp_witness::joins_ending_threads(&mut program, &called, &joinable);
    super::svcomp_witness::without_waits(&mut program);
    crate::analyses::quiesce::resolve(&mut program);
    super::svcomp_exits::atomic_functions(&mut program);
    if !super::svcomp_exits::add_exits(&mut program) {
        return SvVerdict::Unknown("a body with several returning blocks".into());
    }
    let program = &program;
    let (mut pairs, held) = crate::pipeline::check::pairs_and_held_in(session, &entry_points, program, &lowered.stats.external_functions);
    // A thread started once never runs concurrently with itself.
    if stats.indirect_calls_resolved == 0 {
        let names: Vec<&str> = program.entry_points.values().map(|e| e.name.as_str()).collect();
        pairs.retain(|p| p.first != p.second || !once.contains(names[p.first]));
    }
    // Two threads that `main` runs one after the other (it joins the one
    // before it creates the other) never run concurrently.
    let main = called.init_entry_point().map(|e| e.function.clone()).filter(|m| !called.called_directly.contains(m));
    if let Some(main) = main.and_then(|m| program.entry_points.values().find(|e| e.name == m).map(|e| e.procedure)) {
        let sequential = super::svcomp_order::sequential_pairs(program, main);
        if args.verbose {
            let names: Vec<&str> = program.entry_points.values().map(|e| e.name.as_str()).collect();
            for (a, b) in &sequential {
                eprintln!("{} / {}: not paired: main ends one before it starts the other", names[*a], names[*b]);
            }
        }
        pairs.retain(|p| !sequential.contains(&(p.first, p.second)));
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(args.time_limit.max(1));
    let options = Options {
        timeout: Duration::from_secs(args.timeout.max(1)),
        houdini_budget: Duration::from_secs(args.time_limit.max(1)),
        deadline: Some(deadline),
        ..Options::default()
    };
    let make = || crate::verify::solving::SolverAdapter::limited(program, options.timeout, options.resource_limit, None);
    let (verdicts, _) = verify(program, &pairs, &held, &options, &make);
    let mut first_unproven = None;
    for pair in &verdicts {
        for (region, v) in &pair.regions {
            if args.verbose {
                eprintln!("{} / {}: {region}: {}", pair.first, pair.second, verdict_word(v));
            }
            if !matches!(v, Verdict::Proven) && first_unproven.is_none() {
                first_unproven = Some(format!("{} / {} on {region}: {}", pair.first, pair.second, verdict_word(v)));
            }
        }
    }
    let Some(why) = first_unproven else { return SvVerdict::True };
    let why = format!("not proven: {why}");
    // A race confirmed on a faithful model with a replayed witness.
    if let Some(reason) = super::svcomp_witness::gate(stats, &lowered.program, &entry_points, source) {
        return SvVerdict::Unknown(format!("{why}; no witness sought: {reason}"));
    }
    let witness_program = super::svcomp_witness::witness_program(&lowered.program, &called);
    let precise_options = crate::precise::Options {
        timeout: Duration::from_secs(args.timeout.max(1)),
        deadline: Some(deadline),
        program_start: true,
        // A race is two conflicting accesses, whatever the values.
        strict: true,
        // The first search unrolls main's loops like the others.
        main_unroll: 0,
        ..crate::precise::Options::default()
    };
    let mut used = precise_options.clone();
    let mut results = crate::precise::check(&witness_program, &pairs, &verdicts, &held, &used);
    let confirmed = |rs: &[crate::precise::PrecisePair]| rs.iter().flat_map(|p| p.regions.iter()).any(|(_, v)| matches!(v, crate::precise::PreciseVerdict::Confirmed(_)));
    let searched_out = |rs: &[crate::precise::PrecisePair]| {
        rs.iter().flat_map(|p| p.regions.iter()).all(|(_, v)| !matches!(v, crate::precise::PreciseVerdict::Confirmed(_) | crate::precise::PreciseVerdict::Unknown(_)))
    };
    let first_searched_out = searched_out(&results);
    // Nothing confirmed: a search with the loops main's thread runs
    // unrolled further (threads are often started, or a value computed,
    // in a loop of main before the racing access), while time remains. It
    // comes second because a wider main gives the solver more to choose
    // from: a witness the first search finds and replays stays found.
    let now = std::time::Instant::now();
    if !confirmed(&results) && args.main_unroll > used.unroll && now + Duration::from_secs(2) < deadline {
        let wide = crate::precise::Options {
            main_unroll: args.main_unroll,
            deadline: Some(deadline.min(now + RETRY_BUDGET)),
            ..precise_options.clone()
        };
        results = crate::precise::check(&witness_program, &pairs, &verdicts, &held, &wide);
        used = wide;
    }
    // Nothing found within the default bounds and nothing undecided: one
    // more search with every loop unrolled further, while time remains
    // (SV-COMP programs often initialise arrays of a few locks or slots in
    // a loop before starting their threads). Bounds only limit what is
    // found.
    let now = std::time::Instant::now();
    if first_searched_out && !confirmed(&results) && now + Duration::from_secs(2) < deadline {
        let deeper = crate::precise::Options {
            unroll: args.retry_unroll,
            main_unroll: args.main_unroll,
            deadline: Some(deadline.min(now + RETRY_BUDGET)),
            ..precise_options.clone()
        };
        results = crate::precise::check(&witness_program, &pairs, &verdicts, &held, &deeper);
        used = deeper;
    }
    // Still nothing: one more search in which every `__VERIFIER_nondet_*`
    // result may take any value of its type, not only 0 or 1 (a loop bound
    // of 5 to 10, a value other than the one a thread read). It comes last
    // because wide values give the solver witnesses that wrap around,
    // which the replay rejects.
    let now = std::time::Instant::now();
    if !confirmed(&results) && !witness_program.nondet_ranges.is_empty() && now + Duration::from_secs(2) < deadline {
        let wide_values = crate::precise::Options {
            main_unroll: args.main_unroll,
            nondet_values: true,
            deadline: Some(deadline.min(now + RETRY_BUDGET)),
            ..precise_options.clone()
        };
        let found = crate::precise::check(&witness_program, &pairs, &verdicts, &held, &wide_values);
        if confirmed(&found) {
            results = found;
            used = wide_values;
        } else if args.verbose {
            for (p, (r, v)) in found.iter().flat_map(|p| p.regions.iter().map(move |rv| (p, rv))) {
                if let crate::precise::PreciseVerdict::Unknown(u) = v {
                    eprintln!("precise (nondet values) {} / {} on {r}: {u}", p.first, p.second);
                }
            }
        }
    }
    let mut undecided = None;
    for (p, v) in results.iter().flat_map(|p| p.regions.iter().map(move |(r, v)| (p, (r, v)))) {
        match v.1 {
            crate::precise::PreciseVerdict::Confirmed(w) => {
                let mut lines = vec![format!("data race on {} between {} and {}:", v.0, p.first, p.second)];
                lines.push(format!("  racing access: {}", crate::report::precise::step_text(&w.access)));
                if let Some(c) = &w.conflict {
                    lines.push(format!("  changed behind it by: {}", crate::report::precise::step_text(c)));
                }
                lines.push("  interleaving:".into());
                lines.extend(w.steps.iter().filter(|s| s.event != "line").map(|s| format!("    {}", crate::report::precise::step_text(s))));
                lines.push(format!("  within the bounds: {}", crate::precise::bounds_text(&used)));
                return SvVerdict::False(lines);
            }
            crate::precise::PreciseVerdict::Unknown(u) if args.verbose || undecided.is_none() => {
                if args.verbose {
                    eprintln!("precise {} / {} on {}: {u}", p.first, p.second, v.0);
                }
                undecided.get_or_insert_with(|| u.clone());
            }
            _ => {}
        }
    }
    SvVerdict::Unknown(match undecided {
        Some(u) => format!("{why}; no witness: {u}"),
        None => format!("{why}; no witness found within the bounds"),
    })
}

/// The time each further search may take (within the task's deadline).
const RETRY_BUDGET: Duration = Duration::from_secs(8);

/// The entry points that run at most once in any execution: `main` (unless
/// the program calls it), and a thread function with exactly one
/// registration site, outside any loop of a body without goto, in an entry
/// point that runs once and that nothing calls by name. Each such site is
/// executed at most once, so at most one thread runs the function. Only
/// used when the program makes no indirect call (a function called through
/// a pointer could run a registration twice).
pub fn started_once(eps: &crate::frontend::entry_points::DriverEntryPoints) -> std::collections::BTreeSet<String> {
    let mut once = std::collections::BTreeSet::new();
    let Some(init) = eps.init_entry_point() else { return once };
    if !eps.called_directly.contains(&init.function) {
        once.insert(init.function.clone());
    }
    loop {
        let mut changed = false;
        for ep in &eps.entry_points {
            if once.contains(&ep.function) {
                continue;
            }
            let sites: Vec<_> = eps.registration_sites.iter().filter(|s| s.function == ep.function).collect();
            let [site] = sites.as_slice() else { continue };
            let runs_once = site.registrar.as_ref().is_some_and(|r| once.contains(r) && !eps.called_directly.contains(r));
            if !site.repeated && runs_once && ep.origins.len() == 1 {
                once.insert(ep.function.clone());
                changed = true;
            }
        }
        if !changed {
            return once;
        }
    }
}

fn verdict_word(v: &Verdict) -> String {
    match v {
        Verdict::Proven => "proven".into(),
        Verdict::Race(_) => "potential race".into(),
        Verdict::Unknown(why) => format!("unknown ({why})"),
    }
}
