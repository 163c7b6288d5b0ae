//! The one runner of the C tests' expectations (docs/expectations.md): every
//! corpus driver under drivers/ and every real Linux 6.12 driver listed in
//! drivers/linux-6.12/drivers.txt, whose sources set-up extracted from
//! Debian's linux-source-6.12.
//!
//! Both tests need the cache scripts/setup.sh fills (kernel headers, driver
//! sources); without it they fail with that instruction rather than skip.

mod support;

use racewatch::frontend::flags::default_kernel_dir;
use std::path::{Path, PathBuf};
use support::expectations::{Expectations, check, parse};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}


/// Runs every file and reports every difference at once.
fn run(cases: Vec<(PathBuf, Expectations)>) {
    assert!(!cases.is_empty(), "no test files found");
    let files: Vec<PathBuf> = cases.iter().map(|(f, _)| f.clone()).collect();
    let results = support::session(2).entry_points(&files);
    let mut problems = Vec::new();
    for ((file, expected), result) in cases.iter().zip(&results) {
        problems.extend(check(file, expected, &result.outcome));
    }
    eprintln!("checked {} files", cases.len());
    assert!(problems.is_empty(), "{} expectation(s) failed:\n{}", problems.len(), problems.join("\n"));
}

/// The C files under `dir`; a directory holding a Makefile is a module,
/// one test unit, listed in `units` instead.
fn c_files(dir: &Path, out: &mut Vec<PathBuf>, units: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() && p.join("Makefile").is_file() {
            units.push(p);
        } else if p.is_dir() {
            c_files(&p, out, units);
        } else if p.extension().is_some_and(|e| e == "c") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_drivers_meet_their_expectations() {
    let mut files = Vec::new();
    let mut units = Vec::new();
    c_files(&repo().join("drivers"), &mut files, &mut units);
    module_units_meet_their_expectations(&units);
    let cases = files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            let e = parse(&text, false).unwrap_or_else(|m| panic!("{}: {m}", f.display()));
            (f, e)
        })
        .collect::<Vec<_>>();
    assert!(cases.len() >= 10, "the corpus must hold at least 10 drivers, found {}", cases.len());
    run(cases);
}

/// Every module directory (a Makefile composing its files) is one unit:
/// its expectations are those of all its files, and the entry points are
/// the module's, extracted from every file and joined.
fn module_units_meet_their_expectations(units: &[PathBuf]) {
    assert!(!units.is_empty(), "the corpus must hold a multi-file module (drivers/corpus-modules/)");
    let session = support::session(1);
    let mut problems = Vec::new();
    for unit in units {
        let mut files: Vec<PathBuf> = Vec::new();
        let mut expected = Expectations::default();
        let mut found = Vec::new();
        c_files(unit, &mut files, &mut found);
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            // A file of a module may expect nothing itself.
            if !text.contains("@expect") {
                continue;
            }
            let e = parse(&text, false).unwrap_or_else(|m| panic!("{}: {m}", f.display()));
            expected.entry_points.extend(e.entry_points);
            expected.externals.extend(e.externals);
            expected.init = expected.init.or(e.init);
            expected.error = expected.error.or(e.error);
            expected.later.extend(e.later);
        }
        let first = files.first().unwrap_or_else(|| panic!("{}: a module without C files", unit.display()));
        let outcome = session.lower_reading(first, racewatch::frontend::lower::Roots::EntryPoints).map(|(ep, ..)| ep);
        problems.extend(check(unit, &expected, &outcome));
    }
    assert!(problems.is_empty(), "{} expectation(s) failed:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn linux_6_12_drivers_meet_their_expectations() {
    let cache = default_kernel_dir().expect("a cache directory").parent().unwrap().parent().unwrap().to_path_buf();
    let source_root = cache.join("linux-source/current");
    assert!(source_root.is_dir(), "{} is missing: run scripts/setup.sh", source_root.display());
    let list = std::fs::read_to_string(repo().join("drivers/linux-6.12/drivers.txt")).unwrap();
    let cases = list
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|rel| {
            let stem = Path::new(rel).file_stem().unwrap().to_string_lossy().into_owned();
            let sidecar = repo().join(format!("drivers/linux-6.12/expect/{stem}.expect"));
            let text = std::fs::read_to_string(&sidecar).unwrap_or_else(|e| panic!("{}: {e}", sidecar.display()));
            let e = parse(&text, true).unwrap_or_else(|m| panic!("{}: {m}", sidecar.display()));
            (source_root.join(rel), e)
        })
        .collect::<Vec<_>>();
    run(cases);
}
