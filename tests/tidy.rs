//! Conventions kept by a test (after rust-analyzer's tidy): every Rust file
//! opens with a `//!` doc comment, stays well under 1,200 lines, holds no
//! stub (`todo!`, `unimplemented!`), and every folder of src/ has its section
//! in ARCHITECTURE.md; every kernel-model rule carries a reason.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn rust_files_are_documented_small_and_stub_free() {
    let mut files = Vec::new();
    for dir in ["src", "tests", "examples"] {
        rust_files(&repo().join(dir), &mut files);
    }
    files.push(repo().join("build.rs"));
    let mut problems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.strip_prefix(repo()).unwrap().display();
        if !text.trim_start().starts_with("//!") {
            problems.push(format!("{name}: does not start with a //! doc comment"));
        }
        let lines = text.lines().count();
        if lines > 1200 {
            problems.push(format!("{name}: {lines} lines; split it by responsibility"));
        }
        for stub in [concat!("todo", "!("), concat!("unimplemented", "!(")] {
            if text.contains(stub) {
                problems.push(format!("{name}: holds a stub ({stub})"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn architecture_md_maps_every_source_folder() {
    let arch = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(repo().join("src")).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            let name = format!("src/{}/", p.file_name().unwrap().to_string_lossy());
            if !arch.contains(&name) {
                missing.push(name);
            }
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md does not describe: {missing:?}");
}

#[test]
fn every_kernel_model_rule_has_a_reason() {
    let mut files = Vec::new();
    let dir = repo().join("kernel-models");
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "xml") {
                files.push(p);
            }
        }
    }
    assert!(!files.is_empty());
    let mut problems = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let rule = ["<ops-struct ", "<registration ", "<module-hook ", "<internal-callback "]
                .iter()
                .any(|tag| line.trim_start().starts_with(tag));
            if rule && !text.lines().skip(n).take(3).any(|l| l.contains("reason=\"")) {
                problems.push(format!("{}:{}: a rule without a reason", f.display(), n + 1));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
