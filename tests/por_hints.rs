//! `check --emit-por-hints` end to end: the race corpus verified in one run
//! with `--format json`, the hints file read back with quick-xml and
//! checked against the JSON verdicts (docs/por-hints.md): the same pairs,
//! `<switch>` exactly on the regions that race or are unknown and
//! `<protected>` exactly on the proven ones, every race's two accesses
//! among its pair's switches, and the locks named on the protected
//! accesses of fixed drivers. An unwritable hints path is an error (exit
//! code 2) that leaves no file behind.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn racewatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_racewatch")).args(args).output().expect("run racewatch")
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("racewatch-por-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn corpus(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("drivers/corpus-races").join(name).display().to_string()
}

/// The names in a directory.
fn listing(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

/// One `<switch>` or `<protected>` element.
#[derive(Debug)]
struct Access {
    protected: bool,
    attrs: BTreeMap<String, String>,
    /// `(name, mode, common)` of its `<lock>` children.
    locks: Vec<(String, String, Option<String>)>,
}

/// One `<pair>` element.
#[derive(Debug, Default)]
struct Pair {
    ep1: String,
    ep2: String,
    verdict: String,
    accesses: Vec<Access>,
}

/// The document: its root version, and per driver file its pairs in order.
#[derive(Debug, Default)]
struct Hints {
    version: String,
    drivers: BTreeMap<String, Vec<Pair>>,
}

fn attributes(e: &BytesStart<'_>) -> BTreeMap<String, String> {
    e.attributes()
        .map(|a| {
            let a = a.expect("a well-formed attribute");
            (String::from_utf8(a.key.as_ref().to_vec()).unwrap(), a.unescape_value().expect("escaped value").into_owned())
        })
        .collect()
}

/// Parses the hints; panics on anything not well-formed or not in the
/// schema.
fn parse(text: &str) -> Hints {
    let mut reader = Reader::from_str(text);
    reader.config_mut().trim_text(true);
    let mut hints = Hints::default();
    let mut stack: Vec<String> = Vec::new();
    let mut driver: Option<String> = None;
    let mut roots = 0;
    loop {
        let event = reader.read_event().unwrap_or_else(|e| panic!("not well-formed at {}: {e}", reader.buffer_position()));
        let (element, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Eof => break,
            Event::Decl(_) | Event::Text(_) | Event::GeneralRef(_) => continue,
            other => panic!("unexpected event {other:?}"),
        };
        let name = String::from_utf8(element.name().as_ref().to_vec()).unwrap();
        let attrs = attributes(element);
        let parent = stack.last().map(String::as_str);
        match (parent, name.as_str()) {
            (None, "por-hints") => {
                roots += 1;
                hints.version = attrs["version"].clone();
            }
            (Some("por-hints"), "driver") => {
                driver = Some(attrs["file"].clone());
                hints.drivers.insert(attrs["file"].clone(), Vec::new());
            }
            (Some("driver"), "pair") => {
                let pairs = hints.drivers.get_mut(driver.as_ref().unwrap()).unwrap();
                let (ep1, ep2, verdict) = (attrs["ep1"].clone(), attrs["ep2"].clone(), attrs["verdict"].clone());
                pairs.push(Pair { ep1, ep2, verdict, accesses: Vec::new() });
            }
            (Some("pair"), "switch" | "protected") => {
                let access = Access { protected: name == "protected", attrs, locks: Vec::new() };
                current_pair(&mut hints, &driver).accesses.push(access);
            }
            (Some("switch" | "protected"), "lock") => {
                let access = current_pair(&mut hints, &driver).accesses.last_mut().unwrap();
                access.locks.push((attrs["name"].clone(), attrs["mode"].clone(), attrs.get("common").cloned()));
            }
            (Some("por-hints" | "driver"), "error") => {}
            (parent, name) => panic!("<{name}> inside {parent:?} is not in the schema"),
        }
        if !empty {
            stack.push(name);
        }
    }
    assert_eq!(roots, 1, "one root element");
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
    hints
}

fn current_pair<'h>(hints: &'h mut Hints, driver: &Option<String>) -> &'h mut Pair {
    hints.drivers.get_mut(driver.as_ref().unwrap()).unwrap().last_mut().unwrap()
}

fn location_matches(access: &Access, json: &Value) -> bool {
    let a = &access.attrs;
    let location = &json["location"];
    a["entry"] == json["entry_point"].as_str().unwrap()
        && a["function"] == json["function"].as_str().unwrap()
        && a["access"] == if json["write"].as_bool().unwrap() { "write" } else { "read" }
        && a["atomic"] == json["atomic"].as_bool().unwrap().to_string()
        && a.get("file").map(String::as_str) == location["file"].as_str()
        && a.get("line").map(|l| l.parse::<u64>().unwrap()) == location["line"].as_u64()
        && a.get("column").map(|c| c.parse::<u64>().unwrap()) == location["column"].as_u64()
}

/// Fixed drivers, a region each protects with a lock, and the lock: every
/// protected access to the region made while callbacks are live names it,
/// and names it as the common lock where the reason is `lock`. The cases:
/// a global spinlock, a trylock's success branch, a lock that may fail
/// (`mutex_lock_interruptible`, `down_interruptible`), a lock taken in a
/// helper, a reader-writer lock, RTNL held by the kernel, `guard()`,
/// recursion, nested locks.
const PROTECTED_BY: &[(&str, &str, &str)] = &[
    ("globalcnt_fixed.c", "global rwgc_events", "rwgc_lock"),
    ("trylock_fixed.c", "struct rwtry_dev.charge", "struct rwtry_dev.lock"),
    ("nolock_fixed.c", "struct rwnl_dev.value", "rwnl.lock"),
    ("semaphore_fixed.c", "struct rwsm_dev.writes", "rwsm.sem"),
    ("helperlock_fixed.c", "struct rwhl_dev.bytes", "struct rwhl_dev.lock"),
    ("rwlock_fixed.c", "struct rwrl_dev.route", "struct rwrl_dev.map_lock"),
    ("rtnlwork_fixed.c", "struct rwrt_priv.link_up", "rtnl"),
    ("guard_fixed.c", "struct rwgd_dev.level", "rwgd.lock"),
    ("recursion_fixed.c", "struct rwrc_zone.hits", "struct rwrc_dev.lock"),
    ("nested_fixed.c", "struct rwnest_dev.overruns", "struct rwnest_dev.hw_lock"),
];

#[test]
fn hints_match_the_json_verdicts_of_the_race_corpus() {
    let dir = scratch("corpus");
    let xml_path = dir.join("hints.xml");
    let corpus_dir = corpus("");
    let o = racewatch(&["check", "--format", "json", "-j", "2", "--emit-por-hints", &xml_path.display().to_string(), &corpus_dir]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "the racy drivers race; stderr:\n{stderr}");
    assert_eq!(listing(&dir), BTreeSet::from(["hints.xml".to_string()]), "no temporary file is left");
    let json: Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    let hints = parse(&std::fs::read_to_string(&xml_path).unwrap());
    assert_eq!(hints.version, "1");
    let files = json["files"].as_array().unwrap();
    assert!(files.len() >= 30, "the whole corpus in one run");
    let json_files: BTreeSet<&str> = files.iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert_eq!(json_files, hints.drivers.keys().map(String::as_str).collect(), "one <driver> per file");
    let mut problems = Vec::new();
    for file in files {
        let name = file["file"].as_str().unwrap();
        let xml_pairs = &hints.drivers[name];
        let json_pairs = file["pairs"].as_array().unwrap_or_else(|| panic!("{name}: not verified: {file}"));
        let ids = |p: &Value| (p["first"].as_str().unwrap().to_string(), p["second"].as_str().unwrap().to_string());
        let json_ids: Vec<(String, String)> = json_pairs.iter().map(ids).collect();
        let xml_ids: Vec<(String, String)> = xml_pairs.iter().map(|p| (p.ep1.clone(), p.ep2.clone())).collect();
        assert_eq!(json_ids, xml_ids, "{name}: the same pairs in the same order");
        for (p, pair) in json_pairs.iter().zip(xml_pairs) {
            let id = (&pair.ep1, &pair.ep2);
            let regions = p["regions"].as_array().unwrap();
            let verdicts: Vec<&str> = regions.iter().map(|r| r["verdict"].as_str().unwrap()).collect();
            let summary = if verdicts.contains(&"race") {
                "race"
            } else if verdicts.contains(&"unknown") {
                "unknown"
            } else {
                "proven"
            };
            if pair.verdict != summary {
                problems.push(format!("{name} {id:?}: verdict {} in the XML, {summary} in the JSON", pair.verdict));
            }
            let xml_regions: BTreeSet<&str> = pair.accesses.iter().map(|a| a.attrs["region"].as_str()).collect();
            let json_regions: BTreeSet<&str> = regions.iter().map(|r| r["region"].as_str().unwrap()).collect();
            if xml_regions != json_regions {
                problems.push(format!("{name} {id:?}: regions {xml_regions:?} in the XML, {json_regions:?} in the JSON"));
            }
            for r in regions {
                let region = r["region"].as_str().unwrap();
                let verdict = r["verdict"].as_str().unwrap();
                let of_region = || pair.accesses.iter().filter(|a| a.attrs["region"] == region);
                // A race or unknown: only switches, with the verdict as their
                // reason. Proven: protected, but for atomic accesses that
                // conflict with atomic accesses of the other entry point.
                let wrong = |a: &&Access| match verdict {
                    "proven" => !a.protected && (a.attrs["reason"] != "atomic" || a.attrs["atomic"] != "true"),
                    _ => a.protected || a.attrs["reason"] != verdict,
                };
                if let Some(a) = of_region().find(wrong) {
                    problems.push(format!("{name} {id:?} {region}: {verdict}, but {a:?}"));
                }
                for side in r["accesses"].as_array().into_iter().flatten() {
                    if !of_region().any(|a| !a.protected && location_matches(a, side)) {
                        problems.push(format!("{name} {id:?} {region}: the race's access {side} is not a switch"));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let mut checked = BTreeSet::new();
    for (driver, region, lock) in PROTECTED_BY {
        let file = hints.drivers.keys().find(|f| f.ends_with(&format!("/{driver}"))).unwrap_or_else(|| panic!("{driver} missing"));
        let accesses: Vec<&Access> = hints.drivers[file]
            .iter()
            .flat_map(|p| &p.accesses)
            .filter(|a| a.attrs["region"] == *region && a.protected)
            .collect();
        let by_lock = accesses.iter().filter(|a| a.attrs["reason"] == "lock").count();
        assert!(by_lock > 0, "{driver} {region}: no access protected by a lock: {accesses:?}");
        for a in &accesses {
            let reason = a.attrs["reason"].as_str();
            let names = |common: bool| a.locks.iter().any(|(n, _, c)| n == lock && (!common || c.as_deref() == Some("true")));
            match reason {
                "lock" => assert!(names(true), "{driver} {region}: {lock} is not the common lock of {a:?}"),
                "read-only" => assert!(names(false), "{driver} {region}: a reader without {lock}: {a:?}"),
                "not-live" => {}
                other => panic!("{driver} {region}: reason {other} on {a:?}"),
            }
        }
        checked.insert(*driver);
    }
    // Modes: readers of the reader-writer lock hold it shared, writers
    // exclusively; the spinlock is exclusive.
    let modes = |driver: &str, region: &str| -> BTreeSet<String> {
        let file = hints.drivers.keys().find(|f| f.ends_with(&format!("/{driver}"))).unwrap();
        hints.drivers[file]
            .iter()
            .flat_map(|p| &p.accesses)
            .filter(|a| a.attrs["region"] == region)
            .flat_map(|a| a.locks.iter().map(|(_, m, _)| m.clone()))
            .collect()
    };
    assert_eq!(modes("rwlock_fixed.c", "struct rwrl_dev.route"), BTreeSet::from(["exclusive".into(), "shared".into()]));
    assert_eq!(modes("globalcnt_fixed.c", "global rwgc_events"), BTreeSet::from(["exclusive".into()]));
    assert_eq!(checked.len(), PROTECTED_BY.len());
    // atomic_fixed.c's interrupt handler increments an atomic counter the
    // read callback reads: proven race-free, yet both need a switch.
    let file = hints.drivers.keys().find(|f| f.ends_with("/atomic_fixed.c")).unwrap();
    let pair = hints.drivers[file].iter().find(|p| p.ep1 == "rwaf_irq" && p.ep2 == "rwaf_read").unwrap();
    let counter: Vec<(&str, &str, bool)> = pair
        .accesses
        .iter()
        .filter(|a| a.attrs["region"] == "struct atomic_t.counter")
        .map(|a| (a.attrs["entry"].as_str(), a.attrs["access"].as_str(), a.protected))
        .collect();
    assert_eq!(counter, [("rwaf_irq", "read", true), ("rwaf_irq", "write", false), ("rwaf_read", "read", false)]);
}

#[test]
fn an_unwritable_hints_path_is_an_error_and_leaves_no_file() {
    let dir = scratch("unwritable");
    let driver = corpus("globalcnt_fixed.c");
    // The path is a directory: the temporary file is written, and must be
    // removed when the rename fails.
    let taken = dir.join("taken");
    std::fs::create_dir(&taken).unwrap();
    // The path's directory does not exist.
    let missing = dir.join("missing").join("hints.xml");
    for path in [&taken, &missing] {
        let path_text = path.display().to_string();
        let o = racewatch(&["check", "--emit-por-hints", &path_text, &driver]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "exit code; stderr:\n{stderr}");
        assert!(!stderr.contains("panicked"), "panic:\n{stderr}");
        assert!(stderr.contains(&format!("{path_text}: error: cannot write the partial-order hints")), "{stderr}");
        assert_eq!(listing(&dir), BTreeSet::from(["taken".to_string()]), "nothing left behind");
        assert!(listing(&taken).is_empty());
    }
}
