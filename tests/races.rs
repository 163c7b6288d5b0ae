//! The lockset phase against the race expectations of the corpus
//! (docs/expectations.md), for two corpora: drivers/corpus-races/ (racy
//! drivers and their fixed twins) and drivers/corpus-precise/ (race-free
//! drivers whose lockset alarms are false, for the precise phase to
//! refute). For every driver of both, the potential races `racewatch
//! check` reports must be exactly the `@expect race EP1 EP2 "REGION"` lines
//! (a missing race and an unexpected one both fail), every `@expect proven
//! EP1 EP2` pair must be proven on every region (or not formed at all,
//! because the kernel serialises it), and no pair may be unknown. Every
//! racy driver (`NAME_race.c`) has a fixed twin (`NAME_fixed.c`) that must
//! be proven entirely. In a racy driver, both accesses the report shows for
//! a real race (one not expected `not-found`) must lie on lines marked
//! `@racy`, holding exactly the locks a `@racy holding: ...` marker names.
//! `@expect confirmed` and `@expect not-found` belong to the
//! precise phase's test; here they are only checked to name a race the same
//! file expects, and every race of drivers/corpus-precise/ must have its
//! `not-found`.

#[allow(dead_code)] // only the directive parser and the session are used here
mod support;

use racewatch::verify::run::Options;
use racewatch::verify::verdict::Verdict;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};


/// The C files of one corpus directory under drivers/, sorted.
fn c_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("drivers").join(dir);
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    files.sort();
    files
}

/// Racy drivers and their fixed twins.
fn corpus() -> Vec<PathBuf> {
    c_files("corpus-races")
}

/// Race-free drivers whose lockset alarms are false.
fn precise_corpus() -> Vec<PathBuf> {
    c_files("corpus-precise")
}

/// Twins of KCSAN's exclusivity assertions, checked by the lockset phase
/// only: the precise phase does not confirm an assertion's race yet
/// (docs/expectations.md).
fn kcsan_corpus() -> Vec<PathBuf> {
    c_files("corpus-kcsan")
}

fn name_of(file: &Path) -> String {
    file.file_name().unwrap().to_string_lossy().into_owned()
}

type Race = (String, String, String);

/// The `race`, `proven` and precise-phase (`confirmed`, `not-found`)
/// directives of a file; anything malformed is a problem.
struct RaceExpectations {
    races: BTreeSet<Race>,
    proven: BTreeSet<(String, String)>,
    confirmed: BTreeSet<Race>,
    not_found: BTreeSet<Race>,
    /// Functions whose held-lock annotation a call violates.
    violated: BTreeSet<String>,
    /// The expected entry points and externals, by function.
    entry_points: BTreeSet<String>,
}

fn race_expectations(file: &Path, problems: &mut Vec<String>) -> RaceExpectations {
    let name = name_of(file);
    let text = std::fs::read_to_string(file).unwrap();
    let expected = support::expectations::parse(&text, false).unwrap_or_else(|m| panic!("{name}: {m}"));
    let mut e = RaceExpectations {
        races: BTreeSet::new(),
        proven: BTreeSet::new(),
        confirmed: BTreeSet::new(),
        not_found: BTreeSet::new(),
        violated: BTreeSet::new(),
        entry_points: expected.entry_points.iter().chain(&expected.externals).map(|e| e.0.clone()).collect(),
    };
    for (directive, words) in &expected.later {
        match (directive.as_str(), words.as_slice()) {
            ("proven", [a, b]) => {
                let (a, b) = unordered(a, b);
                e.proven.insert((a, b));
            }
            ("annotation-violated", [f]) => {
                e.violated.insert(f.clone());
            }
            (d @ ("race" | "confirmed" | "confirmed-strict" | "unconfirmed" | "not-found"), [a, b, region]) => {
                let set = match d {
                    "race" => &mut e.races,
                    "confirmed" | "confirmed-strict" | "unconfirmed" => &mut e.confirmed,
                    _ => &mut e.not_found,
                };
                let (a, b) = unordered(a, b);
                set.insert((a, b, region.clone()));
            }
            _ => problems.push(format!("{name}: malformed @expect {directive} {words:?}")),
        }
    }
    e
}

/// A pair of entry points is unordered: the report lists its two names in
/// the order the entry points were extracted, an expectation in any order.
fn unordered(a: &str, b: &str) -> (String, String) {
    if a <= b { (a.to_owned(), b.to_owned()) } else { (b.to_owned(), a.to_owned()) }
}

/// The 1-based numbers of the lines of a file marked `@racy` (in a comment).
fn racy_lines(file: &Path) -> BTreeSet<u32> {
    let text = std::fs::read_to_string(file).unwrap();
    (1..).zip(text.lines()).filter(|(_, l)| l.contains("@racy")).map(|(n, _)| n).collect()
}

/// The locks the `@racy holding: A, B` (or `@racy holding: none`) markers
/// of a file say their line's accesses hold, by line.
fn racy_locks(file: &Path) -> std::collections::BTreeMap<u32, BTreeSet<String>> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = std::collections::BTreeMap::new();
    for (n, line) in (1..).zip(text.lines()) {
        let Some(at) = line.find("@racy holding:") else { continue };
        let rest = &line[at + "@racy holding:".len()..];
        let list = rest.split("*/").next().unwrap_or("").trim();
        let locks = list.split(',').map(str::trim).filter(|l| !l.is_empty() && *l != "none").map(String::from).collect();
        out.insert(n, locks);
    }
    out
}

#[test]
fn every_racy_corpus_driver_has_a_fixed_twin() {
    let files: BTreeSet<String> = corpus().iter().map(|p| name_of(p)).collect();
    let missing: Vec<&String> =
        files.iter().filter(|f| f.ends_with("_race.c") && !files.contains(&f.replace("_race.c", "_fixed.c"))).collect();
    assert!(missing.is_empty(), "racy drivers without a fixed twin: {missing:?}");
    assert!(files.len() >= 30, "the race corpus must hold at least 30 drivers, found {}", files.len());
}

#[test]
fn precise_phase_expectations_name_expected_races() {
    let mut problems = Vec::new();
    for file in corpus() {
        let name = name_of(&file);
        let e = race_expectations(&file, &mut problems);
        for (what, set) in [("confirmed", &e.confirmed), ("not-found", &e.not_found)] {
            for r in set.difference(&e.races) {
                problems.push(format!("{name}: @expect {what} {} {} {:?} names no expected race", r.0, r.1, r.2));
            }
        }
        for r in e.confirmed.intersection(&e.not_found) {
            problems.push(format!("{name}: {} {} {:?} both confirmed and not-found", r.0, r.1, r.2));
        }
    }
    let precise = precise_corpus();
    for file in &precise {
        let name = name_of(file);
        let e = race_expectations(file, &mut problems);
        if name.ends_with("_race.c") || name.ends_with("_fixed.c") {
            problems.push(format!("{name}: drivers/corpus-precise/ holds no racy/fixed pairs"));
        }
        if e.races.is_empty() {
            problems.push(format!("{name}: expects no lockset alarm to refute"));
        }
        if !e.confirmed.is_empty() {
            problems.push(format!("{name}: a race-free driver expects a confirmed race"));
        }
        if e.not_found != e.races {
            problems.push(format!("{name}: every expected race, and nothing else, must be not-found"));
        }
    }
    assert!(precise.len() >= 8, "the precise corpus must hold at least 8 drivers, found {}", precise.len());
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn lockset_verdicts_match_the_race_expectations() {
    let session = support::session(1);
    let options = Options::default();
    let mut problems = Vec::new();
    for file in corpus().into_iter().chain(precise_corpus()).chain(kcsan_corpus()) {
        let name = name_of(&file);
        let expected = race_expectations(&file, &mut problems);
        let (want_races, want_proven, false_alarms) = (&expected.races, &expected.proven, &expected.not_found);
        // In a racy driver, both accesses shown for a real race (one not
        // expected `not-found`) must lie on lines marked `@racy`.
        let racy = name.ends_with("_race.c").then(|| racy_lines(&file));
        let held = racy_locks(&file);
        if name.ends_with("_fixed.c") && !want_races.is_empty() {
            problems.push(format!("{name}: a fixed twin expects races"));
        }
        let report = racewatch::cli::check_file(&session, &file, &options, None, false);
        let verdicts = match &report.outcome {
            Ok(v) => v.clone(),
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        // Violated lock annotations: exactly the expected functions, each
        // reported at a call on a line marked `@unlocked-call`.
        let unlocked: BTreeSet<u32> = {
            let text = std::fs::read_to_string(&file).unwrap();
            (1..).zip(text.lines()).filter(|(_, l)| l.contains("@unlocked-call")).map(|(n, _)| n).collect()
        };
        let mut got_violated = BTreeSet::new();
        for a in report.annotations.iter().filter(|a| a.kind == racewatch::analyses::annotations::FindingKind::Violated) {
            got_violated.insert(a.function.clone());
            if !a.call.as_ref().is_some_and(|s| unlocked.contains(&s.line)) {
                problems.push(format!("{name}: violated annotation of {} reported at {:?}, not on a line marked @unlocked-call", a.function, a.call));
            }
        }
        for f in expected.violated.symmetric_difference(&got_violated) {
            problems.push(format!("{name}: annotation of {f}: expected violated {}, got {}", expected.violated.contains(f), got_violated.contains(f)));
        }
        let mut got_races = BTreeSet::new();
        let mut seen_pairs = BTreeSet::new();
        for pair in &verdicts {
            for (region, verdict) in &pair.regions {
                match verdict {
                    Verdict::Race(accesses) => {
                        let (a, b) = unordered(&pair.first, &pair.second);
                        let key = (a, b, region.clone());
                        let real = want_races.contains(&key) && !false_alarms.contains(&key);
                        if let Some(racy) = racy.as_ref().filter(|_| real) {
                            for a in accesses.iter() {
                                let line = a.span.as_ref().map(|s| s.line);
                                if !line.is_some_and(|l| racy.contains(&l)) {
                                    problems.push(format!(
                                        "{name}: {} {} {region:?}: the access of {} at line {line:?} is not marked @racy",
                                        pair.first, pair.second, a.entry
                                    ));
                                }
                                let got: BTreeSet<String> = a.locks.iter().cloned().collect();
                                if let Some(want) = line.and_then(|l| held.get(&l)).filter(|want| **want != got) {
                                    problems.push(format!(
                                        "{name}: {} {} {region:?}: the access of {} at line {line:?} is shown holding {got:?}, its marker says {want:?}",
                                        pair.first, pair.second, a.entry
                                    ));
                                }
                            }
                        }
                        // Every race is named in source terms (issue 17).
                        if racewatch::verify::identity::race_name(accesses).is_none() {
                            problems.push(format!("{name}: {} {} {region:?}: the race has no source-level name", pair.first, pair.second));
                        }
                        got_races.insert(key);
                    }
                    Verdict::Unknown(why) => {
                        problems.push(format!("{name}: unknown {} {} {region:?}: {why}", pair.first, pair.second))
                    }
                    Verdict::Proven => {}
                }
            }
            let key = unordered(&pair.first, &pair.second);
            seen_pairs.insert(key.clone());
            if want_proven.contains(&key) && pair.regions.iter().any(|(_, v)| !matches!(v, Verdict::Proven)) {
                problems.push(format!("{name}: expected {} {} proven", pair.first, pair.second));
            }
        }
        // A pair the analysis did not check runs under a kernel exclusion,
        // which makes it race-free; but an expectation naming a function
        // that is no entry point would hold for nothing.
        for (a, b) in want_proven.difference(&seen_pairs) {
            for f in [a, b].into_iter().filter(|f| !expected.entry_points.contains(*f)) {
                problems.push(format!("{name}: expected {a} {b} proven, but {f} is no expected entry point"));
            }
        }
        for m in want_races.difference(&got_races) {
            problems.push(format!("{name}: missed race {} {} {:?}", m.0, m.1, m.2));
        }
        for u in got_races.difference(&want_races) {
            problems.push(format!("{name}: unexpected race {} {} {:?}", u.0, u.1, u.2));
        }
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}
