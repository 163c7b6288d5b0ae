//! Witness text snapshots: the text report of three confirmed corpus
//! races, pinned, so that a change to how witnesses read (objects and
//! fields instead of addresses, the C lines that ran, the two-column
//! interleaving) or to what the search finds shows up in review.
//!
//! `RACEWATCH_BLESS=1 cargo test --release --test witness_snapshots`
//! writes the snapshots anew (tests/witnesses/NAME.txt); review the diff.

use std::path::{Path, PathBuf};

/// The corpus races whose witnesses are pinned: a lost update on a global
/// (globalcnt), an object published before it is initialised
/// (freshpub), and a handler registered in init's loop (initloop).
const FILES: [&str; 3] = ["globalcnt_race.c", "freshpub_race.c", "initloop_race.c"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn snapshot(name: &str) -> PathBuf {
    root().join("tests/witnesses").join(name.replace(".c", ".txt"))
}

fn blessing() -> bool {
    std::env::var_os("RACEWATCH_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn witness_text_matches_the_snapshots() {
    let bin = env!("CARGO_BIN_EXE_racewatch");
    let mut problems = Vec::new();
    for name in FILES {
        let file = format!("drivers/corpus-races/{name}");
        let out = std::process::Command::new(bin).args(["check", "--precise", "--no-cache", "-j", "1", &file]).current_dir(root()).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}: confirmed races exit 1");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        // Readable without the IR: no raw address is printed.
        if let Some(line) = text.lines().find(|l| l.contains(" at 0x")) {
            problems.push(format!("{name}: a raw address in the witness: {line}"));
        }
        assert!(text.contains("| thread 2 ("), "{name}: the interleaving has two columns:\n{text}");
        let path = snapshot(name);
        if blessing() {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(want) if want == text => {}
            Ok(want) => {
                let diff: Vec<String> = want
                    .lines()
                    .zip(text.lines())
                    .enumerate()
                    .filter(|(_, (a, b))| a != b)
                    .take(5)
                    .map(|(i, (a, b))| format!("  line {}:\n    want {a}\n    got  {b}", i + 1))
                    .collect();
                problems.push(format!("{name}: the witness text changed ({} lines now, {} pinned):\n{}", text.lines().count(), want.lines().count(), diff.join("\n")));
            }
            Err(e) => problems.push(format!("{name}: no snapshot at {} ({e}); bless with RACEWATCH_BLESS=1", path.display())),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
