//! What kbuild knows about a kernel tree and a driver file: the options its
//! configuration sets, and which option builds a given source file.
//!
//! The flags composed for a kernel headers tree (`flags.rs`) depend on the
//! configuration the way the kernel's Makefiles make them depend on it
//! (ftrace's `-mfentry -DCC_USING_FENTRY`, for one). And a file the
//! configuration does not build is often one that cannot parse for this
//! architecture: its Kconfig option depends on another architecture or on a
//! subsystem the configuration leaves out. When such a file fails to parse,
//! [`build_status`] says which option is unset, so that the error explains
//! itself instead of looking like a bug of racewatch.
//!
//! The Makefile reading is deliberately small: it follows the
//! `obj-$(CONFIG_FOO) += name.o`, `obj-$(CONFIG_FOO) += dir/` and composite
//! `name-y`/`name-objs`/`name-$(CONFIG_BAR) += file.o` lines of the file's
//! directory and its parents, which is how nearly every driver Makefile
//! names its objects; a Makefile it cannot follow yields no reason, never a
//! wrong one.

use std::collections::HashMap;
use std::path::Path;

/// The options a configured tree sets (`include/config/auto.conf`): each
/// `CONFIG_NAME` with its value (`y`, `m`, a number or a string).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelConfig {
    values: HashMap<String, String>,
}

impl KernelConfig {
    /// Reads `include/config/auto.conf` below a configured (build) directory;
    /// a tree without one has an empty configuration.
    pub fn read(build: &Path) -> KernelConfig {
        let text = std::fs::read_to_string(build.join("include/config/auto.conf")).unwrap_or_default();
        KernelConfig::parse(&text)
    }

    /// Parses auto.conf's `CONFIG_NAME=value` lines; comments (`# CONFIG_X
    /// is not set`) and blank lines set nothing.
    pub fn parse(text: &str) -> KernelConfig {
        let values = text
            .lines()
            .filter(|l| l.starts_with("CONFIG_"))
            .filter_map(|l| l.split_once('='))
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        KernelConfig { values }
    }

    /// Whether the configuration sets `name` (`CONFIG_…`) to anything: auto.conf
    /// lists only the options that are set.
    pub fn is_set(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// The value of `name`, when it is set.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Whether the configuration knows nothing (no auto.conf was found).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// How the configuration builds a file, by its directory's Makefiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildStatus {
    /// Not built: these options on the way to it are unset.
    Unbuilt(Vec<String>),
    /// Built into the kernel image (every option on the way is `y`, or the
    /// object is `obj-y`): kbuild compiles it without `-DMODULE`.
    BuiltIn,
    /// Built as (part of) a module.
    Module,
}

impl BuildStatus {
    /// A short account for error messages: `CONFIG_IBM_BSR is not set`.
    pub fn describe(&self) -> String {
        match self {
            BuildStatus::Unbuilt(unset) => match unset.as_slice() {
                [one] => format!("{one} is not set"),
                many => format!("{} are not set", many.join(", ")),
            },
            BuildStatus::BuiltIn => "it is built into the kernel image, never as a module".to_string(),
            BuildStatus::Module => "it is built as a module".to_string(),
        }
    }
}

/// How the configuration builds `file`, when its Makefiles say: the
/// directory's own Makefile, or a parent's naming it `sub/name.o`. `None`
/// without a configuration, or when the Makefiles do not say (no Makefile, a
/// name they do not mention, a form this reader does not follow).
pub fn build_status(file: &Path, config: &KernelConfig) -> Option<BuildStatus> {
    if config.is_empty() {
        return None;
    }
    let mut dir = file.parent()?;
    let mut object = format!("{}.o", file.file_stem()?.to_string_lossy());
    // A Makefile may name objects of its subdirectories (`tpm-$(CONFIG_OF)
    // += eventlog/of.o`): look up to two levels up.
    for _ in 0..3 {
        let mut values = Vec::new();
        if let Some(()) = options_for(dir, &object, config, &mut values) {
            let mut unset: Vec<String> = Vec::new();
            for (option, _) in values.iter().filter(|(_, v)| v.is_none()) {
                // A composite and its directory are often both gated by one option.
                if !unset.contains(option) {
                    unset.push(option.clone());
                }
            }
            if !unset.is_empty() {
                return Some(BuildStatus::Unbuilt(unset));
            }
            let module = values.iter().any(|(_, v)| v.as_deref() == Some("m"));
            return Some(if module { BuildStatus::Module } else { BuildStatus::BuiltIn });
        }
        object = format!("{}/{object}", dir.file_name()?.to_string_lossy());
        dir = dir.parent()?;
    }
    None
}

/// Collects, into `values`, the options that decide whether `entry` (an
/// object `name.o` or a subdirectory `name/`) of `dir`'s Makefile is built,
/// each with its value in the configuration (`None`: unset), following
/// composite objects and then the parent directories. `None` when the
/// Makefile does not say how `entry` is built.
fn options_for(dir: &Path, entry: &str, config: &KernelConfig, values: &mut Vec<(String, Option<String>)>) -> Option<()> {
    let makefile = std::fs::read_to_string(dir.join("Makefile")).ok()?;
    let assignments = assignments(&makefile);
    let mut target = entry.to_string();
    // A composite object (`foo-y += a.o b.o`, `foo-$(CONFIG_X) += c.o`) is
    // built when its composite is; follow at most a few levels.
    for _ in 0..4 {
        let mut found = None;
        for (variable, objects) in &assignments {
            if !objects.iter().any(|o| *o == target) {
                continue;
            }
            let (stem, mut option) = split_variable(variable);
            // `acpi-$(ACPI_FUTURE_USAGE) += dbtest.o`: a make variable that
            // is no configuration option and that this Makefile never sets
            // is empty, so the list is not built; name it as unset.
            if option.is_none() {
                if let Some(name) = variable.split_once("-$(").map(|(_, v)| v.trim_end_matches(')')) {
                    if !assignments.iter().any(|(v, _)| v == name) {
                        option = Some(name.to_string());
                    }
                }
            }
            if stem == "obj" {
                found = Some((None, option));
                break;
            }
            if found.is_none() && !NOT_OBJECT_LISTS.contains(&stem) {
                found = Some((Some(stem.to_string()), option));
            }
        }
        let (composite, option) = found?;
        // `obj-m += foo.o`: a module whatever the configuration says.
        if composite.is_none() && option.is_none() && assignments.iter().any(|(v, o)| v == "obj-m" && o.iter().any(|o| *o == target)) {
            values.push(("obj-m".to_string(), Some("m".to_string())));
        }
        if let Some(option) = option {
            let value = config.value(&option).map(str::to_string);
            values.push((option, value));
        }
        match composite {
            Some(stem) => target = format!("{stem}.o"),
            None => {
                // The directory itself must be built by its parent's Makefile;
                // a parent that does not say leaves the answer to this one.
                let name = dir.file_name()?.to_string_lossy().into_owned();
                if let Some(parent) = dir.parent() {
                    let _ = options_for(parent, &format!("{name}/"), config, values);
                }
                return Some(());
            }
        }
    }
    None
}

/// Makefile variables that list files but not objects of the build.
pub(crate) const NOT_OBJECT_LISTS: &[&str] = &["ccflags", "subdir-ccflags", "asflags", "always", "extra", "targets", "clean-files", "hostprogs", "userprogs"];

/// `obj-$(CONFIG_FOO)` → (`obj`, Some(`CONFIG_FOO`)); `foo-y` → (`foo`,
/// None); `foo-objs` → (`foo`, None).
pub(crate) fn split_variable(variable: &str) -> (&str, Option<String>) {
    if let Some(start) = variable.find("-$(") {
        let option = variable[start + 3..].trim_end_matches(')').to_string();
        return (&variable[..start], option.starts_with("CONFIG_").then_some(option));
    }
    let stem = variable.rsplit_once('-').map(|(s, _)| s).unwrap_or(variable);
    (stem, None)
}

/// The `VARIABLE += objects` and `VARIABLE := objects` lines of a Makefile,
/// with backslash continuations joined and comments dropped.
pub(crate) fn assignments(makefile: &str) -> Vec<(String, Vec<String>)> {
    let joined = makefile.replace("\\\n", " ");
    joined
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .filter_map(|l| {
            let (variable, objects) = l.split_once("+=").or_else(|| l.split_once(":=")).or_else(|| l.split_once('='))?;
            let variable = variable.trim().trim_end_matches(':').trim();
            if variable.is_empty() || variable.contains(char::is_whitespace) {
                return None;
            }
            Some((variable.to_string(), objects.split_whitespace().map(String::from).collect()))
        })
        .collect()
}

/// Whether an `#include` name is an architecture's own header: `asm/…`
/// (arch/*/include/asm), or an ARM machine or platform header (`mach/…`,
/// `plat/…`, `mach-…/…`).
pub fn is_arch_header(header: &str) -> bool {
    header.starts_with("asm/") || header.starts_with("mach/") || header.starts_with("plat/") || header.starts_with("mach-")
}

/// The architectures of a kernel source tree whose include directory has
/// `header` (Debian's common headers directory ships every architecture's
/// `arch/*/include`), sorted.
pub fn architectures_with_header(source: &Path, header: &str) -> Vec<String> {
    let Ok(archs) = std::fs::read_dir(source.join("arch")) else {
        return Vec::new();
    };
    let mut found: Vec<String> = archs
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("include").join(header).is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_lists_set_options_only() {
        let config = KernelConfig::parse("# comment\nCONFIG_A=y\nCONFIG_B=\"x\"\n# CONFIG_C is not set\n");
        assert!(config.is_set("CONFIG_A") && config.is_set("CONFIG_B") && !config.is_set("CONFIG_C"));
    }

    #[test]
    fn variables_split_into_stem_and_option() {
        assert_eq!(split_variable("obj-$(CONFIG_IBM_BSR)"), ("obj", Some("CONFIG_IBM_BSR".into())));
        assert_eq!(split_variable("obj-y"), ("obj", None));
        assert_eq!(split_variable("tpm-y"), ("tpm", None));
        assert_eq!(split_variable("ipmi_si-objs"), ("ipmi_si", None));
        assert_eq!(split_variable("tpm-$(CONFIG_ACPI)"), ("tpm", Some("CONFIG_ACPI".into())));
    }

    #[test]
    fn makefile_assignments_join_continuations() {
        let a = assignments("obj-$(CONFIG_X) += a.o \\\n\tb.o # two\nfoo-y := c.o\n");
        assert_eq!(a[0], ("obj-$(CONFIG_X)".to_string(), vec!["a.o".to_string(), "b.o".to_string()]));
        assert_eq!(a[1], ("foo-y".to_string(), vec!["c.o".to_string()]));
    }

    #[test]
    fn build_status_follows_composites_subdirectories_and_parents() {
        let root = std::env::temp_dir().join(format!("racewatch-kbuild-{}", std::process::id()));
        let tpm = root.join("char/tpm");
        std::fs::create_dir_all(tpm.join("eventlog")).unwrap();
        std::fs::write(root.join("char/Makefile"), "obj-y += mem.o\nobj-$(CONFIG_IBM_BSR) += bsr.o\nobj-$(CONFIG_TCG_TPM) += tpm/\n").unwrap();
        std::fs::write(
            tpm.join("Makefile"),
            "obj-$(CONFIG_TCG_TPM) += tpm.o\ntpm-y := tpm-chip.o\ntpm-$(CONFIG_OF) += eventlog/of.o\nobj-$(CONFIG_TCG_TIS) += tpm_tis.o\n",
        )
        .unwrap();
        let config = KernelConfig::parse("CONFIG_TCG_TPM=y\nCONFIG_TCG_TIS=m\n");
        let status = |rel: &str| build_status(&root.join(rel), &config);
        assert_eq!(status("char/mem.c"), Some(BuildStatus::BuiltIn));
        assert_eq!(status("char/bsr.c"), Some(BuildStatus::Unbuilt(vec!["CONFIG_IBM_BSR".into()])));
        assert_eq!(status("char/tpm/tpm-chip.c"), Some(BuildStatus::BuiltIn));
        assert_eq!(status("char/tpm/tpm_tis.c"), Some(BuildStatus::Module));
        assert_eq!(status("char/tpm/eventlog/of.c"), Some(BuildStatus::Unbuilt(vec!["CONFIG_OF".into()])));
        assert_eq!(status("char/unknown.c"), None);
        assert_eq!(build_status(&root.join("char/mem.c"), &KernelConfig::default()), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
