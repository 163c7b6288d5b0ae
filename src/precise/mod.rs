//! The bounded precise checker: for each pair the lockset phase left
//! unproven, search the pair's real interleavings for the race, within
//! stated bounds, and either show it (a witness) or say it was not found.
//!
//! # Algorithm
//!
//! Per pair (Whoop, thesis §3.5; STORM §2.2 for the sequentialisation):
//!
//! 1. The two-thread program: the driver's init entry point runs first,
//!    alone, on arbitrary memory; then the pair's two entry points run as
//!    two threads over real memory (the region maps), with real locks
//!    (blocking acquires, trylocks that take only a free lock), the kernel
//!    pseudo locks each runs holding, and a callback starting only once
//!    init made the device's callbacks live. A pair containing init runs
//!    init as one of the two threads.
//! 2. Lal–Reps sequentialisation with K rounds ([`memory`]): thread 1 to
//!    its end, then thread 2, each switching rounds at yields, then the
//!    assumption that the guessed round starts were right. Loops are
//!    unrolled and calls inlined to bounds ([`exec`]).
//! 3. Yields where the policy puts them ([`yields`]: `all`, `epp`, `mr`).
//! 4. Race checks behind the yields of plain accesses to the regions left
//!    unproven ([`commands`]); one solver query per region asks whether
//!    any check of that region can fail.
//! 5. A satisfiable query is a confirmed race with the interleaving read
//!    off the model ([`witness`]); an unsatisfiable one is "not found
//!    within the bounds", listing every bound the expansion reached; a
//!    solver timeout is unknown.
//!
//! # Soundness
//!
//! "Not found" is never "proven": it covers only executions where init
//! alone ran before the pair, each thread switched at most K − 1 times at
//! the yields, loops ran at most `--unroll` times per entry and calls
//! nested at most `--inline-depth` deep; the bounds reached are reported
//! with the verdict. "Confirmed" is exact for the lowered program, so it
//! inherits the lowering's over-approximations (havocked external calls,
//! uninterpreted bit operations, a trylock that fails spuriously), listed
//! in docs/soundness.md: a witness may rest on one.

pub mod commands;
pub mod exec;
pub mod history;
pub mod liveness;
pub mod memory;
pub mod prefix;
pub mod replay;
mod replay_objects;
#[cfg(test)]
mod replay_tests;
pub mod round;
pub mod separation;
pub mod start;
pub mod values;
pub mod witness;
pub mod yields;

use crate::analyses::pairs::Pair;
use crate::ir::{Command, LockId, ProcId, Program, RegionId};
use crate::solver::{CheckResult, Solver, SolverOptions, TermId};
use crate::verify::verdict::{PairVerdict, Verdict};
use exec::{Bounds, Budget, Exec, Hit};
use memory::{Cell, Memory, Who};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::{Duration, Instant};
pub use witness::{Witness, WitnessStep};
pub use yields::YieldMode;

/// Options of the precise phase.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// Rounds per thread (the context bound).
    pub k: u32,
    /// Loop iterations per entry into the loop.
    pub unroll: u32,
    /// Iterations of the loops the thread running the init entry point
    /// (`main`, a module's init or a probe) runs, in it and in the
    /// functions it calls, when above `unroll`: programs start their
    /// threads in loops of main, drivers register their callbacks after
    /// init's loops over boards, tables and hardware registers, and races
    /// after those loops are reached only past them. Only limits what is
    /// found. 0: as `unroll`.
    #[serde(default)]
    pub main_unroll: u32,
    /// Nested inlined calls.
    pub inline_depth: u32,
    /// Where threads may be switched.
    pub yields: YieldMode,
    /// Check write stamps instead of values (catches same-value races).
    pub strict: bool,
    /// Per solver query.
    pub timeout: Duration,
    /// Commands in the expansion of one pair, past which it is unknown.
    pub max_commands: usize,
    /// The memory budget of one pair's search, in MiB: the pair is unknown
    /// once the terms of its encoding take about a third of it (the other
    /// two thirds are for z3's copy of them and its search), see
    /// [`exec::Bounds::max_term_bytes`].
    #[serde(default = "default_pair_memory")]
    pub pair_memory: u64,
    /// z3's resource limit per query (deterministic, unlike the timeout);
    /// none by default.
    pub resource_limit: Option<u32>,
    /// The file's deadline (from `--file-timeout`): a pair not searched by
    /// then has its regions unknown. Not part of a request: each worker
    /// sets it from its budget.
    #[serde(skip)]
    pub deadline: Option<Instant>,
    /// Where to dump each query (from `--dump-smt`); set by the worker
    /// like the deadline.
    #[serde(skip)]
    pub dump_dir: Option<std::path::PathBuf>,
    /// Memory starts as the C program's (`racewatch svcomp`): the globals
    /// hold their static initial values ([`start`]), init must fit the
    /// bounds, and the replay accepts only witnesses that read no other
    /// initial value and no uninterpreted value. Off for drivers.
    #[serde(default)]
    pub program_start: bool,
    /// In program-start mode, a result of `__VERIFIER_nondet_*` (a havoc
    /// in [`Program::nondet_ranges`]) takes any value of its C type
    /// instead of 0 or 1: a program may need a value past 1 (a loop bound
    /// of 5 to 10, a seed other than the one read). Off in the first
    /// searches, where the solver's freedom to pick wide values that wrap
    /// around would make it find witnesses the replay rejects.
    #[serde(default)]
    pub nondet_values: bool,
}

/// The default iterations of init's loops for drivers (`--init-unroll`).
pub const INIT_UNROLL: u32 = 8;

/// The default memory budget of one pair's search, in MiB (`--pair-memory`).
pub const PAIR_MEMORY: u64 = 1024;

fn default_pair_memory() -> u64 {
    PAIR_MEMORY
}

impl Default for Options {
    fn default() -> Self {
        Options {
            k: 2,
            unroll: 2,
            main_unroll: INIT_UNROLL,
            inline_depth: 8,
            yields: YieldMode::Mr,
            strict: false,
            timeout: Duration::from_secs(10),
            max_commands: 200_000,
            pair_memory: PAIR_MEMORY,
            resource_limit: None,
            deadline: None,
            dump_dir: None,
            program_start: false,
            nondet_values: false,
        }
    }
}

impl Options {
    /// Whether the file's deadline has passed.
    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// The precise verdict on one region of one pair.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum PreciseVerdict {
    /// The race happens: how.
    Confirmed(Box<Witness>),
    /// No race within the bounds.
    NotFound,
    /// The search could not finish: why.
    Unknown(String),
}

impl PreciseVerdict {
    /// The stable name: `confirmed`, `not-found` or `unknown`.
    pub fn as_str(&self) -> &'static str {
        match self {
            PreciseVerdict::Confirmed(_) => "confirmed",
            PreciseVerdict::NotFound => "not-found",
            PreciseVerdict::Unknown(_) => "unknown",
        }
    }
}

/// What the precise phase did for one pair.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PrecisePair {
    /// The first entry point.
    pub first: String,
    /// The second.
    pub second: String,
    /// Per region left unproven by the lockset phase: its name and verdict.
    pub regions: Vec<(String, PreciseVerdict)>,
    /// The bounds reached, as sentences.
    pub hits: Vec<String>,
    /// Yield points placed in the two threads.
    pub yields: usize,
    /// Time spent on the pair.
    pub time: Duration,
}

/// The bounds a verdict holds within, for reports.
pub fn bounds_text(o: &Options) -> String {
    let mut main = match (o.main_unroll > o.unroll, o.program_start) {
        (true, true) => format!(", main's loops unrolled {}", o.main_unroll),
        (true, false) => format!(", init's loops unrolled {}", o.main_unroll),
        (false, _) => String::new(),
    };
    if o.program_start && o.nondet_values {
        main.push_str(", nondet values of their whole type");
    }
    format!("K={}, unroll {}{main}, inline depth {}, yields {}{}", o.k, o.unroll, o.inline_depth, o.yields.as_str(), if o.strict { ", strict" } else { "" })
}

/// Runs the precise phase on every pair whose lockset verdict has an
/// unproven region; `held[i]` are the pseudo locks entry point `i` runs
/// holding. Results come in the order of `pairs`, for those pairs only.
pub fn check(program: &Program, pairs: &[Pair], verdicts: &[PairVerdict], held: &[Vec<String>], options: &Options) -> Vec<PrecisePair> {
    let entries: Vec<&crate::ir::EntryPointInfo> = program.entry_points.iter().map(|(_, e)| e).collect();
    let init = entries.iter().find(|e| e.kind.role() == crate::models::Role::Init).map(|e| e.procedure);
    let held: Vec<Vec<LockId>> =
        crate::verify::run::pseudo_locks(program, held).into_iter().map(|locks| locks.into_iter().collect()).collect();
    let registers = init.is_some_and(|p| reaches_live(program, p));
    // Does init alone stay within the bounds? If not, pairs start from
    // arbitrary memory.
    let mut init_reached = Vec::new();
    let init_fits = init.is_some_and(|p| {
        let mut e = Exec::new(program, memory_for(program, options, false), policy(options, BTreeSet::new(), false, Default::default()), BTreeSet::new(), false, bounds(options));
        e.program_start = options.program_start;
        e.nondet_values = options.nondet_values;
        e.init_entry = Some(p);
        e.thread(Who::Init, p, &[], false);
        // In program-start mode init may halt at a loop bound. Elsewhere
        // the paths it drops at a bound must be infeasible.
        let cut_off = e.exceeded.is_none() && !e.approximated && !e.init_cuts.is_empty() && no_path_reaches_a_bound(&mut e, options);
        let allowed = |h: &Hit| {
            matches!(h, Hit::AssumedLive(..))
                || (options.program_start && matches!(h, Hit::Unroll(..)))
                || (cut_off && matches!(h, Hit::Unroll(..) | Hit::Recursion(_) | Hit::Inline(_)))
        };
        init_reached = e.hits.iter().filter(|h| !allowed(h)).map(|h| h.to_string()).collect();
        match e.exceeded {
            Some(Budget::Memory) => init_reached.push(format!("terms past the memory budget of {} MiB", options.pair_memory)),
            Some(Budget::Commands) => init_reached.push(format!("more than {} commands", options.max_commands)),
            None => {}
        }
        e.hits.iter().all(allowed) && e.exceeded.is_none()
    });
    let jobs: Vec<usize> = (0..pairs.len().min(verdicts.len()))
        .filter(|&i| verdicts[i].regions.iter().any(|(_, v)| !matches!(v, Verdict::Proven)))
        .collect();
    // Verdicts name regions; several regions may share a name.
    let regions_by_name: BTreeMap<&str, Vec<RegionId>> = program.regions.iter().fold(BTreeMap::new(), |mut m, (id, r)| {
        m.entry(r.name.as_str()).or_default().push(id);
        m
    });
    let footprints = entries.iter().enumerate().map(|(i, e)| yields::Footprint::of(program, e.procedure, held.get(i).map_or(&[], |h| h.as_slice()))).collect();
    let closure = std::sync::Arc::new(liveness::LiveClosure::new(program));
    let module_values = start::StartValues::of_module(program);
    let setup = Setup { program, entries, init, init_fits, init_reached, registers, held: &held, footprints, regions_by_name, options, closure, module_values };
    let mut out: Vec<(usize, PrecisePair)> =
        jobs.par_iter().with_max_len(1).map(|&i| (i, crate::solver::isolated(|| setup.pair_within_budget(&pairs[i], &verdicts[i])))).collect();
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, p)| p).collect()
}

impl Setup<'_> {
    /// [`Setup::pair`], unless the file's deadline has passed: then every
    /// region the lockset phase left unproven is unknown, unsearched.
    fn pair_within_budget(&self, pair: &Pair, verdict: &PairVerdict) -> PrecisePair {
        if !self.options.past_deadline() {
            return self.pair(pair, verdict);
        }
        let why = spent();
        PrecisePair {
            first: verdict.first.clone(),
            second: verdict.second.clone(),
            regions: verdict
                .regions
                .iter()
                .filter(|(_, v)| !matches!(v, Verdict::Proven))
                .map(|(name, _)| (name.clone(), PreciseVerdict::Unknown(why.clone())))
                .collect(),
            hits: Vec::new(),
            yields: 0,
            time: Duration::ZERO,
        }
    }
}

/// How many times a region's search is asked again after the replay
/// rejected its witness ([`Precise::solve`]).
const REFINEMENTS: usize = 4;

/// What one query of a region's search gave.
enum Attempt {
    /// A verdict.
    Verdict(PreciseVerdict),
    /// A witness the replay rejected, with why, and what the replay blamed
    /// (none when it blamed no object), or the initial value the
    /// module-start check pins.
    Rejected(String, Option<Exclusion>, Option<replay::Need>),
}

/// What a rejected witness's next search keeps apart: the blamed objects
/// (their bases) from the checked access's address, when that address
/// lies in one, and from the blamed value's term.
struct Exclusion {
    bases: Vec<i128>,
    /// Addresses in those objects the blamed value may take.
    allowed: Vec<i128>,
    address: Option<(TermId, i128)>,
    term: Option<TermId>,
    /// The threads' arguments with their values, kept by the next search
    /// when the blamed value is not an argument (a cell of initial memory,
    /// a call's result): the next witness then reaches the same value,
    /// which the exclusion constrains.
    pins: Vec<(TermId, i128)>,
}

/// The start of the reason of a region whose witness did not replay.
pub const REPLAY_FAILED: &str = "the witness does not replay on the program: ";

/// Why a region is unknown when the file's deadline passed first.
pub(crate) fn spent() -> String {
    format!("{} region was searched", crate::verify::verdict::BUDGET_SPENT)
}

/// The verdict of a region searched in both thread orders.
fn merge(first: PreciseVerdict, second: PreciseVerdict) -> PreciseVerdict {
    match (first, second) {
        (c @ PreciseVerdict::Confirmed(_), _) | (_, c @ PreciseVerdict::Confirmed(_)) => c,
        (u @ PreciseVerdict::Unknown(_), _) | (_, u @ PreciseVerdict::Unknown(_)) => u,
        (PreciseVerdict::NotFound, PreciseVerdict::NotFound) => PreciseVerdict::NotFound,
    }
}

struct Setup<'a> {
    program: &'a Program,
    /// The entry points, by the index pairs use.
    entries: Vec<&'a crate::ir::EntryPointInfo>,
    init: Option<ProcId>,
    init_fits: bool,
    /// The bounds init reached when it does not fit.
    init_reached: Vec<String>,
    registers: bool,
    held: &'a [Vec<LockId>],
    /// What each entry point can touch, by the index pairs use.
    footprints: Vec<yields::Footprint>,
    regions_by_name: BTreeMap<&'a str, Vec<RegionId>>,
    options: &'a Options,
    /// What each registration makes live.
    closure: std::sync::Arc<liveness::LiveClosure>,
    /// A kernel module's load-time globals, for the module-start check.
    module_values: start::StartValues,
}

fn bounds(o: &Options) -> Bounds {
    let init_unroll = o.main_unroll.max(o.unroll);
    let max_term_bytes = usize::try_from(o.pair_memory.saturating_mul(1 << 20) / 3).unwrap_or(usize::MAX);
    Bounds { k: o.k.max(1), unroll: o.unroll, init_unroll, inline_depth: o.inline_depth, max_commands: o.max_commands, max_term_bytes }
}

fn policy(o: &Options, proven: BTreeSet<RegionId>, pair_proven: bool, threads: [yields::Footprint; 2]) -> yields::YieldPolicy {
    yields::YieldPolicy::new(o.yields, proven, pair_proven, threads)
}

fn memory_for(program: &Program, o: &Options, live_at_start: bool) -> Memory {
    let private: BTreeSet<Cell> = program.regions.iter().filter(|(_, r)| r.thread_private).map(|(id, _)| Cell::Region(id)).collect();
    let mut m = Memory::new(o.k.max(1), private, live_at_start);
    if o.program_start {
        m.start_as_program(start::StartValues::of(program));
    }
    m
}

/// Whether no run of init alone reaches one of the bounds its expansion
/// stops at: the paths dropped there ([`Exec::init_cuts`]) are
/// unsatisfiable under init's other constraints (from arbitrary memory,
/// which only adds runs). Then init fits the bounds even though its
/// expansion has a loop (every loop's expansion ends at a bound). A
/// timeout or an unknown answer says it may not fit.
fn no_path_reaches_a_bound(e: &mut Exec<'_>, options: &Options) -> bool {
    let dropped: HashSet<TermId> = e.init_cuts.iter().map(|(_, c)| *c).collect();
    let mut kept: Vec<TermId> = e.constraints.iter().copied().filter(|c| !dropped.contains(c)).collect();
    let reaches: Vec<TermId> = e.init_cuts.iter().map(|(r, _)| *r).collect();
    let any = e.t.or(&reaches);
    kept.push(any);
    let consistency = e.mem.consistency(&mut e.t, &kept);
    kept.extend(consistency.assumptions);
    let t = std::mem::take(&mut e.t);
    let mut solver = Solver::with_terms(SolverOptions { timeout: options.timeout, resource_limit: options.resource_limit, dump_dir: None }, t);
    let all = solver.terms_mut().and(&kept);
    solver.assert(all);
    solver.check().is_unsat()
}

/// Whether a procedure reaches a `live` command through calls.
fn reaches_live(program: &Program, root: ProcId) -> bool {
    program.reachable(root).into_iter().any(|p| {
        program.procedures[p].blocks.iter().any(|(_, b)| b.commands.iter().any(|c| matches!(c, Command::MakeLive { .. })))
    })
}

impl Setup<'_> {
    /// Searches a pair's unproven regions. When init does not fit the
    /// bounds, the pair first starts from arbitrary memory with every
    /// callback live: what is not found there is not found after any run
    /// of init. A witness found there shows no run the kernel makes, so
    /// its region is searched again after init's runs that stay within
    /// the bounds (init's paths past a bound dropped, [`Exec::stop`]):
    /// every run of that search is a real one, so its witnesses confirm,
    /// while what it does not find stays unknown.
    fn pair(&self, pair: &Pair, verdict: &PairVerdict) -> PrecisePair {
        let start = Instant::now();
        let (a, b) = (self.entries[pair.first], self.entries[pair.second]);
        let in_pair = [a, b].iter().any(|e| e.kind.role() == crate::models::Role::Init);
        let skipped = self.init.is_some() && !in_pair && !self.init_fits && !self.options.program_start;
        let mut out = self.search(pair, verdict, None);
        if !skipped {
            out.time = start.elapsed();
            return out;
        }
        let witnessed: Vec<String> =
            out.regions.iter().filter(|(_, v)| matches!(v, PreciseVerdict::Confirmed(_))).map(|(n, _)| n.clone()).collect();
        let init = self.init.map(|p| self.program.procedures[p].name.as_str()).unwrap_or("init");
        let why = format!(
            "a witness exists from arbitrary memory with every callback live, where the pair started because {init} reached a bound; none was found after a run of {init} within the bounds (its loops unrolled {})",
            bounds(self.options).init_unroll
        );
        let again = if witnessed.is_empty() || self.options.past_deadline() { None } else { Some(self.search(pair, verdict, Some(&witnessed))) };
        for (name, v) in out.regions.iter_mut().filter(|(n, _)| witnessed.contains(n)) {
            let found = again.as_ref().and_then(|g| g.regions.iter().find(|(m, w)| m == name && matches!(w, PreciseVerdict::Confirmed(_))));
            *v = match found {
                Some((_, w)) => w.clone(),
                None => PreciseVerdict::Unknown(why.clone()),
            };
        }
        if let Some(g) = again {
            out.hits.extend(g.hits);
            out.hits.sort();
            out.hits.dedup();
            out.yields += g.yields;
        }
        out.time = start.elapsed();
        out
    }

    /// One search of a pair's unproven regions, or of those `only` names;
    /// then init runs even though it does not fit the bounds (its paths
    /// past a bound dropped).
    fn search(&self, pair: &Pair, verdict: &PairVerdict, only: Option<&[String]>) -> PrecisePair {
        let start = Instant::now();
        let program = self.program;
        let (a, b) = (self.entries[pair.first], self.entries[pair.second]);
        let regions_of = |name: &str| self.regions_by_name.get(name).cloned().unwrap_or_default();
        let mut proven = BTreeSet::new();
        let mut unproven: Vec<(String, Vec<RegionId>)> = Vec::new();
        for (name, v) in &verdict.regions {
            match v {
                Verdict::Proven => proven.extend(regions_of(name)),
                Verdict::Race(_) | Verdict::Unknown(_) => unproven.push((name.clone(), regions_of(name))),
            }
        }
        let pair_proven = unproven.is_empty();
        if let Some(names) = only {
            unproven.retain(|(n, _)| names.contains(n));
        }
        let init_cut = only.is_some();
        let checked: BTreeSet<RegionId> = unproven.iter().flat_map(|(_, r)| r.iter().copied()).collect();
        let in_pair = [a, b].iter().any(|e| e.kind.role() == crate::models::Role::Init);
        let run_init = self.init.is_some() && !in_pair && (self.init_fits || init_cut);
        if self.options.program_start && self.init.is_some() && !in_pair && !self.init_fits {
            // The pair would start from arbitrary memory, without main's
            // thread creations: no execution of the program.
            let why = "main does not run within the bounds, and a program's threads start only from it".to_string();
            let regions = unproven.iter().map(|(n, _)| (n.clone(), PreciseVerdict::Unknown(why.clone()))).collect();
            return PrecisePair { first: verdict.first.clone(), second: verdict.second.clone(), regions, hits: Vec::new(), yields: 0, time: start.elapsed() };
        }
        // Callbacks wait for init's registration when init runs (first or
        // in the pair) and registers; and whenever the init entry point in
        // the pair registers (a probe paired with a callback: the callback
        // starts only once that probe's registration made it live, as the
        // lockset phase's `PARTNER` liveness has it), even if the init
        // entry point that would run first does not (a driver with a
        // module init, a probe and an ACPI add: the first of them says
        // nothing about the probe in the pair).
        // A kernel module's run starts from its load-time globals
        // (replay's module-start check), except the regions that init-role
        // entry points this run does not execute may write before it.
        let module_start = (!self.options.program_start).then(|| {
            let executed: Vec<ProcId> = if run_init { self.init.into_iter().collect() } else { Vec::new() };
            let executed: Vec<ProcId> = executed.into_iter().chain([a, b].iter().filter(|e| e.kind.role() == crate::models::Role::Init).map(|e| e.procedure)).collect();
            let written_before = self
                .entries
                .iter()
                .zip(&self.footprints)
                .filter(|(e, _)| e.kind.role() == crate::models::Role::Init && !executed.contains(&e.procedure))
                .flat_map(|(_, f)| f.writes.iter().copied())
                .collect();
            replay::ModuleStart { values: self.module_values.clone(), written_before }
        });
        let in_pair_registers = [a, b].iter().any(|e| e.kind.role() == crate::models::Role::Init && reaches_live(program, e.procedure));
        let waits = (self.registers && (run_init || in_pair)) || in_pair_registers;
        // Init needs no registration; an exit entry point (module exit,
        // remove) and an exported function may start once init has
        // returned, which it has before the pair (or it is in the pair,
        // whose rules keep them out of init).
        let needs_live = |e: &crate::ir::EntryPointInfo| {
            e.kind != crate::models::EntryKind::Exported && !matches!(e.kind.role(), crate::models::Role::Init | crate::models::Role::Exit)
        };
        let run = |first: &crate::ir::EntryPointInfo, i: usize, second: &crate::ir::EntryPointInfo, j: usize, regions: &[(String, Vec<RegionId>)], history: &[usize]| {
            let mut exec = Exec::new(
                program,
                memory_for(program, self.options, !waits),
                policy(self.options, proven.clone(), pair_proven, [self.footprints[i].clone(), self.footprints[j].clone()]),
                checked.clone(),
                self.options.strict,
                bounds(self.options),
            );
            exec.program_start = self.options.program_start;
            exec.nondet_values = self.options.nondet_values;
            exec.init_entry = self.init;
            exec.separate_globals();
            exec.set_pair(&first.name, &second.name, self.closure.clone());
            let history = if run_init { history } else { &[] };
            exec.history_names = history.iter().map(|&h| self.entries[h].name.clone()).collect();
            if let (Some(init), true) = (self.init, run_init) {
                exec.thread(Who::Init, init, &[], false);
            }
            // The history's callbacks, each alone and to its end, after
            // init; a later one, and a thread of the pair, whose begin
            // callback an earlier one ran or was, works on that object.
            let mut objects = history::Objects::default();
            for (k, &h) in history.iter().enumerate() {
                let e = self.entries[h];
                exec.history_from.push(exec.steps.len());
                let (p, object) = objects.start(prefix::of(program, &self.entries, h));
                let p = p.map(|p| (self.entries[p.entry].procedure, p.param, p.own));
                exec.thread_after(Who::Init, e.procedure, &self.held[h], waits && needs_live(e), p, exec::Start { history: Some(k), object });
                if let Some(start) = exec.trace.threads.last() {
                    objects.record(e, &start.args);
                }
            }
            if self.init.is_some() && !in_pair && !run_init {
                let name = self.init.map(|p| program.procedures[p].name.clone()).unwrap_or_default();
                exec.hits.insert(Hit::InitSkipped(name, self.init_reached.clone()));
            }
            let [p1, p2] = prefix::of_pair(program, &self.entries, i, j);
            let (p1, o1) = objects.start(p1);
            let (p2, o2) = objects.start(p2);
            exec.prefixed = p1.is_some() || p2.is_some();
            let procedure_of = |p: Option<prefix::Prefix>| p.map(|p| (self.entries[p.entry].procedure, p.param, p.own));
            exec.thread_after(Who::T1, first.procedure, &self.held[i], waits && needs_live(first), procedure_of(p1), exec::Start { history: None, object: o1 });
            exec.thread_after(Who::T2, second.procedure, &self.held[j], waits && needs_live(second), procedure_of(p2), exec::Start { history: None, object: o2 });
            exec.separate_objects(i, j);
            exec.settle_waits();
            let roots: Vec<TermId> = exec.constraints.iter().copied().chain(exec.checks.iter().map(|c| c.fail)).collect();
            let consistency = exec.mem.consistency(&mut exec.t, &roots);
            exec.constraints.extend(consistency.assumptions);
            exec.initial_memory_below_objects();
            // Every initial value of a recorded global at its load-time
            // value: assumed only once a witness needed another one.
            let start_constraint = module_start.as_ref().map(|m| exec.mem.module_start(&mut exec.t, &m.values, &m.written_before));
            let hits: Vec<Hit> = exec.hits.iter().cloned().collect();
            let yields = exec.yields;
            let history_label: Vec<(usize, String)> = exec.history_from.iter().copied().zip(exec.history_names.iter().cloned()).collect();
            let (verdicts, needed) = if exec.over_budget() {
                let why = if exec.exceeded == Some(Budget::Memory) {
                    format!(
                        "the encoding of the bounded program exceeds the pair's memory budget of {} MiB; raise --pair-memory or lower --unroll, --init-unroll or --inline-depth",
                        self.options.pair_memory
                    )
                } else {
                    format!("the bounded program exceeds {} commands; lower --unroll or --inline-depth", self.options.max_commands)
                };
                (regions.iter().map(|(n, _)| (n.clone(), PreciseVerdict::Unknown(why.clone()))).collect(), BTreeMap::new())
            } else {
                let start = module_start.as_ref().zip(start_constraint);
                self.solve(exec, regions, [&first.name, &second.name], &consistency.live, !waits, start, history_label)
            };
            (verdicts, hits, yields, needed)
        };
        // The schedules start with the first thread; the other order is
        // searched too, for what the first did not confirm.
        let (mut regions, mut hits, mut yields, mut needed) = run(a, pair.first, b, pair.second, &unproven, &[]);
        if pair.first != pair.second {
            let rest: Vec<(String, Vec<RegionId>)> = unproven
                .iter()
                .zip(&regions)
                .filter(|(_, (_, v))| !matches!(v, PreciseVerdict::Confirmed(_)))
                .map(|(u, _)| u.clone())
                .collect();
            if !rest.is_empty() && self.options.past_deadline() {
                // The other order was not searched: "not found" in one
                // order is no verdict.
                for (_, v) in regions.iter_mut().filter(|(_, v)| !matches!(v, PreciseVerdict::Confirmed(_))) {
                    *v = PreciseVerdict::Unknown(spent());
                }
            } else if !rest.is_empty() {
                let (again, more, y, n) = run(b, pair.second, a, pair.first, &rest, &[]);
                yields += y;
                hits.extend(more);
                for (name, r) in n {
                    needed.entry(name).or_default().extend(&r);
                }
                for (name, v) in again {
                    if let Some(slot) = regions.iter_mut().find(|(n, _)| *n == name) {
                        slot.1 = merge(std::mem::replace(&mut slot.1, PreciseVerdict::NotFound), v);
                    }
                }
            }
        }
        // A region whose witnesses needed memory or a liveness that only
        // earlier calls give is searched again after such calls
        // (super::history); only a confirmation replaces its verdict.
        if run_init && !in_pair && !self.options.program_start {
            let retry: Vec<(String, Vec<RegionId>)> = unproven
                .iter()
                .filter(|(n, _)| needed.contains_key(n) && regions.iter().any(|(m, v)| m == n && matches!(v, PreciseVerdict::Unknown(_))))
                .cloned()
                .collect();
            let mut all = history::Needs::default();
            for (n, _) in &retry {
                all.extend(&needed[n]);
            }
            let orders = if pair.first == pair.second { 1 } else { 2 };
            let mut tried = Vec::new();
            'histories: for h in history::candidates(&self.entries, &self.footprints, &self.closure, &all) {
                for (x, i, y, j) in [(a, pair.first, b, pair.second), (b, pair.second, a, pair.first)].into_iter().take(orders) {
                    let left: Vec<(String, Vec<RegionId>)> = retry
                        .iter()
                        .filter(|(n, _)| regions.iter().any(|(m, v)| m == n && !matches!(v, PreciseVerdict::Confirmed(_))))
                        .cloned()
                        .collect();
                    if left.is_empty() || self.options.past_deadline() {
                        break 'histories;
                    }
                    if i == pair.first {
                        tried.push(h.iter().map(|&e| self.entries[e].name.as_str()).collect::<Vec<_>>().join(" then "));
                    }
                    let (again, more, more_yields, _) = run(x, i, y, j, &left, &h);
                    yields += more_yields;
                    hits.extend(more);
                    for (name, v) in again.into_iter().filter(|(_, v)| matches!(v, PreciseVerdict::Confirmed(_))) {
                        if let Some(slot) = regions.iter_mut().find(|(n, _)| *n == name) {
                            slot.1 = v;
                        }
                    }
                }
            }
            if !tried.is_empty() {
                let after = tried.join("; ");
                for (_, v) in regions.iter_mut().filter(|(n, _)| retry.iter().any(|(m, _)| m == n)) {
                    if let PreciseVerdict::Unknown(why) = v {
                        why.push_str(&format!("; not found either after these earlier complete calls: {after}"));
                    }
                }
            }
        }
        hits.sort();
        hits.dedup();
        let hits: Vec<String> = hits.iter().map(|h| h.to_string()).collect();
        PrecisePair { first: verdict.first.clone(), second: verdict.second.clone(), regions, hits, yields, time: start.elapsed() }
    }

    fn solve(
        &self,
        exec: Exec<'_>,
        unproven: &[(String, Vec<RegionId>)],
        names: [&String; 2],
        live: &HashSet<TermId>,
        live_at_start: bool,
        module_start: Option<(&replay::ModuleStart, TermId)>,
        history: Vec<(usize, String)>,
    ) -> (Vec<(String, PreciseVerdict)>, BTreeMap<String, history::Needs>) {
        let Exec { t, constraints, checks, steps, trace, bump, .. } = exec;
        let mut solver = Solver::with_terms(SolverOptions { timeout: self.options.timeout, resource_limit: self.options.resource_limit, dump_dir: self.options.dump_dir.clone() }, t);
        // One assertion, not one per constraint: in incremental mode z3
        // simplifies each assertion as it arrives, with a cache that does
        // not outlive it, so thousands of constraints sharing one large
        // term graph were simplified over and over (40 s instead of 0.2 s
        // for tty_serial.c's poll/write pair).
        let all = solver.terms_mut().and(&constraints);
        solver.assert(all);
        let mut out = Vec::new();
        let mut needed: BTreeMap<String, history::Needs> = BTreeMap::new();
        for (name, regions) in unproven {
            let mine: Vec<&exec::RaceCheck> = checks.iter().filter(|c| regions.contains(&c.region)).collect();
            if mine.is_empty() {
                out.push((name.clone(), PreciseVerdict::NotFound));
                continue;
            }
            if let Some(deadline) = self.options.deadline {
                // A query never runs past the file's deadline.
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    out.push((name.clone(), PreciseVerdict::Unknown(spent())));
                    continue;
                }
                solver.set_timeout(left.min(self.options.timeout));
            }
            let fails: Vec<crate::solver::TermId> = mine.iter().map(|c| c.fail).collect();
            let any = solver.terms_mut().or(&fails);
            // A witness the replay rejects because a value no thread
            // computed pointed into an object of the run is excluded (the
            // checked access's address kept out of that object) and the
            // search asked again, a few times: another witness of the same
            // region may replay. What the exclusions leave unsatisfiable
            // stays unknown with the first rejection's reason, never "not
            // found": the exclusions are no proof.
            // A value blamed a second time (pointing into another object
            // of the run: the model moves it from one allocation to the
            // next) is kept out of every allocation of the expansion
            // (below `HEAP`). Under load z3's models differ, and a search
            // that only excluded one object at a time ran out of
            // refinements on a race the next query would confirm.
            let mut assumptions = vec![any];
            // After a history, memory starts as loading the module leaves
            // it from the first query (super::history).
            if let (false, Some((_, all))) = (history.is_empty(), module_start) {
                assumptions.push(all);
            }
            let mut rejected: Option<String> = None;
            let mut verdict = None;
            let mut blamed: HashSet<TermId> = HashSet::new();
            for _ in 0..=REFINEMENTS {
                if self.options.past_deadline() {
                    break;
                }
                let label: Vec<(usize, &str)> = history.iter().map(|(from, name)| (*from, name.as_str())).collect();
                match self.attempt(&mut solver, &assumptions, &mine, &steps, &trace, &bump.names, live, names, live_at_start, module_start.map(|m| m.0), label) {
                    Attempt::Verdict(v) => {
                        verdict = Some(v);
                        break;
                    }
                    Attempt::Rejected(why, exclusion, need) => {
                        rejected.get_or_insert(why);
                        if let Some(replay::Need::Live(callback)) = need {
                            needed.entry(name.clone()).or_default().live.insert(callback);
                            break;
                        }
                        if let Some(replay::Need::Start((term, value, region))) = need {
                            needed.entry(name.clone()).or_default().regions.insert(region);
                            // The next witness starts from the globals'
                            // load-time values: all of them the first
                            // time, then the one the replay names.
                            match module_start.map(|m| m.1).filter(|c| !assumptions.contains(c)) {
                                Some(all) => assumptions.push(all),
                                None => {
                                    let t = solver.terms_mut();
                                    let v = t.int(value);
                                    assumptions.push(t.eq(term, v));
                                }
                            }
                            continue;
                        }
                        let Some(Exclusion { bases, allowed, address, term, pins }) = exclusion else { break };
                        let t = solver.terms_mut();
                        let outside = |t: &mut crate::solver::TermBank, x: TermId, base: i128| {
                            let lo = t.int(base);
                            let hi = t.int(base + separation::STRIDE);
                            let below = t.lt(x, lo);
                            let above = t.le(hi, x);
                            t.or(&[below, above])
                        };
                        if let Some((x, base)) = address {
                            assumptions.push(outside(t, x, base));
                        }
                        // The kernel passes every argument under the same
                        // rule: a blamed argument keeps all of them out of
                        // the object but at the addresses formed in it
                        // (else the next witness moves another argument
                        // there). Any other blamed value (a cell of initial
                        // memory, a call's result) is reached through
                        // addresses the arguments give: they keep their
                        // values, so that the next witness reaches the
                        // value the exclusion constrains.
                        let args: Vec<TermId> = trace.threads.iter().flat_map(|s| s.args.iter().copied()).collect();
                        let blamed_values: Vec<TermId> = match term {
                            Some(x) if !allowed.is_empty() && args.contains(&x) => args,
                            Some(x) if !args.contains(&x) => {
                                for &(a, v) in &pins {
                                    let v = t.int(v);
                                    assumptions.push(t.eq(a, v));
                                }
                                vec![x]
                            }
                            Some(x) => vec![x],
                            None => Vec::new(),
                        };
                        for &x in &blamed_values {
                            for &base in &bases {
                                // Outside the object, or at an address a
                                // thread formed in it.
                                let out = outside(t, x, base);
                                let mut options = vec![out];
                                for &f in &allowed {
                                    let f = t.int(f);
                                    options.push(t.eq(x, f));
                                }
                                let keep = t.or(&options);
                                assumptions.push(keep);
                            }
                        }
                        if let Some(x) = term {
                            if !blamed.insert(x) && allowed.is_empty() {
                                let heap = t.int(separation::HEAP);
                                assumptions.push(t.lt(x, heap));
                            }
                        }
                    }
                }
            }
            let verdict = match (verdict, rejected) {
                (Some(PreciseVerdict::NotFound), Some(why)) => PreciseVerdict::Unknown(format!("{REPLAY_FAILED}{why}")),
                (Some(v), _) => v,
                (None, Some(why)) => PreciseVerdict::Unknown(format!("{REPLAY_FAILED}{why}")),
                (None, None) => PreciseVerdict::Unknown(spent()),
            };
            out.push((name.clone(), verdict));
        }
        (out, needed)
    }

    /// One query of [`Self::solve`] under `assumptions`: a verdict, or a
    /// witness the replay rejected, with the exclusion that keeps the
    /// failing check's address out of the object the replay blamed (when
    /// the address lies in it).
    #[allow(clippy::too_many_arguments)]
    fn attempt(
        &self,
        solver: &mut Solver,
        assumptions: &[TermId],
        mine: &[&exec::RaceCheck],
        steps: &[exec::Step],
        trace: &replay::Trace,
        objects: &[(i128, String)],
        live: &HashSet<TermId>,
        names: [&String; 2],
        live_at_start: bool,
        module_start: Option<&replay::ModuleStart>,
        history: Vec<(usize, &str)>,
    ) -> Attempt {
        let model = match solver.check_assuming(assumptions) {
            CheckResult::Unsat { .. } => return Attempt::Verdict(PreciseVerdict::NotFound),
            CheckResult::Unknown { reason } => return Attempt::Verdict(PreciseVerdict::Unknown(format!("solver: {reason}"))),
            CheckResult::Sat { model } => model,
        };
        let mut values = values::Values::new(solver.terms(), &model);
        // The cached evaluation gives up on a term it cannot compute (an
        // overflow, a value z3 leaves out of the model); z3's own
        // evaluation, with model completion, decides the rest.
        let failing = mine.iter().find(|c| values.bool(c.fail) == Some(true));
        let failing = failing.or_else(|| mine.iter().find(|c| model.eval_bool(solver.terms(), c.fail) == Some(true)));
        let Some(c) = failing else {
            return Attempt::Verdict(PreciseVerdict::Unknown("the solver's model shows no failing check".to_string()));
        };
        let address = values.int(c.address);
        let pins: Vec<(TermId, i128)> = trace.threads.iter().flat_map(|t| t.args.iter()).filter_map(|&a| values.int(a).map(|v| (a, v))).collect();
        let init = self.init.map(|p| self.program.procedures[p].name.as_str());
        let w = witness::build(self.program, &mut values, steps, live, c, names, witness::Before { init, history }, objects, self.options.k);
        // The witness must replay on the IR (replay.rs).
        let claim = replay::Claim { who: c.who, site: steps[c.access].site, region: c.region, strict: self.options.strict, program_start: self.options.program_start };
        let mut oracle = replay::Oracle { terms: solver.terms_mut(), model: &model };
        match replay::replay_blamed(self.program, trace, &mut oracle, self.options.k, live_at_start, claim, &self.closure, module_start.cloned()) {
            // A race on a store only assumed of a function without body
            // or model is no confirmation: the function may write nothing.
            (replay::Outcome::Reproduced, _, _) => match assumed_access(self.program, &w) {
                Some(function) => Attempt::Verdict(PreciseVerdict::Unknown(format!(
                    "the race rests on a write `{function}` may not make (no body or model, or a conditional write of its model)"
                ))),
                None => Attempt::Verdict(PreciseVerdict::Confirmed(Box::new(w))),
            },
            (replay::Outcome::Rejected(why), blame, need) => {
                // The checked access's address when it lies in the blamed
                // object, and the value the replay blamed, are kept out of
                // that object.
                let exclusion = blame.map(|replay::Blame { bases, term, allowed }| {
                    let inside = address.and_then(|a| bases.iter().copied().find(|&base| a >= base && a < base + separation::STRIDE));
                    // A value blamed for its offset only keeps the
                    // checked access where it is.
                    let inside = inside.filter(|_| allowed.is_empty());
                    Exclusion { bases, allowed, address: inside.map(|base| (c.address, base)), term, pins }
                });
                Attempt::Rejected(why, exclusion, need)
            }
        }
    }
}

/// The function whose assumed store one of the witness's two racing
/// accesses is ([`crate::ir::Program::assumed_writes`]), if any.
fn assumed_access(program: &crate::ir::Program, w: &witness::Witness) -> Option<String> {
    [Some(&w.access), w.conflict.as_ref()]
        .into_iter()
        .flatten()
        .filter(|s| s.event == "write")
        .find_map(|s| program.assumed_writes.get(s.span.as_ref()?).cloned())
}
