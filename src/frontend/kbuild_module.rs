//! Which files make one kernel module: the composite objects of kbuild.
//!
//! A kbuild Makefile builds a module from several files with a composite
//! object: `obj-$(CONFIG_ATA_OVER_ETH) += aoe.o` with `aoe-y := aoeblk.o
//! aoechr.o …`, or `r8169-objs`/`r8169-y` with `r8169-$(CONFIG_R8169_LEDS)
//! += r8169_leds.o` for a part built only under an option. The linker joins
//! the parts into one module (scripts/Makefile.build, `$(multi-obj-m)`), so
//! a non-static function of one part is called by the others and every
//! part's callbacks run in one program: racewatch analyses the parts as one
//! unit ([`crate::pipeline`]).
//!
//! # Algorithm
//!
//! For a file `dir/name.c`, `dir/Makefile` is read with the same reader as
//! [`super::kbuild::build_status`] (continuations joined, comments dropped).
//! The composite holding `name.o` is the stem `X` of a variable `X-y`,
//! `X-m`, `X-objs` or `X-$(CONFIG_…)` listing it, where `X.o` is itself
//! listed by an `obj-…` variable (a module or built-in object of the
//! directory). Its parts are every object listed by a variable of stem `X`:
//! `-y`, `-m` and `-objs` always; `-$(CONFIG_B)` when the configuration sets
//! `CONFIG_B` to `y` or `m`. A part under an option the configuration leaves
//! unset is left out and listed; without any configuration (no
//! `auto.conf`), every part is kept, which is more code, never less. Tokens
//! that are Make expressions (`$(…)`) are skipped and reported as unknown
//! parts, so a unit built from them says it may be incomplete.
//!
//! # Soundness
//!
//! A part this reader misses (a Makefile form it does not follow) is code
//! of the module left out of the program: its callbacks are not entry
//! points and its functions stay external calls. The unit lists every part
//! it could not use (`missing`, `unknown`), and docs/soundness.md counts it.

use super::kbuild::{KernelConfig, NOT_OBJECT_LISTS, assignments};
use std::path::{Path, PathBuf};

/// A composite module and the files it is built from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KbuildModule {
    /// The module's name (the composite object's stem: `aoe`).
    pub name: String,
    /// The Makefile that composes it.
    pub makefile: PathBuf,
    /// Its C files under the configuration, in the Makefile's order.
    pub members: Vec<PathBuf>,
    /// Parts left out because an option they depend on is unset: (part,
    /// option).
    pub left_out: Vec<(String, String)>,
    /// Parts the configuration builds whose C source is not there (a
    /// generated file, an assembly file, a file the tree lacks).
    pub missing: Vec<PathBuf>,
    /// Make expressions in the part lists that this reader does not
    /// evaluate.
    pub unknown: Vec<String>,
    /// Assembly parts (`name.S`): code racewatch does not analyse; calls
    /// into them stay external calls.
    pub assembly: Vec<PathBuf>,
}

impl KbuildModule {
    /// Whether the module has more than one C file (a single-file module is
    /// analysed as a file, its assembly parts as external code).
    pub fn is_composite(&self) -> bool {
        self.members.len() + self.missing.len() > 1
    }
}

/// How a composite's part variable is gated.
enum Gate {
    /// `-y`, `-m`, `-objs`: always a part.
    Always,
    /// `-$(CONFIG_X)`: a part when `CONFIG_X` is `y` or `m`.
    Option(String),
    /// `-n`, `-` followed by anything else: not a part.
    Never,
}

/// Splits `stem-suffix` into the stem and its gate; `None` for a variable
/// without a dash.
fn gate_of(variable: &str) -> Option<(&str, Gate)> {
    if let Some(start) = variable.find("-$(") {
        let option = variable[start + 3..].trim_end_matches(')');
        let gate = if option.starts_with("CONFIG_") { Gate::Option(option.to_string()) } else { Gate::Never };
        return Some((&variable[..start], gate));
    }
    let (stem, suffix) = variable.rsplit_once('-')?;
    let gate = match suffix {
        "y" | "m" | "objs" => Gate::Always,
        _ => Gate::Never,
    };
    Some((stem, gate))
}

/// The composite module `file` is a part of, when its directory's Makefile
/// composes one; `None` when the file is not a listed part of any
/// composite (a single-file module, or a Makefile this reader does not
/// follow).
pub fn module_of(file: &Path, config: &KernelConfig) -> Option<KbuildModule> {
    let dir = file.parent()?;
    let makefile = dir.join("Makefile");
    let text = std::fs::read_to_string(&makefile).ok()?;
    let lines = assignments(&text);
    let object = format!("{}.o", file.file_stem()?.to_string_lossy());
    let is_object = |stem: &str| {
        let target = format!("{stem}.o");
        lines.iter().any(|(v, objects)| gate_of(v).is_some_and(|(s, _)| s == "obj") && objects.contains(&target))
    };
    let name = lines.iter().find_map(|(variable, objects)| {
        let (stem, gate) = gate_of(variable)?;
        let usable = stem != "obj" && !NOT_OBJECT_LISTS.contains(&stem) && !matches!(gate, Gate::Never);
        (usable && objects.contains(&object) && is_object(stem)).then(|| stem.to_string())
    })?;
    let mut module = KbuildModule {
        name: name.clone(),
        makefile: makefile.clone(),
        members: Vec::new(),
        left_out: Vec::new(),
        missing: Vec::new(),
        unknown: Vec::new(),
        assembly: Vec::new(),
    };
    for (variable, objects) in &lines {
        let Some((stem, gate)) = gate_of(variable) else { continue };
        if stem != name {
            continue;
        }
        let unset = match &gate {
            Gate::Always => None,
            Gate::Never => continue,
            Gate::Option(option) => {
                let built = config.is_empty() || matches!(config.value(option), Some("y") | Some("m"));
                (!built).then(|| option.clone())
            }
        };
        for part in objects {
            if part.contains('$') {
                module.unknown.push(part.clone());
                continue;
            }
            let Some(stem) = part.strip_suffix(".o") else {
                module.unknown.push(part.clone());
                continue;
            };
            if let Some(option) = &unset {
                module.left_out.push((part.clone(), option.clone()));
                continue;
            }
            let source = dir.join(format!("{stem}.c"));
            if module.members.contains(&source) || module.missing.contains(&source) {
                continue;
            }
            let assembly = dir.join(format!("{stem}.S"));
            if source.is_file() {
                module.members.push(source);
            } else if assembly.is_file() {
                module.assembly.push(assembly);
            } else {
                module.missing.push(source);
            }
        }
    }
    // A file named by the user must be analysed even if the Makefile lists
    // it only under an unset option.
    if !module.members.iter().any(|m| same_file(m, file)) {
        return None;
    }
    Some(module)
}

/// Whether two paths name the same file (one may be relative).
pub fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(name: &str, makefile: &str, files: &[&str]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("racewatch-kbuild-module-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("Makefile"), makefile).unwrap();
        for f in files {
            std::fs::write(dir.join(f), "int x;\n").unwrap();
        }
        dir
    }

    #[test]
    fn composite_parts_follow_the_configuration() {
        let dir = tree(
            "r8169",
            "r8169-y += r8169_main.o r8169_firmware.o \\\n\tr8169_phy_config.o\nr8169-$(CONFIG_R8169_LEDS) += r8169_leds.o\nobj-$(CONFIG_R8169) += r8169.o\nobj-m += single.o\n",
            &["r8169_main.c", "r8169_firmware.c", "r8169_phy_config.c", "r8169_leds.c", "single.c"],
        );
        let set = KernelConfig::parse("CONFIG_R8169=m\nCONFIG_R8169_LEDS=y\n");
        let m = module_of(&dir.join("r8169_firmware.c"), &set).unwrap();
        assert_eq!(m.name, "r8169");
        let names: Vec<String> = m.members.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["r8169_main.c", "r8169_firmware.c", "r8169_phy_config.c", "r8169_leds.c"]);
        assert!(m.is_composite() && m.left_out.is_empty());
        let unset = KernelConfig::parse("CONFIG_R8169=m\n");
        let m = module_of(&dir.join("r8169_main.c"), &unset).unwrap();
        assert_eq!(m.members.len(), 3);
        assert_eq!(m.left_out, vec![("r8169_leds.o".to_string(), "CONFIG_R8169_LEDS".to_string())]);
        assert_eq!(module_of(&dir.join("single.c"), &set), None);
        assert_eq!(module_of(&dir.join("r8169_leds.c"), &unset), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn parts_without_source_and_make_expressions_are_listed() {
        let dir = tree("aoe", "obj-$(CONFIG_AOE) += aoe.o\naoe-objs := a.o gone.o $(extra)\n", &["a.c"]);
        let m = module_of(&dir.join("a.c"), &KernelConfig::default()).unwrap();
        assert_eq!(m.members, vec![dir.join("a.c")]);
        assert_eq!(m.missing, vec![dir.join("gone.c")]);
        assert_eq!(m.unknown, vec!["$(extra)".to_string()]);
        assert!(m.is_composite());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
