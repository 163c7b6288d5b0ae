//! Verdicts with their evidence, and their rendering as diagnostics.
//!
//! Per pair of entry points and per region both access, the verdict is
//! one of: proven race-free, potential race (with the two accesses that
//! may hit the same address and the locks each held), or unknown (with
//! the reason: a solver timeout or unknown answer, or an approximation
//! that affects soundness reachable from either entry point). Unknown is
//! never counted as proven.

use crate::diagnostics::{Diagnostic, Level, Span};

/// One access in a race report.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Access {
    /// The entry point making it.
    pub entry: String,
    /// A write rather than a read.
    pub write: bool,
    /// An atomic access.
    pub atomic: bool,
    /// Where in C (may be in a function the entry point calls).
    pub span: Option<Span>,
    /// The function containing the access.
    pub function: String,
    /// The locks held at every access of this entry point to the address.
    pub locks: Vec<String>,
    /// The accessed lvalue as the code wrote it (`*ppos`,
    /// `tp->tx_buf[entry]`), when the lowering recorded one.
    #[serde(default)]
    pub expression: Option<String>,
}

impl Access {
    /// `read`, `write`, `atomic read` or `atomic write`.
    pub fn kind(&self) -> &'static str {
        match (self.write, self.atomic) {
            (true, false) => "write",
            (false, false) => "read",
            (true, true) => "atomic write",
            (false, true) => "atomic read",
        }
    }
}

/// How the reason of every unknown the file's time budget caused begins
/// (the lockset phase's and the precise phase's).
pub const BUDGET_SPENT: &str = "the file's time budget (--file-timeout) was spent before this";

/// Whether an unknown's reason says a clock decided it: a solver check
/// timed out, or the file's time budget was spent. Another run, on a less
/// loaded machine, may decide it, so such a result is not cached.
pub fn clock_bound(reason: &str) -> bool {
    reason.contains(crate::solver::TIMEOUT_MARK) || reason.starts_with(BUDGET_SPENT)
}

/// The verdict on one region of one pair.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Verdict {
    /// No two accesses of the pair can race on any address of the region.
    Proven,
    /// A potential race: the two accesses.
    Race(Box<[Access; 2]>),
    /// Neither proven nor refuted: why.
    Unknown(String),
}

/// The verdicts of one pair.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PairVerdict {
    /// The first entry point (no later than the second in definition
    /// order).
    pub first: String,
    /// The second (equal for a self-pair).
    pub second: String,
    /// Per region both access: its name and verdict.
    pub regions: Vec<(String, Verdict)>,
}

impl PairVerdict {
    /// The pair's overall state: a race if any region races, else unknown
    /// if any is unknown, else proven.
    pub fn summary(&self) -> Summary {
        if self.regions.iter().any(|(_, v)| matches!(v, Verdict::Race(_))) {
            Summary::Race
        } else if self.regions.iter().any(|(_, v)| matches!(v, Verdict::Unknown(_))) {
            Summary::Unknown
        } else {
            Summary::Proven
        }
    }
}

/// A pair's overall state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Summary {
    /// Every region proven.
    Proven,
    /// At least one potential race.
    Race,
    /// No race found, but not everything proven.
    Unknown,
}

/// Counts for the trailer: `N of P pairs proven race-free, R potential
/// races, U unknown`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Totals {
    /// Pairs checked.
    pub pairs: usize,
    /// Pairs proven race-free on every region.
    pub proven: usize,
    /// Potential races (pair and region).
    pub races: usize,
    /// Pairs with an unknown region and no race.
    pub unknown: usize,
}

/// The totals of a driver's pair verdicts.
pub fn totals(pairs: &[PairVerdict]) -> Totals {
    let mut t = Totals { pairs: pairs.len(), ..Totals::default() };
    for p in pairs {
        match p.summary() {
            Summary::Proven => t.proven += 1,
            Summary::Race => {}
            Summary::Unknown => t.unknown += 1,
        }
        t.races += p.regions.iter().filter(|(_, v)| matches!(v, Verdict::Race(_))).count();
    }
    t
}

impl std::fmt::Display for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} pairs proven race-free, {} potential race{}, {} unknown",
            self.proven,
            self.pairs,
            self.races,
            if self.races == 1 { "" } else { "s" },
            self.unknown
        )
    }
}

/// The warning of one potential race: the first access, the second as a
/// note, the locks each held.
pub fn race_diagnostic(region: &str, accesses: &[Access; 2]) -> Diagnostic {
    let [a, b] = accesses;
    let locks = |x: &Access| {
        if x.locks.is_empty() { "no lock".to_string() } else { x.locks.join(", ") }
    };
    let in_fn = |x: &Access| {
        if x.function == x.entry { String::new() } else { format!(" (in {})", x.function) }
    };
    Diagnostic {
        level: Level::Warning,
        check: "data-race",
        message: format!("potential {}/{} race on {}", a.kind(), b.kind(), race_subject(region, accesses)),
        span: a.span.clone(),
        notes: vec![
            (format!("{} by entry point {}{}, holding {}", a.kind(), a.entry, in_fn(a), locks(a)), None),
            (format!("{} by entry point {}{}, holding {}", b.kind(), b.entry, in_fn(b), locks(b)), b.span.clone()),
        ],
    }
}

/// What a race is on, for a message: its source-level name with the
/// region as a secondary note (`'*ppos' (region long long (pointee))`),
/// or the region alone when the accesses have no name.
pub fn race_subject(region: &str, accesses: &[Access; 2]) -> String {
    match super::identity::race_name(accesses) {
        Some(name) => format!("'{name}' (region {region})"),
        None => region.to_string(),
    }
}

/// The note of one region left unknown.
pub fn unknown_diagnostic(pair: &PairVerdict, region: &str, why: &str) -> Diagnostic {
    Diagnostic {
        level: Level::Note,
        check: "unknown",
        message: format!("{region}: not proven for {} and {}: {why}", pair.first, pair.second),
        span: None,
        notes: Vec::new(),
    }
}

/// The diagnostics of a driver's verdicts: one warning per potential race
/// (the first access, the second as a note, the locks in notes), one note
/// per unknown region.
pub fn diagnostics(pairs: &[PairVerdict]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for pair in pairs {
        for (region, verdict) in &pair.regions {
            match verdict {
                Verdict::Proven => {}
                Verdict::Race(accesses) => out.push(race_diagnostic(region, accesses)),
                Verdict::Unknown(why) => out.push(unknown_diagnostic(pair, region, why)),
            }
        }
    }
    out
}
