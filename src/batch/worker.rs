//! The worker protocol: the parent's side ([`run_one`]) and the worker's
//! ([`serve`]).
//!
//! The parent starts `racewatch worker` with piped standard streams, writes
//! one [`Request`] as JSON to its stdin and closes it. The worker sets its
//! limits, analyses the file, writes one [`Reply`] as JSON to stdout and
//! exits 0. Anything else (another exit code, a signal, no reply or an
//! unreadable one, a worker still running when a budget is spent) is turned
//! into the file's error by [`classify`], from the exit status and the tail
//! of the worker's stderr.

use super::{Options, Outcome, Task};
use crate::diagnostics::{ErrorClass, FileError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The hidden subcommand a worker runs.
pub const WORKER_COMMAND: &str = "worker";

/// What a worker receives.
#[derive(Serialize, Deserialize)]
pub struct Request<Q> {
    /// The file to analyse.
    pub file: PathBuf,
    /// Threads it may use.
    pub threads: usize,
    /// Its address-space limit, in bytes.
    pub memory_limit: Option<u64>,
    /// What to do with the file.
    pub job: Q,
}

/// What a worker sends back.
#[derive(Serialize, Deserialize)]
pub struct Reply<R> {
    /// The analysis result.
    pub result: R,
    /// Every file the analysis read.
    pub inputs: Vec<PathBuf>,
    /// Peak resident memory, in bytes.
    pub peak_memory: Option<u64>,
}

/// How much of a worker's stderr is kept to explain a failure, at its
/// start and at its end.
const STDERR_TAIL: usize = 16 * 1024;

/// How often the parent looks at a running worker.
const POLL: Duration = Duration::from_millis(20);

/// Runs one task in a worker and waits for it within the budgets.
pub fn run_one<Q: Serialize, R: DeserializeOwned>(task: &Task<Q>, options: &Options, deadline: Option<Instant>) -> Outcome<R> {
    let start = Instant::now();
    let failed = |error: FileError| Outcome::Failed { error, time: start.elapsed() };
    let request = Request { file: task.file.clone(), threads: options.worker_threads.max(1), memory_limit: options.memory_limit, job: &task.request };
    let request = match serde_json::to_vec(&request) {
        Ok(r) => r,
        Err(e) => return failed(FileError::new(&task.file, ErrorClass::Crash, format!("cannot encode the worker's request: {e}"))),
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return failed(FileError::new(&task.file, ErrorClass::Crash, format!("cannot find the racewatch executable: {e}"))),
    };
    let mut child = match Command::new(exe).arg(WORKER_COMMAND).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn() {
        Ok(c) => c,
        Err(e) => return failed(FileError::new(&task.file, ErrorClass::Crash, format!("cannot start a worker process: {e}"))),
    };
    // The pipes are drained on threads of their own, so a worker writing a
    // large reply never blocks on a full pipe while the parent waits.
    let stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&request);
        }
    });
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(out) = stdout.as_mut() {
            let _ = out.read_to_end(&mut buf);
        }
        buf
    });
    let mut stderr = child.stderr.take();
    // The head is kept too: a panic's message comes first, and a long
    // backtrace after it (RUST_BACKTRACE set) would push it out of the
    // tail.
    let err_reader = std::thread::spawn(move || {
        let (mut head, mut tail) = (Vec::new(), Vec::new());
        let mut chunk = [0u8; 8192];
        while let Some(Ok(n @ 1..)) = stderr.as_mut().map(|e| e.read(&mut chunk)) {
            let room = STDERR_TAIL.saturating_sub(head.len()).min(n);
            head.extend_from_slice(&chunk[..room]);
            tail.extend_from_slice(&chunk[room..n]);
            if tail.len() > 2 * STDERR_TAIL {
                tail.drain(..tail.len() - STDERR_TAIL);
            }
        }
        head.extend_from_slice(&tail);
        head
    });
    let file_deadline = options.file_timeout.map(|t| start + t);
    let mut stopped = None;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        let now = Instant::now();
        if file_deadline.is_some_and(|d| now >= d) {
            stopped = Some(Stop::File);
        } else if deadline.is_some_and(|d| now >= d) {
            stopped = Some(Stop::Run);
        }
        if stopped.is_some() {
            let _ = child.kill();
            break child.wait().ok();
        }
        std::thread::sleep(POLL);
    };
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    let time = start.elapsed();
    if let Some(stop) = stopped {
        let message = match stop {
            Stop::File => format!("analysis stopped after {:.0} s, the per-file budget (--file-timeout)", time.as_secs_f64()),
            Stop::Run => format!("analysis stopped after {:.0} s: the run's budget (--run-timeout) was spent", time.as_secs_f64()),
        };
        return failed(FileError::new(&task.file, ErrorClass::Timeout, message));
    }
    if status.is_some_and(|s| s.success()) {
        return match serde_json::from_slice::<Reply<R>>(&out) {
            Ok(reply) => Outcome::Done { reply: reply.result, inputs: reply.inputs, peak_memory: reply.peak_memory, time },
            Err(e) => failed(FileError::new(&task.file, ErrorClass::Crash, format!("the worker's reply is unreadable: {e}"))),
        };
    }
    failed(classify(&task.file, status, &err))
}

/// Which budget stopped a worker.
enum Stop {
    File,
    Run,
}

/// The error of a worker that exited without a reply, from its exit status
/// and the tail of its stderr.
fn classify(file: &Path, status: Option<std::process::ExitStatus>, stderr: &[u8]) -> FileError {
    let text = String::from_utf8_lossy(stderr);
    let out_of_memory = ["memory allocation of", "bad_alloc", "out of memory", "Cannot allocate memory"];
    if out_of_memory.iter().any(|m| text.contains(m)) {
        return FileError::new(file, ErrorClass::OutOfMemory, "the analysis ran out of memory (--memory-limit)");
    }
    if let Some(panic) = text.lines().position(|l| l.contains("panicked at")) {
        // Rust prints the location on the `panicked at` line and the
        // message on the next one.
        let lines: Vec<&str> = text.lines().collect();
        let place = lines[panic].split("panicked at").nth(1).unwrap_or("").trim().trim_end_matches(':');
        let message = lines.get(panic + 1).copied().unwrap_or("").trim();
        return FileError::new(file, ErrorClass::Crash, format!("racewatch panicked at {place}: {message} (a bug in racewatch: please report it)"));
    }
    let last = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
    let why = match status {
        None => "the worker process was lost".to_string(),
        Some(s) => match (s.code(), s.signal()) {
            (_, Some(libc::SIGKILL)) => "the worker was killed by SIGKILL (the kernel's out-of-memory killer?)".to_string(),
            (_, Some(signal)) => format!("the worker died by signal {signal} ({})", signal_name(signal)),
            (Some(code), _) => format!("the worker exited with status {code}"),
            (None, None) => "the worker ended abnormally".to_string(),
        },
    };
    let message = if last.is_empty() { why } else { format!("{why}: {last}") };
    FileError::new(file, ErrorClass::Crash, message)
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// The error of a file the run's budget left no time for.
pub fn skipped(file: &Path, budget: Duration) -> FileError {
    FileError::new(file, ErrorClass::Skipped, format!("not analysed: the run's budget of {} s (--run-timeout) was spent", budget.as_secs()))
}

/// The worker's side: reads the request from stdin, sets the memory limit,
/// calls `analyse(file, threads, job)`, which returns the result and the
/// files it read, and writes the reply to stdout. Returns the exit status.
pub fn serve<Q, R>(analyse: impl FnOnce(&Path, usize, Q) -> (R, Vec<PathBuf>)) -> u8
where
    Q: DeserializeOwned,
    R: Serialize,
{
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("racewatch worker: cannot read the request: {e}");
        return 2;
    }
    let request: Request<Q> = match serde_json::from_slice(&input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("racewatch worker: unreadable request: {e} (the worker is started by `racewatch check`, not by hand)");
            return 2;
        }
    };
    if let Some(limit) = request.memory_limit {
        limit_address_space(limit);
    }
    let (result, inputs) = analyse(&request.file, request.threads, request.job);
    let reply = Reply { result, inputs, peak_memory: peak_memory() };
    let mut out = std::io::stdout().lock();
    match serde_json::to_writer(&mut out, &reply).map_err(std::io::Error::other).and_then(|_| out.flush()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("racewatch worker: cannot write the reply: {e}");
            2
        }
    }
}

/// Limits this process's address space, so that a runaway analysis fails an
/// allocation (and the worker stops) instead of pushing the machine into
/// swap or the out-of-memory killer.
fn limit_address_space(bytes: u64) {
    let limit = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
    // SAFETY: setrlimit reads the struct; lowering one's own limit is always
    // allowed. A failure leaves the process unlimited, which only loses the
    // protection.
    unsafe {
        libc::setrlimit(libc::RLIMIT_AS, &limit);
    }
}

/// This process's peak resident set, in bytes.
fn peak_memory() -> Option<u64> {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return None;
        }
        usage
    };
    // Linux reports kilobytes.
    Some(usage.ru_maxrss as u64 * 1024)
}
