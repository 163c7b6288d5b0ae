//! `racewatch check --baseline OLD.json`: the races of a run that an
//! earlier run's JSON report does not have.
//!
//! Every reported race (a lockset race, or a region the precise phase
//! confirmed) has a fingerprint ([`crate::verify::identity`]): BLAKE3 over
//! the file's key, the entry points, the accesses' functions, expressions
//! and kinds, and the region, with no line number. The baseline is the set
//! of `fingerprint` members of the races in OLD (a `check --format json`
//! report). A race whose fingerprint is in it is *suppressed*: the text
//! report leaves it out, the JSON and SARIF reports keep it marked
//! (`"baseline": "unchanged"`, SARIF `baselineState`), so that the new
//! report can serve as the next baseline; the exit code counts only the
//! new races. A fingerprint of OLD that no race of the run has is *gone*
//! (fixed, or changed beyond recognition).

use super::model::FileVerdicts;
use crate::precise::PreciseVerdict;
use crate::verify::identity::{Side, fingerprint, side};
use crate::verify::verdict::{PairVerdict, Verdict};
use std::collections::BTreeSet;
use std::path::Path;

/// The races of an earlier run.
#[derive(Debug, Default)]
pub struct Baseline {
    /// Their fingerprints.
    pub fingerprints: BTreeSet<String>,
}

impl Baseline {
    /// Reads the fingerprints of the races of a JSON report.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read the baseline: {e}"))?;
        let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("the baseline is not a JSON report: {e}"))?;
        let files = doc.get("files").and_then(|f| f.as_array()).ok_or("the baseline is not a racewatch JSON report (no `files`)")?;
        let mut fingerprints = BTreeSet::new();
        for file in files {
            let pairs = file.get("pairs").and_then(|p| p.as_array()).map(Vec::as_slice).unwrap_or_default();
            for pair in pairs {
                let regions = pair.get("regions").and_then(|r| r.as_array()).map(Vec::as_slice).unwrap_or_default();
                for region in regions {
                    if let Some(fp) = region.get("fingerprint").and_then(|f| f.as_str()) {
                        fingerprints.insert(fp.to_string());
                    }
                }
            }
        }
        Ok(Baseline { fingerprints })
    }
}

/// What applying a baseline found.
#[derive(Debug, Default)]
pub struct Applied {
    /// Races not in the baseline.
    pub new: usize,
    /// Races in the baseline, not reported as new.
    pub suppressed: usize,
    /// Baseline races no race of this run has.
    pub gone: usize,
}

impl std::fmt::Display for Applied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} new race{}, {} in the baseline (suppressed), {} baseline race{} gone (fixed)",
            self.new,
            if self.new == 1 { "" } else { "s" },
            self.suppressed,
            self.gone,
            if self.gone == 1 { "" } else { "s" }
        )
    }
}

/// Marks the races of `results` that `baseline` has as suppressed, and
/// counts.
pub fn apply(results: &mut [FileVerdicts], baseline: &Baseline) -> Applied {
    let mut applied = Applied::default();
    let mut seen = BTreeSet::new();
    for r in results.iter_mut() {
        let fps: Vec<String> = r.races().into_iter().map(|(fp, _)| fp).collect();
        for fp in fps {
            if baseline.fingerprints.contains(&fp) {
                applied.suppressed += 1;
                r.suppressed.insert(fp.clone());
            } else {
                applied.new += 1;
            }
            seen.insert(fp);
        }
    }
    applied.gone = baseline.fingerprints.difference(&seen).count();
    applied
}

impl FileVerdicts {
    /// The key of the file in fingerprints: as set by the run (relative to
    /// its input directory), else its file name.
    pub fn fingerprint_key(&self) -> String {
        if self.key.is_empty() { crate::verify::identity::file_key(&self.file, &[]) } else { self.key.clone() }
    }

    /// The fingerprint of a region of a pair when it is a race: a lockset
    /// race, or a race the precise phase confirmed.
    pub fn race_fingerprint(&self, pair: &PairVerdict, region: &str, verdict: &Verdict) -> Option<String> {
        let sides: [Side; 2] = match verdict {
            Verdict::Race(accesses) => [side(&accesses[0]), side(&accesses[1])],
            Verdict::Proven | Verdict::Unknown(_) => match super::precise::find(&self.precise, pair, region) {
                Some((_, PreciseVerdict::Confirmed(w))) => {
                    let step = |s: &crate::precise::WitnessStep| [s.entry.clone(), s.function.clone(), String::new(), s.event.clone()];
                    [step(&w.access), w.conflict.as_ref().map(step).unwrap_or_default()]
                }
                Some((_, PreciseVerdict::NotFound | PreciseVerdict::Unknown(_))) | None => return None,
            },
        };
        Some(fingerprint(&self.fingerprint_key(), &pair.first, &pair.second, region, sides))
    }

    /// Every race of the file: its fingerprint, and whether the precise
    /// phase confirmed it.
    pub fn races(&self) -> Vec<(String, bool)> {
        let Ok(pairs) = &self.outcome else { return Vec::new() };
        let mut out = Vec::new();
        for p in pairs {
            for (region, v) in &p.regions {
                if let Some(fp) = self.race_fingerprint(p, region, v) {
                    let confirmed = matches!(super::precise::find(&self.precise, p, region), Some((_, PreciseVerdict::Confirmed(_))));
                    out.push((fp, confirmed));
                }
            }
        }
        out
    }

    /// Whether a region of a pair is a race the baseline has.
    pub fn is_suppressed(&self, pair: &PairVerdict, region: &str, verdict: &Verdict) -> bool {
        !self.suppressed.is_empty() && self.race_fingerprint(pair, region, verdict).is_some_and(|fp| self.suppressed.contains(&fp))
    }

    /// The file's pairs without the races the baseline has, for the text
    /// report.
    pub fn shown_pairs(&self) -> Vec<PairVerdict> {
        let Ok(pairs) = &self.outcome else { return Vec::new() };
        pairs
            .iter()
            .map(|p| PairVerdict {
                regions: p.regions.iter().filter(|(region, v)| !self.is_suppressed(p, region, v)).cloned().collect(),
                ..p.clone()
            })
            .collect()
    }
}
