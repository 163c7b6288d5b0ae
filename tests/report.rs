//! Report directories and kbuild (docs/kbuild.md, docs/cli.md): a corpus
//! twin built as an out-of-tree module with `make C=2 CHECK="racewatch
//! kbuild"` against set-up's Debian headers and linux-kbuild gets the same
//! warnings as `racewatch check`, on its `@racy` lines only, and leaves one
//! result per file that `racewatch report` merges; a run split with
//! `--shard` and merged equals the unsplit run; a report directory holding
//! something else is an error naming the file.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn racewatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_racewatch")).args(args).output().expect("run racewatch")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("racewatch-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `file:line: warning:` lines of a text report about `file`, as
/// (line, message) pairs.
fn warnings(text: &str, file: &str) -> BTreeSet<(u32, String)> {
    text.lines()
        .filter(|l| l.contains(": warning: ") && l.contains(file))
        .filter_map(|l| {
            let rest = &l[l.find(file)? + file.len() + 1..];
            let line: u32 = rest.split(':').next()?.parse().ok()?;
            Some((line, l[l.find(": warning: ")?..].to_string()))
        })
        .collect()
}

/// The Debian -amd64 headers directory set-up unpacked, with kbuild.
fn headers_dir() -> PathBuf {
    let root = racewatch::frontend::flags::default_kernel_dir().expect("set-up's kernel headers (scripts/setup.sh)");
    let src = root.join("usr/src");
    let dir = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("{}: {e} (run scripts/setup.sh)", src.display()))
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().ends_with("-amd64"))
        .expect("a linux-headers-*-amd64 directory");
    assert!(dir.join("scripts/Makefile.build").is_file() || dir.join("scripts").is_dir(), "{}: no kbuild scripts (scripts/setup.sh step 2b)", dir.display());
    dir
}

#[test]
fn kbuild_check_reports_like_check_and_fills_the_report_directory() {
    let module = scratch("kbuild");
    for name in ["nolock_race.c", "nolock_fixed.c"] {
        std::fs::copy(repo().join("drivers/corpus-races").join(name), module.join(name)).unwrap();
    }
    std::fs::write(module.join("Makefile"), "obj-m := nolock_race.o nolock_fixed.o\n").unwrap();
    let report = module.join("report");
    let check = format!("{} kbuild --report-dir {}", env!("CARGO_BIN_EXE_racewatch"), report.display());
    let out = Command::new("make")
        .arg("-C")
        .arg(headers_dir())
        .arg(format!("M={}", module.display()))
        .args(["C=2", &format!("CHECK={check}"), "modules"])
        .output()
        .expect("run make (scripts/setup.sh installs it)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "make failed:\n{stderr}\n{}", String::from_utf8_lossy(&out.stdout));
    assert!(module.join("nolock_race.ko").is_file(), "the module was not built");

    // kbuild's warnings are check's, on @racy lines only; the fixed twin
    // has none.
    let kbuild_warnings = warnings(&stderr, "nolock_race.c");
    assert!(!kbuild_warnings.is_empty(), "no warnings from racewatch kbuild:\n{stderr}");
    let racy: BTreeSet<u32> = (1..)
        .zip(std::fs::read_to_string(module.join("nolock_race.c")).unwrap().lines())
        .filter(|(_, l)| l.contains("@racy"))
        .map(|(n, _)| n)
        .collect();
    for (line, w) in &kbuild_warnings {
        assert!(racy.contains(line), "warning on line {line}, not marked @racy: {w}");
    }
    let direct = racewatch(&["check", "--no-cache", module.join("nolock_race.c").to_str().unwrap()]);
    assert_eq!(kbuild_warnings, warnings(&String::from_utf8_lossy(&direct.stdout), "nolock_race.c"), "kbuild and check disagree");
    assert!(warnings(&stderr, "nolock_fixed.c").is_empty(), "the fixed twin has warnings:\n{stderr}");

    // One result per file, merged by `report` with check's exit code.
    let results = std::fs::read_dir(&report).unwrap().count();
    assert_eq!(results, 2, "result files in {}", report.display());
    let merged = racewatch(&["report", report.to_str().unwrap(), "--format", "json"]);
    assert_eq!(merged.status.code(), Some(1), "{}", String::from_utf8_lossy(&merged.stderr));
    let doc: Value = serde_json::from_slice(&merged.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    let races = |suffix: &str| {
        let f = files.iter().find(|f| f["file"].as_str().unwrap().ends_with(suffix)).unwrap();
        f["totals"]["races"].as_u64().unwrap()
    };
    assert!(races("nolock_race.c") > 0);
    assert_eq!(races("nolock_fixed.c"), 0);
    let _ = std::fs::remove_dir_all(&module);
}

/// A JSON report without its run-dependent fields, files in path order.
fn normalised(bytes: &[u8]) -> Value {
    let mut doc: Value = serde_json::from_slice(bytes).unwrap();
    let files = doc["files"].as_array_mut().unwrap();
    for f in files.iter_mut() {
        for key in ["seconds", "memory_bytes", "cached"] {
            f.as_object_mut().unwrap().remove(key);
        }
    }
    files.sort_by(|a, b| a["file"].as_str().cmp(&b["file"].as_str()));
    doc
}

#[test]
fn two_shards_merged_equal_one_run() {
    let dir = scratch("shards");
    let inputs = dir.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    for name in ["nolock_race.c", "nolock_fixed.c", "twolocks_race.c", "twolocks_fixed.c"] {
        std::fs::copy(repo().join("drivers/corpus-races").join(name), inputs.join(name)).unwrap();
    }
    let inputs_arg = inputs.to_str().unwrap();
    let whole = racewatch(&["check", "--no-cache", "--format", "json", inputs_arg]);
    assert_eq!(whole.status.code(), Some(1));
    let shards = dir.join("shards");
    let mut seen = 0;
    for shard in ["1/2", "2/2"] {
        let out = racewatch(&["check", "--no-cache", "--format", "json", "--shard", shard, "--report-dir", shards.to_str().unwrap(), inputs_arg]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let n = doc["files"].as_array().unwrap().len();
        assert!(n > 0, "shard {shard} is empty");
        seen += n;
    }
    assert_eq!(seen, 4, "the shards do not partition the inputs");
    let merged = racewatch(&["report", shards.to_str().unwrap(), "--format", "json"]);
    assert_eq!(merged.status.code(), Some(1));
    assert_eq!(normalised(&merged.stdout), normalised(&whole.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_report_directory_with_a_foreign_file_is_an_error_naming_it() {
    let dir = scratch("foreign");
    let empty = racewatch(&["report", dir.to_str().unwrap()]);
    assert_eq!(empty.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("no result files"));
    std::fs::write(dir.join("x.json"), "{\"racewatch\": \"0.1\"}").unwrap();
    let foreign = racewatch(&["report", dir.to_str().unwrap()]);
    assert_eq!(foreign.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&foreign.stderr);
    assert!(stderr.contains(&format!("{}:1:", Path::new(&dir).join("x.json").display())) && stderr.contains("not a racewatch result file"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The DOM of `page` after headless chromium (Debian's, installed by
/// set-up) loaded it and ran its script.
fn rendered(page: &Path) -> String {
    let out = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium (scripts/setup.sh installs it)");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_html_report_renders_in_a_browser() {
    let dir = scratch("html");
    let report = dir.join("report");
    let race = repo().join("drivers/corpus-races/nolock_race.c");
    let fixed = repo().join("drivers/corpus-races/nolock_fixed.c");
    let out = racewatch(&["check", "--precise", "--no-cache", "--report-dir", report.to_str().unwrap(), race.to_str().unwrap(), fixed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let html = dir.join("html");
    let merged = racewatch(&["report", report.to_str().unwrap(), "--format", "json", "--html", html.to_str().unwrap()]);
    assert_eq!(merged.status.code(), Some(1), "{}", String::from_utf8_lossy(&merged.stderr));
    let doc: Value = serde_json::from_slice(&merged.stdout).unwrap();
    let races: usize = doc["files"].as_array().unwrap().iter().map(|f| f["totals"]["races"].as_u64().unwrap() as usize).sum();
    assert!(races > 0);

    // The index's script ran: it counted the race rows, one per race.
    let index = rendered(&html.join("index.html"));
    assert!(index.contains(&format!("{races} of {races} races shown")), "the filter script did not run or miscounted:\n{index}");
    assert_eq!(index.matches("<tr class=\"race\"").count(), races);
    assert!(index.contains("nolock_fixed.c") && index.contains("proven race-free"), "the files' verdicts are missing");

    // A race page shows both accesses' source, the racing line marked, and
    // the confirmed race's witness in two lanes.
    let page = rendered(&html.join("race-1.html"));
    let marked: Vec<&str> = page.lines().filter(|l| l.contains("class=\"hit\"")).collect();
    assert_eq!(marked.len(), 2, "two marked source lines expected:\n{page}");
    assert!(marked.iter().all(|l| l.contains("@racy")), "a marked line is not a racy one: {marked:?}");
    assert!(page.contains("id=\"witness\"") && page.contains("(thread 1)") && page.contains("(thread 2)"), "no witness lanes:\n{page}");
    let _ = std::fs::remove_dir_all(&dir);
}
