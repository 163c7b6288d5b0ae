//! The result files of `check`: `--format sarif`, `--pairs-xml` and
//! `--output`, end to end (docs/output.md).
//!
//! SARIF logs are validated against the official SARIF 2.1.0 JSON schema
//! (tests/data/sarif-schema-2.1.0.json, with `format` keywords checked);
//! a broken log must fail that validation, so the check cannot pass
//! vacuously. The race corpus is verified three times in all: as JSON
//! with `--precise` (the reference: its lockset verdicts are those of a
//! run without `--precise`), as SARIF with `--precise` and its pair file,
//! and as SARIF without it and its pair file. Each log and pair file is
//! compared with the JSON: one result per race, both accesses among the
//! related locations, code flows exactly on the confirmed races, an
//! unknown notification per unknown region, and each pair's `bug`. A
//! small batch with a syntax error, a missing header, a missing path and
//! an unsupported construct covers the notifications. Result files are
//! written atomically: a path in a missing directory or a directory as
//! the target is an error (exit code 2) that leaves nothing behind, and an
//! existing file is replaced only by a complete report.

use quick_xml::Reader;
use quick_xml::events::Event;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Runs racewatch in the repository, so that corpus paths are relative.
fn racewatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_racewatch"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("run racewatch")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("racewatch-sarif-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in a directory.
fn listing(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

const CORPUS: &str = "drivers/corpus-races";

/// Seconds per solver query in the corpus runs, generous so that a loaded
/// machine does not turn a verdict into a timeout in one run of three.
const TIMEOUT: &str = "60";

/// The official schema, compiled once, checking `format` keywords.
fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json");
        let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        // The official schema's pattern for `language` (of a run and of a
        // tool component) has a lone `]`, which JavaScript regular
        // expressions accept as a literal outside Unicode mode but the
        // validator's stricter check of the `regex` format refuses,
        // refusing the whole schema; escaping it keeps its meaning.
        // racewatch never writes `language`.
        for holder in ["run", "toolComponent"] {
            let language = &mut schema["definitions"][holder]["properties"]["language"]["pattern"];
            assert_eq!(language, &json!("^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$"), "the vendored schema changed");
            *language = json!("^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$");
        }
        jsonschema::draft7::options().should_validate_formats(true).build(&schema).expect("the SARIF schema compiles")
    })
}

/// Every way `log` breaks the schema, as text.
fn schema_errors(log: &Value) -> Vec<String> {
    validator().iter_errors(log).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

fn assert_valid(log: &Value) {
    let errors = schema_errors(log);
    assert!(errors.is_empty(), "the log breaks the SARIF 2.1.0 schema:\n{}", errors.join("\n"));
}

/// Runs `check` with `args` writing its report to a scratch file with
/// `--output`, and the pair file next to it; returns the exit code, the
/// report and the pair file.
fn check_to_files(name: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let dir = scratch(name);
    let (report, pairs) = (dir.join("report"), dir.join("pairs.xml"));
    let (report_arg, pairs_arg) = (report.display().to_string(), pairs.display().to_string());
    let mut all = vec!["check", "-j", "2", "-o", &report_arg, "--pairs-xml", &pairs_arg];
    all.extend_from_slice(args);
    let o = racewatch(&all);
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "the report went to the file");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}\n{}", p.display(), stderr(&o)));
    let texts = (read(&report), read(&pairs));
    assert_eq!(listing(&dir), BTreeSet::from(["report".to_string(), "pairs.xml".to_string()]), "no temporary file left");
    std::fs::remove_dir_all(&dir).unwrap();
    (o.status.code(), texts.0, texts.1)
}

/// The corpus as JSON with `--precise`.
fn corpus_json() -> &'static Value {
    static JSON: OnceLock<Value> = OnceLock::new();
    JSON.get_or_init(|| {
        let o = racewatch(&["check", "--format", "json", "--precise", "-j", "2", "--timeout", TIMEOUT, CORPUS]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    })
}

/// The corpus as SARIF and its pair file, with or without `--precise`.
fn corpus_sarif(precise: bool) -> &'static (Value, String) {
    static LOCKSET: OnceLock<(Value, String)> = OnceLock::new();
    static PRECISE: OnceLock<(Value, String)> = OnceLock::new();
    let run = || {
        let mut args = vec!["--format", "sarif", "--timeout", TIMEOUT, CORPUS];
        if precise {
            args.insert(0, "--precise");
        }
        let (code, report, pairs) = check_to_files(if precise { "corpus-precise" } else { "corpus-lockset" }, &args);
        assert_eq!(code, Some(1));
        (serde_json::from_str(&report).expect("SARIF is JSON"), pairs)
    };
    if precise { PRECISE.get_or_init(run) } else { LOCKSET.get_or_init(run) }
}

/// One region of the JSON reference, by (file, first, second, region).
type Key = (String, String, String, String);

fn json_regions(doc: &Value) -> BTreeMap<Key, &Value> {
    let mut out = BTreeMap::new();
    for file in doc["files"].as_array().unwrap() {
        for pair in file["pairs"].as_array().into_iter().flatten() {
            for region in pair["regions"].as_array().unwrap() {
                let key = (
                    file["file"].as_str().unwrap().to_string(),
                    pair["first"].as_str().unwrap().to_string(),
                    pair["second"].as_str().unwrap().to_string(),
                    region["region"].as_str().unwrap().to_string(),
                );
                out.insert(key, region);
            }
        }
    }
    out
}

/// The key of a SARIF result or unknown notification.
fn sarif_key(item: &Value) -> Key {
    let file = item["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap().to_string();
    let eps = &item["properties"]["entryPoints"];
    let name = |v: &Value| v.as_str().unwrap().to_string();
    (file, name(&eps[0]), name(&eps[1]), name(&item["properties"]["region"]))
}

/// The unknown notifications of a log, and the file errors as (file,
/// class).
fn notifications(log: &Value) -> (Vec<&Value>, Vec<(String, String)>) {
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], json!(true));
    let all = invocation["toolExecutionNotifications"].as_array().unwrap();
    let of = |id: &'static str| all.iter().filter(move |n| n["descriptor"]["id"] == json!(id));
    let errors = of("file-error")
        .map(|n| (n["properties"]["file"].as_str().unwrap().to_string(), n["properties"]["class"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(all.len(), of("unknown").count() + of("file-error").count(), "every notification has a known descriptor");
    (of("unknown").collect(), errors)
}

/// Checks a corpus log against the JSON verdicts; returns how many
/// confirmed races carried a code flow.
fn compare_with_json(log: &Value, precise: bool) -> usize {
    assert_valid(log);
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], json!("racewatch"));
    assert_eq!(run["tool"]["driver"]["version"], json!(env!("CARGO_PKG_VERSION")));
    assert_eq!(run["tool"]["driver"]["rules"][0]["id"], json!("data-race"));
    let reference = json_regions(corpus_json());
    let all = run["results"].as_array().unwrap();
    // Besides the races, the corpus has one violated lock annotation
    // (annotheld_race.c), a result of its own rule.
    let annotations: Vec<&Value> = all.iter().filter(|r| r["ruleId"] == json!("lock-annotation")).collect();
    assert_eq!(annotations.len(), 1, "one violated lock annotation in the race corpus");
    assert_eq!(annotations[0]["level"], json!("warning"));
    let results: Vec<Value> = all.iter().filter(|r| r["ruleId"] == json!("data-race")).cloned().collect();
    let confirmed_of = |r: &Value| r["precise"]["verdict"] == json!("confirmed");
    let expected: BTreeSet<&Key> = reference
        .iter()
        .filter(|(_, r)| r["verdict"] == json!("race") || (precise && confirmed_of(r)))
        .map(|(k, _)| k)
        .collect();
    let races: usize = corpus_json()["files"].as_array().unwrap().iter().map(|f| f["totals"]["races"].as_u64().unwrap() as usize).sum();
    if !precise {
        assert_eq!(results.len(), races, "one result per race of the JSON");
    }
    assert_eq!(results.len(), expected.len(), "one result per reported race");
    let mut seen = BTreeSet::new();
    let mut flows = 0;
    for result in &results {
        let key = sarif_key(result);
        let region = reference.get(&key).unwrap_or_else(|| panic!("{key:?} is no region of the JSON"));
        assert!(expected.contains(&key), "{key:?}: a result, but {region}");
        assert!(seen.insert(key.clone()), "{key:?}: two results");
        assert_eq!(result["ruleId"], json!("data-race"));
        let related = result["relatedLocations"].as_array().unwrap();
        let place = |l: &Value| {
            let p = &l["physicalLocation"];
            (p["artifactLocation"]["uri"].as_str().unwrap().to_string(), p["region"]["startLine"].as_u64().unwrap())
        };
        let places: Vec<(String, u64)> = related.iter().map(place).collect();
        for access in region["accesses"].as_array().into_iter().flatten() {
            let at = (access["location"]["file"].as_str().unwrap().to_string(), access["location"]["line"].as_u64().unwrap());
            assert!(places.contains(&at), "{key:?}: access at {at:?} not among {places:?}");
        }
        // Every related location is linked from the message by its id.
        let text = result["message"]["text"].as_str().unwrap();
        for l in related {
            assert!(text.contains(&format!("]({})", l["id"])), "{key:?}: location {} not linked from {text}", l["id"]);
        }
        let confirmed = precise && confirmed_of(region);
        assert_eq!(result["level"], json!(if confirmed { "error" } else { "warning" }), "{key:?}");
        assert_eq!(result.get("codeFlows").is_some(), confirmed, "{key:?}: code flows exactly for confirmed races");
        if confirmed {
            check_code_flow(&key, &result["codeFlows"][0], result);
            flows += 1;
        }
    }
    // Every unknown region is a notification, and nothing else is.
    let (unknowns, errors) = notifications(log);
    assert!(errors.is_empty(), "{errors:?}");
    let unknown_keys: BTreeSet<Key> = unknowns.iter().map(|n| sarif_key(n)).collect();
    let expected_unknown: BTreeSet<Key> = reference
        .iter()
        .filter(|(_, r)| r["verdict"] == json!("unknown") && !(precise && confirmed_of(r)))
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(unknown_keys, expected_unknown);
    flows
}

/// A code flow's shape: one thread flow per thread that ran, in thread
/// order; the steps of all of them numbered 1..=n in execution order,
/// increasing within each; the racing access (the result's first
/// location) marked essential. The witness itself is not compared with
/// the JSON run's: two runs may find different interleavings.
fn check_code_flow(key: &Key, flow: &Value, result: &Value) {
    let threads = flow["threadFlows"].as_array().unwrap();
    let ids: Vec<&str> = threads.iter().map(|t| t["id"].as_str().unwrap()).collect();
    let mut expected_ids = vec!["init", "thread-1", "thread-2"];
    expected_ids.retain(|id| ids.contains(id));
    assert_eq!(ids, expected_ids, "{key:?}: known threads in order");
    assert!(ids.contains(&"thread-1") || ids.contains(&"thread-2"), "{key:?}");
    let mut orders = Vec::new();
    for thread in threads {
        let own: Vec<u64> = thread["locations"].as_array().unwrap().iter().map(|l| l["executionOrder"].as_u64().unwrap()).collect();
        assert!(!own.is_empty() && own.windows(2).all(|w| w[0] < w[1]), "{key:?}: {own:?} out of order");
        orders.extend(own);
    }
    orders.sort();
    assert_eq!(orders, (1..=orders.len() as u64).collect::<Vec<_>>(), "{key:?}: every step once");
    let line = |l: &Value| l["physicalLocation"]["region"]["startLine"].as_u64();
    let access_line = line(&result["locations"][0]);
    let essential = threads
        .iter()
        .flat_map(|t| t["locations"].as_array().unwrap())
        .filter(|l| l["importance"] == json!("essential"))
        .any(|l| line(&l["location"]) == access_line);
    assert!(essential, "{key:?}: the racing access is essential");
}

#[test]
fn the_validator_rejects_broken_logs() {
    let o = racewatch(&["check", "--format", "sarif", "drivers/corpus-races/globalcnt_race.c"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let log: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_valid(&log);
    assert!(!log["runs"][0]["results"].as_array().unwrap().is_empty());
    let broken = |change: &dyn Fn(&mut Value)| {
        let mut copy = log.clone();
        change(&mut copy);
        schema_errors(&copy)
    };
    // An invalid enumeration value, a missing required member, a member
    // the schema does not know, a wrong type and (format checked) a URI
    // that is none.
    assert!(!broken(&|l| l["runs"][0]["results"][0]["level"] = json!("fatal")).is_empty(), "an invalid level");
    assert!(!broken(&|l| l["version"] = json!("2.0.0")).is_empty(), "a wrong version");
    assert!(!broken(&|l| l["runs"][0]["tool"]["driver"].as_object_mut().unwrap().remove("name").map(drop).unwrap()).is_empty());
    assert!(!broken(&|l| l["runs"][0]["results"][0]["racewatch"] = json!(1)).is_empty(), "an unknown member");
    assert!(!broken(&|l| l["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = json!(0)).is_empty());
    let uri = |l: &mut Value| l["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = json!("a b\\c");
    assert!(!broken(&uri).is_empty(), "a malformed URI (format keywords are checked)");
    let base = |l: &mut Value| l["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] = json!("not a uri");
    assert!(!broken(&base).is_empty(), "a malformed base URI");
}

#[test]
fn lockset_sarif_of_the_race_corpus_matches_the_json() {
    let (log, _) = corpus_sarif(false);
    assert_eq!(compare_with_json(log, false), 0, "no code flow without --precise");
    // Relative paths stay relative to the working directory.
    let base = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap();
    assert!(base.starts_with("file:///") && base.ends_with('/'), "{base}");
    let first = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(first["uriBaseId"], json!("%SRCROOT%"));
    assert!(first["uri"].as_str().unwrap().starts_with("drivers/corpus-races/"), "{first}");
}

#[test]
fn precise_sarif_of_the_race_corpus_carries_the_witnesses() {
    let (log, _) = corpus_sarif(true);
    let flows = compare_with_json(log, true);
    assert!(flows >= 10, "the corpus has confirmed races: {flows} code flows");
    assert!(log["runs"][0]["properties"]["precise"]["k"].is_u64());
}

/// A `<driver>` of the pair file: its attributes and its `(ep1, ep2, bug)`.
type Driver = (BTreeMap<String, String>, Vec<(String, String, String)>);

/// The pair file: `<drivers><driver name file [error]><pair ep1 ep2 bug/>`,
/// by `file`.
fn parse_pairs(text: &str) -> BTreeMap<String, Driver> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().trim_text(true);
    let mut drivers = BTreeMap::new();
    let mut stack: Vec<String> = Vec::new();
    let mut current = None;
    loop {
        let event = reader.read_event().unwrap_or_else(|e| panic!("not well-formed: {e}"));
        let (element, empty) = match &event {
            Event::Start(e) => (e.clone(), false),
            Event::Empty(e) => (e.clone(), true),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Eof => break,
            Event::Decl(_) => continue,
            other => panic!("unexpected {other:?}"),
        };
        let name = String::from_utf8(element.name().as_ref().to_vec()).unwrap();
        let attrs: BTreeMap<String, String> = element
            .attributes()
            .map(|a| {
                let a = a.unwrap();
                (String::from_utf8(a.key.as_ref().to_vec()).unwrap(), a.unescape_value().unwrap().into_owned())
            })
            .collect();
        match (stack.last().map(String::as_str), name.as_str()) {
            (None, "drivers") => {}
            (Some("drivers"), "driver") => {
                let keys: BTreeSet<&str> = attrs.keys().map(String::as_str).collect();
                assert!(keys == BTreeSet::from(["name", "file"]) || keys == BTreeSet::from(["name", "file", "error"]), "{attrs:?}");
                current = Some(attrs["file"].clone());
                drivers.insert(attrs["file"].clone(), (attrs, Vec::new()));
            }
            (Some("driver"), "pair") => {
                assert_eq!(attrs.len(), 3, "{attrs:?}");
                let driver = drivers.get_mut(current.as_ref().unwrap()).unwrap();
                assert!(!driver.0.contains_key("error"), "a failed file has no pairs");
                driver.1.push((attrs["ep1"].clone(), attrs["ep2"].clone(), attrs["bug"].clone()));
            }
            (parent, name) => panic!("<{name}> inside {parent:?} is not in the pair file"),
        }
        if !empty {
            stack.push(name);
        }
    }
    assert!(stack.is_empty());
    drivers
}

/// The pair file of a corpus run against the JSON verdicts.
fn compare_pairs_with_json(text: &str, precise: bool) {
    let drivers = parse_pairs(text);
    let files = corpus_json()["files"].as_array().unwrap();
    assert_eq!(drivers.len(), files.len());
    let mut bugs = BTreeMap::<String, usize>::new();
    for file in files {
        let path = file["file"].as_str().unwrap();
        let (attrs, pairs) = &drivers[path];
        assert_eq!(attrs["name"], path.rsplit('/').next().unwrap());
        let expected: Vec<(String, String, String)> = file["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let regions = p["regions"].as_array().unwrap();
                let verdict = |r: &Value| r["verdict"].as_str().unwrap().to_string();
                // A race is reported: confirmed with --precise, a lockset
                // race without.
                let reported = |r: &Value| if precise { r["precise"]["verdict"] == json!("confirmed") } else { verdict(r) == "race" };
                let bug = if regions.iter().all(|r| verdict(r) == "proven") {
                    "false"
                } else if regions.iter().any(reported) {
                    "true"
                } else {
                    "unknown"
                };
                let name = |k: &str| p[k].as_str().unwrap().to_string();
                (name("first"), name("second"), bug.to_string())
            })
            .collect();
        assert_eq!(pairs, &expected, "{path}");
        for (_, _, bug) in pairs {
            *bugs.entry(bug.clone()).or_default() += 1;
        }
    }
    assert!(bugs["true"] > 0 && bugs["false"] > 0, "{bugs:?}");
}

#[test]
fn lockset_pair_file_matches_the_json() {
    compare_pairs_with_json(&corpus_sarif(false).1, false);
}

#[test]
fn precise_pair_file_matches_the_json() {
    compare_pairs_with_json(&corpus_sarif(true).1, true);
}

/// A driver whose computed goto makes its pairs unknown.
const UNSUPPORTED: &str = r#"
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(ug_lock);
static int ug_count;

static long ug_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	static void *targets[] = { &&one, &&two };

	mutex_lock(&ug_lock);
	ug_count++;
	mutex_unlock(&ug_lock);
	goto *targets[cmd & 1];
one:
	return 1;
two:
	return 2;
}

static ssize_t ug_write(struct file *f, const char __user *buf, size_t n, loff_t *pos)
{
	mutex_lock(&ug_lock);
	ug_count = 0;
	mutex_unlock(&ug_lock);
	return n;
}

static const struct file_operations ug_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = ug_ioctl,
	.write = ug_write,
};

static struct miscdevice ug_dev = { .minor = MISC_DYNAMIC_MINOR, .name = "ug", .fops = &ug_fops };
module_misc_device(ug_dev);
MODULE_LICENSE("GPL");
"#;

#[test]
fn failed_files_and_unknowns_are_notifications() {
    let dir = scratch("batch");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let syntax = write("syntax.c", "int f(void) { return 1 +; }\n");
    let header = write("header.c", "#include <linux/no_such_header_anywhere.h>\nint x;\n");
    let unknown = write("unknown.c", UNSUPPORTED);
    let missing = dir.join("missing.c").display().to_string();
    let race = "drivers/corpus-races/globalcnt_race.c";
    let (code, report, pairs) = check_to_files("batch-out", &["--format", "sarif", &syntax, race, &header, &missing, &unknown]);
    assert_eq!(code, Some(2), "a failed file is an error");
    let log: Value = serde_json::from_str(&report).unwrap();
    assert_valid(&log);
    let (unknowns, errors) = notifications(&log);
    let errors: BTreeSet<(String, String)> = errors.into_iter().collect();
    let expected: BTreeSet<(String, String)> = [(&syntax, "parse-error"), (&header, "missing-header"), (&missing, "missing-file")]
        .into_iter()
        .map(|(f, c)| (f.clone(), c.to_string()))
        .collect();
    assert_eq!(errors, expected);
    assert!(!unknowns.is_empty(), "the computed goto leaves regions unknown");
    for n in &unknowns {
        assert!(sarif_key(n).0.ends_with("unknown.c"), "{n}");
        assert_eq!(n["level"], json!("warning"));
    }
    // Files outside the working directory are absolute file URIs; the
    // rest of the batch is reported.
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.iter().all(|r| sarif_key(r).0 == race));
    let all = log["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
    for n in all {
        let uri = n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap();
        assert!(uri.starts_with("file:///"), "{uri}");
    }
    // The pair file: the failed files with their class and no pairs.
    let drivers = parse_pairs(&pairs);
    for (file, class) in &expected {
        assert_eq!(drivers[file].0.get("error"), Some(class), "{file}");
    }
    assert!(drivers[&unknown].1.iter().all(|(_, _, bug)| bug != "true"));
    assert!(drivers[&unknown].1.iter().any(|(_, _, bug)| bug == "unknown"));
    assert!(drivers[race].1.iter().any(|(_, _, bug)| bug == "true"));
    std::fs::remove_dir_all(&dir).unwrap();
}

const SMALL: &str = "drivers/corpus-races/globalcnt_fixed.c";

#[test]
fn a_report_in_a_missing_directory_is_an_error_that_leaves_nothing() {
    let dir = scratch("missing-dir");
    let target = dir.join("no-such-dir").join("report.sarif");
    let target_arg = target.display().to_string();
    for option in ["-o", "--output", "--pairs-xml"] {
        let o = racewatch(&["check", "--format", "sarif", option, &target_arg, SMALL]);
        assert_eq!(o.status.code(), Some(2), "{option}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&format!("{target_arg}: error: cannot write")), "{option}: {err}");
        assert!(listing(&dir).is_empty(), "{option}: nothing created");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_existing_report_is_replaced_only_by_a_complete_one() {
    let dir = scratch("replace");
    let target = dir.join("report.txt");
    std::fs::write(&target, "old report\n").unwrap();
    let target_arg = target.display().to_string();
    // Success: the new report replaces the old one, with nothing else
    // left in the directory, and equals what stdout would have shown.
    let to_file = racewatch(&["check", "-o", &target_arg, SMALL]);
    assert_eq!(to_file.status.code(), Some(0), "{}", stderr(&to_file));
    assert!(to_file.stdout.is_empty());
    let to_stdout = racewatch(&["check", SMALL]);
    assert_eq!(std::fs::read(&target).unwrap(), to_stdout.stdout);
    assert_eq!(listing(&dir), BTreeSet::from(["report.txt".to_string()]));
    // A target that cannot be replaced (a directory): exit code 2, the
    // directory and its contents untouched, no temporary file left.
    let blocked = dir.join("blocked");
    std::fs::create_dir(&blocked).unwrap();
    std::fs::write(blocked.join("inside"), "kept").unwrap();
    let o = racewatch(&["check", "--format", "json", "-o", &blocked.display().to_string(), SMALL]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write the report"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(blocked.join("inside")).unwrap(), "kept");
    assert_eq!(listing(&dir), BTreeSet::from(["report.txt".to_string(), "blocked".to_string()]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unmodelled_callback_structures_are_warnings_at_their_initialiser() {
    // A driver storing `my_poke` in a kernel structure no model describes:
    // one `unmodelled-ops` result at the initialiser, next to the races of
    // the modelled entry points.
    let dir = scratch("unmodelled");
    std::fs::create_dir_all(dir.join("kinc")).unwrap();
    std::fs::create_dir_all(dir.join("drv")).unwrap();
    std::fs::write(dir.join("kinc/gadget.h"), "struct gadget_ops { int (*poke)(int); };\nint gadget_register(const struct gadget_ops *);\n").unwrap();
    let driver = dir.join("drv/gadget.c");
    std::fs::write(
        &driver,
        "#include \"../kinc/gadget.h\"\n#include <linux/module.h>\nstatic int cnt;\nstatic int my_poke(int x) { cnt++; return x; }\nstatic const struct gadget_ops ops = { .poke = my_poke };\nstatic int __init m_init(void) { cnt = 1; return gadget_register(&ops); }\nmodule_init(m_init);\nMODULE_LICENSE(\"GPL\");\n",
    )
    .unwrap();
    let driver = driver.display().to_string();
    let race = "drivers/corpus-races/globalcnt_race.c";
    let (code, report, _) = check_to_files("unmodelled-out", &["--format", "sarif", &driver, race]);
    assert_eq!(code, Some(1));
    let log: Value = serde_json::from_str(&report).unwrap();
    assert_valid(&log);
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["rules"][1]["id"], json!("unmodelled-ops"));
    let results = run["results"].as_array().unwrap();
    let unmodelled: Vec<&Value> = results.iter().filter(|r| r["ruleId"] == json!("unmodelled-ops")).collect();
    assert_eq!(unmodelled.len(), 1, "{results:?}");
    let u = unmodelled[0];
    assert_eq!(u["ruleIndex"], json!(1));
    assert_eq!(u["level"], json!("warning"));
    let place = &u["locations"][0]["physicalLocation"];
    assert!(place["artifactLocation"]["uri"].as_str().unwrap().ends_with("drv/gadget.c"), "{u}");
    assert_eq!(place["region"]["startLine"], json!(5), "{u}");
    assert_eq!(u["properties"]["record"], json!("gadget_ops"));
    assert!(u["message"]["text"].as_str().unwrap().contains("struct gadget_ops (poke)"), "{u}");
    // The race driver's results are still there, and only races.
    assert!(results.iter().any(|r| r["ruleId"] == json!("data-race") && sarif_key(r).0 == race));
    assert!(results.iter().filter(|r| r["ruleId"] == json!("data-race")).all(|r| sarif_key(r).0 == race));
    std::fs::remove_dir_all(&dir).unwrap();
}
