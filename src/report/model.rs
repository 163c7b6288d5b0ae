//! The report model: one file's outcome ([`FileVerdicts`]) as the
//! pipeline returns it and every renderer reads it, and how its check
//! ended ([`Status`]).

use crate::diagnostics::FileError;
use crate::frontend::entry_points::UnmodelledOps;
use crate::verify::verdict::{PairVerdict, Verdict, clock_bound, totals};
use std::path::PathBuf;
use std::time::Duration;

/// A bit lock held by each object its begin callback opens.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ObjectLock {
    /// The lock (`bit 0 of zf_is_open`).
    pub lock: String,
    /// The entry points running holding it shared (the object's callbacks
    /// that may overlap).
    pub shared: Vec<String>,
    /// Those running holding it exclusively (its end callback).
    pub exclusive: Vec<String>,
}

impl ObjectLock {
    /// The bit locks of a lowered program held by its entry points' objects.
    pub fn of(program: &crate::ir::Program) -> Vec<ObjectLock> {
        let mut out: std::collections::BTreeMap<crate::ir::LockId, ObjectLock> = std::collections::BTreeMap::new();
        for e in program.entry_points.values() {
            for (lock, mode) in &e.held_by_object {
                let entry = out.entry(*lock).or_insert_with(|| ObjectLock {
                    lock: program.locks[*lock].name.clone(),
                    shared: Vec::new(),
                    exclusive: Vec::new(),
                });
                match mode {
                    crate::ir::LockMode::Shared => entry.shared.push(e.name.clone()),
                    crate::ir::LockMode::Exclusive => entry.exclusive.push(e.name.clone()),
                }
            }
        }
        out.into_values().collect()
    }
}

/// One file's outcome.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct FileVerdicts {
    /// The file.
    pub file: PathBuf,
    /// Its pair verdicts, or why it could not be verified.
    pub outcome: Result<Vec<PairVerdict>, FileError>,
    /// How many entry points it has (0 when it could not be verified).
    pub entry_points: usize,
    /// Whether the result came from the cache.
    #[serde(default)]
    pub cached: bool,
    /// The peak resident memory of the process that analysed it, in bytes.
    pub peak_memory: Option<u64>,
    /// Every file its analysis read: the file and its headers.
    #[serde(skip)]
    pub inputs: Vec<PathBuf>,
    /// What Houdini and the pair checks did.
    pub stats: crate::verify::run::RunStats,
    /// Wall-clock time of the whole file.
    pub time: Duration,
    /// The front end's times (parse, extraction, lowering), when it ran.
    pub front: Option<crate::pipeline::Timings>,
    /// The precise phase's results, when it ran.
    pub precise: Vec<crate::precise::PrecisePair>,
    /// The partial-order-reduction hints, when asked for and verified.
    pub por_hints: Option<super::por_hints::DriverHints>,
    /// The accesses to per-call private memory, which are not race-checked.
    #[serde(default)]
    pub private: crate::analyses::private::PrivateReport,
    /// Kernel structures holding driver functions that no model describes:
    /// their callbacks are not entry points, so the file's verdicts
    /// exclude them (`unmodelled-ops`).
    #[serde(default)]
    pub unmodelled: Vec<UnmodelledOps>,
    /// The kernel's held-lock annotations found violated, and those taken
    /// as standing assumptions (`lock-annotation`).
    #[serde(default)]
    pub annotations: Vec<crate::analyses::annotations::AnnotationFinding>,
    /// The bit locks an open object holds (src/frontend/lower/owned_bits.rs),
    /// with the entry points that run holding them: the rule that proves
    /// their pairs, named in `--verbose` output.
    #[serde(default)]
    pub object_locks: Vec<ObjectLock>,
    /// The composite module the file was analysed as part of, when it is
    /// one: every file of it was analysed as one program.
    #[serde(default)]
    pub module: Option<crate::frontend::kbuild_module::KbuildModule>,
    /// The file's key in race fingerprints: its path relative to the input
    /// directory that named it, else its file name (set by the run; empty:
    /// the file name). Saved with the result, so a merged report keeps it.
    #[serde(default)]
    pub key: String,
    /// The fingerprints of its races that the `--baseline` report has.
    #[serde(skip)]
    pub suppressed: std::collections::BTreeSet<String>,
}

/// How a file's check ended, for the summary table and the JSON `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Verified: every pair has its verdicts.
    Verified,
    /// Parsed, but nothing in it is called by the kernel.
    NoEntryPoints,
    /// Not a unit of compilation: another file includes it and no Makefile
    /// builds it (`frontend::units`); analysed as part of its includer.
    NotAUnit,
    /// Stopped by the per-file or run budget.
    Timeout,
    /// The worker crashed or ran out of memory.
    Crash,
    /// Not analysed: the run budget was spent.
    Skipped,
    /// Could not be analysed: bad input, flags, parse errors.
    Error,
}

impl Status {
    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::NoEntryPoints => "no-entry-points",
            Status::NotAUnit => "not-a-unit",
            Status::Timeout => "timeout",
            Status::Crash => "crash",
            Status::Skipped => "skipped",
            Status::Error => "error",
        }
    }
}

impl FileVerdicts {
    /// The outcome of a file that could not be verified.
    pub fn failed(file: &std::path::Path, error: FileError, time: Duration) -> FileVerdicts {
        FileVerdicts {
            file: file.to_path_buf(),
            outcome: Err(error),
            entry_points: 0,
            cached: false,
            peak_memory: None,
            inputs: Vec::new(),
            stats: Default::default(),
            time,
            front: None,
            precise: Vec::new(),
            por_hints: None,
            private: Default::default(),
            unmodelled: Vec::new(),
            annotations: Vec::new(),
            object_locks: Vec::new(),
            module: None,
            key: String::new(),
            suppressed: Default::default(),
        }
    }

    /// "analysed as part of module aoe (6 files)", for a file analysed with
    /// its module.
    pub fn module_phrase(&self) -> Option<String> {
        let m = self.module.as_ref()?;
        Some(format!("analysed as part of module {} ({} files)", m.name, m.members.len()))
    }

    /// How the check ended.
    pub fn status(&self) -> Status {
        use crate::diagnostics::ErrorClass;
        match &self.outcome {
            Ok(_) if self.entry_points == 0 => Status::NoEntryPoints,
            Ok(_) => Status::Verified,
            Err(e) => match e.class {
                ErrorClass::Timeout => Status::Timeout,
                ErrorClass::Crash | ErrorClass::OutOfMemory => Status::Crash,
                ErrorClass::Skipped => Status::Skipped,
                ErrorClass::NotAUnit => Status::NotAUnit,
                _ => Status::Error,
            },
        }
    }

    /// Pairs checked.
    pub fn pair_count(&self) -> usize {
        self.outcome.as_ref().map_or(0, |p| p.len())
    }

    /// One phrase saying how the check ended, for progress lines.
    pub fn summary(&self) -> String {
        match (&self.outcome, self.status()) {
            (Ok(_), Status::NoEntryPoints) => "no entry points".to_string(),
            (Ok(pairs), _) => {
                let t = totals(pairs);
                let mut s = format!("{} pairs: {} proven, {} races, {} unknown", t.pairs, t.proven, t.races, t.unknown);
                if !self.unmodelled.is_empty() {
                    s.push_str(&format!(", {} unmodelled callback structures", self.unmodelled.len()));
                }
                s
            }
            (Err(e), _) => format!("{}: {}", e.class.as_str(), e.message),
        }
    }

    /// Whether the cache may keep this result: a finished analysis whose
    /// results no clock decided. A solver check that timed out or a time
    /// budget that ran out (Houdini's, or the file's) makes a result that
    /// another run, on a less loaded machine, may improve, so it is
    /// analysed again next time instead.
    pub fn cacheable(&self) -> bool {
        let Ok(pairs) = &self.outcome else { return false };
        let clock = |v: &Verdict| matches!(v, Verdict::Unknown(why) if clock_bound(why));
        let lockset = pairs.iter().flat_map(|p| &p.regions).any(|(_, v)| clock(v));
        let precise = self
            .precise
            .iter()
            .flat_map(|p| &p.regions)
            .any(|(_, v)| matches!(v, crate::precise::PreciseVerdict::Unknown(why) if clock_bound(why)));
        let houdini = &self.stats.houdini;
        !(lockset || precise || houdini.stop == crate::houdini::StopReason::Budget || houdini.timeouts > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precise::{PrecisePair, PreciseVerdict};

    fn verified(verdict: Verdict, precise: Option<PreciseVerdict>) -> FileVerdicts {
        let pair = |regions| PairVerdict { first: "a".into(), second: "b".into(), regions };
        FileVerdicts {
            file: PathBuf::from("d.c"),
            outcome: Ok(vec![pair(vec![("r".to_string(), verdict)])]),
            entry_points: 2,
            cached: false,
            peak_memory: None,
            inputs: Vec::new(),
            stats: crate::verify::run::RunStats::default(),
            time: Duration::ZERO,
            private: Default::default(),
            unmodelled: Vec::new(),
            annotations: Vec::new(),
            object_locks: Vec::new(),
            module: None,
            key: String::new(),
            suppressed: Default::default(),
            front: None,
            precise: precise
                .into_iter()
                .map(|v| PrecisePair { first: "a".into(), second: "b".into(), regions: vec![("r".into(), v)], hits: Vec::new(), yields: 0, time: Duration::ZERO })
                .collect(),
            por_hints: None,
        }
    }

    /// What a clock decided is analysed again next time; everything else
    /// finished is kept.
    #[test]
    fn results_a_clock_decided_are_not_cached() {
        let unknown = |why: &str| Verdict::Unknown(why.to_string());
        assert!(verified(Verdict::Proven, None).cacheable());
        assert!(verified(unknown("solver: (incomplete (theory arithmetic))"), None).cacheable());
        assert!(verified(Verdict::Proven, Some(PreciseVerdict::NotFound)).cacheable());
        assert!(!verified(unknown("solver: timeout after 10000 ms (z3: canceled)"), None).cacheable());
        assert!(!verified(unknown(&crate::verify::run::budget_spent()), None).cacheable());
        assert!(!verified(Verdict::Proven, Some(PreciseVerdict::Unknown(crate::precise::spent()))).cacheable());
        let mut houdini_out_of_time = verified(Verdict::Proven, None);
        houdini_out_of_time.stats.houdini.stop = crate::houdini::StopReason::Budget;
        assert!(!houdini_out_of_time.cacheable());
        let mut houdini_timeout = verified(Verdict::Proven, None);
        houdini_timeout.stats.houdini.timeouts = 1;
        assert!(!houdini_timeout.cacheable());
    }
}
