//! The per-directory flags kbuild adds to a file: `ccflags-y`,
//! `subdir-ccflags-y` and `CFLAGS_<object>.o` of the Makefiles on the way
//! to it (scripts/Makefile.lib's `orig_c_flags`: KBUILD_CFLAGS, then the
//! parents' and the directory's own `subdir-ccflags-y`, then the
//! directory's `ccflags-y`, then the object's `CFLAGS_`).
//!
//! Only what changes how a file parses is kept: `-I`, `-iquote`,
//! `-isystem`, `-D`, `-U`, `-include` and `-imacros`, with kbuild's
//! `$(src)`/`$(obj)` (the Makefile's directory) and `$(srctree)`/`$(objtree)`
//! (the tree's root) expanded; warnings and code generation options change
//! nothing for racewatch and are dropped, and so is any value with a make
//! construct this reader does not evaluate (`$(call …)`, other variables).
//! `ccflags-$(CONFIG_X)` counts when the configuration sets X.
//!
//! The tree's root is the nearest ancestor holding the directory the
//! file's path names after it: the root of `…/drivers/gpu/drm/amd/x.c` is
//! the directory holding `drivers/`. kbuild's own trees put every driver
//! under a top-level directory (drivers, sound, net, fs, …); a file outside
//! any Makefile chain gets no extra flags.

use super::kbuild::{KernelConfig, assignments, split_variable};
use std::path::{Path, PathBuf};

/// Top-level directories of a kernel source tree that hold drivers.
const TOP_LEVEL: &[&str] = &["drivers", "sound", "net", "fs", "crypto", "block", "security", "virt", "samples", "lib", "mm", "kernel", "arch"];

/// The root of the kernel source tree `file` lies in: the parent of the
/// outermost top-level directory (`drivers`, `sound`, …) reached from the
/// file's directory through directories that all have a Makefile or
/// Kbuild, as kbuild descends into them.
pub fn source_root(file: &Path) -> Option<PathBuf> {
    let mut top = None;
    for dir in file.parent()?.ancestors() {
        if !(dir.join("Makefile").is_file() || dir.join("Kbuild").is_file()) {
            break;
        }
        if dir.file_name().is_some_and(|n| TOP_LEVEL.contains(&n.to_string_lossy().as_ref())) {
            top = Some(dir);
        }
    }
    top.and_then(Path::parent).map(Path::to_path_buf)
}

/// The flags the Makefiles between the tree's root and `file`'s directory
/// add to `file`, in kbuild's order.
pub fn makefile_flags(file: &Path, config: &KernelConfig) -> Vec<String> {
    // Relative paths resolve against the working directory, as clang's do.
    let Ok(file) = std::path::absolute(file) else { return Vec::new() };
    let file = file.as_path();
    let Some(dir) = file.parent() else { return Vec::new() };
    let Some(root) = source_root(file) else { return Vec::new() };
    let object = format!("{}.o", file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
    // The directories from the top-level one down to the file's.
    let mut chain: Vec<&Path> = dir.ancestors().take_while(|d| *d != root && d.starts_with(&root)).collect();
    chain.reverse();
    let mut flags = Vec::new();
    for (i, d) in chain.iter().enumerate() {
        let Some(text) = read_makefile(d) else { continue };
        let own = i + 1 == chain.len();
        for (variable, values) in assignments(&text) {
            let (stem, option) = split_variable(&variable);
            let applies = match stem {
                "subdir-ccflags" => true,
                "ccflags" | "EXTRA_CFLAGS" => own,
                _ if variable == "EXTRA_CFLAGS" => own,
                _ => own && variable == format!("CFLAGS_{object}"),
            };
            let enabled = option.is_none_or(|o| config.is_set(&o)) && !variable.ends_with("-n");
            if applies && enabled {
                flags.extend(parsing_flags(&values, d, &root));
            }
        }
    }
    flags
}

/// A directory's kbuild file: `Kbuild` first, as kbuild reads it.
fn read_makefile(dir: &Path) -> Option<String> {
    std::fs::read_to_string(dir.join("Kbuild")).or_else(|_| std::fs::read_to_string(dir.join("Makefile"))).ok()
}

/// The flags of `values` that change parsing, expanded for a Makefile in
/// `dir` of the tree at `root`.
fn parsing_flags(values: &[String], dir: &Path, root: &Path) -> Vec<String> {
    let expand = |v: &str| -> Option<String> {
        let s = v
            .replace("$(src)", &dir.display().to_string())
            .replace("$(obj)", &dir.display().to_string())
            .replace("$(srctree)", &root.display().to_string())
            .replace("$(objtree)", &root.display().to_string());
        (!s.contains('$')).then_some(s)
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let v = values[i].as_str();
        i += 1;
        for option in ["-I", "-iquote", "-isystem", "-include", "-imacros", "-D", "-U"] {
            if v == option {
                // `-I $(src)`: the value is the next word.
                if let Some(value) = values.get(i).and_then(|n| expand(n)) {
                    out.push(option.to_string());
                    out.push(absolute(option, value, dir));
                }
                i += 1;
                break;
            }
            if let Some(rest) = v.strip_prefix(option).filter(|r| !r.is_empty() && (option.len() == 2 || !r.starts_with(char::is_alphanumeric))) {
                if let Some(value) = expand(rest) {
                    out.push(format!("{option}{}", absolute(option, value, dir)));
                }
                break;
            }
        }
    }
    out
}

/// A relative include path made absolute against the Makefile's directory
/// (kbuild runs the compiler from the tree's root, but a relative `-I` in a
/// driver Makefile is rare and meant from its directory).
fn absolute(option: &str, value: String, dir: &Path) -> String {
    let is_path = matches!(option, "-I" | "-iquote" | "-isystem" | "-include" | "-imacros");
    if is_path && !Path::new(&value).is_absolute() { dir.join(value).display().to_string() } else { value }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_flags_are_expanded_and_others_dropped() {
        let dir = Path::new("/k/drivers/media/usb/dvb");
        let root = Path::new("/k");
        let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(
            parsing_flags(&words("-I $(srctree)/drivers/media/tuners -I$(src)/../common -Wall -DFOO=1 $(call cc-option,-Wx) -I$(foo)"), dir, root),
            vec!["-I", "/k/drivers/media/tuners", "-I/k/drivers/media/usb/dvb/../common", "-DFOO=1"]
        );
    }

    #[test]
    fn the_root_is_above_the_outermost_top_level_directory() {
        let base = std::env::temp_dir().join(format!("racewatch-root-{}", std::process::id()));
        let dir = base.join("linux/drivers/net/ethernet");
        std::fs::create_dir_all(&dir).unwrap();
        for d in ["linux/drivers", "linux/drivers/net", "linux/drivers/net/ethernet"] {
            std::fs::write(base.join(d).join("Makefile"), "").unwrap();
        }
        assert_eq!(source_root(&dir.join("x.c")), Some(base.join("linux")));
        assert_eq!(source_root(&base.join("x.c")), None);
        let _ = std::fs::remove_dir_all(&base);
    }
}
