//! The lockset phase against the race expectations of the corpus
//! (docs/expectations.md): for every driver under drivers/corpus-races/,
//! the potential races `racewatch check` reports must be exactly the
//! `@expect race EP1 EP2 "REGION"` lines (a missing race and an unexpected
//! one both fail), every `@expect proven EP1 EP2` pair must be proven on
//! every region (or not formed at all, because the kernel serialises it),
//! and no pair may be unknown. Every racy driver has a fixed twin
//! (`NAME_race.c`, `NAME_fixed.c`) that must be proven entirely.

#[allow(dead_code)] // only the directive parser and the session are used here
mod support;

use racewatch::verify::run::Options;
use racewatch::verify::verdict::Verdict;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};


fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("drivers/corpus-races");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    files.sort();
    files
}

#[test]
fn every_racy_corpus_driver_has_a_fixed_twin() {
    let files: BTreeSet<String> = corpus().iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    let missing: Vec<&String> =
        files.iter().filter(|f| f.ends_with("_race.c") && !files.contains(&f.replace("_race.c", "_fixed.c"))).collect();
    assert!(missing.is_empty(), "racy drivers without a fixed twin: {missing:?}");
    assert!(files.len() >= 30, "the race corpus must hold at least 30 drivers, found {}", files.len());
}

#[test]
fn lockset_verdicts_match_the_race_expectations() {
    let session = support::session(1);
    let options = Options::default();
    let mut problems = Vec::new();
    for file in corpus() {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        let expected = support::expectations::parse(&text, false).unwrap_or_else(|m| panic!("{name}: {m}"));
        let mut want_races = BTreeSet::new();
        let mut want_proven = BTreeSet::new();
        for (directive, words) in &expected.later {
            match (directive.as_str(), words.as_slice()) {
                ("race", [a, b, region]) => {
                    want_races.insert((a.clone(), b.clone(), region.clone()));
                }
                ("proven", [a, b]) => {
                    want_proven.insert((a.clone(), b.clone()));
                }
                _ => problems.push(format!("{name}: malformed @expect {directive} {words:?}")),
            }
        }
        if name.ends_with("_fixed.c") && !want_races.is_empty() {
            problems.push(format!("{name}: a fixed twin expects races"));
        }
        let verdicts = match racewatch::cli::check_file_verdicts(&session, &file, &options) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let mut got_races = BTreeSet::new();
        for pair in &verdicts {
            for (region, verdict) in &pair.regions {
                match verdict {
                    Verdict::Race(_) => {
                        got_races.insert((pair.first.clone(), pair.second.clone(), region.clone()));
                    }
                    Verdict::Unknown(why) => {
                        problems.push(format!("{name}: unknown {} {} {region:?}: {why}", pair.first, pair.second))
                    }
                    Verdict::Proven => {}
                }
            }
            let key = (pair.first.clone(), pair.second.clone());
            if want_proven.contains(&key) && pair.regions.iter().any(|(_, v)| !matches!(v, Verdict::Proven)) {
                problems.push(format!("{name}: expected {} {} proven", pair.first, pair.second));
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
