//! Races named in source terms, their fingerprints, and `check
//! --baseline` (issue 17, Build 3 and 4), through the command line as a
//! user meets it.
//!
//! The snapshot tests pin the names of a few corpus races and of real 6.12
//! drivers' races, in text and JSON. The baseline tests copy a racy corpus
//! driver to a scratch directory: lines and comments inserted above its
//! races must leave every fingerprint unchanged (no new race), and one
//! racing access added must be exactly one new race.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs racewatch in `dir`: exit code, stdout, stderr.
fn racewatch(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_racewatch")).args(args).current_dir(dir).output().expect("run racewatch");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Every race region of a JSON report, with its pair.
fn races(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for file in doc["files"].as_array().into_iter().flatten() {
        for pair in file["pairs"].as_array().into_iter().flatten() {
            for region in pair["regions"].as_array().into_iter().flatten() {
                if region["verdict"] == "race" {
                    let name = |k: &str| pair[k].as_str().unwrap_or_default().to_string();
                    out.push((name("first"), name("second"), region.clone()));
                }
            }
        }
    }
    out
}

/// The JSON report of `check` on `file` run in `dir`.
fn json_report(dir: &Path, file: &str, extra: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = vec!["check", "--format", "json", "-j", "2"];
    args.extend_from_slice(extra);
    args.push(file);
    let (code, out, err) = racewatch(dir, &args);
    let doc = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{file}: not JSON ({e}):\n{out}\n{err}"));
    (code, doc, err)
}

/// The race of `doc` between `first` and `second` on `region`.
fn race<'a>(all: &'a [(String, String, Value)], first: &str, second: &str, region: &str) -> &'a Value {
    all.iter()
        .find(|(a, b, r)| a == first && b == second && r["region"] == region)
        .map(|(_, _, r)| r)
        .unwrap_or_else(|| panic!("no race {first} {second} {region} in {all:#?}"))
}

fn is_fingerprint(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[test]
fn corpus_races_are_named_by_their_c_expressions_in_text_and_json() {
    // The llseek self-pair on file->f_pos: the region is the field of
    // every struct file; the code wrote `file->f_pos`.
    let (code, text, err) = racewatch(repo(), &["check", "drivers/corpus-races/llseek_race.c"]);
    assert_eq!(code, Some(1), "{text}{err}");
    assert!(
        text.contains("llseek_race.c:46:2: warning: potential write/write race on 'file->f_pos' (region struct file.f_pos) [data-race]"),
        "{text}"
    );
    let (_, doc, _) = json_report(repo(), "drivers/corpus-races/llseek_race.c", &[]);
    let all = races(&doc);
    let r = race(&all, "rwls_llseek", "rwls_llseek", "struct file.f_pos");
    assert_eq!(r["name"], "file->f_pos", "{r:#}");
    assert_eq!(r["accesses"][0]["expression"], "file->f_pos", "{r:#}");
    assert_eq!(r["accesses"][1]["expression"], "file->f_pos", "{r:#}");
    assert!(is_fingerprint(&r["fingerprint"]), "{r:#}");
    // A global array indexed by a field of a local copy.
    let (_, doc, _) = json_report(repo(), "drivers/corpus-races/arrayidx_race.c", &[]);
    for (_, _, r) in races(&doc) {
        assert_eq!(r["name"], "rwai_regs[rec.index]", "{r:#}");
        assert_eq!(r["region"], "global rwai_regs", "{r:#}");
    }
    // WRITE_ONCE(x, v) is named `x`, not by its expansion, so that the
    // plain read and the marked write collapse to one name.
    let (_, text, _) = racewatch(repo(), &["check", "drivers/corpus-races/marked_race.c"]);
    assert!(text.contains("race on 'rwmk_limit' (region global rwmk_limit)"), "{text}");
    assert!(!text.contains("typeof"), "{text}");
}

#[test]
fn real_driver_races_are_named_by_their_c_expressions() {
    let cache = racewatch::frontend::flags::default_kernel_dir().expect("a cache directory");
    let source = cache.parent().unwrap().parent().unwrap().join("linux-source/current");
    assert!(source.is_dir(), "{} is missing: run scripts/setup.sh", source.display());
    // dtlk_interrogate fills the function's static `status` holding
    // dtlk_mutex, and dtlk_ioctl copies it to user space after dropping
    // the mutex (drivers/char/dtlk.c): the race is that write against the
    // copy's read, each shown with the locks it holds.
    let (_, doc, _) = json_report(&source, "drivers/char/dtlk.c", &[]);
    let all = races(&doc);
    let r = race(&all, "dtlk_ioctl", "dtlk_ioctl", "struct dtlk_settings.mode");
    assert_eq!(r["name"], "status.mode / sp->mode (copy_to_user())", "{r:#}");
    assert_eq!(r["accesses"][0]["function"], "dtlk_interrogate", "{r:#}");
    assert_eq!(r["accesses"][0]["locks"], serde_json::json!(["dtlk_mutex"]), "{r:#}");
    assert_eq!(r["accesses"][1]["function"], "dtlk_ioctl", "{r:#}");
    assert_eq!(r["accesses"][1]["locks"], serde_json::json!([]), "{r:#}");
    let r = race(&all, "dtlk_ioctl", "dtlk_ioctl", "struct dtlk_settings.rom_version");
    assert_eq!(r["name"], "status.rom_version[i] / sp->rom_version (copy_to_user())", "{r:#}");
    // sonypi's kfifo: the macro temporaries of kfifo_reset and
    // __kfifo_out's argument are named by what the driver passed.
    let (_, text, _) = racewatch(&source, &["check", "-j", "2", "drivers/char/sonypi.c"]);
    assert!(text.contains("'sonypi_device.fifo.kfifo.in"), "{text}");
    assert!(text.contains("sonypi_device.input_fifo.kfifo.out (__kfifo_out())"), "{text}");
    assert!(!text.contains("__tmp"), "macro temporaries are replaced by what the driver passed:\n{text}");
    // Two different expressions for one region are both shown (two
    // fifos' kfifo.in, read by __kfifo_out and written by __kfifo_in).
    assert!(text.contains("race on 'sonypi_device.input_fifo.kfifo.in (__kfifo_out()) / sonypi_device.fifo.kfifo.in (__kfifo_in())' (region "), "{text}");
    let (_, doc, _) = json_report(&source, "drivers/char/sonypi.c", &[]);
    let all = races(&doc);
    assert!(!all.is_empty());
    for (a, b, r) in &all {
        assert!(r["name"].is_string(), "{a} {b}: a race without a name: {r:#}");
        assert!(is_fingerprint(&r["fingerprint"]), "{a} {b}: {r:#}");
    }
}

/// A scratch directory holding a copy of a corpus driver.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("racewatch-names-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// llseek_race.c with `edit` applied, written to `dir/llseek_race.c`.
fn variant(dir: &Path, edit: impl Fn(&str) -> String) {
    let text = std::fs::read_to_string(repo().join("drivers/corpus-races/llseek_race.c")).unwrap();
    let edited = edit(&text);
    std::fs::write(dir.join("llseek_race.c"), edited).unwrap();
}

/// Blank lines and a comment above every function of the driver.
fn shifted(text: &str) -> String {
    text.replace("static loff_t rwls_llseek(", "\n\n/* Lines added above the races\n * move every access. */\n\nstatic loff_t rwls_llseek(")
        .replace("static ssize_t rwls_read(", "\n// one more comment\n\nstatic ssize_t rwls_read(")
}

/// One new racing access: a counter rwls_read writes under the mutex and
/// rwls_llseek reads without it (read/read between two llseeks and
/// write/write under the mutex between two reads do not race).
fn with_new_race(text: &str) -> String {
    shifted(text)
        .replace("static struct rwls_dev rwls = {", "static int rwls_reads;\n\nstatic struct rwls_dev rwls = {")
        .replace("\tword = rwls.shadow[pos / 4];", "\tword = rwls.shadow[pos / 4];\n\trwls_reads++;")
        .replace("\tcase SEEK_END:\n", "\tcase SEEK_END:\n\t\toffset += rwls_reads;\n")
}

#[test]
fn a_baseline_suppresses_moved_races_and_reports_exactly_a_new_one() {
    let dir = scratch("baseline");
    variant(&dir, |t| t.to_string());
    let (code, old, _) = json_report(&dir, "llseek_race.c", &[]);
    assert_eq!(code, Some(1), "{old:#}");
    let old_races = races(&old);
    assert!(!old_races.is_empty());
    std::fs::write(dir.join("old.json"), old.to_string()).unwrap();

    // Lines inserted above the races: every race moves, none is new.
    variant(&dir, shifted);
    let (code, moved, err) = json_report(&dir, "llseek_race.c", &["--baseline", "old.json"]);
    let moved_races = races(&moved);
    assert_eq!(moved_races.len(), old_races.len(), "{moved:#}");
    let line = |r: &Value| r["accesses"][0]["location"]["line"].as_i64();
    assert_ne!(line(&moved_races[0].2), line(&old_races[0].2), "the edit moves the races");
    for (a, b, r) in &moved_races {
        assert_eq!(r["baseline"], "unchanged", "{a} {b}: {r:#}");
    }
    assert_eq!(moved["baseline"], serde_json::json!({ "new": 0, "suppressed": old_races.len(), "gone": 0 }), "{err}");
    assert_eq!(code, Some(0), "no new race: success\n{moved:#}\n{err}");
    // The text report shows no race and says why.
    let (code, text, _) = racewatch(&dir, &["check", "--baseline", "old.json", "llseek_race.c"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("warning: potential"), "{text}");
    assert!(text.contains(&format!("baseline old.json: 0 new races, {} in the baseline (suppressed), 0 baseline races gone (fixed)", old_races.len())), "{text}");

    // One racing access added: exactly that race is new.
    variant(&dir, with_new_race);
    let (code, new, err) = json_report(&dir, "llseek_race.c", &["--baseline", "old.json"]);
    let fresh: Vec<_> = races(&new).into_iter().filter(|(_, _, r)| r["baseline"] == "new").collect();
    assert_eq!(fresh.len(), 1, "{fresh:#?}\n{err}");
    let (first, second, r) = &fresh[0];
    assert_eq!((first.as_str(), second.as_str(), r["name"].as_str()), ("rwls_llseek", "rwls_read", Some("rwls_reads")), "{r:#}");
    assert_eq!(new["baseline"]["new"], 1, "{err}");
    assert_eq!(code, Some(1), "a new race: exit 1\n{err}");
    let (code, text, _) = racewatch(&dir, &["check", "--baseline", "old.json", "llseek_race.c"]);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(text.matches("warning: potential").count(), 1, "{text}");
    assert!(text.contains("race on 'rwls_reads' (region global rwls_reads)"), "{text}");

    // Against the report with the new race, the original driver has one
    // baseline race gone (fixed) and nothing new.
    std::fs::write(dir.join("new.json"), new.to_string()).unwrap();
    variant(&dir, |t| t.to_string());
    let (code, back, err) = json_report(&dir, "llseek_race.c", &["--baseline", "new.json"]);
    assert_eq!(back["baseline"], serde_json::json!({ "new": 0, "suppressed": old_races.len(), "gone": 1 }), "{err}");
    assert_eq!(code, Some(0), "{err}");

    // SARIF carries the fingerprint and the baseline state.
    let (_, sarif, _) = racewatch(&dir, &["check", "--format", "sarif", "--baseline", "new.json", "llseek_race.c"]);
    let log: Value = serde_json::from_str(&sarif).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let race_results: Vec<&Value> = results.iter().filter(|r| r["ruleId"] == "data-race").collect();
    assert_eq!(race_results.len(), old_races.len(), "{sarif}");
    for r in race_results {
        assert!(is_fingerprint(&r["partialFingerprints"]["racewatch/v1"]), "{r:#}");
        assert_eq!(r["baselineState"], "unchanged", "{r:#}");
        assert!(r["message"]["text"].as_str().unwrap().contains("'file->f_pos' (region struct file.f_pos)"), "{r:#}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_baseline_that_is_not_a_report_is_an_error() {
    let dir = scratch("bad-baseline");
    variant(&dir, |t| t.to_string());
    std::fs::write(dir.join("old.json"), "not json").unwrap();
    let (code, _, err) = racewatch(&dir, &["check", "--baseline", "old.json", "llseek_race.c"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("old.json: error: the baseline is not a JSON report"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
