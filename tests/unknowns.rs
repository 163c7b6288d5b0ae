//! What the lockset phase says when it cannot decide: a solver that times
//! out or runs out of memory (any `unknown` answer) and a reachable
//! unsupported construct must make what they affect unknown, never proven
//! and never a crash.
//!
//! The solver's own failures (timeouts by the watchdog, an exhausted
//! resource limit, a z3 panic) are turned into `unknown` answers by the
//! solver module and tested there (src/solver/tests.rs); here a solver
//! that answers `unknown` to every check stands for all of them, and the
//! test follows its answers through Houdini and the pair checks.

#[allow(dead_code)]
mod support;

use racewatch::cli::pairs_and_held;
use racewatch::frontend::lower::Roots;
use racewatch::houdini::{Outcome, VcSolver};
use racewatch::ir::{Expr, VarId};
use racewatch::vcgen::encode::Vc;
use racewatch::verify::run::{Options, PairSolver, verify};
use racewatch::verify::verdict::Verdict;
use std::path::{Path, PathBuf};
use std::process::Command;


fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("drivers/corpus-races").join(name)
}

/// A solver that can decide nothing, as one whose every check times out
/// or runs out of memory.
struct Undecided;

impl VcSolver for Undecided {
    fn load(&mut self, _vc: &Vc) {}
    fn check(&mut self, _literals: &[(VarId, bool)]) -> Outcome {
        Outcome::Unknown("timeout".into())
    }
}

impl PairSolver for Undecided {
    fn int_value(&mut self, _v: VarId) -> Option<i128> {
        None
    }
    fn bool_value(&mut self, _v: VarId) -> Option<bool> {
        None
    }
    fn add(&mut self, _e: &Expr) {}
    fn check_with(&mut self, _extra: &[Expr]) -> Outcome {
        Outcome::Unknown("timeout".into())
    }
}

#[test]
fn a_solver_that_cannot_decide_makes_every_region_unknown() {
    let session = support::session(1);
    // A fixed twin whose lock is taken in a helper: every region is proven
    // with a real solver, thanks to the helper's Houdini summary.
    let file = corpus("helperlock_fixed.c");
    let (entry_points, lowered, _) = session.lower(&file, Roots::EntryPoints).expect("lowers");
    let (pairs, held) = pairs_and_held(&session, &entry_points, &lowered);
    assert!(!pairs.is_empty());
    let (verdicts, stats) = verify(&lowered.program, &pairs, &held, &Options::default(), &|| Undecided);
    let regions: Vec<&Verdict> = verdicts.iter().flat_map(|p| p.regions.iter().map(|(_, v)| v)).collect();
    assert!(!regions.is_empty());
    for v in &regions {
        assert!(matches!(v, Verdict::Unknown(why) if why.contains("timeout")), "{v:?}");
    }
    // Houdini kept no candidate it could not prove.
    assert!(stats.houdini.candidates > 0 && stats.houdini.unknown > 0, "{:?}", stats.houdini);
    assert_eq!(stats.houdini.proven, 0, "{:?}", stats.houdini);
}

const UNSUPPORTED: &str = r#"// A driver whose ioctl reaches a computed goto.
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(ug_lock);
static int ug_count;

static long ug_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	static void *targets[] = { &&one, &&two };

	mutex_lock(&ug_lock);
	ug_count++;
	mutex_unlock(&ug_lock);
	goto *targets[cmd & 1];
one:
	return 1;
two:
	return 2;
}

static ssize_t ug_write(struct file *f, const char __user *buf, size_t n, loff_t *pos)
{
	mutex_lock(&ug_lock);
	ug_count = 0;
	mutex_unlock(&ug_lock);
	return n;
}

static const struct file_operations ug_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = ug_ioctl,
	.write = ug_write,
};

static struct miscdevice ug_dev = { .minor = MISC_DYNAMIC_MINOR, .name = "ug", .fops = &ug_fops };
module_misc_device(ug_dev);
MODULE_LICENSE("GPL");
"#;

#[test]
fn a_reachable_unsupported_construct_makes_its_pairs_unknown() {
    let dir = std::env::temp_dir().join(format!("racewatch-unknowns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ug.c");
    std::fs::write(&file, UNSUPPORTED).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_racewatch")).args(["check", "--format", "json"]).arg(&file).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Exit code 3: no race, some results unknown.
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let pairs = doc["files"][0]["pairs"].as_array().expect("pairs");
    let mut unknown = 0;
    for pair in pairs {
        let ioctl = pair["first"] == "ug_ioctl" || pair["second"] == "ug_ioctl";
        for region in pair["regions"].as_array().unwrap() {
            let verdict = region["verdict"].as_str().unwrap();
            if ioctl {
                // Every pair with the ioctl reaches the computed goto.
                assert_eq!(verdict, "unknown", "{pair}");
                assert!(region["reason"].as_str().unwrap().contains("unsupported-construct"), "{region}");
                unknown += 1;
            } else {
                assert_eq!(verdict, "proven", "{pair}");
            }
        }
    }
    assert!(unknown > 0, "{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}
