//! Batch runs: many files, each analysed in a worker process of its own.
//!
//! The parent (this module) never analyses a file itself. For each task it
//! starts `racewatch worker` (the same executable), writes the request to
//! the worker's stdin as JSON and reads the reply from its stdout. A worker
//! analyses exactly one file, so whatever goes wrong inside it (a panic, a
//! crash in libclang or z3, a loop that does not end, a solver that eats
//! memory) ends that worker and becomes that file's [`FileError`], never
//! the batch's:
//!
//! * a worker still running when the file budget (`--file-timeout`) is
//!   spent is killed: `timeout`;
//! * a worker that dies by a signal or panics: `crash`, with the signal or
//!   the panic message;
//! * a worker over its address-space limit (`--memory-limit`, set with
//!   `setrlimit` in the worker before the analysis allocates): an
//!   allocation fails and the worker stops with `out-of-memory`;
//! * when the run budget (`--run-timeout`) is spent, the running workers are
//!   killed (`timeout`) and the files not started are `skipped`.
//!
//! **Scheduling.** `jobs` threads each run one worker at a time, taking the
//! largest remaining file first: source size predicts analysis time well
//! enough that the longest files do not start last and leave one core idle.
//! Results come back in task order whatever the schedule, so reports do not
//! depend on `--jobs`.
//!
//! **Memory.** At most `jobs` workers live at once, each under its limit;
//! the parent keeps only their replies.
//!
//! **Invariant:** nothing here prints; the caller sees each start and
//! finish through [`Event`]s, in the order they happen.

pub mod analysis;
pub mod cache;
pub mod progress;
pub mod worker;

use crate::diagnostics::FileError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How a batch runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Workers running at once.
    pub jobs: usize,
    /// Threads each worker may use inside its file.
    pub worker_threads: usize,
    /// Wall-clock budget per file.
    pub file_timeout: Option<Duration>,
    /// Wall-clock budget for the whole batch.
    pub run_timeout: Option<Duration>,
    /// Address-space limit per worker, in bytes.
    pub memory_limit: Option<u64>,
}

/// One file to analyse and the request its worker receives.
pub struct Task<Q> {
    /// The file.
    pub file: PathBuf,
    /// What the worker is asked to do with it.
    pub request: Q,
    /// The scheduling weight: larger tasks start first.
    pub weight: u64,
}

/// How one task ended.
#[derive(Debug)]
pub enum Outcome<R> {
    /// The worker replied.
    Done {
        /// Its reply.
        reply: R,
        /// Every file the analysis read (the file and its headers).
        inputs: Vec<PathBuf>,
        /// The worker's peak resident memory, in bytes.
        peak_memory: Option<u64>,
        /// Wall-clock time, start of the worker to its reply.
        time: Duration,
    },
    /// The worker was stopped, crashed, or never started.
    Failed {
        /// Why, as a `timeout`, `crash`, `out-of-memory` or `skipped`
        /// error for the file.
        error: FileError,
        /// Wall-clock time until it was given up.
        time: Duration,
    },
}

/// What the caller hears while the batch runs.
pub enum Event<'a, R> {
    /// Task `index` started.
    Started(usize),
    /// Task `index` ended.
    Finished(usize, &'a Outcome<R>),
}

/// Runs every task in worker processes, at most `options.jobs` at once,
/// calling `on_event` (on this thread) as tasks start and end; returns the
/// outcomes in task order.
pub fn run<Q, R>(tasks: Vec<Task<Q>>, options: &Options, mut on_event: impl FnMut(Event<'_, R>)) -> Vec<Outcome<R>>
where
    Q: Serialize + Send,
    R: DeserializeOwned + Send,
{
    let start = Instant::now();
    let deadline = options.run_timeout.map(|t| start + t);
    let count = tasks.len();
    let mut order: Vec<usize> = (0..count).collect();
    // Largest first; ties in task order, so the schedule is reproducible.
    order.sort_by_key(|&i| (std::cmp::Reverse(tasks[i].weight), i));
    let queue = Arc::new(Mutex::new(order.into_iter().collect::<VecDeque<usize>>()));
    let tasks: Vec<Mutex<Option<Task<Q>>>> = tasks.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let (sender, receiver) = mpsc::channel::<(usize, Option<Outcome<R>>)>();
    let mut outcomes: Vec<Option<Outcome<R>>> = (0..count).map(|_| None).collect();
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.clamp(1, count.max(1)) {
            let queue = Arc::clone(&queue);
            let sender = sender.clone();
            let tasks = &tasks;
            scope.spawn(move || {
                while let Some(index) = queue.lock().map(|mut q| q.pop_front()).unwrap_or(None) {
                    let Some(task) = tasks[index].lock().ok().and_then(|mut t| t.take()) else { continue };
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        let error = worker::skipped(&task.file, options.run_timeout.unwrap_or_default());
                        let _ = sender.send((index, Some(Outcome::Failed { error, time: Duration::ZERO })));
                        continue;
                    }
                    let _ = sender.send((index, None));
                    let outcome = worker::run_one(&task, options, deadline);
                    let _ = sender.send((index, Some(outcome)));
                }
            });
        }
        drop(sender);
        for (index, outcome) in receiver {
            match outcome {
                None => on_event(Event::Started(index)),
                Some(outcome) => {
                    on_event(Event::Finished(index, &outcome));
                    outcomes[index] = Some(outcome);
                }
            }
        }
    });
    outcomes
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            // Every task is taken exactly once; a missing outcome would be a
            // bug in the loop above, reported as a crash of that file rather
            // than a panic of the batch.
            o.unwrap_or_else(|| Outcome::Failed {
                error: FileError::new(
                    Path::new(&format!("task {i}")),
                    crate::diagnostics::ErrorClass::Crash,
                    "the batch lost this file's result",
                ),
                time: Duration::ZERO,
            })
        })
        .collect()
}
