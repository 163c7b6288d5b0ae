//! The command line as a user meets it: bad input of every kind gets one
//! clear line naming the file (and clang's file:line:col for C errors), exit
//! code 2 and no panic; the flag sources and the XML outputs work.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn racewatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_racewatch")).args(args).output().expect("run racewatch")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("racewatch-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, contents: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p.display().to_string()
}

/// Exit code 2, no panic, and exactly one error line that names `needle`.
fn assert_one_clean_error(o: &Output, needle: &str, class: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "exit code; stderr:\n{err}");
    assert!(!err.contains("panicked"), "panic:\n{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "expected one line, got:\n{err}");
    assert!(lines[0].contains(needle), "the error should name {needle}: {err}");
    assert!(lines[0].contains(&format!("[{class}]")), "the error should be of class {class}: {err}");
}

const MODULE: &str = "#include <linux/module.h>\nstatic int __init m_init(void) { return 0; }\nmodule_init(m_init);\nMODULE_LICENSE(\"GPL\");\n";

#[test]
fn missing_file() {
    let o = racewatch(&["entry-points", "/nonexistent/nvram.c"]);
    assert_one_clean_error(&o, "/nonexistent/nvram.c: error: no such file or directory", "missing-file");
}

#[test]
fn directory_without_c_files() {
    let dir = scratch("no-c");
    write(&dir, "README", b"nothing here\n");
    let o = racewatch(&["entry-points", &dir.display().to_string()]);
    assert_one_clean_error(&o, &dir.display().to_string(), "no-c-files");
}

#[test]
fn non_c_file() {
    let dir = scratch("non-c");
    let f = write(&dir, "notes.txt", b"int x;\n");
    assert_one_clean_error(&racewatch(&["entry-points", &f]), &f, "not-c");
}

#[test]
fn binary_file() {
    let dir = scratch("binary");
    let f = write(&dir, "blob.c", &[0x7f, b'E', b'L', b'F', 0, 0, 1, 2, 3]);
    assert_one_clean_error(&racewatch(&["entry-points", &f]), &f, "not-c");
}

#[test]
fn empty_file() {
    let dir = scratch("empty");
    let f = write(&dir, "empty.c", b"");
    assert_one_clean_error(&racewatch(&["entry-points", &f]), &f, "empty");
}

#[test]
fn syntax_error_names_clangs_location() {
    let dir = scratch("syntax");
    let f = write(&dir, "broken.c", format!("{MODULE}static int oops(void) {{ return 1 }}\n").as_bytes());
    let o = racewatch(&["entry-points", &f]);
    assert_one_clean_error(&o, &format!("{f}:5:33: error: expected ';'"), "parse-error");
}

#[test]
fn missing_header_names_the_include() {
    let dir = scratch("header");
    let f = write(&dir, "needs.c", b"#include <linux/module.h>\n#include <asm/mac_via.h>\nint x;\n");
    let o = racewatch(&["entry-points", &f]);
    assert_one_clean_error(&o, &format!("{f}:2:10: error: 'asm/mac_via.h' file not found"), "missing-header");
}

#[test]
fn unreadable_compile_commands() {
    let dir = scratch("ccdb-bad");
    let db = write(&dir, "compile_commands.json", b"[{\"directory\": \"/tmp\", \"file\": ");
    let o = racewatch(&["entry-points", "--compile-commands", &db]);
    assert_one_clean_error(&o, &db, "flags");
    assert!(stderr(&o).contains("line 1 column"), "serde's position: {}", stderr(&o));
    let missing = dir.join("absent.json").display().to_string();
    assert_one_clean_error(&racewatch(&["entry-points", "--compile-commands", &missing]), &missing, "missing-file");
}

#[test]
fn one_bad_file_does_not_stop_the_others() {
    let dir = scratch("batch");
    let good = write(&dir, "good.c", MODULE.as_bytes());
    let bad = write(&dir, "bad.c", b"int x = ;\n");
    let o = racewatch(&["entry-points", &bad, &good, "/nonexistent.c"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains("m_init  module-init  module_init"), "{}", stdout(&o));
    assert_eq!(stderr(&o).lines().count(), 2, "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    assert_eq!(racewatch(&["entry-points", "--no-such-flag"]).status.code(), Some(2));
    assert_eq!(racewatch(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(racewatch(&["--help"]).status.code(), Some(0));
}

#[test]
fn compile_commands_supplies_each_files_own_flags() {
    // The database's flags decide whether the file parses: the -D and the
    // relative -I must both arrive, and -c/-o/-Wp,-MMD must not disturb.
    let dir = scratch("ccdb");
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    write(&dir, "inc/local.h", b"#define LOCAL_OK 1\n");
    let src = "#include \"local.h\"\n#ifndef FROM_DB\n#error FROM_DB missing\n#endif\nstatic void handler(void) {}\n\
               struct ops { void (*cb)(void); };\nint main(void) { return LOCAL_OK; }\n";
    let f = write(&dir, "tool.c", src.as_bytes());
    let db = format!(
        "[{{\"directory\": \"{}\", \"file\": \"tool.c\", \"command\": \"cc -Wp,-MMD,.tool.o.d -DFROM_DB -Iinc -c -o tool.o tool.c\"}}]",
        dir.display()
    );
    let db_path = write(&dir, "compile_commands.json", db.as_bytes());
    let o = racewatch(&["entry-points", "--compile-commands", &db_path, &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // With no path, every entry of the database is analysed.
    let o = racewatch(&["entry-points", "--compile-commands", &db_path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("tool.c: 0 entry points"), "{}", stdout(&o));
    // A file the database does not know is refused, alone.
    let other = write(&dir, "other.c", b"int y;\n");
    assert_one_clean_error(&racewatch(&["entry-points", "--compile-commands", &db_path, &other]), &other, "flags");
}

#[test]
fn plain_mode_passes_include_and_define_through() {
    let dir = scratch("plain");
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    write(&dir, "inc/p.h", b"#define P 1\n");
    let f = write(&dir, "p.c", b"#include \"p.h\"\n#if !defined(Q) || !P\n#error missing\n#endif\nint x;\n");
    let inc = dir.join("inc").display().to_string();
    let o = racewatch(&["entry-points", "--no-kernel", "-I", &inc, "-D", "Q=2", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = racewatch(&["entry-points", "--no-kernel", &f]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bad_kernel_directory_is_one_clean_error() {
    let dir = scratch("kernel");
    let f = write(&dir, "m.c", MODULE.as_bytes());
    let o = racewatch(&["entry-points", "--kernel", &dir.display().to_string(), &f]);
    assert_one_clean_error(&o, "is not a kernel headers tree", "flags");
}
