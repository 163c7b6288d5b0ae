//! Embeds every XML file under kernel-models/ into the binary, so racewatch
//! works from any directory; `--models DIR` still reads a directory at run
//! time. Adding a model file needs no code change: this script lists them.

use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "xml") {
            out.push(path);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernel-models");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    let mut code = String::from("/// Every kernel-model file: (path under kernel-models/, contents).\npub static EMBEDDED_MODELS: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        code.push_str(&format!("    ({rel:?}, include_str!({:?})),\n", f.display().to_string()));
    }
    code.push_str("];\n");
    // The POSIX models of `racewatch svcomp` (posix-models/), likewise.
    let posix = Path::new(env!("CARGO_MANIFEST_DIR")).join("posix-models");
    println!("cargo:rerun-if-changed={}", posix.display());
    let mut files = Vec::new();
    collect(&posix, &mut files);
    code.push_str("/// Every POSIX model file: (path under posix-models/, contents).\npub static EMBEDDED_POSIX_MODELS: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let rel = f.strip_prefix(&posix).unwrap().to_string_lossy().replace('\\', "/");
        code.push_str(&format!("    ({rel:?}, include_str!({:?})),\n", f.display().to_string()));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("embedded_models.rs");
    std::fs::write(out, code).expect("write embedded_models.rs");
}
