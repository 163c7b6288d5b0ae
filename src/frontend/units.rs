//! Whether a `.c` file of a kernel tree is a unit of compilation at all.
//!
//! Some `.c` files are never compiled on their own: kbuild builds the
//! objects the Makefiles name (`obj-… += name.o`, composite `foo-y +=
//! name.o`, a parent's `obj-… += sub/name.o`), and a `.c` file none of them
//! names but another file `#include`s is part of that file's translation
//! unit (Linux 6.12's drivers/usb/host/ehci-hcd.c includes ehci-timer.c,
//! ehci-hub.c, ehci-mem.c, ehci-q.c and ehci-sched.c, which use its static
//! functions and types). Parsed alone, such a file fails on the
//! declarations it takes from its includer; it is reported as
//! `not-a-unit`, naming the includer, instead of as an error.
//!
//! Algorithm: the file is not named when no Makefile or Kbuild of its
//! directory and of the two directories above it has the text
//! `NAME.o` (the object kbuild would build from it, with or without a
//! subdirectory prefix); any mention counts as a name, so a Makefile built
//! with make functions (`$(addprefix …)`) or a comment never makes a built
//! file look unbuilt. Its includer is the first `.c` or `.h` file (by
//! path) in the file's directory, its parent directory or the parent's
//! subdirectories whose `#include "…"` resolves, relative to the includer's
//! directory, to the file. Both conditions are needed: a file no Makefile
//! names and nobody includes is left to the parse (and to
//! [`super::kbuild::build_status`]'s explanation).
//!
//! Soundness: nothing is claimed about a file reported `not-a-unit`; its
//! code is analysed as part of its includer, which `racewatch check` on the
//! includer covers.

use crate::diagnostics::{ErrorClass, FileError, Span};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// A `#include` of the file in another file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Includer {
    /// The including file.
    pub file: PathBuf,
    /// The 1-based line of its `#include`.
    pub line: u32,
}

/// The `not-a-unit` report of `file` when no Makefile near it names its
/// object and another file includes it; `None` otherwise (a named file, a
/// file outside any Makefile's directory, a file nobody includes).
pub fn not_a_unit(file: &Path) -> Option<FileError> {
    let object = format!("{}.o", file.file_stem()?.to_string_lossy());
    let absolute = normalise(&std::path::absolute(file).ok()?);
    let dir = absolute.parent()?;
    // A directory without a Makefile has its objects named by one above
    // (i915/Makefile names gt/intel_lrc.o).
    let make_dir = dir.ancestors().take(3).find(|d| has_makefile(d))?;
    if named_by_makefiles(dir, &object) || named_by_makefiles(make_dir, &object) {
        return None;
    }
    let includer = includer_of(&absolute)?;
    let shown = shown_like(&includer.file, file, &absolute);
    let message = format!(
        "not a unit of compilation: no Makefile names {object}, and {}:{} #includes it, so its code is analysed as part of that file",
        shown.display(),
        includer.line
    );
    let mut error = FileError::new(file, ErrorClass::NotAUnit, message);
    error.span = Some(Span { file: Arc::from(shown.as_path()), line: includer.line, column: 1 });
    Some(error)
}

/// `path` spelled the way the user spelled `file` (relative when it was).
fn shown_like(path: &Path, file: &Path, absolute: &Path) -> PathBuf {
    if file.is_absolute() {
        return path.to_path_buf();
    }
    // The working directory is `absolute` minus the user's relative path.
    let depth = file.components().filter(|c| matches!(c, Component::Normal(_))).count();
    let mut cwd = absolute.to_path_buf();
    for _ in 0..depth {
        cwd.pop();
    }
    path.strip_prefix(&cwd).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf())
}

fn has_makefile(dir: &Path) -> bool {
    dir.join("Makefile").is_file() || dir.join("Kbuild").is_file()
}

/// Whether a Makefile or Kbuild of `dir` or of the two directories above it
/// mentions `object`.
pub fn named_by_makefiles(dir: &Path, object: &str) -> bool {
    dir.ancestors().take(3).any(|d| {
        ["Makefile", "Kbuild"].iter().any(|name| std::fs::read_to_string(d.join(name)).is_ok_and(|text| mentions(&text, object)))
    })
}

/// Whether `text` has `object` as a word or the end of a path (`sub/object`).
fn mentions(text: &str, object: &str) -> bool {
    text.match_indices(object).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + object.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
        !word(before) && !word(after)
    })
}

/// The first file near `file` that includes it.
pub fn includer_of(file: &Path) -> Option<Includer> {
    let dir = file.parent()?;
    let mut candidates = source_files(dir);
    if let Some(parent) = dir.parent() {
        candidates.extend(source_files(parent));
        let mut subdirs: Vec<PathBuf> = std::fs::read_dir(parent).ok()?.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir() && p != dir).collect();
        subdirs.sort();
        for sub in subdirs {
            candidates.extend(source_files(&sub));
        }
    }
    candidates.into_iter().filter(|c| c != file).find_map(|c| includes(&c, file).map(|line| Includer { file: c, line }))
}

/// The `.c` and `.h` files of `dir`, sorted.
fn source_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "c" || x == "h"))
        .collect();
    files.sort();
    files
}

/// The line of `includer`'s `#include "…"` of `file`, if any.
fn includes(includer: &Path, file: &Path) -> Option<u32> {
    let text = std::fs::read(includer).ok()?;
    let text = String::from_utf8_lossy(&text);
    let name = file.file_name()?.to_string_lossy().into_owned();
    if !text.contains(name.as_str()) {
        return None;
    }
    let dir = includer.parent()?;
    text.lines().enumerate().find_map(|(n, line)| {
        let rest = line.trim_start().strip_prefix('#')?.trim_start().strip_prefix("include")?.trim_start();
        let quoted = rest.strip_prefix('"')?;
        let target = &quoted[..quoted.find('"')?];
        (normalise(&dir.join(target)) == file).then_some(n as u32 + 1)
    })
}

/// Removes `.` and `..` components without touching the file system.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_words_or_path_ends() {
        assert!(mentions("obj-$(CONFIG_X) += ehci-hcd.o\n", "ehci-hcd.o"));
        assert!(mentions("foo-y := sub/ehci-hcd.o", "ehci-hcd.o"));
        assert!(!mentions("obj-y += xehci-hcd.o ehci-hcd.ox", "ehci-hcd.o"));
    }

    #[test]
    fn an_included_unnamed_file_is_not_a_unit() {
        let base = std::env::temp_dir().join(format!("racewatch-units-{}", std::process::id()));
        let dir = base.join("drivers/x");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("Makefile"), "obj-$(CONFIG_X) += main.o\n").unwrap();
        std::fs::write(dir.join("main.c"), "int a;\n#include \"part.c\"\n").unwrap();
        std::fs::write(dir.join("part.c"), "int b;\n").unwrap();
        std::fs::write(dir.join("alone.c"), "int c;\n").unwrap();
        let e = not_a_unit(&dir.join("part.c")).expect("part.c is included");
        assert_eq!(e.class, ErrorClass::NotAUnit);
        assert_eq!(e.span.as_ref().map(|s| s.line), Some(2));
        assert!(e.message.contains("main.c:2"), "{}", e.message);
        assert!(not_a_unit(&dir.join("main.c")).is_none());
        assert!(not_a_unit(&dir.join("alone.c")).is_none());
        let _ = std::fs::remove_dir_all(&base);
    }
}
