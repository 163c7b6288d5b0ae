//! Partial-order-reduction hints (`check --emit-por-hints FILE`, schema in
//! docs/por-hints.md): per driver and per pair of entry points checked,
//! every load and store of either entry point to a region both access,
//! as a `<switch>` (the pair's verdict on the region is a race or unknown:
//! a context switch after the access must be explored) or a `<protected>`
//! (the region is proven race-free for the pair: by Whoop's Yield-MR
//! argument a bounded checker may drop the switch after it), with the
//! locks the must-held analysis ([`crate::analyses::must_held`]) finds
//! certainly held there.
//!
//! [`build`] runs in the per-file pipeline (it needs the lowered program,
//! [`crate::pipeline::check`]); the CLI writes the document of the whole
//! run ([`write_document`]) atomically at the end.

use super::model::FileVerdicts;
use super::xml::{Xml, empty, end, error, span_attrs, start};
use crate::analyses::must_held::{AccessFacts, CommandAt, EntryRoot, must_held_at_accesses};
use crate::analyses::pairs::Pair;
use crate::diagnostics::{FileError, Span};
use crate::ir::{AccessKind, Command, LockId, LockMode, Program, RegionId};
use crate::verify::verdict::{PairVerdict, Summary, Verdict};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, Event};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, Write};

/// The schema version, the root's `version` attribute.
pub const SCHEMA_VERSION: &str = "1";

/// One load or store an entry point reaches, with what is certain there.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AccessHint {
    /// Where in C, when known.
    pub span: Option<Span>,
    /// The procedure containing it.
    pub function: String,
    /// The region accessed.
    pub region: RegionId,
    /// A write rather than a read.
    pub write: bool,
    /// An atomic access.
    pub atomic: bool,
    /// The locks certainly held, with the mode they are certainly held in.
    pub locks: Vec<(LockId, LockMode)>,
    /// Certainly made before the driver's callbacks are live.
    pub before_live: bool,
}

/// The accesses of one entry point, by location.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct EntryHints {
    /// The entry point's C function.
    pub name: String,
    /// Its loads and stores of shared regions, following calls.
    pub accesses: Vec<AccessHint>,
}

/// Why a region is proven race-free for a pair, as far as the must-held
/// analysis can tell.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Proof {
    /// These locks are held at every access of both entry points made
    /// while callbacks are live (a lock with a shared mode exclusively on
    /// one side).
    Lock(BTreeSet<LockId>),
    /// Every such access is atomic.
    Atomic,
    /// No such access writes.
    ReadOnly,
    /// One entry point makes all its accesses to the region before
    /// callbacks are live.
    NotLive,
    /// None of the above (a lock taken on some paths only, a trylock the
    /// analysis could not follow, a value the prover used).
    Other,
}

/// Why a context switch after an access must be explored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SwitchReason {
    /// The pair may race on the region.
    Race,
    /// The pair's verdict on the region is unknown.
    Unknown,
    /// The region is proven, but this atomic access conflicts with an
    /// atomic access of the other entry point under no common lock: the
    /// proof exempts such pairs, yet they do not commute.
    Atomic,
}

/// What a consumer may do after a pair's accesses to one region.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RegionHint {
    /// The verdict is a race or unknown: explore a switch after every
    /// access.
    Switch(SwitchReason),
    /// Proven race-free: the switch after an access may be skipped, except
    /// after the atomic accesses in `atomic_conflicts` (entry point index,
    /// access index).
    Proven {
        /// Why, as far as the must-held analysis tells.
        proof: Proof,
        /// The atomic accesses that still need a switch.
        atomic_conflicts: BTreeSet<(usize, usize)>,
    },
}

/// What a consumer may do after one access of a pair.
enum Decision {
    /// Explore a switch after it.
    Switch(SwitchReason),
    /// The switch may be skipped: why, and the locks explaining it.
    Protected { reason: &'static str, common: BTreeSet<LockId> },
}

impl RegionHint {
    /// The decision for access `index` of entry point `entry`.
    fn decide(&self, entry: usize, index: usize, access: &AccessHint) -> Decision {
        let (proof, atomic_conflicts) = match self {
            Self::Switch(reason) => return Decision::Switch(*reason),
            Self::Proven { proof, atomic_conflicts } => (proof, atomic_conflicts),
        };
        // An access made before callbacks are live races with nothing,
        // whatever protects the rest of the region.
        if access.before_live {
            return Decision::Protected { reason: "not-live", common: BTreeSet::new() };
        }
        if atomic_conflicts.contains(&(entry, index)) {
            return Decision::Switch(SwitchReason::Atomic);
        }
        let (reason, common) = match proof {
            Proof::Lock(locks) => ("lock", locks.clone()),
            Proof::Atomic => ("atomic", BTreeSet::new()),
            Proof::ReadOnly => ("read-only", BTreeSet::new()),
            Proof::NotLive => ("not-live", BTreeSet::new()),
            Proof::Other => ("other", BTreeSet::new()),
        };
        Decision::Protected { reason, common }
    }
}

/// The hints of one pair.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PairHints {
    /// The first entry point, indexing [`DriverHints::entries`].
    pub first: usize,
    /// The second (equal for a self-pair).
    pub second: usize,
    /// The pair's overall verdict.
    pub verdict: Summary,
    /// Every region both entry points access.
    pub regions: BTreeMap<RegionId, RegionHint>,
}

/// The hints of one driver.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DriverHints {
    /// Region names, by region id.
    pub region_names: Vec<String>,
    /// Lock names, by lock id.
    pub lock_names: Vec<String>,
    /// The entry points of the lowered program, in its order (empty for
    /// those in no pair).
    pub entries: Vec<EntryHints>,
    /// The pairs checked, in verdict order.
    pub pairs: Vec<PairHints>,
}

/// The hints of a driver from its lowered program, the pairs checked (which
/// index the program's entry points), the pseudo locks each entry point
/// runs holding, and the pairs' verdicts (in the order of `pairs`).
pub fn build(program: &Program, pairs: &[Pair], held: &[Vec<String>], verdicts: &[PairVerdict]) -> DriverHints {
    let paired: BTreeSet<usize> = pairs.iter().flat_map(|p| [p.first, p.second]).collect();
    let infos: Vec<_> = program.entry_points.values().collect();
    let roots: Vec<EntryRoot> = paired
        .iter()
        .map(|&i| EntryRoot {
            procedure: infos[i].procedure,
            held: program.locks.iter().filter(|(_, l)| held.get(i).is_some_and(|h| h.contains(&l.name))).map(|(id, _)| id).collect(),
            init: infos[i].kind.role() == crate::models::Role::Init,
        })
        .collect();
    let facts = must_held_at_accesses(program, &roots);
    let mut entries: Vec<EntryHints> = infos.iter().map(|e| EntryHints { name: e.name.clone(), accesses: Vec::new() }).collect();
    for (&i, facts) in paired.iter().zip(&facts) {
        entries[i].accesses = entry_accesses(program, infos[i].procedure, facts);
    }
    let region_names = program.regions.values().map(|r| r.name.clone()).collect();
    let has_shared_mode: Vec<bool> = program.locks.values().map(|l| l.kind.has_shared_mode()).collect();
    let pairs = pairs
        .iter()
        .zip(verdicts)
        .map(|(pair, verdict)| pair_hints(program, &entries, &has_shared_mode, pair, verdict))
        .collect();
    DriverHints { region_names, lock_names: program.locks.values().map(|l| l.name.clone()).collect(), entries, pairs }
}

/// The loads and stores of shared regions an entry point reaches, sorted by
/// location (accesses without one last), duplicates removed.
fn entry_accesses(program: &Program, root: crate::ir::ProcId, facts: &BTreeMap<CommandAt, AccessFacts>) -> Vec<AccessHint> {
    let mut out = Vec::new();
    for procedure in program.reachable(root) {
        let function = crate::ir::Procedure::source_name(&program.procedures[procedure].name);
        for (block, b) in program.procedures[procedure].blocks.iter() {
            for (index, c) in b.commands.iter().enumerate() {
                let (Command::Load { region, access, span, .. } | Command::Store { region, access, span, .. }) = c else {
                    continue;
                };
                let (region, write) = (*region, matches!(c, Command::Store { .. }));
                // Thread-private regions and per-call private memory
                // (src/analyses/private.rs) are not shared: no hint.
                if program.regions[region].thread_private || *access == AccessKind::Private {
                    continue;
                }
                // An access the analysis never reaches is dead code: no
                // lock is claimed there.
                let at = facts.get(&CommandAt { procedure, block, index });
                out.push(AccessHint {
                    span: span.clone(),
                    function: function.to_string(),
                    region,
                    write,
                    atomic: *access == AccessKind::Atomic,
                    locks: at.map(|f| f.locks.iter().map(|(l, m)| (*l, *m)).collect()).unwrap_or_default(),
                    before_live: at.is_some_and(|f| f.before_live),
                });
            }
        }
    }
    out.sort_by(|a, b| location_key(a).cmp(&location_key(b)));
    out.dedup();
    out
}

/// The order of accesses: by file, line and column (none last), then by
/// function, region, read before write, plain before atomic.
fn location_key(a: &AccessHint) -> (bool, Option<&Span>, &str, RegionId, bool, bool) {
    (a.span.is_none(), a.span.as_ref(), &a.function, a.region, a.write, a.atomic)
}

fn pair_hints(program: &Program, entries: &[EntryHints], has_shared_mode: &[bool], pair: &Pair, verdict: &PairVerdict) -> PairHints {
    let regions_of = |i: usize| -> BTreeSet<RegionId> { entries[i].accesses.iter().map(|a| a.region).collect() };
    let shared: BTreeSet<RegionId> = regions_of(pair.first).intersection(&regions_of(pair.second)).copied().collect();
    let verdicts: HashMap<&str, &Verdict> = verdict.regions.iter().map(|(name, v)| (name.as_str(), v)).collect();
    let regions = shared
        .into_iter()
        .map(|r| {
            let hint = match verdicts.get(program.regions[r].name.as_str()) {
                Some(Verdict::Proven) => RegionHint::Proven {
                    proof: proof(entries, has_shared_mode, pair, r),
                    atomic_conflicts: atomic_conflicts(entries, has_shared_mode, pair, r),
                },
                Some(Verdict::Race(_)) => RegionHint::Switch(SwitchReason::Race),
                // A region the verdicts do not name cannot happen; a
                // switch is the safe reading.
                Some(Verdict::Unknown(_)) | None => RegionHint::Switch(SwitchReason::Unknown),
            };
            (r, hint)
        })
        .collect();
    PairHints { first: pair.first, second: pair.second, verdict: verdict.summary(), regions }
}

/// The live atomic accesses to region `r` of either entry point that
/// conflict (one writes) with a live atomic access of the other, no lock
/// being certainly held at both (a lock with a shared mode exclusively at
/// one of them): (entry point index, access index).
fn atomic_conflicts(entries: &[EntryHints], has_shared_mode: &[bool], pair: &Pair, r: RegionId) -> BTreeSet<(usize, usize)> {
    let live_atomic = |i: usize| entries[i].accesses.iter().enumerate().filter(move |(_, a)| a.region == r && a.atomic && !a.before_live);
    let common_lock = |a: &AccessHint, b: &AccessHint| {
        a.locks.iter().any(|(l, ma)| {
            b.locks.iter().any(|(m, mb)| {
                l == m && (!has_shared_mode[l.as_u32() as usize] || *ma == LockMode::Exclusive || *mb == LockMode::Exclusive)
            })
        })
    };
    let mut out = BTreeSet::new();
    for (i, a) in live_atomic(pair.first) {
        for (j, b) in live_atomic(pair.second) {
            if (a.write || b.write) && !common_lock(a, b) {
                out.insert((pair.first, i));
                out.insert((pair.second, j));
            }
        }
    }
    out
}

/// Why region `r` is proven for the pair, from the two sides' accesses to
/// it made while callbacks may be live.
fn proof(entries: &[EntryHints], has_shared_mode: &[bool], pair: &Pair, r: RegionId) -> Proof {
    let live = |i: usize| -> Vec<&AccessHint> { entries[i].accesses.iter().filter(|a| a.region == r && !a.before_live).collect() };
    let (first, second) = (live(pair.first), live(pair.second));
    if first.is_empty() || second.is_empty() {
        return Proof::NotLive;
    }
    let held_everywhere = |side: &[&AccessHint], l: LockId, exclusive: bool| {
        side.iter().all(|a| a.locks.iter().any(|(x, m)| *x == l && (!exclusive || *m == LockMode::Exclusive)))
    };
    let candidates: BTreeSet<LockId> = first[0].locks.iter().map(|(l, _)| *l).collect();
    let common: BTreeSet<LockId> = candidates
        .into_iter()
        .filter(|&l| held_everywhere(&first, l, false) && held_everywhere(&second, l, false))
        .filter(|&l| !has_shared_mode[l.as_u32() as usize] || held_everywhere(&first, l, true) || held_everywhere(&second, l, true))
        .collect();
    let all = || first.iter().chain(&second);
    if !common.is_empty() {
        Proof::Lock(common)
    } else if all().all(|a| a.atomic) {
        Proof::Atomic
    } else if all().all(|a| !a.write) {
        Proof::ReadOnly
    } else {
        Proof::Other
    }
}

/// The document: `<por-hints version>`, one `<driver>` per file, one
/// `<error>` per path that named no file.
pub fn write_document(out: &mut impl Write, results: &[FileVerdicts], errors: &[FileError]) -> io::Result<()> {
    let mut w = Writer::new_with_indent(out, b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None))).map_err(io::Error::other)?;
    start(&mut w, "por-hints", &[("version", SCHEMA_VERSION.to_string()), ("racewatch", env!("CARGO_PKG_VERSION").to_string())])?;
    for e in errors {
        error(&mut w, e)?;
    }
    for r in results {
        start(&mut w, "driver", &[("file", r.file.display().to_string())])?;
        match (&r.outcome, &r.por_hints) {
            (Ok(_), Some(hints)) => driver(&mut w, hints)?,
            (Err(e), _) => error(&mut w, e)?,
            // Hints not computed: nothing is claimed for this file.
            (Ok(_), None) => {}
        }
        end(&mut w, "driver")?;
    }
    end(&mut w, "por-hints")?;
    writeln!(w.into_inner())
}

fn driver<W: Write>(w: &mut Xml<'_, W>, hints: &DriverHints) -> io::Result<()> {
    for pair in &hints.pairs {
        let verdict = match pair.verdict {
            Summary::Proven => "proven",
            Summary::Race => "race",
            Summary::Unknown => "unknown",
        };
        let (first, second) = (&hints.entries[pair.first], &hints.entries[pair.second]);
        let attrs = [("ep1", first.name.clone()), ("ep2", second.name.clone()), ("verdict", verdict.to_string())];
        let sides: &[usize] = if pair.first == pair.second { &[pair.first] } else { &[pair.first, pair.second] };
        let mut listed: Vec<(&EntryHints, &AccessHint, Decision)> = Vec::new();
        for &side in sides {
            let entry = &hints.entries[side];
            for (index, a) in entry.accesses.iter().enumerate() {
                if let Some(hint) = pair.regions.get(&a.region) {
                    listed.push((entry, a, hint.decide(side, index, a)));
                }
            }
        }
        listed.sort_by(|(e1, a1, _), (e2, a2, _)| location_key(a1).cmp(&location_key(a2)).then_with(|| e1.name.cmp(&e2.name)));
        if listed.is_empty() {
            empty(w, "pair", &attrs)?;
            continue;
        }
        start(w, "pair", &attrs)?;
        for (entry, access, decision) in listed {
            access_element(w, hints, entry, access, &decision)?;
        }
        end(w, "pair")?;
    }
    Ok(())
}

fn access_element<W: Write>(
    w: &mut Xml<'_, W>,
    hints: &DriverHints,
    entry: &EntryHints,
    a: &AccessHint,
    decision: &Decision,
) -> io::Result<()> {
    let mut attrs = vec![("entry", entry.name.clone()), ("function", a.function.clone())];
    if let Some(span) = &a.span {
        attrs.extend(span_attrs(span));
    }
    attrs.push(("region", hints.region_names[a.region.as_u32() as usize].clone()));
    attrs.push(("access", if a.write { "write" } else { "read" }.to_string()));
    attrs.push(("atomic", a.atomic.to_string()));
    let (element, common) = match decision {
        Decision::Switch(why) => {
            let reason = match why {
                SwitchReason::Race => "race",
                SwitchReason::Unknown => "unknown",
                SwitchReason::Atomic => "atomic",
            };
            attrs.push(("reason", reason.to_string()));
            ("switch", None)
        }
        Decision::Protected { reason, common } => {
            attrs.push(("reason", reason.to_string()));
            ("protected", Some(common))
        }
    };
    if a.locks.is_empty() {
        return empty(w, element, &attrs);
    }
    start(w, element, &attrs)?;
    let mut locks: Vec<(&str, LockId, LockMode)> =
        a.locks.iter().map(|(l, m)| (hints.lock_names[l.as_u32() as usize].as_str(), *l, *m)).collect();
    locks.sort_by(|x, y| x.0.cmp(y.0));
    for (name, id, mode) in locks {
        let mode = match mode {
            LockMode::Exclusive => "exclusive",
            LockMode::Shared => "shared",
        };
        let mut lock_attrs = vec![("name", name.to_string()), ("mode", mode.to_string())];
        if let Some(common) = &common {
            lock_attrs.push(("common", common.contains(&id).to_string()));
        }
        empty(w, "lock", &lock_attrs)?;
    }
    end(w, element)
}
