//! `racewatch check` over many files: the result cache and the progress
//! display around [`crate::batch`], whose workers run
//! [`crate::batch::analysis`].
//!
//! The parent composes each file's clang arguments (so a worker never reads
//! a compilation database), looks the file up in the cache, sends the misses
//! to workers, stores what they return, and hands back one
//! [`FileVerdicts`] per file, in input order.

use super::check::CheckArgs;
use crate::batch::analysis::Analysis;
use crate::batch::cache::{Cache, default_dir};
use crate::batch::progress::Progress;
use crate::batch::{Event, Options as BatchOptions, Outcome, Task};
use crate::diagnostics::FileError;
use crate::pipeline::Session;
use crate::report::FileVerdicts;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
