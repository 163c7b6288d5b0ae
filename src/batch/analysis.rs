//! The check of one file in a worker process: what the worker is asked
//! ([`Analysis`], which is also what the result cache's key hashes) and the
//! worker's side of `racewatch worker`, which runs the library's per-file
//! pipeline ([`crate::pipeline::check`]) on it.

use super::worker;
use crate::diagnostics::FileError;
use crate::models::KernelModels;
use crate::pipeline::Session;
use crate::pipeline::check::check_unit_precise;
use crate::report::FileVerdicts;
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
