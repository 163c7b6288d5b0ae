//! Real Linux 6.12 files that whole-directory runs over drivers/char and
//! drivers/watchdog met: the composed flags follow the kernel's
//! configuration as kbuild's do (a file that includes
//! arch/x86/include/asm/ftrace.h parses), set-up extracts the directories
//! whose headers drivers include (drivers/tty/hvc for
//! drivers/char/virtio_console.c), and a file that cannot be parsed
//! on x86-64 says why in its one error line: the architecture whose header
//! it needs or the configuration option that leaves it out of the build; a
//! file the kernel builds into its image is parsed as built-in code.

use std::path::PathBuf;
use std::process::{Command, Output};

fn linux_source() -> PathBuf {
    let kernel = racewatch::frontend::flags::default_kernel_dir().expect("a cache directory");
    let source = kernel.parent().unwrap().parent().unwrap().join("linux-source/current");
    assert!(source.join("drivers/char").is_dir(), "{} is missing: run scripts/setup.sh", source.display());
    source
}

fn entry_points(rel: &str) -> Output {
    let file = linux_source().join(rel);
    Command::new(env!("CARGO_BIN_EXE_racewatch")).arg("entry-points").arg(&file).output().expect("run racewatch")
}

/// The one error line of a refused file, after checking the exit code and
/// the class.
fn error_line(rel: &str, class: &str) -> String {
    let o = entry_points(rel);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{rel}: exit code; stderr:\n{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{rel}: expected one error line:\n{err}");
    assert!(lines[0].contains(rel), "{rel}: the error should name the file: {err}");
    assert!(lines[0].ends_with(&format!("[{class}]")), "{rel}: expected class {class}: {err}");
    lines[0].to_string()
}

#[test]
fn ftrace_headers_parse_with_the_configurations_fentry_flags() {
    // watchdog_core.c includes asm/ftrace.h, which stops with `Compiler
    // does not support fentry?` unless -DCC_USING_FENTRY comes with
    // CONFIG_FUNCTION_TRACER, as the top Makefile passes it.
    let o = entry_points("drivers/watchdog/watchdog_core.c");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "stderr:\n{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("entry points"));
}

#[test]
fn a_missing_architecture_header_names_its_architecture_and_option() {
    let line = error_line("drivers/char/dsp56k.c", "missing-header");
    assert!(line.contains("'asm/atarihw.h' file not found"), "{line}");
    assert!(line.contains("a header of m68k that x86-64 does not have; the driver is for another architecture"), "{line}");
    assert!(line.contains("CONFIG_ATARI_DSP56K is not set"), "{line}");
}

#[test]
fn a_parse_error_in_a_file_the_configuration_leaves_out_names_the_option() {
    // bsr.c calls a powerpc function; tpm/eventlog/of.c is built from its
    // parent directory's Makefile (`tpm-$(CONFIG_OF) += eventlog/of.o`).
    let line = error_line("drivers/char/bsr.c", "parse-error");
    assert!(line.contains("remap_4k_pfn"), "{line}");
    assert!(line.contains("the kernel's configuration does not build this file (CONFIG_IBM_BSR is not set)"), "{line}");
    let line = error_line("drivers/char/tpm/eventlog/of.c", "parse-error");
    assert!(line.contains("(CONFIG_OF is not set)"), "{line}");
}

/// mem.c is obj-y (built into the image): kbuild compiles it without
/// -DMODULE, and it uses random_fops, which linux/random.h declares only
/// #ifndef MODULE; its `fs_initcall(chr_dev_init)` is its init.
#[test]
fn a_built_in_file_parses_without_module_and_its_initcall_is_its_init() {
    let o = entry_points("drivers/char/mem.c");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "stderr:\n{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("init chr_dev_init"), "{out}");
    let line = out.lines().find(|l| l.trim_start().starts_with("chr_dev_init")).unwrap_or_default();
    assert!(line.contains("initcall") && line.contains("fs_initcall"), "{out}");
    // tpm-interface.c (CONFIG_TCG_TPM=y) names KBUILD_MODFILE through
    // MODULE_LICENSE, as built-in code does; its module_exit never runs.
    let o = entry_points("drivers/char/tpm/tpm-interface.c");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "stderr:\n{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("init tpm_init"), "{out}");
    assert!(!out.contains("tpm_exit"), "a built-in file's exit function is no entry point:\n{out}");
}

#[test]
fn a_driver_including_another_directorys_header_parses() {
    // virtio_console.c includes "../tty/hvc/hvc_console.h": set-up extracts
    // drivers/tty/hvc too (drivers/linux-6.12/extract-dirs.txt).
    let o = entry_points("drivers/char/virtio_console.c");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "stderr (run scripts/setup.sh if drivers/tty/hvc is missing):\n{err}");
}

/// drivers/block/null_blk's Makefile adds `ccflags-y += -I$(src)`, which
/// its trace header needs (define_trace.h includes "./trace.h" through
/// TRACE_INCLUDE_PATH): with the directory Makefiles' flags the module
/// parses.
#[test]
fn directory_makefile_include_flags_are_applied() {
    let o = entry_points("drivers/block/null_blk/main.c");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "stderr:\n{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("null_blk"), "no entry points listed");
}

/// drivers/usb/host/ehci-timer.c is no object of any Makefile: ehci-hcd.c
/// `#include`s it (with ehci-hub.c, ehci-mem.c, …) and it uses that file's
/// static declarations. `check` reports it `not-a-unit`, naming the
/// includer's line, as a note with exit code 0, in text and JSON; its
/// includer is a unit.
#[test]
fn a_file_another_includes_and_no_makefile_builds_is_not_a_unit() {
    let source = linux_source();
    let rel = "drivers/usb/host/ehci-timer.c";
    assert!(source.join(rel).is_file(), "{rel} is missing: run scripts/setup.sh (drivers/usb/host)");
    let includer = std::fs::read_to_string(source.join("drivers/usb/host/ehci-hcd.c")).expect("ehci-hcd.c");
    let line = includer.lines().position(|l| l.trim() == "#include \"ehci-timer.c\"").expect("ehci-hcd.c includes ehci-timer.c") + 1;
    let run = |format: &str| {
        Command::new(env!("CARGO_BIN_EXE_racewatch"))
            .current_dir(&source)
            .args(["check", "--no-cache", "--format", format, rel])
            .output()
            .expect("run racewatch")
    };
    let o = run("text");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "stdout:\n{out}\nstderr:\n{}", String::from_utf8_lossy(&o.stderr));
    let expected = format!("{rel}: note: not a unit of compilation: no Makefile names ehci-timer.o, and drivers/usb/host/ehci-hcd.c:{line} #includes it");
    assert!(out.contains(&expected), "expected `{expected}` in:\n{out}");
    assert!(out.trim_end().ends_with("[not-a-unit]"), "{out}");
    let o = run("json");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    let file = &doc["files"][0];
    assert_eq!(file["status"], "not-a-unit", "{doc}");
    assert_eq!(file["note"]["included_at"]["file"], "drivers/usb/host/ehci-hcd.c", "{doc}");
    assert_eq!(file["note"]["included_at"]["line"], line, "{doc}");
    assert!(file.get("error").is_none(), "not an error: {doc}");
    assert!(racewatch::frontend::units::not_a_unit(&source.join("drivers/usb/host/ehci-hcd.c")).is_none(), "ehci-hcd.c is a unit");
}

/// The built-or-not decision on drivers/usb/host/Makefile against Debian's
/// amd64 configuration: `obj-$(CONFIG_USB_EHCI_HCD) += ehci-hcd.o` with
/// CONFIG_USB_EHCI_HCD=m is a module, `obj-$(CONFIG_USB_OHCI_HCD_AT91) +=
/// ohci-at91.o` (an ARM SoC's controller) is not built, and ehci-timer.c,
/// which no line names, has no status.
#[test]
fn the_usb_host_makefile_decides_which_files_the_configuration_builds() {
    use racewatch::frontend::kbuild::{BuildStatus, build_status};
    let source = linux_source();
    let kernel = racewatch::frontend::flags::default_kernel_dir().expect("a cache directory");
    let tree = racewatch::frontend::flags::KernelTree::locate(&kernel).expect("the headers tree");
    assert_eq!(tree.config.value("CONFIG_USB_EHCI_HCD"), Some("m"), "Debian's amd64 configuration");
    let status = |rel: &str| build_status(&source.join(rel), &tree.config);
    assert_eq!(status("drivers/usb/host/ehci-hcd.c"), Some(BuildStatus::Module));
    assert_eq!(status("drivers/usb/host/ohci-at91.c"), Some(BuildStatus::Unbuilt(vec!["CONFIG_USB_OHCI_HCD_AT91".into()])));
    assert_eq!(status("drivers/usb/host/ehci-timer.c"), None);
    // A parse error of an unbuilt file says why it is not built: ohci-omap.c
    // (`obj-$(CONFIG_USB_OHCI_HCD_OMAP1) += ohci-omap.o`) needs an ARM header.
    let line = error_line("drivers/usb/host/ohci-omap.c", "missing-header");
    assert!(line.contains("the kernel's configuration does not build this file (CONFIG_USB_OHCI_HCD_OMAP1 is not set)"), "{line}");
}
