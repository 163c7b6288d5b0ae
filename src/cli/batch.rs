//! `racewatch check` over many files: the requests its workers receive,
//! the worker's side, the result cache and the progress display, around
//! [`crate::batch`].
//!
//! The parent composes each file's clang arguments (so a worker never reads
//! a compilation database), looks the file up in the cache, sends the misses
//! to workers, stores what they return, and hands back one
//! [`FileVerdicts`] per file, in input order.

use super::check::CheckArgs;
use crate::pipeline::check::check_unit_precise;
use crate::report::FileVerdicts;
use crate::batch::cache::{Cache, default_dir};
use crate::batch::progress::Progress;
use crate::batch::{Event, Options as BatchOptions, Outcome, Task, worker};
use crate::diagnostics::FileError;
use crate::models::KernelModels;
use crate::pipeline::Session;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a worker is asked to do with its file: everything that changes the
/// results, and nothing else (this is also what the cache key hashes).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Analysis {
    /// The file's clang arguments.
    pub flags: Vec<String>,
    /// The kernel models' directory, or none for the built-in models.
    pub models: Option<PathBuf>,
    /// The lockset phase's options.
    pub verify: crate::verify::run::Options,
    /// The precise phase's options, when it runs.
    pub precise: Option<crate::precise::Options>,
    /// Where to dump solver queries.
    pub dump_smt: Option<PathBuf>,
    /// Whether to compute partial-order-reduction hints.
    pub por_hints: bool,
    /// The file's time budget (`--file-timeout`). The worker stops the
    /// lockset phase at 85% of it, with what is undecided unknown, so the
    /// file reports what it decided before the hard stop; the rest is for
    /// the queries in flight and the reply.
    pub budget: Option<Duration>,
    /// The composite module the file is analysed with, and its files'
    /// flags, when it is part of one.
    #[serde(default)]
    pub unit: Option<crate::pipeline::ModuleRequest>,
}

/// The worker's side of `racewatch worker`: analyses the one file of its
/// request.
pub fn serve_worker() -> u8 {
    let started = std::time::Instant::now();
    worker::serve(|file: &Path, threads: usize, job: Analysis| {
        inject_fault(file);
        let models = KernelModels::load(job.models.as_deref());
        let models = match models {
            Ok(m) => m,
            Err(e) => {
                let error = FileError::new(file, crate::diagnostics::ErrorClass::Flags, format!("cannot read the kernel models: {e}"));
                return (FileVerdicts::failed(file, error, Duration::ZERO), Vec::new());
            }
        };
        let session = Session {
            models,
            options: Default::default(),
            source: crate::frontend::flags::FlagSource::Given(job.flags),
            jobs: threads,
        };
        let mut verify = job.verify.clone();
        verify.deadline = job.budget.map(|b| started + b.mul_f64(0.85));
        let precise = job.precise.clone().map(|p| crate::precise::Options { deadline: verify.deadline, ..p });
        let run = || check_unit_precise(&session, file, job.unit.as_ref(), &verify, precise.as_ref(), job.dump_smt.as_deref(), job.por_hints);
        let verdicts = match rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build() {
            Ok(pool) => pool.install(run),
            Err(_) => run(),
        };
        let inputs = verdicts.inputs.clone();
        (verdicts, inputs)
    })
}

/// The test hook of worker isolation: with `RACEWATCH_TEST_FAULT` set to
/// comma-separated `KIND:NAME` items, the worker whose file is named NAME
/// fails as KIND says: `panic`, `abort` (SIGABRT), `hang` (never ends) or
/// `oom` (allocates until its memory limit stops it). docs/cli.md lists
/// it; tests/batch.rs uses it, since real crashes cannot be summoned at will.
fn inject_fault(file: &Path) {
    let Ok(spec) = std::env::var("RACEWATCH_TEST_FAULT") else { return };
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for item in spec.split(',') {
        let Some((kind, target)) = item.split_once(':') else { continue };
        if target != name {
            continue;
        }
        match kind {
            "panic" => panic!("injected fault (RACEWATCH_TEST_FAULT)"),
            "abort" => std::process::abort(),
            "hang" => loop {
                std::thread::sleep(Duration::from_secs(1));
            },
            "oom" => {
                let mut hog: Vec<Vec<u8>> = Vec::new();
                loop {
                    hog.push(vec![1u8; 64 << 20]);
                }
            }
            _ => {}
        }
    }
}

/// The batch options `args` ask for, for `files` files.
fn batch_options(args: &CheckArgs, jobs: usize, files: usize) -> BatchOptions {
    // With fewer files than jobs, the spare threads go into the files.
    let workers = jobs.min(files).max(1);
    BatchOptions {
        jobs: workers,
        worker_threads: (jobs / workers).max(1),
        file_timeout: (args.file_timeout > 0).then(|| Duration::from_secs(args.file_timeout)),
        run_timeout: args.run_timeout.map(Duration::from_secs),
        memory_limit: (args.memory_limit > 0).then(|| args.memory_limit.saturating_mul(1 << 20)),
    }
}

/// Verifies every file, each in a worker, through the cache unless
/// `--no-cache`; returns one outcome per file, in input order.
pub fn check_files(args: &CheckArgs, session: &Session, files: &[PathBuf], analysis: &Analysis) -> Vec<FileVerdicts> {
    let cache = if args.no_cache { None } else { open_cache(args) };
    let models_hash = models_fingerprint(analysis.models.as_deref());
    let mut results: Vec<Option<FileVerdicts>> = (0..files.len()).map(|_| None).collect();
    let mut tasks = Vec::new();
    let mut keys = Vec::new();
    let mut slots = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let flags = match session.source.flags_for(file, &session.options) {
            Ok(flags) => flags,
            Err(e) => {
                results[i] = Some(FileVerdicts::failed(file, e, Duration::ZERO));
                continue;
            }
        };
        let unit = match session.unit_of(file) {
            Ok(unit) => unit,
            Err(e) => {
                results[i] = Some(FileVerdicts::failed(file, e, Duration::ZERO));
                continue;
            }
        };
        let request = Analysis { flags, unit, ..analysis.clone() };
        let key = cache.as_ref().and_then(|c| {
            let mut described = serde_json::to_vec(&request).ok()?;
            described.extend_from_slice(models_hash.as_bytes());
            c.key(file, &described)
        });
        if let (Some(c), Some(k)) = (&cache, key)
            && let Some(mut hit) = c.load::<FileVerdicts>(k)
        {
            hit.cached = true;
            results[i] = Some(hit);
            continue;
        }
        let weight = std::fs::metadata(file).map_or(0, |m| m.len());
        tasks.push(Task { file: file.clone(), request, weight });
        keys.push(key);
        slots.push(i);
    }
    let options = batch_options(args, session.jobs, tasks.len());
    let names: Vec<String> = tasks.iter().map(|t| display_name(&t.file)).collect();
    let mut progress = Progress::new(args.progress, files.len());
    // Cached and unanalysable files count as done at once.
    for r in results.iter().flatten() {
        progress.finished(usize::MAX, &display_name(&r.file), r.pair_count(), &r.summary(), r.time.as_secs_f64());
    }
    let outcomes = crate::batch::run::<Analysis, FileVerdicts>(tasks, &options, |event| match event {
        Event::Started(t) => progress.started(t, &names[t]),
        Event::Finished(t, outcome) => {
            let (pairs, summary, secs) = match outcome {
                Outcome::Done { reply, time, .. } => (reply.pair_count(), reply.summary(), time.as_secs_f64()),
                Outcome::Failed { error, time } => (0, format!("{} ({})", error.class.as_str(), error.message), time.as_secs_f64()),
            };
            progress.finished(t, &names[t], pairs, &summary, secs);
        }
    });
    progress.finish();
    for ((outcome, key), slot) in outcomes.into_iter().zip(keys).zip(slots) {
        let file = &files[slot];
        results[slot] = Some(match outcome {
            Outcome::Done { mut reply, inputs, peak_memory, time } => {
                reply.time = time;
                reply.peak_memory = peak_memory;
                // A worker parses with the flags alone; what the kernel tree
                // says of a parse error's cause is known here.
                reply.outcome = reply.outcome.map_err(|e| session.source.explain(e));
                if let (Some(c), Some(k)) = (&cache, key)
                    && reply.cacheable()
                {
                    c.store(k, &inputs, &reply);
                }
                reply
            }
            Outcome::Failed { error, time } => FileVerdicts::failed(file, error, time),
        });
    }
    results.into_iter().zip(files).map(|(r, f)| r.unwrap_or_else(|| FileVerdicts::failed(f, lost(f), Duration::ZERO))).collect()
}

fn lost(file: &Path) -> FileError {
    FileError::new(file, crate::diagnostics::ErrorClass::Crash, "the batch lost this file's result")
}

fn open_cache(args: &CheckArgs) -> Option<Cache> {
    let dir = args.cache_dir.clone().or_else(default_dir)?;
    match Cache::open(&dir) {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("racewatch: warning: cache {} unusable, analysing every file: {e}", dir.display());
            None
        }
    }
}

/// The hash of every file under `--models`, or nothing for the built-in
/// models (the executable's hash covers those).
fn models_fingerprint(dir: Option<&Path>) -> blake3::Hash {
    let mut h = blake3::Hasher::new();
    if let Some(dir) = dir {
        let mut files = Vec::new();
        collect(dir, &mut files);
        files.sort();
        for f in files {
            h.update(f.as_os_str().as_encoded_bytes());
            if let Ok(bytes) = std::fs::read(&f) {
                h.update(blake3::hash(&bytes).as_bytes());
            }
        }
    }
    h.finalize()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// A file's name as the progress display shows it: the last two
/// components.
fn display_name(file: &Path) -> String {
    let parts: Vec<_> = file.components().rev().take(2).collect();
    parts.into_iter().rev().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}
