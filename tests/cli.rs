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

/// A driver with init, exit, two callbacks and an irq handler.
const SMALL_DRIVER: &str = r#"#include <linux/module.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/interrupt.h>
static int count;
static ssize_t s_read(struct file *f, char __user *b, size_t n, loff_t *o) { return count; }
static ssize_t s_write(struct file *f, const char __user *b, size_t n, loff_t *o) { count++; return n; }
static irqreturn_t s_irq(int irq, void *dev) { count = 0; return IRQ_HANDLED; }
static const struct file_operations s_fops = { .owner = THIS_MODULE, .read = s_read, .write = s_write };
static struct miscdevice s_misc = { .minor = MISC_DYNAMIC_MINOR, .name = "s", .fops = &s_fops };
static int __init s_init(void) { if (request_irq(7, s_irq, 0, "s", NULL)) return -EBUSY; return misc_register(&s_misc); }
static void __exit s_exit(void) { misc_deregister(&s_misc); free_irq(7, NULL); }
module_init(s_init);
module_exit(s_exit);
MODULE_LICENSE("GPL");
"#;

#[test]
fn pairs_are_the_pairs_the_kernel_lets_overlap() {
    let dir = scratch("pairs");
    let f = write(&dir, "small.c", SMALL_DRIVER.as_bytes());
    let o = racewatch(&["pairs", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // 5 * 6 / 2 = 15 pairs. The kernel serialisation rules
    // (kernel-models/serialisation/) remove 6: s_irq's self-pair
    // (irq-handler-not-reentered: one line never runs its handler on two CPUs
    // at once, and s_irq is requested once), s_init's (module-init-once),
    // s_exit's (module-exit-once), s_init with s_exit (module-exit-after-init)
    // and the file operations with s_exit (module-exit-no-open-file: an open
    // file holds a module reference). s_exit still runs alongside s_irq
    // until its free_irq. 9 kept, 6 removed.
    let out = stdout(&o);
    assert!(out.contains("5 entry points, 9 pairs kept, 6 removed by kernel serialisation"), "{out}");
    assert_eq!(out.lines().filter(|l| l.contains("s_exit")).count(), 1, "only s_irq with s_exit: {out}");
    let o = racewatch(&["pairs", "--xml", &f]);
    let xml = stdout(&o);
    assert!(xml.contains(r#"<driver name="small.c""#), "{xml}");
    assert_eq!(xml.matches("<pair ").count(), 9, "{xml}");
    assert!(xml.contains(r#"<pair ep1="s_irq" ep2="s_exit"/>"#), "{xml}");
    assert!(xml.contains(r#"<pair ep1="s_read" ep2="s_read"/>"#), "self-pairs are kept: {xml}");
    assert!(xml.contains(r#"<pair ep1="s_read" ep2="s_irq"/>"#), "{xml}");
}

#[test]
fn entry_points_xml_carries_kinds_origins_and_errors() {
    let dir = scratch("xml");
    let f = write(&dir, "small.c", SMALL_DRIVER.as_bytes());
    let o = racewatch(&["entry-points", "--xml", &f, "/nonexistent/x.c"]);
    assert_eq!(o.status.code(), Some(2));
    let xml = stdout(&o);
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"), "{xml}");
    assert!(xml.contains(r#"<driver name="small.c""#) && xml.contains(r#"init="s_init""#), "{xml}");
    assert!(
        xml.contains(r#"<origin kind="callback" via="file_operations.read" struct="file_operations" field="read" holder="s_fops""#),
        "{xml}"
    );
    assert!(xml.contains(r#"<origin kind="irq" via="request_irq" call="request_irq""#), "{xml}");
    assert!(xml.contains(r#"<error file="/nonexistent/x.c" class="missing-file">"#), "{xml}");
    // Every element is closed: the document parses.
    let mut reader = quick_xml::Reader::from_str(&xml);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("malformed XML: {e}\n{xml}"),
        }
    }
}

#[test]
fn a_new_ops_structure_needs_only_a_model_file() {
    // The driver stores a function in a kernel-style structure that the
    // shipped models do not know: a warning says so, and a model file in a
    // --models directory makes it an entry point, with no code change.
    let dir = scratch("models");
    std::fs::create_dir_all(dir.join("kinc")).unwrap();
    write(&dir, "kinc/gadget.h", b"struct gadget_ops { int (*poke)(int); };\nint gadget_register(const struct gadget_ops *);\n");
    std::fs::create_dir_all(dir.join("drv")).unwrap();
    let f = write(
        &dir,
        "drv/gadget.c",
        b"#include \"../kinc/gadget.h\"\nstatic int my_poke(int x) { return x; }\nstatic const struct gadget_ops ops = { .poke = my_poke };\nint setup(void) { return gadget_register(&ops); }\n",
    );
    let o = racewatch(&["entry-points", "--no-kernel", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("0 entry points, 1 warning"), "{}", stdout(&o));
    assert!(stdout(&o).contains("[unmodelled-ops]"), "{}", stdout(&o));

    let models = dir.join("models");
    std::fs::create_dir_all(&models).unwrap();
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("kernel-models/entry-points")).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, models.join(p.file_name().unwrap())).unwrap();
    }
    write(
        &models,
        "gadget.xml",
        br#"<kernel-model kernel="test"><ops-struct name="gadget_ops" default-kind="callback" reason="the gadget core calls poke"/></kernel-model>"#,
    );
    let o = racewatch(&["entry-points", "--no-kernel", "--models", &models.display().to_string(), &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("my_poke  callback  gadget_ops.poke (ops)"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("unmodelled-ops"), "{}", stdout(&o));

    // A broken model file is one clean error naming it.
    write(&models, "broken.xml", br#"<kernel-model kernel="test"><ops-struct name="x"/></kernel-model>"#);
    let o = racewatch(&["entry-points", "--no-kernel", "--models", &models.display().to_string(), &f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("broken.xml: error: invalid kernel model"), "{}", stderr(&o));
}

#[test]
fn output_is_the_same_for_any_job_count() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("drivers/corpus").display().to_string();
    let one = racewatch(&["entry-points", "-j", "1", &corpus]);
    let two = racewatch(&["entry-points", "-j", "2", &corpus]);
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert_eq!(stdout(&one), stdout(&two));
}

/// C the lowering has rarely or never seen: every construct either lowers or
/// gets a warning with its place and kind; nothing panics, nothing is
/// skipped silently.
const UNFAMILIAR_C: &str = r#"#include <linux/module.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
static _Atomic int hits;
static int table[4];
static int kr_style(a, b) int a; int b; { return a + b; }
struct flex { int n; int data[]; };
static int odd_ops(int n, struct flex *f)
{
	static void *jumps[] = { &&one, &&two };
	__auto_type x = n * 2;
	int vla[n > 0 ? n : 1];
	_Complex double z = 1.0;
	__int128 big = (__int128)n << 70;
	int k = __builtin_choose_expr(sizeof(int) == 4, 1, 2);
	hits++;
	__atomic_fetch_add(&table[1], 1, __ATOMIC_SEQ_CST);
	vla[0] = f->data[n] + (int)__real__ z + (int)big + k;
	goto *jumps[n & 1];
one:
	x += sizeof(vla);
two:
	asm goto("" :::: one);
	return x + table[n & 3] + kr_style(1, 2);
}
static ssize_t odd_read(struct file *file, char __user *buf, size_t len, loff_t *pos)
{
	return odd_ops((int)len, file->private_data);
}
static const struct file_operations odd_fops = { .owner = THIS_MODULE, .read = odd_read };
static struct miscdevice odd_misc = { .minor = MISC_DYNAMIC_MINOR, .name = "odd", .fops = &odd_fops };
module_misc_device(odd_misc);
MODULE_LICENSE("GPL");
"#;

#[test]
fn unfamiliar_c_lowers_with_located_warnings_and_no_panic() {
    let dir = scratch("unfamiliar");
    let f = write(&dir, "odd.c", UNFAMILIAR_C.as_bytes());
    let o = racewatch(&["ivl", "-v", &f]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // The computed goto and the GNU atomic builtin cannot be expressed: the
    // verdicts depending on them must become unknown, and each is located.
    assert!(err.contains("odd.c:19:2: warning: construct the lowering does not express"), "{err}");
    assert!(err.contains("computed goto [unsupported-construct]"), "{err}");
    assert!(err.contains("odd.c:17:2: warning:"), "{err}");
    // Floating point, complex parts and VLA sizes are abstracted, with notes.
    assert!(err.contains("odd.c:18:29: note: cast abstracted: complex-number part [cast]"), "{err}");
    assert!(err.contains("sizeof or alignof of a variable-length type"), "{err}");
    assert!(err.contains("odd.c:23:2: note: inline assembly"), "{err}");
    // The summary line counts them.
    assert!(err.contains("2 unsupported-construct"), "{err}");
    let out = stdout(&o);
    assert!(out.contains("region") && out.contains("\"global table\""), "{out}");
    assert!(out.contains("\"local odd_ops.vla\" global thread-private"), "{out}");
}

#[test]
fn ivl_prints_one_function_or_the_statistics() {
    let dir = scratch("ivl");
    let f = write(&dir, "small.c", SMALL_DRIVER.as_bytes());
    let o = racewatch(&["ivl", "--function", "s_write", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("procedure s_write("), "{out}");
    assert!(out.contains("store region") && out.contains("// small.c:7:"), "{out}");
    let o = racewatch(&["ivl", "--stats", &f]);
    let out = stdout(&o);
    assert!(out.contains("functions") && out.contains("procedures"), "{out}");
    // Bad input is handled as by every command.
    assert_eq!(racewatch(&["ivl", "/nonexistent.c"]).status.code(), Some(2));
}

/// The row of `pairs --verbose` naming this removed pair, whitespace
/// collapsed: `ep1 ep2 rules`.
fn removed_row(out: &str, ep1: &str, ep2: &str) -> Option<String> {
    let section = out.split("removed (pair, rules):").nth(1)?;
    section.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).find(|l| l.starts_with(&format!("{ep1} {ep2} ")))
}

#[test]
fn pairs_verbose_names_the_rule_that_removed_each_pair() {
    let dir = scratch("pairs-verbose");
    let f = write(&dir, "small.c", SMALL_DRIVER.as_bytes());
    let plain = stdout(&racewatch(&["pairs", &f]));
    assert!(!plain.contains("removed (pair, rules):"), "only --verbose lists removed pairs: {plain}");
    let o = racewatch(&["pairs", "--verbose", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("5 entry points, 9 pairs kept, 6 removed by kernel serialisation"), "{out}");
    assert_eq!(removed_row(&out, "s_irq", "s_irq").as_deref(), Some("s_irq s_irq irq-handler-not-reentered"), "{out}");
    assert_eq!(removed_row(&out, "s_init", "s_init").as_deref(), Some("s_init s_init module-init-once"), "{out}");
    assert_eq!(removed_row(&out, "s_read", "s_exit").as_deref(), Some("s_read s_exit module-exit-no-open-file"), "{out}");
    assert_eq!(removed_row(&out, "s_init", "s_exit").as_deref(), Some("s_init s_exit module-exit-after-init"), "{out}");
    assert_eq!(removed_row(&out, "s_read", "s_irq"), None, "a kept pair is not listed as removed: {out}");
    assert_eq!(removed_row(&out, "s_irq", "s_exit"), None, "exit runs alongside the handler until free_irq: {out}");

    // The XML lists the removed pairs after the kept ones, each with its rules.
    let xml = stdout(&racewatch(&["pairs", "--xml", &f]));
    assert_eq!(xml.matches("<removed ").count(), 6, "{xml}");
    assert!(xml.contains(r#"<removed ep1="s_irq" ep2="s_irq" rule="irq-handler-not-reentered"/>"#), "{xml}");
    assert!(xml.contains(r#"<removed ep1="s_init" ep2="s_exit" rule="module-exit-after-init"/>"#), "{xml}");
    assert!(xml.contains(r#"<pair ep1="s_read" ep2="s_irq"/>"#), "{xml}");
    let mut reader = quick_xml::Reader::from_str(&xml);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("malformed XML: {e}\n{xml}"),
        }
    }
}

/// A models directory with the shipped entry-point models and `rules` as its
/// only serialisation file.
fn models_with_rules(dir: &Path, rules: &str) -> String {
    let models = dir.join("models");
    std::fs::create_dir_all(&models).unwrap();
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("kernel-models/entry-points")).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, models.join(p.file_name().unwrap())).unwrap();
    }
    write(&models, "rules.xml", format!(r#"<kernel-model kernel="6.12">{rules}</kernel-model>"#).as_bytes());
    models.display().to_string()
}

#[test]
fn serialisation_rules_are_data_read_from_the_models_directory() {
    let dir = scratch("pairs-rules");
    let f = write(&dir, "small.c", SMALL_DRIVER.as_bytes());
    // A rule of one's own, with no code change: read and write of this
    // (imaginary) device serialised with each other.
    let models = models_with_rules(
        &dir,
        r#"<serialised name="test-read-write" pairs="between" scope="device" kernel="6.12"
             reason="test: an imaginary lock around read and write">
             <select origin="file_operations.read"/><with origin="file_operations.write"/>
           </serialised>"#,
    );
    let o = racewatch(&["pairs", "--verbose", "--models", &models, &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    // Only this rule: the shipped exit, irq and init rules are not in the directory.
    assert!(out.contains("5 entry points, 14 pairs kept, 1 removed by kernel serialisation"), "{out}");
    assert_eq!(removed_row(&out, "s_read", "s_write").as_deref(), Some("s_read s_write test-read-write"), "{out}");

    // A malformed rule is one clean error naming the file and the problem.
    let cases = [
        (r#"<serialised name="r" pairs="both" scope="global" kernel="6.12"><select kind="irq"/></serialised>"#, "reason"),
        (r#"<serialised name="r" pairs="sometimes" scope="global" kernel="6.12" reason="x"><select kind="irq"/></serialised>"#, "unknown pairs `sometimes`"),
        (r#"<serialised name="r" pairs="both" scope="global" kernel="6.12" reason="x"><select origin="timer_list.functoin"/></serialised>"#, "no entry point of `timer_list.functoin`"),
        (r#"<serialised name="r" pairs="both" scope="global" kernel="6.12" reason="x"><select origin="netdev.ops"/></serialised>"#, "`netdev` is not a modelled <ops-struct>"),
    ];
    for (rule, message) in cases {
        let dir = scratch("pairs-bad-rule");
        let f = write(&dir, "small.c", SMALL_DRIVER.as_bytes());
        let models = models_with_rules(&dir, rule);
        let o = racewatch(&["pairs", "--models", &models, &f]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{rule}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("rules.xml: error: invalid kernel model") && err.contains(message), "{rule}: {err}");
    }
}

#[test]
fn check_reports_races_with_both_accesses_and_exit_code_1() {
    let dir = scratch("check");
    let f = write(&dir, "small.c", SMALL_DRIVER.as_bytes());
    let o = racewatch(&["check", &f]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "races found: exit 1\n{out}{}", stderr(&o));
    // s_read reads `count`, s_write increments it and s_irq resets it: all
    // unlocked.
    assert!(out.contains("small.c:6:") && out.contains("warning: potential read/write race on 'count' (region global count) [data-race]"), "{out}");
    assert!(out.contains("note: write by entry point s_write, holding no lock"), "{out}");
    assert!(out.lines().last().unwrap().contains("pairs proven race-free"), "{out}");
    // JSON carries the same, as data.
    let o = racewatch(&["check", "--format", "json", &f]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    let regions = doc["files"][0]["pairs"].as_array().unwrap().iter().flat_map(|p| p["regions"].as_array().unwrap().clone());
    let races: Vec<serde_json::Value> = regions.filter(|r| r["verdict"] == "race").collect();
    assert!(!races.is_empty());
    assert_eq!(races[0]["accesses"].as_array().unwrap().len(), 2);
    assert!(races[0]["accesses"][0]["location"]["line"].is_number(), "{}", races[0]);
}

#[test]
fn check_proves_a_locked_driver_and_exits_0() {
    let dir = scratch("check-fixed");
    let fixed = SMALL_DRIVER
        .replace("static int count;", "static int count;\nstatic DEFINE_SPINLOCK(l);")
        .replace("{ return count; }", "{ int c; spin_lock(&l); c = count; spin_unlock(&l); return c; }")
        .replace("{ count++; return n; }", "{ spin_lock(&l); count++; spin_unlock(&l); return n; }")
        .replace("{ count = 0; return IRQ_HANDLED; }", "{ spin_lock(&l); count = 0; spin_unlock(&l); return IRQ_HANDLED; }");
    let f = write(&dir, "fixed.c", format!("#include <linux/spinlock.h>\n{fixed}").as_bytes());
    let o = racewatch(&["check", &f]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("0 potential races, 0 unknown"), "{}", stdout(&o));
}

#[test]
fn check_output_is_the_same_for_any_job_count() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("drivers/corpus-races");
    for name in ["twolocks_race.c", "guard_race.c", "regearly_race.c"] {
        let f = dir.join(name).display().to_string();
        let one = racewatch(&["check", "-j", "1", &f]);
        let two = racewatch(&["check", "-j", "2", &f]);
        assert_eq!(one.status.code(), Some(1), "{name}: {}", stdout(&one));
        assert_eq!(stdout(&one), stdout(&two), "{name}");
    }
}

/// A driver storing a function in a kernel structure no model describes
/// (`struct gadget_ops`, in a header outside the driver's directory), with
/// a modelled module init; returns the driver's path.
fn unmodelled_driver(dir: &Path) -> String {
    std::fs::create_dir_all(dir.join("kinc")).unwrap();
    write(dir, "kinc/gadget.h", b"struct gadget_ops { int (*poke)(int); };\nint gadget_register(const struct gadget_ops *);\n");
    std::fs::create_dir_all(dir.join("drv")).unwrap();
    write(
        dir,
        "drv/gadget.c",
        b"#include \"../kinc/gadget.h\"\n#include <linux/module.h>\nstatic int cnt;\nstatic int my_poke(int x) { cnt++; return x; }\nstatic const struct gadget_ops ops = { .poke = my_poke };\nstatic int __init m_init(void) { cnt = 1; return gadget_register(&ops); }\nmodule_init(m_init);\nMODULE_LICENSE(\"GPL\");\n",
    )
}

#[test]
fn check_says_its_proof_excludes_unmodelled_callback_structures() {
    // `my_poke` races with `m_init` on `cnt`, but the kernel models do not
    // know `struct gadget_ops`, so it is no entry point: `check` must say
    // so in every format instead of a bare "proven".
    let dir = scratch("check-gadget");
    let f = unmodelled_driver(&dir);
    let o = racewatch(&["check", &f]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains("gadget.c:5:") && out.contains("`struct gadget_ops` (poke)") && out.contains("[unmodelled-ops]"), "{out}");
    let verdict = out.lines().last().unwrap();
    assert!(
        verdict.contains("pairs proven race-free") && verdict.contains("the proof excludes the callbacks in 1 unmodelled kernel structure (struct gadget_ops)"),
        "{out}"
    );
    // JSON: the structures as data, and their count in the totals.
    let o = racewatch(&["check", "--format", "json", &f]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    let file = &doc["files"][0];
    assert_eq!(file["totals"]["unmodelled_ops"], 1, "{file}");
    let u = &file["unmodelled_ops"][0];
    assert_eq!(u["record"], "gadget_ops", "{file}");
    assert_eq!(u["fields"], serde_json::json!(["poke"]), "{file}");
    assert_eq!(u["location"]["line"], 5, "{file}");
    // The summary table of several files counts them per file and in all.
    let fixed = Path::new(env!("CARGO_MANIFEST_DIR")).join("drivers/corpus-races/nolock_fixed.c").display().to_string();
    let o = racewatch(&["check", "--progress", "none", &f, &fixed]);
    let out = stdout(&o);
    let header = out.lines().find(|l| l.starts_with("file ")).unwrap_or_else(|| panic!("{out}"));
    assert!(header.contains("unmodelled"), "{out}");
    let row = out.lines().find(|l| l.contains("gadget.c") && l.contains("verified")).unwrap_or_else(|| panic!("{out}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[7], "1", "the unmodelled column of {row}");
    let row = out.lines().find(|l| l.contains("nolock_fixed.c") && l.contains("verified")).unwrap_or_else(|| panic!("{out}"));
    assert_eq!(row.split_whitespace().nth(7), Some("0"), "{row}");
    assert!(out.contains("; 1 unmodelled callback structures (their callbacks excluded from every proof)"), "{out}");
    // With a model of the structure the callback is an entry point, the
    // race is found and nothing is excluded.
    let models = dir.join("models");
    std::fs::create_dir_all(&models).unwrap();
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("kernel-models")).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            for e in std::fs::read_dir(&p).unwrap() {
                let q = e.unwrap().path();
                let name = format!("{}-{}", p.file_name().unwrap().to_string_lossy(), q.file_name().unwrap().to_string_lossy());
                std::fs::copy(&q, models.join(name)).unwrap();
            }
        }
    }
    write(
        &models,
        "gadget.xml",
        br#"<kernel-model kernel="test"><ops-struct name="gadget_ops" default-kind="callback" reason="the gadget core calls poke"/></kernel-model>"#,
    );
    let o = racewatch(&["check", "--no-cache", "--models", &models.display().to_string(), &f]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(!out.contains("[unmodelled-ops]") && !out.contains("the proof excludes"), "{out}");
}
