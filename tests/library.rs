//! The analysis of a file as a library call: `pipeline::check::analyse_file`
//! on a racy corpus driver and its fixed twin, with no CLI, worker process
//! or cache, and the report model read directly and through two renderers.

use racewatch::pipeline::check::{Options, analyse_file};
use racewatch::report::{FileVerdicts, Status};
use racewatch::verify::verdict::Verdict;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("drivers/corpus-races").join(name)
}

/// The `// @expect KIND FIRST SECOND "REGION"` lines of a driver of kind
/// `kind` (`race`, `proven`), as (first, second, region); the region is
/// empty when the line names none.
fn expected(file: &Path, kind: &str) -> BTreeSet<(String, String, String)> {
    let text = std::fs::read_to_string(file).unwrap();
    let marker = format!("// @expect {kind} ");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(marker.as_str()))
        .map(|rest| {
            let (names, region) = rest.split_once('"').map_or((rest, ""), |(n, r)| (n, r.trim_end_matches('"')));
            let mut names = names.split_whitespace();
            (names.next().unwrap().to_string(), names.next().unwrap().to_string(), region.to_string())
        })
        .collect()
}

/// The entry points a driver's expectations name.
fn entry_points(file: &Path) -> usize {
    std::fs::read_to_string(file).unwrap().lines().filter(|l| l.trim().starts_with("// @expect entry-point ")).count()
}

/// The lockset races of a report, as (first, second, region).
fn races(report: &FileVerdicts) -> BTreeSet<(String, String, String)> {
    let pairs = report.outcome.as_ref().unwrap_or_else(|e| panic!("{}: {e}", report.file.display()));
    let mut out = BTreeSet::new();
    for p in pairs {
        for (region, v) in &p.regions {
            if matches!(v, Verdict::Race(_)) {
                out.insert((p.first.clone(), p.second.clone(), region.clone()));
            }
        }
    }
    out
}

fn analyse(name: &str) -> (PathBuf, FileVerdicts) {
    let file = corpus(name);
    let options = Options { jobs: 1, ..Options::default() };
    let report = analyse_file(&file, &options).unwrap_or_else(|e| panic!("{e}\nthe tests need the kernel headers: run scripts/setup.sh"));
    (file, report)
}

#[test]
fn the_library_call_reports_the_entry_points_and_races_of_a_racy_driver() {
    let (file, report) = analyse("atomic_race.c");
    assert_eq!(report.status(), Status::Verified);
    assert_eq!(report.entry_points, entry_points(&file));
    let want = expected(&file, "race");
    assert!(!want.is_empty());
    assert_eq!(races(&report), want);
    // The report model renders without the CLI: the text report names the
    // race and the JSON report counts it.
    let mut text = Vec::new();
    racewatch::report::text::write_text(&mut text, std::slice::from_ref(&report), None).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("race on 'dev->cmd'"), "{text}");
    let mut json = Vec::new();
    racewatch::report::json::write_json(&mut json, std::slice::from_ref(&report), &[], None, None).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(doc["files"][0]["totals"]["races"].as_u64(), Some(want.len() as u64));
}

#[test]
fn the_library_call_proves_the_fixed_twin() {
    let (file, report) = analyse("atomic_fixed.c");
    assert_eq!(report.status(), Status::Verified);
    assert_eq!(report.entry_points, entry_points(&file));
    assert!(races(&report).is_empty(), "{:?}", races(&report));
    let proven: BTreeSet<(String, String)> = expected(&file, "proven").into_iter().map(|(a, b, _)| (a, b)).collect();
    let pairs = report.outcome.as_ref().unwrap();
    for (a, b) in &proven {
        let pair = pairs.iter().find(|p| &p.first == a && &p.second == b).unwrap_or_else(|| panic!("no pair {a} {b}"));
        assert!(pair.regions.iter().all(|(_, v)| matches!(v, Verdict::Proven)), "{a} {b}: {:?}", pair.regions);
    }
}

/// A file that cannot be analysed is its report's error, not the call's.
#[test]
fn a_missing_file_is_the_reports_error() {
    let (_, report) = analyse("no_such_driver.c");
    assert!(report.outcome.is_err());
    assert_eq!(report.status(), Status::Error);
}
