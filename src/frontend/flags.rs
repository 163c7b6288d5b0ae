//! Compilation flags for a file, composed one of three ways.
//!
//! 1. **Kernel headers tree** (`--kernel DIR`, the default): a Debian
//!    `linux-headers` tree (its flavour directory, its common directory, or
//!    the root that `dpkg -x` unpacked both into), or a configured kernel
//!    source tree. From it racewatch composes the flags kbuild would pass for
//!    an x86-64 module: `-nostdinc`, the arch and generated include
//!    directories, the three forced includes, `-D__KERNEL__`, `-DMODULE`
//!    unless the configuration builds the file into the image, the
//!    code-model flags that change which inline assembly parses, and the
//!    flags the kernel's Makefiles derive from the tree's configuration
//!    (`kbuild.rs`) where headers test them.
//! 2. **compile_commands.json** (`--compile-commands FILE`): each file's own
//!    flags, as kbuild's `gen_compile_commands.py` recorded them, minus what
//!    only a compiler needs (`-c`, `-o`, dependency files, `-Werror`) and the
//!    GCC-only options clang rejects; relative paths are resolved against
//!    the entry's `directory`.
//! 3. **Plain** (`--no-kernel`): only what the user passes.
//!
//! In every mode `-I`, `-D`, `--include` and `--clang-arg` are appended, so a
//! user's `-D` overrides a composed one.

use super::kbuild::{BuildStatus, KernelConfig, architectures_with_header, build_status, is_arch_header};
use crate::diagnostics::{ErrorClass, FileError};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What the user asked for, before any file is known.
#[derive(Clone, Debug, Default)]
pub struct FlagOptions {
    /// `--kernel DIR`.
    pub kernel: Option<PathBuf>,
    /// `--compile-commands FILE`.
    pub compile_commands: Option<PathBuf>,
    /// `--no-kernel`: plain C, no kernel flags.
    pub no_kernel: bool,
    /// `-I DIR`.
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME[=VALUE]`.
    pub defines: Vec<String>,
    /// `--include FILE`.
    pub forced_includes: Vec<PathBuf>,
    /// `--clang-arg ARG`.
    pub extra: Vec<String>,
}

/// The flags source, resolved once per invocation.
#[derive(Debug)]
pub enum FlagSource {
    /// Compose kbuild-like flags from a kernel headers tree.
    Kernel(KernelTree),
    /// Look each file up in a compilation database.
    CompileCommands(CompileDb),
    /// Only the user's passthrough flags.
    Plain,
    /// Exactly these clang arguments, already composed (by the parent
    /// process of a worker) for the one file a worker analyses.
    Given(Vec<String>),
}

/// The parts of a kernel headers tree that flags point into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelTree {
    /// The configured (flavour) directory: `include/generated`, `arch/*/include/generated`.
    pub build: PathBuf,
    /// The common source directory: `include`, `arch/*/include`. The same
    /// as `build` for a configured source tree.
    pub source: PathBuf,
    /// The options the build directory's configuration sets.
    pub config: KernelConfig,
}

/// Where set-up puts the kernel headers, and where racewatch looks by
/// default: `$RACEWATCH_CACHE`, else `$XDG_CACHE_HOME/racewatch`, else
/// `~/.cache/racewatch` (`HOME`, else the password database), then
/// `kernel/current`.
pub fn default_kernel_dir() -> Option<PathBuf> {
    cache_root().map(|cache| cache.join("kernel/current"))
}

/// racewatch's cache directory (kernel headers, driver sources, results):
/// `$RACEWATCH_CACHE`, else `$XDG_CACHE_HOME/racewatch`, else
/// `~/.cache/racewatch`.
pub fn cache_root() -> Option<PathBuf> {
    std::env::var_os("RACEWATCH_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("racewatch")))
        .or_else(|| std::env::home_dir().map(|h| h.join(".cache/racewatch")))
}

impl KernelTree {
    /// Finds the build and source directories from any of the accepted
    /// starting points.
    pub fn locate(dir: &Path) -> Result<KernelTree, String> {
        if !dir.is_dir() {
            return Err(format!("kernel headers directory {} does not exist", dir.display()));
        }
        let configured = |d: &Path| d.join("include/generated/autoconf.h").is_file();
        // A dpkg -x root: usr/src/linux-headers-*-amd64 beside *-common.
        let usr_src = dir.join("usr/src");
        if usr_src.is_dir() {
            let mut flavours: Vec<PathBuf> = read_dir_sorted(&usr_src)
                .into_iter()
                .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().ends_with("-amd64")) && configured(p))
                .collect();
            // Prefer the plain amd64 flavour over cloud-amd64 and rt-amd64.
            flavours.sort_by_key(|p| p.file_name().map(|n| n.len()));
            if let Some(build) = flavours.into_iter().next() {
                return KernelTree::from_build_dir(&build);
            }
        }
        if configured(dir) {
            return KernelTree::from_build_dir(dir);
        }
        // The common directory alone: find its configured sibling.
        if dir.join("include/linux/kconfig.h").is_file() {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if let Some(prefix) = name.strip_suffix("-common") {
                let sibling = dir.with_file_name(format!("{prefix}-amd64"));
                if configured(&sibling) {
                    return KernelTree::from_build_dir(&sibling);
                }
            }
        }
        Err(format!(
            "{} is not a kernel headers tree (expected include/generated/autoconf.h, or usr/src/linux-headers-*-amd64 below it)",
            dir.display()
        ))
    }

    fn from_build_dir(build: &Path) -> Result<KernelTree, String> {
        // A configured source tree holds its own sources.
        if build.join("include/linux/kconfig.h").is_file() {
            return Ok(KernelTree { build: build.to_path_buf(), source: build.to_path_buf(), config: KernelConfig::read(build) });
        }
        // Debian's flavour Makefile names its common directory:
        // `include /usr/src/linux-headers-<v>-common/Makefile`. Look for that
        // name beside the flavour directory, which also works in a dpkg -x
        // root where the absolute path does not exist.
        let makefile = std::fs::read_to_string(build.join("Makefile")).unwrap_or_default();
        let common_name = makefile
            .lines()
            .filter_map(|l| l.trim().strip_prefix("include "))
            .filter_map(|p| Path::new(p.trim()).parent().and_then(|d| d.file_name()).map(|n| n.to_owned()))
            .next();
        if let Some(name) = common_name {
            let sibling = build.with_file_name(&name);
            if sibling.join("include/linux/kconfig.h").is_file() {
                return Ok(KernelTree { build: build.to_path_buf(), source: sibling, config: KernelConfig::read(build) });
            }
        }
        Err(format!("cannot find the common headers directory for {}", build.display()))
    }

    /// The kbuild-equivalent flags for one x86-64 source file: a module's,
    /// or a built-in object's when the configuration builds it into the image.
    pub fn flags(&self, file: &Path) -> Vec<String> {
        let (b, s) = (self.build.display(), self.source.display());
        let module = file.file_stem().map(|n| n.to_string_lossy().replace('-', "_")).unwrap_or_default();
        let mut flags = vec!["-nostdinc".to_string()];
        for dir in [
            format!("{s}/arch/x86/include"),
            format!("{b}/arch/x86/include/generated"),
            format!("{s}/include"),
            format!("{b}/include"),
            format!("{s}/arch/x86/include/uapi"),
            format!("{b}/arch/x86/include/generated/uapi"),
            format!("{s}/include/uapi"),
            format!("{b}/include/generated/uapi"),
        ] {
            flags.push(format!("-I{dir}"));
        }
        for header in ["compiler-version.h", "kconfig.h", "compiler_types.h"] {
            flags.push("-include".into());
            flags.push(format!("{s}/include/linux/{header}"));
        }
        flags.push("-D__KERNEL__".to_string());
        // scripts/Makefile.lib adds -DMODULE (KBUILD_CFLAGS_MODULE) only to
        // the objects of modules: a file the configuration builds into the
        // image is compiled without it, and its headers keep declarations
        // for built-in code only under #ifndef MODULE (drivers/char/mem.c's
        // random_fops). Without a configuration, or when the Makefiles do
        // not say, the file is parsed as a module.
        let built_in = build_status(file, &self.config) == Some(BuildStatus::BuiltIn);
        if !built_in {
            flags.push("-DMODULE".to_string());
        }
        flags.extend(
            [
                "-std=gnu11",
                // The top Makefile's: -fshort-wchar makes wchar_t (and L""
                // literals) 16 bits wide; -fno-PIE keeps __PIE__ undefined,
                // as in every kernel object.
                "-fshort-wchar",
                "-funsigned-char",
                "-fno-common",
                "-fno-PIE",
                "-fno-strict-aliasing",
                "-m64",
                "-mno-sse",
                "-mno-mmx",
                "-mno-sse2",
                "-mno-3dnow",
                "-mno-avx",
                "-mcmodel=kernel",
                "-mno-red-zone",
                "-Wno-unknown-warning-option",
            ]
            .map(String::from),
        );
        flags.extend(self.configured_flags());
        // The directory Makefiles' ccflags-y, subdir-ccflags-y and
        // CFLAGS_<object>.o (their -I/-D forms), after KBUILD_CFLAGS as in
        // scripts/Makefile.lib.
        flags.extend(super::kbuild_flags::makefile_flags(file, &self.config));
        // scripts/Makefile.lib's modname_flags and basename_flags.
        flags.push(format!("-DKBUILD_MODNAME=\"{module}\""));
        flags.push(format!("-D__KBUILD_MODNAME=kmod_{module}"));
        flags.push(format!("-DKBUILD_BASENAME=\"{module}\""));
        // Built-in code's MODULE_LICENSE names its module file
        // (MODULE_FILE, include/linux/module.h) for modules.builtin:
        // Makefile.lib's modfile_flags, here the object's own name.
        if built_in {
            flags.push(format!("-DKBUILD_MODFILE=\"{module}\""));
        }
        flags
    }

    /// The flags the top Makefile adds when the configuration sets an
    /// option, restricted to those that headers test: without them a header
    /// refuses to parse or parses differently from a kernel build.
    fn configured_flags(&self) -> Vec<String> {
        let set = |name: &str| self.config.is_set(name);
        let mut flags = Vec::new();
        if set("CONFIG_FUNCTION_TRACER") {
            // CC_FLAGS_FTRACE and CC_FLAGS_USING: with a function tracer and
            // HAVE_FENTRY every object is built with -mfentry and
            // -DCC_USING_FENTRY, and arch/x86/include/asm/ftrace.h stops
            // with `#error Compiler does not support fentry?` without the
            // define (drivers/watchdog/watchdog_core.c includes it).
            if set("CONFIG_HAVE_FENTRY") {
                flags.extend(["-mfentry".to_string(), "-DCC_USING_FENTRY".to_string()]);
            }
            // include/linux/ftrace.h's ftrace_need_init_nop() tests it.
            if set("CONFIG_FTRACE_MCOUNT_USE_OBJTOOL") && set("CONFIG_HAVE_OBJTOOL_NOP_MCOUNT") {
                flags.push("-DCC_USING_NOP_MCOUNT".to_string());
            }
        }
        flags
    }
}

fn read_dir_sorted(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// A compile_commands.json, indexed by absolute file path.
#[derive(Debug)]
pub struct CompileDb {
    /// The database file.
    pub path: PathBuf,
    entries: HashMap<PathBuf, CompileEntry>,
    /// Entries naming a file but malformed otherwise: the file and why.
    broken: HashMap<PathBuf, String>,
    /// Entries that do not even name a file, as errors about the database.
    pub invalid: Vec<FileError>,
}

#[derive(Clone, Debug, Deserialize)]
struct CompileEntry {
    directory: PathBuf,
    file: PathBuf,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    arguments: Option<Vec<String>>,
}

/// Options that only a compiler needs, each with the number of arguments
/// that follow it.
const COMPILER_ONLY: &[(&str, usize)] = &[("-c", 0), ("-o", 1), ("-MF", 1), ("-MT", 1), ("-MQ", 1), ("-MD", 0), ("-MMD", 0)];

/// Prefixes of GCC-only options in kbuild's command lines that clang rejects
/// or that change nothing for parsing. Compiler knowledge, not kernel
/// knowledge, so it lives here rather than in kernel-models/.
const DROPPED_PREFIXES: &[&str] = &[
    "-Wp,-MMD",
    "-Wp,-MD",
    "-Werror",
    "-fplugin",
    "-fconserve-stack",
    "-fno-allow-store-data-races",
    "-mrecord-mcount",
    "-mindirect-branch",
    "-mfunction-return",
    "-mpreferred-stack-boundary",
    "-mskip-rax-setup",
    "-fno-ipa-",
    "-fmin-function-alignment",
    "-fno-var-tracking",
    "-mno-fp-ret-in-387",
    "-fsanitize=bounds-strict",
    "-falign-jumps",
    "-falign-loops",
    "-fpatchable-function-entry",
];

/// Options whose path argument is resolved against the entry's directory,
/// written either joined (`-Ifoo`) or separate (`-I foo`).
const PATH_OPTIONS: &[&str] = &["-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros"];

impl CompileDb {
    /// Reads and indexes a compile_commands.json. A file that is not a JSON
    /// array is an error naming it and serde's line and column; one bad
    /// entry is an error for its file alone (or, when it names no file, an
    /// error about the database listed in [`CompileDb::invalid`]), and the
    /// other entries stay usable.
    pub fn load(path: &Path) -> Result<CompileDb, FileError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            let class = if e.kind() == std::io::ErrorKind::NotFound { ErrorClass::MissingFile } else { ErrorClass::Unreadable };
            FileError::new(path, class, format!("cannot read compilation database: {e}"))
        })?;
        let raw: Vec<serde_json::Value> = serde_json::from_str(&text).map_err(|e| {
            FileError::new(path, ErrorClass::Flags, format!("not a valid compile_commands.json: {e}"))
        })?;
        let mut entries = HashMap::new();
        let mut broken = HashMap::new();
        let mut invalid = Vec::new();
        for (n, value) in raw.into_iter().enumerate() {
            let named = value.get("file").and_then(|f| f.as_str()).map(|f| {
                let dir = value.get("directory").and_then(|d| d.as_str()).unwrap_or("");
                normalise(&absolute(Path::new(dir), Path::new(f)))
            });
            match (serde_json::from_value::<CompileEntry>(value), named) {
                (Ok(entry), _) => {
                    let file = absolute(&entry.directory, &entry.file);
                    entries.insert(normalise(&file), entry);
                }
                (Err(e), Some(file)) if file.is_absolute() => {
                    broken.insert(file, e.to_string());
                }
                (Err(e), _) => invalid.push(FileError::new(
                    path,
                    ErrorClass::Flags,
                    format!("entry {} names no file with its directory, so it is ignored: {e}", n + 1),
                )),
            }
        }
        Ok(CompileDb { path: path.to_path_buf(), entries, broken, invalid })
    }

    /// Every file the database names, sorted (those of broken entries too,
    /// so that each gets its error).
    pub fn files(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = self.entries.values().map(|e| absolute(&e.directory, &e.file)).chain(self.broken.keys().cloned()).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The files the database names that lie in `dir` or below it.
    pub fn files_under(&self, dir: &Path) -> Vec<PathBuf> {
        let dir = normalise(&std::env::current_dir().map(|cwd| cwd.join(dir)).unwrap_or_else(|_| dir.to_path_buf()));
        self.files().into_iter().filter(|f| normalise(f).starts_with(&dir)).collect()
    }

    /// The clang arguments for `file`, or an error when the database has no
    /// usable entry for it.
    pub fn flags(&self, file: &Path) -> Result<Vec<String>, FileError> {
        let key = normalise(&std::env::current_dir().map(|cwd| cwd.join(file)).unwrap_or_else(|_| file.to_path_buf()));
        if let Some(why) = self.broken.get(&key) {
            return Err(FileError::new(file, ErrorClass::Flags, format!("its entry in {} is malformed: {why}", self.path.display())));
        }
        let entry = self.entries.get(&key).ok_or_else(|| {
            FileError::new(file, ErrorClass::Flags, format!("no entry for this file in {}", self.path.display()))
        })?;
        let argv = match (&entry.arguments, &entry.command) {
            (Some(args), _) => args.clone(),
            (None, Some(cmd)) => shlex::split(cmd).ok_or_else(|| {
                FileError::new(file, ErrorClass::Flags, format!("unbalanced quotes in its command in {}", self.path.display()))
            })?,
            (None, None) => {
                return Err(FileError::new(
                    file,
                    ErrorClass::Flags,
                    format!("its entry in {} has neither `command` nor `arguments`", self.path.display()),
                ));
            }
        };
        Ok(clean_arguments(&argv, &entry.directory, &absolute(&entry.directory, &entry.file)))
    }
}

/// Options kbuild's CHECKFLAGS pass for sparse (the Makefile's and
/// arch/x86/Makefile's), which clang rejects or which redefine its
/// built-in macros.
const SPARSE_ONLY: &[&str] = &["--arch=", "-mlittle-endian", "-mbig-endian", "-D__STDC__"];

/// The clang arguments of a checker's command line as kbuild gives it
/// (`$(CHECK) $(CHECKFLAGS) $(c_flags) $<`, run in `directory`): the
/// same cleaning as a compilation database entry's.
pub fn checker_arguments(args: &[String], directory: &Path, source: &Path) -> Vec<String> {
    let mut argv = vec!["checker".to_string()];
    argv.extend(args.iter().filter(|a| !SPARSE_ONLY.iter().any(|p| a.starts_with(p))).cloned());
    clean_arguments(&argv, directory, &absolute(directory, source))
}

/// Drops the compiler name, the source file and compiler-only options, and
/// makes relative include paths absolute.
fn clean_arguments(argv: &[String], directory: &Path, source: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 1; // argv[0] is the compiler.
    while i < argv.len() {
        let arg = &argv[i];
        i += 1;
        if let Some(&(_, skip)) = COMPILER_ONLY.iter().find(|(o, _)| o == arg) {
            i += skip;
            continue;
        }
        if arg.starts_with("-o") && arg.len() > 2 && !arg.starts_with("-ob") {
            continue;
        }
        if DROPPED_PREFIXES.iter().any(|p| arg.starts_with(p)) {
            continue;
        }
        if !arg.starts_with('-') && normalise(&absolute(directory, Path::new(arg))) == normalise(source) {
            continue;
        }
        if let Some(opt) = PATH_OPTIONS.iter().find(|o| arg == *o) {
            if let Some(value) = argv.get(i) {
                out.push(opt.to_string());
                out.push(absolute(directory, Path::new(value)).display().to_string());
                i += 1;
            }
            continue;
        }
        if let Some(opt) = PATH_OPTIONS.iter().filter(|o| o.len() == 2).find(|o| arg.starts_with(*o) && arg.len() > 2) {
            out.push(format!("{opt}{}", absolute(directory, Path::new(&arg[2..])).display()));
            continue;
        }
        out.push(arg.clone());
    }
    out.push("-Wno-unknown-warning-option".into());
    out.push("-Qunused-arguments".into());
    out
}

fn absolute(directory: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() { p.to_path_buf() } else { directory.join(p) }
}

/// Removes `.` and `..` components without touching the file system, so a
/// database entry matches however the user spells the path.
pub(super) fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The phrase every parse error of a file the configuration does not
/// build carries, followed by the reason in parentheses (`CONFIG_X is not
/// set`, `not built by any Makefile`); scripts/tree-coverage.py reads it.
pub const NOT_BUILT: &str = "the kernel's configuration does not build this file";

/// Whether `file` lies in a directory with a Makefile, none of whose
/// Makefiles (its directory's and the two above) names its object.
fn unnamed(file: &Path) -> bool {
    let Ok(absolute) = std::path::absolute(file) else { return false };
    let Some(dir) = absolute.parent() else { return false };
    let object = format!("{}.o", file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
    (dir.join("Makefile").is_file() || dir.join("Kbuild").is_file()) && !super::units::named_by_makefiles(dir, &object)
}

impl FlagSource {
    /// Resolves the options into a source, reading the database or locating
    /// the kernel tree once.
    pub fn resolve(options: &FlagOptions) -> Result<FlagSource, FileError> {
        if let Some(db) = &options.compile_commands {
            return CompileDb::load(db).map(FlagSource::CompileCommands);
        }
        if options.no_kernel {
            return Ok(FlagSource::Plain);
        }
        let dir = match &options.kernel {
            Some(dir) => dir.clone(),
            None => default_kernel_dir().ok_or_else(|| {
                FileError::new("--kernel", ErrorClass::Flags, "no kernel headers: run scripts/setup.sh or pass --kernel DIR")
            })?,
        };
        KernelTree::locate(&dir).map(FlagSource::Kernel).map_err(|message| {
            let hint = if options.kernel.is_none() { " (run scripts/setup.sh, or pass --kernel DIR or --no-kernel)" } else { "" };
            FileError::new(&dir, ErrorClass::Flags, format!("{message}{hint}"))
        })
    }

    /// Adds to a parse error what the kernel tree says about its cause: an
    /// architecture header x86-64 does not have, a file the tree's
    /// configuration does not build, or one it builds only into the kernel
    /// image (racewatch parses every file as a module, and headers hide some
    /// declarations from modules). Other errors, and every error under
    /// another flag source, are returned as they are.
    pub fn explain(&self, mut error: FileError) -> FileError {
        let FlagSource::Kernel(tree) = self else {
            return error;
        };
        let status = build_status(&error.path, &tree.config);
        match error.class {
            ErrorClass::MissingHeader => {
                let header = error.message.split('\'').nth(1).unwrap_or_default().to_string();
                if is_arch_header(&header) {
                    let owners = architectures_with_header(&tree.source, &header);
                    let whose = if owners.is_empty() { "an architecture header".to_string() } else { format!("a header of {}", owners.join(", ")) };
                    error.message.push_str(&format!(": {whose} that x86-64 does not have; the driver is for another architecture"));
                    if let Some(status @ BuildStatus::Unbuilt(_)) = status {
                        error.message.push_str(&format!("; {NOT_BUILT} ({})", status.describe()));
                    } else if status.is_none() && unnamed(&error.path) {
                        error.message.push_str(&format!("; {NOT_BUILT} (not built by any Makefile)"));
                    }
                    return error;
                }
                // `#include "../tty/hvc/hvc_console.h"`: a header of another
                // directory of the source tree, which a partial tree (such
                // as set-up's extract of linux-source) may lack.
                if header.starts_with("../") {
                    if let Some(dir) = error.path.parent().map(|d| d.join(&header)).and_then(|h| h.parent().map(normalise)) {
                        if !dir.is_dir() {
                            error.message.push_str(&format!(
                                ": a header of another directory of the kernel source, {}, which this source tree does not have",
                                dir.display()
                            ));
                            return error;
                        }
                    }
                }
            }
            ErrorClass::ParseError => {}
            _ => return error,
        }
        match status {
            Some(status @ BuildStatus::Unbuilt(_)) => error.message.push_str(&format!(
                "; {NOT_BUILT} ({}): it may need another architecture or options this configuration leaves out",
                status.describe()
            )),
            None if unnamed(&error.path) => error.message.push_str(&format!(
                "; {NOT_BUILT} (not built by any Makefile): kbuild never compiles it on its own"
            )),
            Some(BuildStatus::BuiltIn | BuildStatus::Module) | None => {}
        }
        error
    }

    /// The full clang argument list for one file.
    pub fn flags_for(&self, file: &Path, options: &FlagOptions) -> Result<Vec<String>, FileError> {
        let mut flags = match self {
            FlagSource::Kernel(tree) => tree.flags(file),
            FlagSource::CompileCommands(db) => db.flags(file)?,
            FlagSource::Plain => Vec::new(),
            FlagSource::Given(flags) => return Ok(flags.clone()),
        };
        for dir in &options.include_dirs {
            flags.push(format!("-I{}", dir.display()));
        }
        for define in &options.defines {
            flags.push(format!("-D{define}"));
        }
        for include in &options.forced_includes {
            flags.push("-include".into());
            flags.push(include.display().to_string());
        }
        flags.extend(options.extra.iter().cloned());
        Ok(flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_command_cleaning_drops_compiler_only_options_and_resolves_paths() {
        let argv: Vec<String> = shlex::split(
            "gcc -Wp,-MMD,drivers/char/.nvram.o.d -nostdinc -I./arch/x86/include -I ./include -include ./include/linux/kconfig.h \
             -D__KERNEL__ -Werror=implicit -fconserve-stack -c -o drivers/char/nvram.o drivers/char/nvram.c",
        )
        .unwrap();
        let out = clean_arguments(&argv, Path::new("/k"), Path::new("/k/drivers/char/nvram.c"));
        assert_eq!(
            out,
            [
                "-nostdinc",
                "-I/k/./arch/x86/include",
                "-I",
                "/k/./include",
                "-include",
                "/k/./include/linux/kconfig.h",
                "-D__KERNEL__",
                "-Wno-unknown-warning-option",
                "-Qunused-arguments"
            ]
        );
    }

    #[test]
    fn normalise_folds_dot_components() {
        assert_eq!(normalise(Path::new("/a/./b/../c.c")), PathBuf::from("/a/c.c"));
    }
}
