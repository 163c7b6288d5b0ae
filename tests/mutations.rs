//! Mutation tests of the lockset phase (docs/expectations.md, "Mutation
//! tests"): every lock of a race-free corpus driver must matter.
//!
//! **Race-free drivers** are computed from the verdicts: every driver of
//! drivers/corpus/ and drivers/corpus-races/ on which racewatch proves every
//! region of every pair (no race, no unknown). Cross-checks: every
//! `*_fixed.c` is among them, and no driver expecting a race is.
//!
//! **Mutants.** For each such driver, each lock/unlock pair
//! (tests/mutation_support/: the lock functions come from the kernel models;
//! a group of acquires and releases of one lock in one function, a guard, or
//! a lock taken in one helper and released in another) is removed in turn:
//! its calls become empty statements (a try or may-fail acquire used as a
//! value becomes its success value), every line and column kept, and the
//! mutant, written alone in a fresh temporary directory (the corpus
//! includes only kernel headers), is checked with `check_file_verdicts`.
//!
//! **Pass condition.** The mutant must have at least one potential race
//! (`Verdict::Race`) with at least one of its two accesses inside what the
//! removed pair protected: a byte position of the driver between the end of
//! an acquire and the start of the last release of the pair in its function
//! (for a guard: from the guard to the end of its block, or the
//! `scoped_guard` body; for a pair across helpers: the sections of every
//! caller's helper calls), or in the body of a driver function called,
//! transitively, from such a section (a call through a function pointer may
//! reach every driver function of the pointer's type). One access suffices:
//! the other side of the race may still hold the lock elsewhere — the race
//! exists because this side no longer does. Since the original is proven
//! race-free and the mutant differs only by the removal, every race on the
//! mutant is caused by it; the position check adds that racewatch's
//! evidence points at an access the lock protected, not somewhere
//! unrelated.
//!
//! **Annotations.** A pair whose lock protects nothing that can race is
//! named in its driver by a line comment
//! `// @mutation-protects-nothing FUNCTION LOCK: REASON` standing on the
//! line before the pair's first acquire (comment lines may come between),
//! or at the end of that line; FUNCTION and LOCK as the messages print them
//! (`LOCKER/UNLOCKER` for a pair across helpers; `&dev->lock`, `rtnl`).
//! Such a pair's mutant must *not* expose a race on what it protected (a
//! stale annotation fails); an annotation that does not name the pair where
//! it stands fails, so does one in a driver that is not race-free, and the
//! reason is required. The comment does not start with `@expect`, so the
//! expectation runner (tests/support/) does not read it.
//!
//! **Self-check.** `the_mutation_check_can_fail` shows the pass condition
//! false on an unmutated driver and true on a mutant of it.
//!
//! The drivers and the mutants are checked in parallel on a rayon pool of
//! two threads; with `--nocapture` the test prints one line per mutant and
//! the totals.

mod mutation_support;
#[allow(dead_code)] // only the directive parser is used here
mod support;

use mutation_support::{DriverLocks, Pair, PairKind, find_pairs, mutate, offset_of};
use racewatch::pipeline::Session;
use racewatch::verify::run::Options;
use racewatch::verify::verdict::{PairVerdict, Verdict};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The annotation that a pair protects nothing racy.
const MARK: &str = "@mutation-protects-nothing";

/// Threads checking drivers and mutants.
const THREADS: usize = 2;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}


fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(THREADS).build().expect("a thread pool")
}

/// Every corpus driver, sorted.
fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["drivers/corpus", "drivers/corpus-races"] {
        for e in std::fs::read_dir(repo().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "c") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

fn name(file: &Path) -> String {
    file.strip_prefix(repo().join("drivers")).unwrap_or(file).display().to_string()
}

fn all_proven(verdicts: &[PairVerdict]) -> bool {
    verdicts.iter().all(|p| p.regions.iter().all(|(_, v)| matches!(v, Verdict::Proven)))
}

/// A fresh directory for one mutant, removed with the run's root.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(test: &str) -> Scratch {
        let root = std::env::temp_dir().join(format!("racewatch-mutations-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("temporary directory");
        Scratch { root }
    }

    /// Writes `text` as `dir/FILE_NAME`, alone in its directory.
    fn write(&self, dir: &str, file_name: &str, text: &[u8]) -> PathBuf {
        let d = self.root.join(dir);
        std::fs::create_dir_all(&d).expect("mutant directory");
        let path = d.join(file_name);
        std::fs::write(&path, text).expect("write the mutant");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// One `@mutation-protects-nothing` line.
#[derive(Debug)]
struct Annotation {
    line: usize,
    /// The line of the pair's first operation: the annotation's own line if
    /// code precedes the comment, else the next line that is neither blank
    /// nor a `//` comment.
    target: usize,
    function: String,
    lock: String,
}

fn annotations(text: &str) -> Result<Vec<Annotation>, String> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (n, l) in lines.iter().enumerate() {
        let Some(at) = l.find(MARK) else { continue };
        let bad = |what: &str| format!("line {}: {what}: {}", n + 1, l.trim());
        match l.find("//") {
            Some(c) if l[c + 2..].trim_start().starts_with(MARK) && c < at => {}
            _ => return Err(bad("the annotation must open a // comment")),
        }
        let rest = l[at + MARK.len()..].trim();
        let (head, reason) = rest.split_once(':').ok_or_else(|| bad("expected FUNCTION LOCK: REASON"))?;
        let (function, lock) =
            head.trim().split_once(char::is_whitespace).ok_or_else(|| bad("expected FUNCTION LOCK: REASON"))?;
        if reason.trim().is_empty() {
            return Err(bad("the reason is missing"));
        }
        let code_before = !l[..l.find("//").unwrap_or(0)].trim().is_empty();
        let target = if code_before {
            n + 1
        } else {
            let next = lines[n + 1..].iter().position(|x| !x.trim().is_empty() && !x.trim_start().starts_with("//"));
            next.map(|k| n + 2 + k).ok_or_else(|| bad("no code after the annotation"))?
        };
        out.push(Annotation { line: n + 1, target, function: function.to_string(), lock: lock.trim().to_string() });
    }
    Ok(out)
}

/// The first race of `verdicts` with an access of `mutant` inside
/// `sections` (byte ranges of `text`), described.
fn protected_race(verdicts: &[PairVerdict], mutant: &Path, text: &[u8], sections: &[(usize, usize)]) -> Option<String> {
    for pair in verdicts {
        for (region, verdict) in &pair.regions {
            let Verdict::Race(accesses) = verdict else { continue };
            for a in accesses.iter() {
                let Some(span) = &a.span else { continue };
                if &*span.file != mutant {
                    continue;
                }
                let Some(at) = offset_of(text, span.line, span.column) else { continue };
                if sections.iter().any(|&(s, e)| s <= at && at < e) {
                    let [x, y] = accesses.as_ref();
                    return Some(format!(
                        "race on {region} between {} and {}, at line {} (in {})",
                        x.entry, y.entry, span.line, a.function
                    ));
                }
            }
        }
    }
    None
}

/// What a mutant's verdicts hold, for a failure message.
fn summary(verdicts: &[PairVerdict]) -> String {
    let mut races = Vec::new();
    let mut unknown = 0;
    for pair in verdicts {
        for (region, verdict) in &pair.regions {
            match verdict {
                Verdict::Race(a) => {
                    let lines: Vec<String> =
                        a.iter().map(|x| x.span.as_ref().map_or("?".into(), |s| s.line.to_string())).collect();
                    races
                        .push(format!("{region} ({} line {}, {} line {})", a[0].entry, lines[0], a[1].entry, lines[1]));
                }
                Verdict::Unknown(_) => unknown += 1,
                Verdict::Proven => {}
            }
        }
    }
    if races.is_empty() {
        format!("no race ({} pairs, {unknown} unknown regions)", verdicts.len())
    } else {
        format!("races only outside the protected code: {}", races.join("; "))
    }
}

fn line_ranges(text: &[u8], sections: &[(usize, usize)]) -> String {
    let mut set: Vec<(usize, usize)> = sections
        .iter()
        .map(|&(s, e)| (mutation_support::line_at(text, s), mutation_support::line_at(text, e)))
        .collect();
    set.sort();
    set.dedup();
    set.iter().map(|(a, b)| format!("{a}-{b}")).collect::<Vec<_>>().join(", ")
}

/// What became of one mutant.
enum Outcome {
    /// A race on a protected access.
    Exposed(String),
    /// None: what was found instead.
    Hidden(String),
}

/// Writes the mutant of `driver` without `pair` and checks it.
fn check_mutant(
    session: &Session,
    scratch: &Scratch,
    driver: &Path,
    index: usize,
    pair: &Pair,
    text: &[u8],
) -> Outcome {
    let mutated = mutate(text, &pair.edits);
    let same_lines =
        mutated.len() == text.len() && mutated.iter().zip(text).all(|(a, b)| (*a == b'\n') == (*b == b'\n'));
    assert!(same_lines, "{}: the mutant of {} moved lines", name(driver), pair.describe());
    let dir = format!("{}-{index}", name(driver).trim_end_matches(".c").replace('/', "-"));
    let file_name = driver.file_name().unwrap().to_string_lossy();
    let path = scratch.write(&dir, &file_name, &mutated);
    match racewatch::cli::check_file_verdicts(session, &path, &Options::default()) {
        Err(e) => Outcome::Hidden(format!("the mutant is refused: {e}")),
        Ok(v) => match protected_race(&v, &path, text, &pair.sections) {
            Some(found) => Outcome::Exposed(found),
            None => Outcome::Hidden(summary(&v)),
        },
    }
}

/// One driver's run: its verdicts and, when it is race-free, its pairs
/// and the outcome of each pair's mutant.
struct DriverRun {
    file: PathBuf,
    free: bool,
    mutants: Option<Result<(DriverLocks, Vec<Outcome>), String>>,
}

/// Checks a driver and, when it is race-free, its mutants (in parallel on
/// the current pool).
fn run_driver(session: &Session, scratch: &Scratch, file: &Path) -> DriverRun {
    let verdicts = racewatch::cli::check_file_verdicts(session, file, &Options::default());
    let free = verdicts.as_ref().is_ok_and(|v| all_proven(v));
    let mutants = free.then(|| {
        find_pairs(session, file).map(|locks| {
            let outcomes = locks
                .pairs
                .par_iter()
                .enumerate()
                .map(|(i, p)| check_mutant(session, scratch, file, i, p, &locks.text))
                .collect();
            (locks, outcomes)
        })
    });
    DriverRun { file: file.to_path_buf(), free, mutants }
}

#[test]
fn removing_a_lock_pair_of_a_race_free_driver_exposes_a_race() {
    let start = Instant::now();
    let session = support::session(THREADS);
    let scratch = Scratch::new("corpus");
    // One parallel pass: each driver's mutants start as soon as its own
    // verdicts show it race-free; the largest files first, so that no
    // thread is left with a long one at the end.
    let mut files = corpus();
    files.sort_by_key(|f| std::cmp::Reverse(std::fs::metadata(f).map_or(0, |m| m.len())));
    let mut runs: Vec<DriverRun> =
        pool().install(|| files.par_iter().map(|f| run_driver(&session, &scratch, f)).collect());
    runs.sort_by(|a, b| a.file.cmp(&b.file));

    let mut problems = Vec::new();
    let (mut selected, mut with_pairs, mut mutants, mut exposed, mut annotated) = (0, 0, 0, 0, 0);
    let mut kinds = [0; 3];
    for run in &runs {
        let file = &run.file;
        let text = std::fs::read_to_string(file).unwrap();
        // The selection, cross-checked with the expectations.
        let expects_race = support::expectations::parse(&text, false)
            .unwrap_or_else(|m| panic!("{}: {m}", name(file)))
            .later
            .iter()
            .any(|(d, _)| d == "race");
        let fixed = file.file_name().unwrap().to_string_lossy().ends_with("_fixed.c");
        if fixed && !run.free {
            problems.push(format!("{}: a fixed twin is not proven race-free", name(file)));
        }
        if expects_race && run.free {
            problems.push(format!("{}: expects a race but is proven race-free", name(file)));
        }
        let notes = match annotations(&text) {
            Err(e) => {
                problems.push(format!("{}: {e}", name(file)));
                Vec::new()
            }
            Ok(a) => a,
        };
        if !run.free && !notes.is_empty() {
            problems.push(format!("{}: {MARK} in a driver that is not race-free", name(file)));
        }
        let Some(found) = &run.mutants else { continue };
        selected += 1;
        let (locks, outcomes) = match found {
            Err(e) => {
                problems.push(format!("{}: {e}", name(file)));
                continue;
            }
            Ok(x) => x,
        };
        problems.extend(locks.problems.iter().map(|p| format!("{}: {p}", name(file))));
        // Every annotation names the pair where it stands.
        for a in &notes {
            let here: Vec<&Pair> = locks.pairs.iter().filter(|p| p.lines[0] as usize == a.target).collect();
            if !here.iter().any(|p| p.function == a.function && p.lock == a.lock) {
                let found: Vec<String> = here.iter().map(|p| p.describe()).collect();
                problems.push(format!(
                    "{}: line {}: {MARK} names {} {}, but the pair starting on line {} is {}",
                    name(file),
                    a.line,
                    a.function,
                    a.lock,
                    a.target,
                    if found.is_empty() { "none".to_string() } else { found.join(" and ") }
                ));
            }
        }
        // The verdict on each mutant.
        with_pairs += usize::from(!locks.pairs.is_empty());
        for (pair, outcome) in locks.pairs.iter().zip(outcomes) {
            mutants += 1;
            kinds[pair.kind as usize] += 1;
            let is_annotated = notes
                .iter()
                .any(|a| a.target == pair.lines[0] as usize && a.function == pair.function && a.lock == pair.lock);
            let what = format!(
                "{}: removed {} (protected lines {})",
                name(file),
                pair.describe(),
                line_ranges(&locks.text, &pair.sections)
            );
            match (outcome, is_annotated) {
                (Outcome::Exposed(found), false) => {
                    exposed += 1;
                    eprintln!("ok       {what}: {found}");
                }
                (Outcome::Hidden(found), true) => {
                    annotated += 1;
                    eprintln!("nothing  {what}: {found} (annotated)");
                }
                (Outcome::Exposed(found), true) => {
                    problems.push(format!("{what}: annotated as protecting nothing, but its removal exposes a {found}"))
                }
                (Outcome::Hidden(found), false) => problems.push(format!("{what}: {found}")),
            }
        }
    }
    eprintln!(
        "{selected} race-free drivers ({with_pairs} with lock pairs), {mutants} mutants ({} local, {} guards, {} across \
         helpers): {exposed} expose a race on a protected access, {annotated} annotated; {:.1} s",
        kinds[PairKind::Local as usize],
        kinds[PairKind::Guard as usize],
        kinds[PairKind::AcrossHelpers as usize],
        start.elapsed().as_secs_f64(),
    );
    assert!(selected >= 20, "only {selected} race-free drivers");
    assert!(mutants >= 40, "only {mutants} mutants");
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn the_mutation_check_can_fail() {
    let session = support::session(THREADS);
    let scratch = Scratch::new("self-check");
    let driver = repo().join("drivers/corpus-races/twolocks_fixed.c");
    let locks = find_pairs(&session, &driver).unwrap();
    assert!(locks.problems.is_empty(), "{:?}", locks.problems);
    let shown: Vec<String> = locks.pairs.iter().map(Pair::describe).collect();
    let pair = locks
        .pairs
        .iter()
        .find(|p| p.function == "rwtl_irq" && p.lock == "&dev->lock")
        .unwrap_or_else(|| panic!("the irq handler's spinlock pair is not found: {shown:?}"));
    let irq_lock = |l: &str| l.trim() == "spin_lock(&dev->lock);";
    let text = String::from_utf8_lossy(&locks.text).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(pair.lines.len(), 2, "{}", pair.describe());
    assert!(irq_lock(lines[pair.lines[0] as usize - 1]), "{}", pair.describe());
    assert_eq!(lines[pair.lines[1] as usize - 1].trim(), "spin_unlock(&dev->lock);", "{}", pair.describe());
    // The pairs of that driver: one in the irq handler, two in write (the
    // mutex and the spinlock), three in ioctl (the mutex of each case, the
    // spinlock).
    assert_eq!(locks.pairs.len(), 6, "{shown:?}");

    // Unmutated: proven, so the pass condition is false.
    let original = scratch.write("original", "twolocks_fixed.c", &locks.text);
    let v = racewatch::cli::check_file_verdicts(&session, &original, &Options::default()).unwrap();
    assert!(all_proven(&v), "twolocks_fixed.c is not proven: {}", summary(&v));
    assert_eq!(protected_race(&v, &original, &locks.text, &pair.sections), None);

    // The mutant: the two calls are empty statements on their lines, and the
    // threshold the irq handler reads unlocked races with the writers.
    let mutated = mutate(&locks.text, &pair.edits);
    let mutated_text = String::from_utf8_lossy(&mutated).into_owned();
    let mutated_lines: Vec<&str> = mutated_text.lines().collect();
    assert_eq!(mutated_lines.len(), lines.len());
    for &l in &pair.lines {
        assert_eq!(mutated_lines[l as usize - 1].trim(), ";", "line {l}");
    }
    let path = scratch.write("mutant", "twolocks_fixed.c", &mutated);
    let v = racewatch::cli::check_file_verdicts(&session, &path, &Options::default()).unwrap();
    let found = protected_race(&v, &path, &locks.text, &pair.sections)
        .unwrap_or_else(|| panic!("removing the irq spinlock exposes nothing: {}", summary(&v)));
    assert!(found.contains("struct rwtl_dev.threshold") && found.contains("rwtl_irq"), "{found}");
    // The same races do not count against code the pair did not protect:
    // the probe function.
    let probe = text.find("static int rwtl_probe").unwrap();
    assert_eq!(protected_race(&v, &path, &locks.text, &[(probe, text.len())]), None);
}
