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
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Top-level directories of a kernel source tree that hold drivers.
const TOP_LEVEL: &[&str] = &["drivers", "sound", "net", "fs", "crypto", "block", "security", "virt", "samples", "lib", "mm", "kernel", "arch"];

/// Whether `dir` has a kbuild file.
fn has_makefile(dir: &Path) -> bool {
    dir.join("Makefile").is_file() || dir.join("Kbuild").is_file()
}

/// The root of the kernel source tree `file` lies in: the parent of the
/// outermost top-level directory (`drivers`, `sound`, …) with a Makefile or
/// Kbuild above the file. Directories in between may have none: a Makefile
/// names objects of subdirectories without their own (mlx5/core/Makefile's
/// `en/params.o`) and descends into grandchildren (drm/Makefile's
/// `amd/amdgpu/`).
pub fn source_root(file: &Path) -> Option<PathBuf> {
    let start = file.parent()?.ancestors().find(|d| has_makefile(d))?;
    let top = start.ancestors().filter(|d| has_makefile(d) && d.file_name().is_some_and(|n| TOP_LEVEL.contains(&n.to_string_lossy().as_ref()))).last();
    top.and_then(Path::parent).map(Path::to_path_buf)
}

/// The flags the Makefiles between the tree's root and `file`'s directory
/// add to `file`, in kbuild's order.
///
/// kbuild compiles a file in the make of the directory whose Makefile names
/// its object; that make reads the Makefiles its own one `include`s (amdgpu's
/// Makefile includes ../display/Makefile, nouveau's Kbuild its nvkm/…/Kbuild),
/// and `$(src)` is its directory. [`building_make`] finds that directory and
/// the included Makefiles on the way to the file; every `ccflags-y` and
/// `subdir-ccflags-y` of the one make applies, with the variables the make
/// defines expanded.
pub fn makefile_flags(file: &Path, config: &KernelConfig) -> Vec<String> {
    // Relative paths resolve against the working directory, as clang's do.
    let Ok(file) = std::path::absolute(file) else { return Vec::new() };
    let file = file.as_path();
    let Some(root) = source_root(file) else { return Vec::new() };
    let Some(start) = file.parent().and_then(|d| d.ancestors().find(|a| has_makefile(a))) else { return Vec::new() };
    let object = format!("{}.o", file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
    let (make_dir, included) = building_make(start, &root);
    // The directories from the top-level one down to the make's: their
    // `subdir-ccflags-y` apply, each with its own variables.
    let mut chain: Vec<&Path> = make_dir.ancestors().take_while(|d| *d != root && d.starts_with(&root)).collect();
    chain.reverse();
    let mut flags = Vec::new();
    for (i, d) in chain.iter().enumerate() {
        let own = i + 1 == chain.len();
        let mut texts = vec![read_makefile(d).unwrap_or_default()];
        if own {
            texts.extend(included.iter().filter_map(|m| read_makefile(m)));
        }
        let text = texts.join("\n");
        let text = inline_includes(&text, d, &root, 0);
        let variables = variables(&text);
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
                // The shell's words, as make hands the command line to it
                // (`-D'pr_fmt(fmt)=KBUILD_MODNAME ": " fmt'` is one word).
                let line = values.iter().map(|v| expand(v, &variables, 0)).collect::<Vec<_>>().join(" ");
                let values = shlex::split(&line).unwrap_or_else(|| line.split_whitespace().map(String::from).collect());
                for f in parsing_flags(&values, d, &root) {
                    flags.push(f);
                }
            }
        }
    }
    // An included Makefile may repeat a flag; the first occurrence counts.
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut i = 0;
    while i < flags.len() {
        // `-I DIR` is two words; keep the pair together.
        let pair = flags[i].len() <= 9 && flags[i].starts_with('-') && !flags[i].contains('/') && i + 1 < flags.len() && !flags[i + 1].starts_with('-');
        let key = if pair { format!("{} {}", flags[i], flags[i + 1]) } else { flags[i].clone() };
        let width = if pair { 2 } else { 1 };
        if seen.insert(key) {
            out.extend(flags[i..i + width].iter().cloned());
        }
        i += width;
    }
    out
}

/// The directory whose make compiles the objects of `dir` (the nearest
/// directory at or above the file with a Makefile), and the directories of
/// the Makefiles that make reads besides its own, on the way to `dir`.
///
/// Walking up from `dir`: a directory its parent (or grandparent) Makefile
/// descends into (`obj-… += name/`) is built by its own make, which ends
/// the walk; one whose Makefile another directory's Makefile `include`s
/// (found among the Makefiles of its ancestors and their subdirectories) is
/// built by the includer's make, and the walk goes on from there; any other
/// is included by a Makefile whose `include` this reader cannot evaluate
/// (`$(addsuffix …)`), and the walk goes on to its parent. A walk that
/// reaches a top-level directory finds nothing, and `dir` is its own make.
fn building_make(dir: &Path, root: &Path) -> (PathBuf, Vec<PathBuf>) {
    let mut visited = Vec::new();
    let mut current = dir.to_path_buf();
    for _ in 0..12 {
        if descended(&current, root) {
            if visited.is_empty() {
                return (current, Vec::new());
            }
            break;
        }
        if has_makefile(&current) {
            visited.push(current.clone());
        }
        if let Some(includer) = includer_of(&current, root) {
            current = includer;
            continue;
        }
        match current.parent() {
            Some(p) if p != root && p.starts_with(root) && p.parent() != Some(root) => current = p.to_path_buf(),
            _ => return (dir.to_path_buf(), Vec::new()),
        }
    }
    if !descended(&current, root) {
        return (dir.to_path_buf(), Vec::new());
    }
    visited.retain(|v| *v != current);
    (current, visited)
}

/// Whether kbuild descends into `dir` from a Makefile above it
/// (`obj-$(CONFIG_X) += name/` in the parent's, `+= sub/name/` in the
/// grandparent's), or `dir` is a top-level directory of the tree.
fn descended(dir: &Path, root: &Path) -> bool {
    if dir.parent() == Some(root) {
        return true;
    }
    dir.ancestors().skip(1).take(2).filter(|a| a.starts_with(root) && *a != root).any(|a| {
        let Ok(rel) = dir.strip_prefix(a) else { return false };
        let name = format!("{}/", rel.display());
        read_makefile(a).is_some_and(|text| {
            assignments(&text).iter().any(|(variable, values)| split_variable(variable).0 == "obj" && values.iter().any(|v| *v == name))
        })
    })
}

/// The directory of a Makefile that `include`s `dir`'s Makefile or Kbuild:
/// searched among the Makefiles of `dir`'s three nearest ancestors and of
/// their subdirectories.
fn includer_of(dir: &Path, root: &Path) -> Option<PathBuf> {
    let targets = [dir.join("Makefile"), dir.join("Kbuild")];
    for ancestor in dir.ancestors().skip(1).take(3).filter(|a| a.starts_with(root) && *a != root && a.parent() != Some(root)) {
        let mut candidates = vec![ancestor.to_path_buf()];
        let mut subdirs: Vec<PathBuf> = std::fs::read_dir(ancestor).into_iter().flatten().filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir() && !dir.starts_with(p)).collect();
        subdirs.sort();
        candidates.extend(subdirs);
        for c in candidates {
            let Some(text) = read_makefile(&c) else { continue };
            if !text.contains("include") {
                continue;
            }
            let variables = variables(&text);
            for target in include_targets(&text, &variables, &c, root) {
                if targets.iter().any(|t| normalise(&target) == normalise(t)) {
                    return Some(c);
                }
            }
        }
    }
    None
}

/// The files a Makefile's `include` lines name, expanded for a make in
/// `make_dir`.
fn include_targets(text: &str, variables: &HashMap<String, String>, make_dir: &Path, root: &Path) -> Vec<PathBuf> {
    let joined = text.replace("\\\n", " ");
    joined
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("include ").or_else(|| l.trim_start().strip_prefix("-include ")))
        .flat_map(|rest| expand(rest.trim(), variables, 0).split_whitespace().map(String::from).collect::<Vec<_>>())
        .filter_map(|t| builtins(&t, make_dir, root))
        .map(|t| if Path::new(&t).is_absolute() { PathBuf::from(t) } else { root.join(t) })
        .collect()
}

/// `text` with each `include`d Makefile that resolves to a file appended
/// (kbuild reads it in the same make), to a small depth.
fn inline_includes(text: &str, make_dir: &Path, root: &Path, depth: usize) -> String {
    if depth > 4 || !text.contains("include") {
        return text.to_string();
    }
    let variables = variables(text);
    let mut out = text.to_string();
    for target in include_targets(text, &variables, make_dir, root) {
        if let Ok(included) = std::fs::read_to_string(&target) {
            out.push('\n');
            out.push_str(&inline_includes(&included, make_dir, root, depth + 1));
        }
    }
    out
}

/// The plain variables a Makefile defines (`NAME = …`, `:=`, `?=`, `+=`),
/// unexpanded; kbuild's own lists (`obj-y`, `ccflags-y`, …) included, which
/// no flag refers to.
fn variables(text: &str) -> HashMap<String, String> {
    let mut out: HashMap<String, String> = HashMap::new();
    let joined = text.replace("\\\n", " ");
    for line in joined.lines() {
        let line = line.split('#').next().unwrap_or("");
        let Some(at) = line.find('=') else { continue };
        let (left, value) = (&line[..at], line[at + 1..].trim());
        let (name, append) = match left.trim_end().strip_suffix('+') {
            Some(n) => (n.trim(), true),
            None => (left.trim_end().trim_end_matches([':', '?']).trim(), false),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            continue;
        }
        let conditional = left.trim_end().ends_with('?');
        match out.get_mut(name) {
            Some(old) if append => {
                old.push(' ');
                old.push_str(value);
            }
            Some(_) if conditional => {}
            _ => {
                out.insert(name.to_string(), value.to_string());
            }
        }
    }
    out
}

/// `value` with the Makefile's own variables (`$(NAME)`, `${NAME}`)
/// replaced, recursively; kbuild's built-in ones and make functions are left
/// for [`builtins`] and [`parsing_flags`].
fn expand(value: &str, variables: &HashMap<String, String>, depth: usize) -> String {
    if depth > 8 || !value.contains('$') {
        return value.to_string();
    }
    let mut out = String::new();
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let close = match after.chars().next() {
            Some('(') => ')',
            Some('{') => '}',
            _ => {
                out.push('$');
                rest = after;
                continue;
            }
        };
        let Some(end) = after.find(close) else {
            out.push_str(&rest[at..]);
            return out;
        };
        let name = &after[1..end];
        match variables.get(name).filter(|_| !BUILTIN.contains(&name)) {
            Some(v) => out.push_str(&expand(v, variables, depth + 1)),
            None => out.push_str(&rest[at..at + 2 + end]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// kbuild's variables for the source and object trees and directories.
const BUILTIN: &[&str] = &["src", "obj", "srctree", "objtree"];

/// `value` with kbuild's `$(src)`/`$(obj)` (the make's directory, relative
/// to the tree's root as kbuild runs from it) and `$(srctree)`/`$(objtree)`
/// (the root) expanded; `None` when another variable or a make function
/// remains.
fn builtins(value: &str, make_dir: &Path, root: &Path) -> Option<String> {
    let dir = make_dir.display().to_string();
    let s = value
        .replace("$(srctree)/$(src)", &dir)
        .replace("$(objtree)/$(obj)", &dir)
        .replace("$(src)", &dir)
        .replace("$(obj)", &dir)
        .replace("$(srctree)", &root.display().to_string())
        .replace("$(objtree)", &root.display().to_string());
    (!s.contains('$')).then_some(s)
}

use super::flags::normalise;

/// A directory's kbuild file: `Kbuild` first, as kbuild reads it.
fn read_makefile(dir: &Path) -> Option<String> {
    std::fs::read_to_string(dir.join("Kbuild")).or_else(|_| std::fs::read_to_string(dir.join("Makefile"))).ok()
}

/// The flags of `values` that change parsing, expanded for a Makefile in
/// `dir` of the tree at `root`.
fn parsing_flags(values: &[String], dir: &Path, root: &Path) -> Vec<String> {
    let expand = |v: &str| -> Option<String> { builtins(v, dir, root) };
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
                    out.push(absolute(option, value, dir, root));
                }
                i += 1;
                break;
            }
            if let Some(rest) = v.strip_prefix(option).filter(|r| !r.is_empty() && (option.len() == 2 || !r.starts_with(char::is_alphanumeric))) {
                if let Some(value) = expand(rest) {
                    out.push(format!("{option}{}", absolute(option, value, dir, root)));
                }
                break;
            }
        }
    }
    out
}

/// A relative include path made absolute: against the tree's root, where
/// kbuild runs the compiler (`-Idrivers/scsi`), when it names a path there,
/// else against the Makefile's directory.
fn absolute(option: &str, value: String, dir: &Path, root: &Path) -> String {
    let is_path = matches!(option, "-I" | "-iquote" | "-isystem" | "-include" | "-imacros");
    if !is_path || Path::new(&value).is_absolute() {
        return value;
    }
    let from_root = root.join(&value);
    if from_root.exists() { from_root.display().to_string() } else { dir.join(value).display().to_string() }
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
    fn an_included_makefiles_directory_takes_the_includers_flags_and_variables() {
        // amdgpu's shape: drm/Makefile descends into amd/amdgpu/, whose
        // Makefile defines a path variable and includes ../display/Makefile.
        let base = std::env::temp_dir().join(format!("racewatch-make-{}", std::process::id()));
        let drm = base.join("drivers/gpu/drm");
        let display = drm.join("amd/display/dc");
        std::fs::create_dir_all(&display).unwrap();
        std::fs::create_dir_all(drm.join("amd/amdgpu")).unwrap();
        std::fs::write(base.join("drivers/Makefile"), "obj-y += gpu/\n").unwrap();
        std::fs::write(base.join("drivers/gpu/Makefile"), "obj-y += drm/\n").unwrap();
        std::fs::write(drm.join("Makefile"), "obj-$(CONFIG_DRM_AMDGPU)+= amd/amdgpu/\n").unwrap();
        std::fs::write(
            drm.join("amd/amdgpu/Makefile"),
            "FULL_AMD_PATH=$(src)/..\nccflags-y := -I$(FULL_AMD_PATH)/include \\\n\t-I$(FULL_AMD_PATH)/amdgpu\ninclude $(FULL_AMD_PATH)/display/Makefile\n",
        )
        .unwrap();
        std::fs::write(drm.join("amd/display/Makefile"), "subdir-ccflags-y += -I$(FULL_AMD_PATH)/display/dc/inc\n").unwrap();
        std::fs::write(display.join("Makefile"), "DC = x.o\n").unwrap();
        let amdgpu = drm.join("amd/amdgpu");
        assert_eq!(building_make(&display, &base), (amdgpu.clone(), vec![display.clone(), drm.join("amd/display")]));
        let flags = makefile_flags(&display.join("x.c"), &KernelConfig::parse("CONFIG_DRM_AMDGPU=m\n"));
        let up = format!("{}/..", amdgpu.display());
        assert_eq!(flags, vec![format!("-I{up}/include"), format!("-I{up}/amdgpu"), format!("-I{up}/display/dc/inc")]);
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn variables_expand_recursively_and_leave_functions() {
        let v = variables("A = $(B)/x\nB := y\nB += z\nC ?= c\nC ?= d\n");
        assert_eq!(expand("$(A) ${C} $(call f,1)", &v, 0), "y z/x c $(call f,1)");
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
