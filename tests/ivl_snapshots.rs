//! Snapshot tests of the lowering of C into the IVL: every `tests/ivl/*.c`
//! is lowered with `Roots::AllDefined` (every function the file defines),
//! the program is validated (release builds skip the lowering's own
//! check), and the printed program followed by the approximation warnings
//! (one `// warning: …` line each) is compared with `tests/ivl/NAME.ivl`.
//!
//! A file's first line chooses its flags: `// flags: plain` (no kernel
//! headers) or `// flags: kernel` (the real Linux 6.12 headers set-up
//! extracted). Every mismatch is reported at once, each with a line diff.
//! `RACEWATCH_BLESS=1 cargo test --test ivl_snapshots` writes the snapshots
//! instead (read them before committing: a snapshot is only as right as the
//! lowering it records).

use racewatch::diagnostics::{Diagnostic, Span, render_diagnostic};
use racewatch::frontend::flags::{FlagOptions, FlagSource};
use racewatch::frontend::lower::Roots;
use racewatch::ir::validate;
use racewatch::models::KernelModels;
use racewatch::pipeline::Session;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/ivl")
}

fn blessing() -> bool {
    std::env::var_os("RACEWATCH_BLESS").is_some_and(|v| v == "1")
}

/// Which flags a snapshot's C file asks for on its first line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flags {
    Plain,
    Kernel,
}

fn flags_of(text: &str) -> Result<Flags, String> {
    match text.lines().next().map(str::trim) {
        Some("// flags: plain") => Ok(Flags::Plain),
        Some("// flags: kernel") => Ok(Flags::Kernel),
        other => Err(format!("the first line must be `// flags: plain` or `// flags: kernel`, found {other:?}")),
    }
}

fn session(flags: Flags) -> Result<Session, String> {
    let options = FlagOptions { no_kernel: flags == Flags::Plain, ..FlagOptions::default() };
    let source = match flags {
        Flags::Plain => FlagSource::Plain,
        Flags::Kernel => FlagSource::resolve(&options)
            .map_err(|e| format!("{e}\nthe kernel snapshots need the kernel headers: run scripts/setup.sh"))?,
    };
    let models = KernelModels::embedded().map_err(|e| format!("built-in models: {e:?}"))?;
    Ok(Session { models, options, source, jobs: 1 })
}

/// A span naming its file by file name only, so that snapshots do not
/// depend on where the repository is checked out.
fn short_span(span: &Span) -> Span {
    let name = span.file.file_name().map(Path::new).unwrap_or(&span.file);
    Span { file: Arc::from(name), line: span.line, column: span.column }
}

fn render_warning(d: &Diagnostic) -> String {
    let mut d = d.clone();
    d.span = d.span.as_ref().map(short_span);
    for (_, span) in &mut d.notes {
        *span = span.as_ref().map(short_span);
    }
    let mut out = String::new();
    for (i, line) in render_diagnostic(&d).lines().enumerate() {
        let prefix = if i == 0 { "// warning: " } else { "//   " };
        let _ = writeln!(out, "{prefix}{line}");
    }
    out
}

/// The snapshot text of one C file.
fn snapshot(session: &Session, file: &Path) -> Result<String, String> {
    let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| session.lower(file, Roots::AllDefined)))
        .map_err(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic without a message".into());
            format!("the lowering panicked: {message}")
        })?
        .map(|(_, lowered, _)| lowered)
        .map_err(|e| format!("the file could not be lowered: {e}"))?;
    // Release builds skip the lowering's own validation: run it here.
    if let Err(errors) = validate(&lowered.program) {
        let errors: Vec<String> = errors.iter().map(|e| format!("  {e}")).collect();
        return Err(format!("the lowered program is malformed:\n{}", errors.join("\n")));
    }
    let mut out = format!("{}", lowered.program);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for w in &lowered.warnings {
        out.push_str(&render_warning(w));
    }
    Ok(out)
}

/// A line diff of `expected` against `actual` (longest common subsequence),
/// with two lines of context around each change.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    // The edit script: (tag, expected line number, text).
    let mut script: Vec<(char, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            script.push((' ', i + 1, a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            script.push(('-', i + 1, a[i]));
            i += 1;
        } else {
            script.push(('+', i + 1, b[j]));
            j += 1;
        }
    }
    const CONTEXT: usize = 2;
    let changed: Vec<usize> = script.iter().enumerate().filter(|(_, (t, _, _))| *t != ' ').map(|(k, _)| k).collect();
    let mut out = String::new();
    let mut last_shown: Option<usize> = None;
    for (k, (tag, line, text)) in script.iter().enumerate() {
        let near = changed.iter().any(|&c| c.abs_diff(k) <= CONTEXT);
        if !near {
            continue;
        }
        if last_shown.is_none_or(|l| l + 1 != k) {
            let _ = writeln!(out, "    @@ expected line {line} @@");
        }
        let _ = writeln!(out, "    {tag} {text}");
        last_shown = Some(k);
    }
    if expected.ends_with('\n') != actual.ends_with('\n') {
        let _ = writeln!(out, "    (the final newline differs)");
    }
    out
}

#[test]
fn lowering_matches_the_ivl_snapshots() {
    let dir = snapshot_dir();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    let c_files: Vec<&PathBuf> = entries.iter().filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    assert!(!c_files.is_empty(), "no snapshot tests in {}", dir.display());
    let bless = blessing();
    let mut sessions: Vec<(Flags, Result<Session, String>)> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    let mut blessed = 0usize;

    // Snapshots whose C file is gone.
    for ivl in entries.iter().filter(|p| p.extension().is_some_and(|e| e == "ivl")) {
        if !ivl.with_extension("c").exists() {
            if bless {
                std::fs::remove_file(ivl).unwrap_or_else(|e| panic!("{}: {e}", ivl.display()));
            } else {
                problems.push(format!("{}: a snapshot without its .c file (delete it)", ivl.display()));
            }
        }
    }

    for file in &c_files {
        let name = file.file_name().expect("a file name").to_string_lossy().into_owned();
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let flags = match flags_of(&text) {
            Ok(f) => f,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        if !sessions.iter().any(|(f, _)| *f == flags) {
            sessions.push((flags, session(flags)));
        }
        let session = match &sessions.iter().find(|(f, _)| *f == flags).expect("just added").1 {
            Ok(s) => s,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let actual = match snapshot(session, file) {
            Ok(a) => a,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        let ivl = file.with_extension("ivl");
        if bless {
            let old = std::fs::read_to_string(&ivl).ok();
            if old.as_deref() != Some(actual.as_str()) {
                std::fs::write(&ivl, &actual).unwrap_or_else(|e| panic!("{}: {e}", ivl.display()));
                blessed += 1;
            }
            continue;
        }
        match std::fs::read_to_string(&ivl) {
            Ok(expected) => {
                let expected = expected.replace("\r\n", "\n");
                if expected != actual {
                    problems.push(format!("{name}: the lowering differs from {} (- expected, + actual):\n{}", ivl.display(), diff(&expected, &actual)));
                }
            }
            Err(_) => problems.push(format!("{name}: no snapshot {} (write it with RACEWATCH_BLESS=1, then read it)", ivl.display())),
        }
    }
    if bless {
        eprintln!("blessed {blessed} of {} snapshots", c_files.len());
    } else {
        eprintln!("checked {} snapshots", c_files.len());
    }
    assert!(
        problems.is_empty(),
        "{} snapshot problem(s):\n{}\n(if the new lowering is right, rerun with RACEWATCH_BLESS=1 and review the .ivl diff)",
        problems.len(),
        problems.join("\n")
    );
}
