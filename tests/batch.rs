//! Batches: every file of a run ends in a verdict, "no entry points", a
//! timeout or an explained error, whatever goes wrong in the others; the
//! exit code says what happened; the cache returns an unchanged file's
//! results and misses a changed header; reports do not depend on `--jobs`.
//!
//! Worker crashes, hangs and memory blow-ups cannot be summoned from real
//! drivers at will, so they are injected with the `RACEWATCH_TEST_FAULT`
//! hook (src/cli/batch.rs); everything else is real input.

use racewatch::frontend::flags::{KernelTree, default_kernel_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn racewatch(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_racewatch"));
    c.args(args).env_remove("RACEWATCH_TEST_FAULT");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run racewatch")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("racewatch-batch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Copies a corpus driver into `dir` under `name`.
fn copy(dir: &Path, from: &str, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(repo(from), &to).unwrap();
    to
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("JSON: {e}\nstderr:\n{}", String::from_utf8_lossy(&o.stderr)))
}

/// The file entry named `name` of a JSON report.
fn file<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"].as_str().unwrap().ends_with(&format!("/{name}")))
        .unwrap_or_else(|| panic!("no {name} in {doc:#}"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The report without what differs between runs of the same analysis:
/// times, memory, the cache flag.
fn verdicts_only(mut doc: Value) -> Value {
    for f in doc["files"].as_array_mut().unwrap() {
        let f = f.as_object_mut().unwrap();
        f.remove("seconds");
        f.remove("memory_bytes");
        f.remove("cached");
    }
    doc
}

#[test]
fn bad_input_is_reported_per_file_and_the_rest_completes() {
    let dir = scratch("bad-input");
    copy(&dir, "drivers/corpus-races/globalcnt_fixed.c", "good.c");
    // Heavy enough that z3 runs out of a resource limit the small driver
    // stays within: its undecided checks make pairs unknown. (At 12000,
    // measured with the write locksets: the small driver needs more than
    // 10000 for one query, the heavy one leaves 3 pairs unknown.)
    copy(&dir, "drivers/corpus/net_ethtool.c", "heavy.c");
    copy(&dir, "drivers/corpus/helpers_only.c", "helpers.c");
    std::fs::write(dir.join("syntax.c"), "#include <linux/module.h>\nstatic int x = ;\n").unwrap();
    // Permissions do not stop root (CI runs as root); /proc/self/mem
    // refuses to be read at offset 0, whoever reads it.
    std::os::unix::fs::symlink("/proc/self/mem", dir.join("unreadable.c")).unwrap();
    let d = dir.display().to_string();
    let o = racewatch(&["check", "--no-cache", "--solver-rlimit", "12000", "--format", "json", "-j", "2", &d], &[]);
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(2), "files could not be analysed: exit 2\n{err}");
    let doc = json(&o);
    assert_eq!(doc["files"].as_array().unwrap().len(), 5, "{doc:#}");
    let good = file(&doc, "good.c");
    assert_eq!(good["status"], "verified");
    assert_eq!(good["totals"]["pairs"], good["totals"]["proven"], "the small driver is proven: {good:#}");
    let heavy = file(&doc, "heavy.c");
    assert_eq!(heavy["status"], "verified");
    assert!(heavy["totals"]["unknown"].as_u64().unwrap() > 0, "the solver ran out on the heavy driver: {:#}", heavy["totals"]);
    assert_eq!(file(&doc, "helpers.c")["status"], "no-entry-points");
    assert_eq!(file(&doc, "syntax.c")["error"]["class"], "parse-error");
    assert_eq!(file(&doc, "unreadable.c")["error"]["class"], "unreadable");
    // One error line per failed file, naming it, besides the progress.
    for name in ["syntax.c", "unreadable.c"] {
        let errors = err.lines().filter(|l| !l.starts_with("racewatch: [") && l.contains(name));
        assert_eq!(errors.count(), 1, "{name}:\n{err}");
    }
    // The text report ends with the table, counting the reasons.
    let o = racewatch(&["check", "--no-cache", "--solver-rlimit", "12000", "--progress", "none", &d], &[]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains("helpers.c: no entry points"), "{text}");
    assert!(text.contains("files: 2 error, 1 no-entry-points, 2 verified"), "{text}");
    assert!(text.contains("not verified, by reason: 1 parse-error, 1 unreadable"), "{text}");
    assert!(stderr(&o).lines().all(|l| !l.starts_with("racewatch: [")), "--progress none: {}", stderr(&o));
}

#[test]
fn a_crashing_hanging_or_oversized_worker_stops_only_its_file() {
    let dir = scratch("faults");
    for name in ["good.c", "panics.c", "aborts.c", "hangs.c", "hogs.c"] {
        copy(&dir, "drivers/corpus-races/globalcnt_fixed.c", name);
    }
    let d = dir.display().to_string();
    let faults = "panic:panics.c,abort:aborts.c,hang:hangs.c,oom:hogs.c";
    let o = racewatch(
        &["check", "--no-cache", "--format", "json", "--file-timeout", "20", "--memory-limit", "2048", "-j", "2", &d],
        &[("RACEWATCH_TEST_FAULT", faults)],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let doc = json(&o);
    assert_eq!(file(&doc, "good.c")["status"], "verified");
    let class = |name: &str| file(&doc, name)["error"]["class"].as_str().unwrap().to_string();
    let message = |name: &str| file(&doc, name)["error"]["message"].as_str().unwrap().to_string();
    assert_eq!(class("panics.c"), "crash");
    assert!(message("panics.c").contains("injected fault"), "{}", message("panics.c"));
    assert_eq!(class("aborts.c"), "crash");
    assert!(message("aborts.c").contains("SIGABRT"), "{}", message("aborts.c"));
    assert_eq!(class("hangs.c"), "timeout");
    assert_eq!(class("hogs.c"), "out-of-memory");
    // The progress is one line per file when stderr is not a terminal.
    assert_eq!(err.lines().filter(|l| l.starts_with("racewatch: [")).count(), 5, "{err}");
}

#[test]
fn a_timeout_alone_is_unknown_and_the_run_budget_skips_the_rest() {
    let dir = scratch("budgets");
    copy(&dir, "drivers/corpus-races/globalcnt_fixed.c", "good.c");
    // The largest file starts first, so with one job the hang comes first.
    copy(&dir, "drivers/corpus/net_ethtool.c", "hangs.c");
    let d = dir.display().to_string();
    let env = [("RACEWATCH_TEST_FAULT", "hang:hangs.c")];
    // Long enough for the small driver on a loaded machine.
    let o = racewatch(&["check", "--no-cache", "--format", "json", "--file-timeout", "15", "-j", "1", &d], &env);
    assert_eq!(o.status.code(), Some(3), "a timeout is unknown: {}", stderr(&o));
    let doc = json(&o);
    assert_eq!(file(&doc, "hangs.c")["status"], "timeout");
    assert_eq!(file(&doc, "good.c")["status"], "verified");
    let o = racewatch(&["check", "--no-cache", "--format", "json", "--run-timeout", "3", "-j", "1", &d], &env);
    assert_eq!(o.status.code(), Some(2), "a skipped file was not analysed: {}", stderr(&o));
    let doc = json(&o);
    assert_eq!(file(&doc, "hangs.c")["status"], "timeout");
    assert_eq!(file(&doc, "good.c")["status"], "skipped");
}

#[test]
fn broken_compile_commands_entries_fail_alone() {
    let dir = scratch("ccdb");
    let good = copy(&dir, "drivers/corpus-races/globalcnt_fixed.c", "good.c");
    let tree = KernelTree::locate(&default_kernel_dir().expect("kernel headers")).expect("scripts/setup.sh fetched the headers");
    let mut arguments = vec!["clang".to_string()];
    arguments.extend(tree.flags(&good));
    arguments.extend(["-c".to_string(), "good.c".to_string()]);
    let db = serde_json::json!([
        { "directory": dir, "file": "good.c", "arguments": arguments },
        { "directory": dir, "file": "broken.c", "arguments": 5 },
        { "directory": dir, "command": "cc -c nameless.c" },
    ]);
    let db_path = dir.join("compile_commands.json");
    std::fs::write(&db_path, db.to_string()).unwrap();
    let p = db_path.display().to_string();
    let o = racewatch(&["check", "--no-cache", "--format", "json", "--compile-commands", &p, &dir.display().to_string()], &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let doc = json(&o);
    assert_eq!(file(&doc, "good.c")["status"], "verified", "{doc:#}");
    let broken = file(&doc, "broken.c");
    assert_eq!(broken["error"]["class"], "flags");
    assert!(broken["error"]["message"].as_str().unwrap().contains("malformed"), "{broken:#}");
    assert!(err.contains("entry 3 names no file"), "{err}");
}

#[test]
fn the_cache_returns_unchanged_files_and_misses_changed_headers() {
    let dir = scratch("cache");
    let cache = dir.join("cache").display().to_string();
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    // A driver including a header of its own, as most real drivers do.
    let driver = std::fs::read_to_string(repo("drivers/corpus-races/globalcnt_race.c")).unwrap();
    std::fs::write(src.join("local.h"), "#define LOCAL_COUNT 1\n").unwrap();
    std::fs::write(src.join("drv.c"), format!("#include \"local.h\"\n{driver}")).unwrap();
    copy(&src, "drivers/corpus-races/globalcnt_fixed.c", "other.c");
    let s = src.display().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec!["check", "--format", "json", "--cache-dir", &cache];
        args.extend_from_slice(extra);
        args.push(&s);
        let o = racewatch(&args, &[]);
        assert_eq!(o.status.code(), Some(1), "races: {}", stderr(&o));
        json(&o)
    };
    let first = run(&[]);
    assert_eq!(file(&first, "drv.c")["cached"], false);
    let second = run(&[]);
    assert_eq!(file(&second, "drv.c")["cached"], true);
    assert_eq!(file(&second, "other.c")["cached"], true);
    assert_eq!(verdicts_only(first.clone()), verdicts_only(second), "cached verdicts are the verdicts");
    // Another option is another key.
    assert_eq!(file(&run(&["--timeout", "11"]), "drv.c")["cached"], false);
    // An edited header misses the cache, for the file that includes it only.
    std::fs::write(src.join("local.h"), "#define LOCAL_COUNT 2\n").unwrap();
    let third = run(&[]);
    assert_eq!(file(&third, "drv.c")["cached"], false);
    assert_eq!(file(&third, "other.c")["cached"], true);
    assert_eq!(file(&run(&["--no-cache"]), "other.c")["cached"], false);
}

#[test]
fn reports_do_not_depend_on_the_job_count() {
    let dir = scratch("jobs");
    for (from, name) in [
        ("drivers/corpus-races/globalcnt_race.c", "a.c"),
        ("drivers/corpus-races/nolock_race.c", "b.c"),
        ("drivers/corpus/misc_nvram.c", "c.c"),
    ] {
        copy(&dir, from, name);
    }
    let d = dir.display().to_string();
    let one = racewatch(&["check", "--no-cache", "--format", "json", "-j", "1", &d], &[]);
    let two = racewatch(&["check", "--no-cache", "--format", "json", "-j", "2", &d], &[]);
    assert_eq!(one.status.code(), two.status.code());
    assert_eq!(verdicts_only(json(&one)), verdicts_only(json(&two)));
}
