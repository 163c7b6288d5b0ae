//! Multi-file modules as one unit (docs/expectations.md): every directory
//! of drivers/corpus-modules/ holds a Makefile composing one module from
//! several files, and its expectations are the `@expect` lines of all its
//! files. The unit is checked from its first file, as `racewatch check`
//! does for any member: the lockset races must be exactly the `@expect
//! race` lines (each access of a real race on a line marked `@racy` in the
//! file the access names), every `@expect proven` pair proven, nothing
//! unknown; each race of a `*_race` module confirmed by the precise phase
//! with its witness on `@racy` lines; a `*_fixed` twin proven entirely.
//! And `racewatch check` on a member file or the directory analyses the
//! whole module, once, and says so.

#[allow(dead_code)]
mod support;

use racewatch::precise::{Options as PreciseOptions, PreciseVerdict};
use racewatch::verify::run::Options;
use racewatch::verify::verdict::Verdict;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The module directories of the corpus, sorted.
fn units() -> Vec<PathBuf> {
    let dir = repo().join("drivers/corpus-modules");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.join("Makefile").is_file()).collect();
    out.sort();
    out
}

/// The C files of a unit, sorted.
fn members(unit: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(unit).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    out.sort();
    out
}

type Race = (String, String, String);

/// The `race`, `proven` and `confirmed` lines of every file of a unit, and
/// the `@racy` lines of each file.
fn expectations(unit: &Path) -> (BTreeSet<Race>, BTreeSet<(String, String)>, BTreeSet<Race>, BTreeSet<(PathBuf, u32)>) {
    let (mut races, mut proven, mut confirmed, mut racy) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for file in members(unit) {
        let text = std::fs::read_to_string(&file).unwrap();
        let name: PathBuf = file.file_name().unwrap().into();
        racy.extend((1..).zip(text.lines()).filter(|(_, l)| l.contains("@racy")).map(|(n, _)| (name.clone(), n)));
        // A file of a module may expect nothing itself.
        if !text.contains("@expect") {
            continue;
        }
        let e = support::expectations::parse(&text, false).unwrap_or_else(|m| panic!("{}: {m}", file.display()));
        for (directive, words) in &e.later {
            match (directive.as_str(), words.as_slice()) {
                ("race", [a, b, r]) => {
                    races.insert((a.clone(), b.clone(), r.clone()));
                }
                ("confirmed", [a, b, r]) => {
                    confirmed.insert((a.clone(), b.clone(), r.clone()));
                }
                ("proven", [a, b]) => {
                    proven.insert((a.clone(), b.clone()));
                }
                _ => panic!("{}: unsupported @expect {directive} {words:?}", file.display()),
            }
        }
    }
    (races, proven, confirmed, racy)
}

fn file_name(span: &Option<racewatch::diagnostics::Span>) -> Option<(PathBuf, u32)> {
    span.as_ref().map(|s| (PathBuf::from(s.file.file_name().unwrap_or_default()), s.line))
}

#[test]
fn module_units_meet_their_race_expectations() {
    let session = support::session(2);
    let options = Options::default();
    let mut problems = Vec::new();
    let all = units();
    assert!(all.len() >= 2, "the module corpus must hold a racy module and its fixed twin");
    for unit in &all {
        let name = unit.file_name().unwrap().to_string_lossy().into_owned();
        let (want, proven, confirmed, racy) = expectations(unit);
        let racy_unit = name.ends_with("_race");
        if racy_unit && (want.is_empty() || confirmed != want) {
            problems.push(format!("{name}: a racy module expects races, each confirmed"));
        }
        if name.ends_with("_fixed") && (!want.is_empty() || proven.is_empty()) {
            problems.push(format!("{name}: a fixed module expects no race and some proven pair"));
        }
        if racy_unit && !all.iter().any(|u| u.file_name().unwrap().to_string_lossy() == name.replace("_race", "_fixed")) {
            problems.push(format!("{name}: no fixed twin"));
        }
        let first = members(unit).into_iter().next().unwrap();
        let precise = PreciseOptions::default();
        let (pairs, precise) = match racewatch::cli::check_file_precise_verdicts(&session, &first, &options, &precise) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let mut got = BTreeSet::new();
        for pair in &pairs {
            for (region, verdict) in &pair.regions {
                match verdict {
                    Verdict::Race(accesses) => {
                        for a in accesses.iter() {
                            let at = file_name(&a.span);
                            if !at.as_ref().is_some_and(|x| racy.contains(x)) {
                                problems.push(format!("{name}: {} {} {region:?}: access at {at:?} is not marked @racy", pair.first, pair.second));
                            }
                        }
                        got.insert((pair.first.clone(), pair.second.clone(), region.clone()));
                    }
                    Verdict::Unknown(why) => problems.push(format!("{name}: unknown {} {} {region:?}: {why}", pair.first, pair.second)),
                    Verdict::Proven => {}
                }
            }
            let key = (pair.first.clone(), pair.second.clone());
            if proven.contains(&key) && pair.regions.iter().any(|(_, v)| !matches!(v, Verdict::Proven)) {
                problems.push(format!("{name}: expected {} {} proven", key.0, key.1));
            }
        }
        let formed: BTreeSet<(String, String)> = pairs.iter().map(|p| (p.first.clone(), p.second.clone())).collect();
        for p in proven.difference(&formed) {
            problems.push(format!("{name}: the pair {} {} expected proven is not checked", p.0, p.1));
        }
        for m in want.difference(&got) {
            problems.push(format!("{name}: missed race {} {} {:?}", m.0, m.1, m.2));
        }
        for u in got.difference(&want) {
            problems.push(format!("{name}: unexpected race {} {} {:?}", u.0, u.1, u.2));
        }
        for p in &precise {
            for (region, v) in &p.regions {
                let key = (p.first.clone(), p.second.clone(), region.clone());
                match v {
                    PreciseVerdict::Confirmed(w) if confirmed.contains(&key) => {
                        for step in [Some(&w.access), w.conflict.as_ref()] {
                            let at = step.and_then(|s| file_name(&s.span));
                            if !at.as_ref().is_some_and(|x| racy.contains(x)) {
                                problems.push(format!("{name}: {key:?}: witness step at {at:?} is not marked @racy"));
                            }
                        }
                    }
                    other if confirmed.contains(&key) => problems.push(format!("{name}: {key:?}: expected confirmed, got {}", other.as_str())),
                    _ => {}
                }
            }
        }
        for c in &confirmed {
            let found = precise.iter().any(|p| p.first == c.0 && p.second == c.1 && p.regions.iter().any(|(r, _)| *r == c.2));
            if !found {
                problems.push(format!("{name}: no precise verdict for {c:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

/// `racewatch check` on the second file of a module analyses the module
/// and says so; on the directory, it analyses the module once; and a file
/// alone would not see the race (the race needs the other file's body).
#[test]
fn check_on_a_member_or_the_directory_analyses_the_module() {
    let bin = env!("CARGO_BIN_EXE_racewatch");
    let unit = repo().join("drivers/corpus-modules/twofile_race");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(bin).args(args).current_dir(&unit).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, text) = run(&["check", "--no-cache", "twf_update.c"]);
    assert_eq!(code, Some(1), "a race exits 1:\n{text}");
    assert!(text.contains("twf_update.c: analysed as part of module twofile_race (2 files): twf_main.c, twf_update.c"), "{text}");
    assert!(text.contains("twf_update.c:15:"), "the write is reported in its own file:\n{text}");
    assert!(text.contains("twf_main.c:45:"), "the read is reported in its own file:\n{text}");
    let (_, json) = run(&["check", "--no-cache", "--format", "json", "."]);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "the directory is one module:\n{json}");
    assert_eq!(files[0]["module"]["name"], "twofile_race");
    assert_eq!(files[0]["module"]["files"].as_array().unwrap().len(), 2);
    // The same file with the Makefile gone is analysed alone: twf_update()
    // then has no body, so it is assumed to write what its pointer
    // arguments point to (docs/soundness.md), and the race on d->flags is
    // still reported, as a write of that call.
    let alone = std::env::temp_dir().join(format!("racewatch-module-alone-{}", std::process::id()));
    std::fs::create_dir_all(&alone).unwrap();
    for f in ["twf_main.c", "twf_update.c", "twf.h"] {
        std::fs::copy(unit.join(f), alone.join(f)).unwrap();
    }
    let out = std::process::Command::new(bin).args(["check", "--no-cache", "twf_main.c"]).current_dir(&alone).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    std::fs::remove_dir_all(&alone).unwrap();
    assert_eq!(out.status.code(), Some(1), "alone, the assumed write still races:\n{text}");
    assert!(text.contains("'d->flags (twf_update()) / d->flags'"), "the race names the call that may write:\n{text}");
    assert!(!text.contains("analysed as part of module"), "{text}");
}

/// With `--compile-commands`, each file of the module is parsed with the
/// database's own flags for it, and a part the database does not compile
/// is left out and listed.
#[test]
fn compile_commands_compose_the_module_from_the_database() {
    let bin = env!("CARGO_BIN_EXE_racewatch");
    let dir = std::env::temp_dir().join(format!("racewatch-module-ccdb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Makefile"), "obj-m += two.o\ntwo-y := a.o b.o\ntwo-$(CONFIG_TWO_EXTRA) += c.o\n").unwrap();
    for (file, define) in [("a.c", "FROM_DB_A"), ("b.c", "FROM_DB_B"), ("c.c", "NEVER")] {
        let text = format!("#ifndef {define}\n#error {define} missing\n#endif\nint {}_x;\n", &file[..1]);
        std::fs::write(dir.join(file), text).unwrap();
    }
    let entry = |file: &str, define: &str| {
        format!("{{\"directory\": \"{}\", \"file\": \"{file}\", \"command\": \"cc -D{define} -c -o x.o {file}\"}}", dir.display())
    };
    let db = format!("[{}, {}]", entry("a.c", "FROM_DB_A"), entry("b.c", "FROM_DB_B"));
    std::fs::write(dir.join("compile_commands.json"), db).unwrap();
    let db_path = dir.join("compile_commands.json").display().to_string();
    let out = std::process::Command::new(bin)
        .args(["check", "--no-cache", "--format", "json", "--compile-commands", &db_path, "b.c"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let json = String::from_utf8_lossy(&out.stdout).into_owned();
    std::fs::remove_dir_all(&dir).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let file = &doc["files"][0];
    assert!(file.get("error").is_none(), "each file gets its own flags:\n{json}");
    let names: Vec<String> = file["module"]["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().rsplit('/').next().unwrap().to_string()).collect();
    assert_eq!(names, ["a.c", "b.c"], "{json}");
    assert_eq!(file["module"]["left_out"][0]["part"], "c.c", "{json}");
}
