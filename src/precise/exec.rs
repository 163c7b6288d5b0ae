//! Symbolic execution of one thread of the sequentialised program: loops
//! unrolled, calls inlined, both to bounds, into terms of one bank.
//!
//! # Algorithm
//!
//! A procedure's control flow graph is expanded into an acyclic graph of
//! block instances keyed by the block and, for every loop (strongly
//! connected component of a loop head, `vcgen/cfg.rs`) execution is in,
//! how many times its back edge was taken. Entering a loop head from
//! outside resets its count; a back edge past `--unroll` iterations ends
//! the thread there (see below). The instances are executed in a
//! topological order, merging the states of the incoming edges with
//! `if-then-else` on their path conditions (the reach terms), so the
//! encoding is linear in the size of the expansion. A nondeterministic
//! `goto` chooses one target by a fresh selector; the targets' leading
//! `assume`s prune what is infeasible. A load whose value nobody uses, of
//! a region no check watches, is left out: it changes nothing. A call with a body is executed
//! in place (inlined) up to `--inline-depth` nested calls; a recursive
//! call counts as a loop iteration, so a procedure is active at most
//! `--unroll` + 1 times at once.
//!
//! Every thread carries a round counter (its context in the Lal–Reps
//! schedule, [`super::memory`]). A yield sets it to a fresh value between
//! the current round and K + 1; round K + 1 means the thread has stopped:
//! nothing it does afterwards is seen, no check of it counts. Memory, locks
//! and liveness are read and written through [`Memory`].
//!
//! # Soundness
//!
//! Only what is executed is explored: a thread that reaches a bound (an
//! unrolled loop's next iteration, a call deeper than the inlining bound,
//! a construct the lowering could not express) stops there, which is a
//! real (prefix) execution, so what is found is found, and what is not is
//! only "not found within the bounds", which the caller reports with every
//! bound that was reached. Init is the exception: it runs alone before the
//! pair, and stopping it early would start the pair from a state init never
//! leaves; the caller then starts from arbitrary memory instead.

use super::memory::{Cell, Memory, Who, Write};
use super::replay::{Choice, Site, ThreadStart, Trace};
use super::separation::Bump;
use super::round::Round;
use super::yields::YieldPolicy;
use crate::diagnostics::Span;
use crate::ir::{BlockId, Expr, LockId, LockMode, ProcId, Program, Scope, Sort, Terminator, VarId};
use crate::solver::{TermBank, TermId};
use crate::vcgen::cfg::analyse;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

/// The bounds of the search.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Rounds per thread (the context bound K).
    pub k: u32,
    /// Iterations of every loop, per entry into it.
    pub unroll: u32,
    /// Iterations of every loop the thread running the init entry point
    /// (`main`) runs, in it and in the functions it calls
    /// ([`super::Options::main_unroll`]).
    pub init_unroll: u32,
    /// Nested inlined calls.
    pub inline_depth: u32,
    /// Commands in the expansion of the whole pair; past it the pair is
    /// unknown.
    pub max_commands: usize,
    /// Bytes the pair's terms may take ([`TermBank::approximate_bytes`]);
    /// past it the pair is unknown. The encoding of memory reads grows with
    /// the writes before each read, so a long init can need gigabytes
    /// within the command budget; this keeps one pair's search within the
    /// `--pair-memory` budget instead of the whole worker running out.
    pub max_term_bytes: usize,
}

/// A budget of one pair's expansion ([`Bounds`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// `max_commands`.
    Commands,
    /// `max_term_bytes`.
    Memory,
}

/// A bound the expansion reached.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Hit {
    /// A loop's iterations, in a function, at the loop's first line.
    Unroll(String, Option<(String, u32)>),
    /// A call not inlined, to a function.
    Inline(String),
    /// A recursive call past the unrolling bound, to a function.
    Recursion(String),
    /// A construct the lowering skipped or cannot express.
    Unsupported(String, Option<(String, u32)>),
    /// Init reached a bound, so the pair started from arbitrary memory
    /// instead of from what init leaves: init and the bounds it reached.
    InitSkipped(String, Vec<String>),
    /// A call the models say nothing of (an unknown function, an
    /// unresolved function pointer) that the lockset phase takes to make
    /// every callback live; the search does not, so that no witness rests
    /// on it.
    AssumedLive(String, Option<(String, u32)>),
}

impl std::fmt::Display for Hit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = |a: &Option<(String, u32)>| match a {
            Some((file, line)) => format!(" at {}:{line}", short(file)),
            None => String::new(),
        };
        match self {
            Hit::Unroll(function, a) => write!(f, "unroll: a loop of {function}{}", at(a)),
            Hit::Inline(function) => write!(f, "inline depth: calls to {function}"),
            Hit::Recursion(function) => write!(f, "unroll: recursive calls to {function}"),
            Hit::Unsupported(what, a) => write!(f, "unsupported: {what}{}", at(a)),
            Hit::InitSkipped(init, reached) if reached.is_empty() => {
                write!(f, "init: {init} reached a bound, so the pair started from arbitrary memory")
            }
            Hit::InitSkipped(init, reached) => {
                write!(f, "init: {init} reached a bound ({}), so the pair started from arbitrary memory", reached.join("; "))
            }
            Hit::AssumedLive(function, a) => {
                write!(f, "liveness: {function}{} has no model, so the search did not take it to make callbacks live", at(a))
            }
        }
    }
}

fn short(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

/// What a witness step did.
#[derive(Clone, Debug)]
pub enum StepKind {
    /// A read of a region.
    Read { region: crate::ir::RegionId, address: TermId, value: TermId, atomic: bool },
    /// A write of a region.
    Write { region: crate::ir::RegionId, address: TermId, value: TermId, atomic: bool },
    /// A lock taken (when `ok` holds).
    Acquire { lock: LockId, ok: TermId },
    /// A lock released.
    Release { lock: LockId },
    /// A possible context switch: the round before and after.
    Switch { from: Round, to: Round },
    /// The device's callbacks became live.
    Live,
    /// Any other command with a source line.
    Line,
}

/// One executed command, for the witness.
#[derive(Clone, Debug)]
pub struct Step {
    /// The thread.
    pub who: Who,
    /// Whether it ran.
    pub guard: TermId,
    /// The thread's round when it ran.
    pub round: Round,
    /// Where in C.
    pub span: Option<Span>,
    /// The C function.
    pub function: String,
    /// What it did.
    pub kind: StepKind,
    /// Where in the expansion it ran, for the replay.
    pub site: Site,
}

/// A race check: fails when the access's value (or, with `--strict`, its
/// write stamp) changed across the yield behind it.
#[derive(Clone, Debug)]
pub struct RaceCheck {
    /// The region accessed.
    pub region: crate::ir::RegionId,
    /// The thread.
    pub who: Who,
    /// True exactly when the check fails.
    pub fail: TermId,
    /// The access's step.
    pub access: usize,
    /// Its address.
    pub address: TermId,
    /// The round of the access.
    pub before: Round,
    /// The round after the yield behind it.
    pub after: Round,
}

/// The state of a thread between commands.
#[derive(Clone)]
pub(super) struct State {
    pub(super) env: HashMap<VarId, TermId>,
    pub(super) round: Round,
}

/// Where the executor accumulates the sequentialised program.
pub struct Exec<'a> {
    pub(super) program: &'a Program,
    /// The terms.
    pub t: TermBank,
    /// The memory log.
    pub mem: Memory,
    /// Facts every execution satisfies.
    pub constraints: Vec<TermId>,
    /// The race checks.
    pub checks: Vec<RaceCheck>,
    /// The executed commands.
    pub steps: Vec<Step>,
    /// The bounds reached.
    pub hits: BTreeSet<Hit>,
    /// Yield points placed.
    pub yields: usize,
    /// The budget the expansion exceeded, if any: past it the pair is
    /// unknown.
    pub exceeded: Option<Budget>,
    /// Init's paths dropped at a bound ([`Exec::stop`]): each path's reach
    /// and the constraint that dropped it.
    pub(super) init_cuts: Vec<(TermId, TermId)>,
    /// Set when a thread ran an approximation that affects soundness.
    pub(super) approximated: bool,
    pub(super) policy: YieldPolicy,
    pub(super) checked: BTreeSet<crate::ir::RegionId>,
    pub(super) strict: bool,
    pub(super) bounds: Bounds,
    /// Each procedure's expansion, made once per unrolling bound (`None`:
    /// too large); keyed by the procedure and whether init's thread runs
    /// it (`init_unroll`).
    expansions: HashMap<(ProcId, bool), Option<Rc<Expansion>>>,
    fresh: usize,
    commands: usize,
    pub(super) stamps: i128,
    /// The procedures being executed, innermost last.
    pub(super) stack: Vec<ProcId>,
    /// Where new objects go ([`super::separation`]).
    pub(super) bump: Bump,
    /// Where the objects made before the pair's threads started end (set
    /// when the first thread starts): the threads' arguments lie below.
    pub(super) args_below: Option<i128>,
    /// The choices made, by site, for the witness replay.
    pub trace: Trace,
    /// The site being executed.
    pub(super) site: Site,
    /// The entry points (C names) of threads T1 and T2: a `live` command
    /// makes them live only if it names them, a `quiesce` waits for them.
    pub(super) pair_names: [String; 2],
    /// What each registration makes live ([`super::liveness`]).
    pub(super) live_closure: std::sync::Arc<super::liveness::LiveClosure>,
    /// Each thread's round and whether it finished, at its end.
    pub(super) ends: HashMap<Who, (Round, TermId)>,
    /// Each thread's round once its start yield is past (when it starts),
    /// for the threads that wait for their entry point to be live.
    pub(super) starts: HashMap<Who, Round>,
    /// The quiesce commands that name the other thread's entry point: who,
    /// its round after the yield before the wait, and whether it is active
    /// there.
    pub(super) waits: Vec<(Who, Round, TermId)>,
    /// Program-start mode ([`super::Options::program_start`]): init halts
    /// at a loop bound instead of dropping the path (`main` preempted
    /// forever there is an execution of the program; the pair runs from
    /// the memory it left), and a havocked value that is not an address
    /// is 0 or 1 ([`super::start::address_havocs`]).
    pub program_start: bool,
    /// In program-start mode, a havoc in [`Program::nondet_ranges`] takes
    /// any value of its range instead of 0 or 1
    /// ([`super::Options::nondet_values`]).
    pub nondet_values: bool,
    /// In program-start mode, the havocked variables used as addresses.
    pub(super) address_havocs: Option<std::rc::Rc<std::collections::HashSet<VarId>>>,
    /// The init entry point's procedure (`main`): the thread that runs it
    /// (init, or a thread of the pair when main is in the pair) unrolls its
    /// loops, and those of the functions it calls, to `init_unroll`.
    pub(super) init_entry: Option<ProcId>,
    /// The thread running `init_entry`.
    init_who: Option<Who>,
    /// Set while a thread runs its begin prefix ([`super::prefix`]): its
    /// accesses get no race check.
    pub(super) in_prefix: bool,
    /// Whether a thread of the pair runs a begin prefix: then writes
    /// outside it are stamped ([`super::commands`]).
    pub prefixed: bool,
    /// The next prologue stage of the init thread: init and the history
    /// callback after it both run as [`Who::Init`], one after the other,
    /// so their stages follow each other.
    init_stage: u32,
    /// The history's callbacks, run one after the other to completion
    /// after init and before the pair ([`super::history`]): a registration
    /// that makes the k-th live writes its liveness cell
    /// ([`history_live_address`]).
    pub(super) history_names: Vec<String>,
    /// The index in `steps` of each history callback's first step.
    pub history_from: Vec<usize>,
}

/// The address of a thread's cell in [`Cell::Live`]: each thread of the
/// pair waits for its own entry point to be made live.
pub(super) fn live_address(who: Who) -> i128 {
    match who {
        Who::Init => 0,
        Who::T1 => 1,
        Who::T2 => 2,
    }
}

/// The address in [`Cell::Live`] of the k-th callback of the history,
/// which runs as [`Who::Init`] after init.
pub(super) fn history_live_address(k: usize) -> i128 {
    3 + k as i128
}

fn successors(t: &Terminator) -> Vec<BlockId> {
    match t {
        Terminator::Goto(targets) => targets.clone(),
        Terminator::Return | Terminator::Unreachable => Vec::new(),
    }
}

/// A block instance: the block and the iteration count of every loop
/// execution is in.
pub(super) type Key = (BlockId, Vec<(BlockId, u32)>);

/// An edge of the expansion.
#[derive(Clone, Copy)]
pub(super) enum Edge {
    To(usize),
    /// A back edge past the unrolling bound, to this loop head.
    Truncated(BlockId),
}

/// How a thread starts, beyond its entry point: as the k-th callback of
/// the history ([`super::history`]), and on an object an earlier call of
/// the history already holds (the parameter and the object's term).
#[derive(Clone, Copy, Debug, Default)]
pub struct Start {
    /// Its index in the history.
    pub history: Option<usize>,
    /// A parameter given the history's object instead of a fresh value.
    pub object: Option<(usize, TermId)>,
}

impl<'a> Exec<'a> {
    /// An executor for one pair.
    pub fn new(
        program: &'a Program,
        mem: Memory,
        policy: YieldPolicy,
        checked: BTreeSet<crate::ir::RegionId>,
        strict: bool,
        bounds: Bounds,
    ) -> Exec<'a> {
        Exec {
            program,
            t: TermBank::new(),
            mem,
            constraints: Vec::new(),
            checks: Vec::new(),
            steps: Vec::new(),
            hits: BTreeSet::new(),
            yields: 0,
            exceeded: None,
            init_cuts: Vec::new(),
            approximated: false,
            policy,
            checked,
            strict,
            bounds,
            expansions: HashMap::new(),
            fresh: 0,
            commands: 0,
            stamps: 0,
            stack: Vec::new(),
            bump: Bump::default(),
            args_below: None,
            trace: Trace::default(),
            site: Site::Thread(Who::Init, 0),
            pair_names: [String::new(), String::new()],
            live_closure: Default::default(),
            init_entry: None,
            init_who: None,
            ends: HashMap::new(),
            starts: HashMap::new(),
            waits: Vec::new(),
            program_start: false,
            nondet_values: false,
            address_havocs: None,
            in_prefix: false,
            prefixed: false,
            init_stage: 0,
            history_names: Vec::new(),
            history_from: Vec::new(),
        }
    }

    /// Whether a havocked variable receives an address (program-start
    /// mode; computed once).
    pub(super) fn is_address_havoc(&mut self, v: VarId) -> bool {
        let program = self.program;
        self.address_havocs.get_or_insert_with(|| std::rc::Rc::new(super::start::address_havocs(program))).contains(&v)
    }

    /// Names the pair's entry points and what registrations make live,
    /// before any thread runs.
    pub fn set_pair(&mut self, first: &str, second: &str, closure: std::sync::Arc<super::liveness::LiveClosure>) {
        self.pair_names = [first.to_string(), second.to_string()];
        self.live_closure = closure;
    }

    /// Records a choice made at the current site.
    pub(super) fn record(&mut self, choice: Choice) {
        self.trace.choices.entry(self.site).or_default().push(choice);
    }

    /// Fixes the globals' and the functions' addresses apart
    /// ([`super::separation`]); once per pair, before the threads run.
    pub fn separate_globals(&mut self) {
        let facts = super::separation::globals(&mut self.t, self.program);
        self.constraints.extend(facts);
        let facts = super::separation::functions(&mut self.t, self.program);
        self.constraints.extend(facts);
    }

    /// Keeps apart the kernel objects the two threads receive where an
    /// object-lifetime rule says they are distinct (entry points `i` and
    /// `j` of the program, run as T1 and T2): the same constraint as the
    /// lockset phase's (src/analyses/objects.rs). Once both threads exist.
    /// The waits of `quiesce` commands (src/analyses/quiesce.rs): a thread
    /// active at a quiesce command that names the other thread's entry
    /// point is there only once the other thread has finished, in an
    /// earlier round (thread 1 waiting for thread 2, which runs after it
    /// in each round) or the same round (thread 2 waiting for thread 1).
    pub fn settle_waits(&mut self) {
        for (who, round, active) in std::mem::take(&mut self.waits) {
            let other = match who {
                Who::T1 => Who::T2,
                Who::T2 => Who::T1,
                Who::Init => continue,
            };
            let Some((end, finished)) = self.ends.get(&other).cloned() else { continue };
            // T1's round r runs before T2's round r, which runs before T1's
            // round r + 1.
            let before = if who == Who::T1 { end.lt(&mut self.t, &round) } else { end.le(&mut self.t, &round) };
            let mut ok = self.t.and(&[finished, before]);
            // A thread that waits for its entry point to be live may also
            // start after the call: the call cleared its liveness, so a
            // later registration must have made it live again.
            if let Some(start) = self.starts.get(&other).cloned() {
                let after = if who == Who::T1 { round.le(&mut self.t, &start) } else { round.lt(&mut self.t, &start) };
                ok = self.t.or(&[ok, after]);
            }
            let c = self.t.implies(active, ok);
            self.constraints.push(c);
        }
    }

    /// Memory before the run holds no address past every object the run
    /// makes: a value of the initial memory (a C value, below
    /// [`super::separation::HEAP`], or a pointer the kernel stored to an
    /// object init made, through a registration the lowering does not
    /// model) lies below the end of the allocations. (The replay checks
    /// further that such a pointer's object exists when it is read.)
    /// Drivers only: program-start memory has its own start values.
    pub fn initial_memory_below_objects(&mut self) {
        if self.program_start {
            return;
        }
        let end = self.t.int(self.bump.end());
        for v in self.mem.initial_values() {
            let below = self.t.lt(v, end);
            self.constraints.push(below);
        }
    }

    pub fn separate_objects(&mut self, i: usize, j: usize) {
        let args_of = |who: Who, trace: &super::replay::Trace| trace.threads.iter().find(|t| t.who == who).map(|t| t.args.clone());
        let (Some(a1), Some(a2)) = (args_of(Who::T1, &self.trace), args_of(Who::T2, &self.trace)) else { return };
        let gap = self.t.int(crate::analyses::objects::OBJECT_GAP);
        for d in crate::analyses::objects::distinct_params(self.program, i, j) {
            let (Some(&x), Some(&y)) = (a1.get(d.first), a2.get(d.second)) else { continue };
            let xg = self.t.add(&[x, gap]);
            let yg = self.t.add(&[y, gap]);
            let below = self.t.le(xg, y);
            let above = self.t.le(yg, x);
            let apart = self.t.or(&[below, above]);
            self.constraints.push(apart);
        }
    }

    pub(super) fn fresh(&mut self, base: &str, sort: Sort) -> TermId {
        self.fresh += 1;
        let s = match sort {
            Sort::Int => crate::solver::Sort::Int,
            Sort::Bool => crate::solver::Sort::Bool,
        };
        self.t.var(&format!("{base}!{}", self.fresh), s)
    }

    pub(super) fn dead(&mut self) -> Round {
        Round::dead(&self.t, self.bounds.k)
    }

    /// Runs one thread from `entry`: a yield at its start, the pseudo locks
    /// it runs holding taken, its callbacks required live (`require_live`),
    /// then its body, then the pseudo locks released.
    pub fn thread(&mut self, who: Who, entry: ProcId, held: &[LockId], require_live: bool) {
        self.thread_after(who, entry, held, require_live, None, Start::default());
    }

    /// [`Self::thread`], with the begin callback `prefix` (its procedure,
    /// its parameter receiving the object, and the entry point's parameter
    /// holding it) run first, to a return of 0 ([`super::prefix`]).
    pub fn thread_after(
        &mut self,
        who: Who,
        entry: ProcId,
        held: &[LockId],
        require_live: bool,
        prefix: Option<(ProcId, usize, usize)>,
        how: Start,
    ) {
        let round = Round::constant(&self.t, self.bounds.k, 1);
        let mut st = State { env: HashMap::new(), round };
        let mut reach = self.t.bool(true);
        let name = self.program.procedures[entry].name.clone();
        if self.init_entry == Some(entry) {
            self.init_who = Some(who);
        }
        let first = if who == Who::Init { self.init_stage } else { 0 };
        let mut stage = first;
        self.site = Site::Thread(who, stage);
        if who != Who::Init {
            self.switch(who, &mut st, reach, None, &name);
        }
        if require_live {
            self.starts.insert(who, st.round.clone());
            let address = self.t.int(how.history.map_or(live_address(who), history_live_address));
            let live = self.read(who, Cell::Live, address, &st, reach);
            let one = self.t.int(1);
            let is_live = self.t.eq(live, one);
            let active = self.active(who, reach, &st);
            let c = self.t.implies(active, is_live);
            self.constraints.push(c);
        }
        for &l in held {
            stage += 1;
            self.site = Site::Thread(who, stage);
            self.acquire(who, l, LockMode::Exclusive, None, &mut st, reach, None, &name);
        }
        let params = self.program.procedures[entry].params.clone();
        let mut args: Vec<TermId> = params.iter().map(|p| self.fresh(&format!("arg.{}", who_tag(who)), self.program.variables[*p].sort)).collect();
        if let Some((param, object)) = how.object {
            if let Some(a) = args.get_mut(param) {
                *a = object;
            }
        }
        // The kernel's arguments point to objects that existed before the
        // pair's threads: never into one they create, nor into a local's
        // frame (init's calls have returned; super::separation).
        let limit = match who {
            Who::Init => super::separation::HEAP,
            _ => *self.args_below.get_or_insert(self.bump.end()),
        };
        let heap = self.t.int(limit);
        for (p, &a) in params.iter().zip(&args) {
            if self.program.variables[*p].sort == Sort::Int {
                let below = self.t.lt(a, heap);
                self.constraints.push(below);
            }
        }
        let mut before = None;
        if let Some((open, param, own)) = prefix {
            stage += 1;
            self.site = Site::Thread(who, stage);
            let params = self.program.procedures[open].params.clone();
            let mut pargs = Vec::new();
            for (k, p) in params.iter().enumerate() {
                let sort = self.program.variables[*p].sort;
                let a = match args.get(own) {
                    Some(&object) if k == param => object,
                    _ => {
                        let a = self.fresh(&format!("arg.{}", who_tag(who)), sort);
                        if sort == Sort::Int {
                            let below = self.t.lt(a, heap);
                            self.constraints.push(below);
                        }
                        a
                    }
                };
                pargs.push(a);
            }
            before = Some((open, pargs.clone()));
            self.in_prefix = true;
            let (after, r, results) = self.procedure(who, open, pargs, st, reach, 0);
            self.in_prefix = false;
            st = after;
            reach = r;
            // The callback runs only on an object whose begin callback
            // returned 0.
            if let Some(&ret) = results.first() {
                let zero = self.t.int(0);
                let ok = self.t.eq(ret, zero);
                let active = self.active(who, reach, &st);
                let c = self.t.implies(active, ok);
                self.constraints.push(c);
            }
        }
        stage += 1;
        self.site = Site::Thread(who, stage);
        let body = stage;
        self.trace.threads.push(ThreadStart { who, entry, args: args.clone(), held: held.to_vec(), require_live, body, prefix: before, first });
        let (after, r, _) = self.procedure(who, entry, args, st, reach, 0);
        st = after;
        reach = r;
        let finished = self.active(who, reach, &st);
        self.ends.insert(who, (st.round.clone(), finished));
        for &l in held {
            stage += 1;
            self.site = Site::Thread(who, stage);
            self.release(who, l, LockMode::Exclusive, None, &mut st, reach, &name);
        }
        if who == Who::Init {
            self.init_stage = stage + 1;
        }
    }

    /// The expansion of a procedure for `who`, made once per procedure and
    /// bound; every use counts its commands against the budget.
    fn expansion(&mut self, who: Who, p: ProcId) -> Option<Rc<Expansion>> {
        let wide = self.init_who == Some(who) && self.bounds.init_unroll > self.bounds.unroll;
        let made = match self.expansions.get(&(p, wide)) {
            Some(e) => e.clone(),
            None => {
                let e = self.expand_bounded(p, wide).map(Rc::new);
                self.expansions.insert((p, wide), e.clone());
                e
            }
        };
        self.commands += made.as_ref().map_or(self.bounds.max_commands + 1, |e| e.commands);
        if self.commands > self.bounds.max_commands {
            self.exceeded.get_or_insert(Budget::Commands);
            return None;
        }
        made
    }
}

impl Exec<'_> {
    /// Expands `p` to the bounds; in init's thread (`wide`) to
    /// `init_unroll` when that expansion takes at most a quarter of the
    /// command budget (else to `unroll`: nested loops multiply).
    fn expand_bounded(&self, p: ProcId, wide: bool) -> Option<Expansion> {
        if wide {
            let wide = Bounds { unroll: self.bounds.init_unroll, max_commands: self.bounds.max_commands / 4, ..self.bounds };
            if let Some(e) = expand(self.program, p, wide) {
                return Some(e);
            }
        }
        expand(self.program, p, self.bounds)
    }
}

/// A procedure expanded: its instances in topological order, each with its
/// outgoing edges (parallel to the terminator's targets).
pub(super) struct Expansion {
    pub(super) keys: Vec<Key>,
    pub(super) edges: Vec<Vec<Edge>>,
    order: Vec<usize>,
    /// Commands (and terminators) over all instances.
    commands: usize,
    /// The loads whose value nobody uses ([`crate::analyses::liveness`]).
    dead: HashSet<(BlockId, usize)>,
}

/// Expands a procedure; `None` when it alone exceeds the command budget
/// (or, which counted back edges rule out, cannot be ordered).
fn expand(program: &Program, p: ProcId, bounds: Bounds) -> Option<Expansion> {
    let cfg = analyse(&program.procedures[p], &|_| Vec::new());
    let proc = &program.procedures[p];
    let mut keys: Vec<Key> = vec![(proc.entry, Vec::new())];
    let mut index: HashMap<Key, usize> = HashMap::from([((proc.entry, Vec::new()), 0)]);
    let mut edges: Vec<Vec<Edge>> = Vec::new();
    let mut commands = 0;
    let mut i = 0;
    while i < keys.len() {
        let (b, counts) = keys[i].clone();
        commands += proc.blocks[b].commands.len() + 1;
        if commands > bounds.max_commands {
            return None;
        }
        let mut out = Vec::new();
        for s in successors(&proc.blocks[b].terminator) {
            let mut next = counts.clone();
            let count = next.iter().find(|(h, _)| *h == s).map(|(_, c)| *c);
            if cfg.back_edges.contains(&(b, s)) {
                let c = count.unwrap_or(0) + 1;
                if c > bounds.unroll {
                    out.push(Edge::Truncated(s));
                    continue;
                }
                next.retain(|(h, _)| *h != s);
                next.push((s, c));
            } else if cfg.loop_blocks.contains_key(&s) {
                next.retain(|(h, _)| *h != s);
                next.push((s, 0));
            }
            next.retain(|(h, _)| cfg.loop_blocks.get(h).is_some_and(|blocks| blocks.contains(&s)));
            next.sort();
            let key = (s, next);
            let id = match index.get(&key) {
                Some(&id) => id,
                None => {
                    keys.push(key.clone());
                    index.insert(key, keys.len() - 1);
                    keys.len() - 1
                }
            };
            out.push(Edge::To(id));
        }
        edges.push(out);
        i += 1;
    }
    // Kahn's algorithm; a cycle left over cannot happen with counted
    // back edges, but is refused rather than looped on.
    let mut indegree = vec![0usize; keys.len()];
    for out in &edges {
        for e in out {
            if let Edge::To(n) = e {
                indegree[*n] += 1;
            }
        }
    }
    let mut ready: Vec<usize> = (0..keys.len()).filter(|n| indegree[*n] == 0).collect();
    let mut order = Vec::with_capacity(keys.len());
    while let Some(n) = ready.pop() {
        order.push(n);
        for e in &edges[n] {
            if let Edge::To(m) = e {
                indegree[*m] -= 1;
                if indegree[*m] == 0 {
                    ready.push(*m);
                }
            }
        }
    }
    if order.len() != keys.len() {
        return None;
    }
    let dead = crate::analyses::liveness::dead_loads(program, proc);
    Some(Expansion { keys, edges, order, commands, dead })
}

impl<'a> Exec<'a> {

    /// Executes procedure `p` from `st` (whose environment is the caller's)
    /// under `reach`; returns the caller's state after the call, whether
    /// the call returns, and the results.
    pub(super) fn procedure(&mut self, who: Who, p: ProcId, args: Vec<TermId>, st: State, reach: TermId, depth: u32) -> (State, TermId, Vec<TermId>) {
        let proc = &self.program.procedures[p];
        let returns = proc.returns.clone();
        let fresh_results = |this: &mut Self| -> Vec<TermId> {
            returns.iter().map(|r| this.fresh("result", this.program.variables[*r].sort)).collect()
        };
        if !proc.body {
            let results = fresh_results(self);
            self.record(Choice::Results(results.clone()));
            return (st, reach, results);
        }
        let Some(expansion) = self.expansion(who, p) else {
            let results = fresh_results(self);
            self.record(Choice::Results(results.clone()));
            return (st, reach, results);
        };
        let inv = self.trace.invocations.len() as u32;
        self.trace.invocations.push((p, expansion.clone()));
        self.record(Choice::Call(inv));
        let caller_site = self.site;
        let mut frame = State { env: HashMap::new(), round: st.round.clone() };
        for (v, value) in &st.env {
            if self.program.variables[*v].scope == Scope::Global {
                frame.env.insert(*v, *value);
            }
        }
        for (param, arg) in proc.params.iter().zip(args) {
            frame.env.insert(*param, arg);
        }
        self.stack.push(p);
        let Expansion { keys, edges, order, dead, .. } = &*expansion;
        let mut incoming: Vec<Vec<(TermId, State)>> = vec![Vec::new(); keys.len()];
        incoming[0].push((reach, frame));
        let mut exits: Vec<(TermId, State)> = Vec::new();
        let name = crate::ir::Procedure::source_name(&proc.name).to_string();
        for &n in order {
            if self.over_budget() {
                // The pair is unknown: nothing after this is used.
                break;
            }
            let arriving = std::mem::take(&mut incoming[n]);
            if arriving.is_empty() {
                continue;
            }
            let (mut here, mut state) = self.merge(arriving);
            let block = &self.program.procedures[p].blocks[keys[n].0];
            for (i, c) in block.commands.iter().enumerate() {
                self.site = Site::At { inv, instance: n as u32, command: i as u32 };
                if dead.contains(&(keys[n].0, i)) && self.invisible(c) {
                    self.record(Choice::Skipped);
                    continue;
                }
                let next = block.commands.get(i + 1);
                here = self.command(who, c, next, &mut state, here, depth, &name);
            }
            match &block.terminator {
                Terminator::Goto(targets) => {
                    let m = targets.len();
                    let selector = if m > 1 {
                        let sel = self.fresh("goto", Sort::Int);
                        let zero = self.t.int(0);
                        let top = self.t.int(m as i128);
                        let lo = self.t.le(zero, sel);
                        let hi = self.t.lt(sel, top);
                        let c = self.t.and(&[lo, hi]);
                        self.constraints.push(c);
                        self.trace.gotos.insert((inv, n as u32), sel);
                        Some(sel)
                    } else {
                        None
                    };
                    for (j, &e) in edges[n].iter().enumerate() {
                        let taken = match selector {
                            Some(sel) => {
                                let jt = self.t.int(j as i128);
                                let is_j = self.t.eq(sel, jt);
                                self.t.and(&[here, is_j])
                            }
                            None => here,
                        };
                        match e {
                            Edge::To(m) => incoming[m].push((taken, state.clone())),
                            Edge::Truncated(head) => {
                                let at = loop_line(&self.program.procedures[p], head);
                                self.hits.insert(Hit::Unroll(name.clone(), at));
                                if who == Who::Init && self.program_start {
                                    // Init halts: nothing of it runs past
                                    // here, and the path stays possible.
                                    continue;
                                }
                                let mut stopped = state.clone();
                                self.stop(who, &mut stopped, taken);
                                exits.push((taken, stopped));
                            }
                        }
                    }
                }
                Terminator::Return => exits.push((here, state)),
                Terminator::Unreachable => {
                    let c = self.t.not(here);
                    self.constraints.push(c);
                }
            }
        }
        self.stack.pop();
        self.site = caller_site;
        let (out_reach, out) = if exits.is_empty() { (self.t.bool(false), st.clone()) } else { self.merge(exits) };
        let results: Vec<TermId> = returns.iter().map(|r| self.value(&out, *r)).collect();
        let mut after = st;
        for (v, value) in &out.env {
            if self.program.variables[*v].scope == Scope::Global {
                after.env.insert(*v, *value);
            }
        }
        after.round = out.round;
        (after, out_reach, results)
    }

    /// Whether the expansion is past its budget of commands or of term
    /// bytes (which it then records).
    pub(super) fn over_budget(&mut self) -> bool {
        if self.exceeded.is_none() && self.t.approximate_bytes() > self.bounds.max_term_bytes {
            self.exceeded = Some(Budget::Memory);
        }
        self.exceeded.is_some()
    }

    /// Whether a dead load can be left out: a plain read of a region no
    /// check watches changes nothing another command sees, and the yield
    /// behind it is a switch after a no-op, which the yield before it
    /// already offers (a no-op moves both ways, Lipton).
    fn invisible(&self, c: &crate::ir::Command) -> bool {
        matches!(c, crate::ir::Command::Load { region, access: crate::ir::AccessKind::Plain, .. } if !self.checked.contains(region))
    }

    /// Stops a thread: round K + 1 for the pair's threads; init's path is
    /// dropped instead (the caller starts the pair without init when init
    /// reaches a bound).
    pub(super) fn stop(&mut self, who: Who, st: &mut State, reach: TermId) {
        if who == Who::Init {
            let c = self.t.not(reach);
            self.constraints.push(c);
            self.init_cuts.push((reach, c));
        } else {
            st.round = self.dead();
        }
    }

    pub(super) fn value(&mut self, st: &State, v: VarId) -> TermId {
        match st.env.get(&v) {
            Some(t) => *t,
            None => self.fresh("undef", self.program.variables[v].sort),
        }
    }

    /// Merges the states of the incoming edges (whose reach terms exclude
    /// each other).
    fn merge(&mut self, mut incoming: Vec<(TermId, State)>) -> (TermId, State) {
        if incoming.len() == 1 {
            return incoming.pop().unwrap_or_else(|| unreachable!());
        }
        let reaches: Vec<TermId> = incoming.iter().map(|(r, _)| *r).collect();
        let reach = self.t.or(&reaches);
        let mut vars: BTreeSet<VarId> = BTreeSet::new();
        for (_, s) in &incoming {
            vars.extend(s.env.keys().copied());
        }
        let pick = |this: &mut Self, values: Vec<TermId>| -> TermId {
            let mut value = *values.last().unwrap_or_else(|| unreachable!());
            for i in (0..values.len() - 1).rev() {
                value = this.t.ite(reaches[i], values[i], value);
            }
            value
        };
        let mut round = incoming[incoming.len() - 1].1.round.clone();
        for i in (0..incoming.len() - 1).rev() {
            round = Round::ite(&mut self.t, reaches[i], &incoming[i].1.round, &round);
        }
        let mut env = HashMap::with_capacity(vars.len());
        for v in vars {
            let known: Vec<Option<TermId>> = incoming.iter().map(|(_, s)| s.env.get(&v).copied()).collect();
            let sort = self.program.variables[v].sort;
            let values: Vec<TermId> = known.into_iter().map(|x| x.unwrap_or_else(|| self.fresh("undef", sort))).collect();
            let first = values[0];
            let value = if values.iter().all(|x| *x == first) { first } else { pick(self, values) };
            env.insert(v, value);
        }
        (reach, State { env, round })
    }

    pub(super) fn expr(&mut self, st: &mut State, e: &Expr) -> TermId {
        for v in e.variables() {
            if !st.env.contains_key(&v) {
                let f = self.fresh("undef", self.program.variables[v].sort);
                st.env.insert(v, f);
            }
        }
        let env = &st.env;
        // An uninterpreted function's value (a drvdata getter, a function
        // of the device) is no value a thread computed: an address below
        // 2^64, or into an allocation made so far, never past every object
        // (super::separation; the replay rejects the rest).
        let program = self.program;
        let mut applied = Vec::new();
        e.walk(&mut |sub| {
            if let Expr::Apply(_, args) = sub {
                if !args.is_empty() && matches!(sub.sort_of(program), Ok(Sort::Int)) {
                    applied.push(sub.clone());
                }
            }
        });
        if !applied.is_empty() {
            // In the pair's threads: the allocations init made (what the
            // kernel held before them), as for their arguments.
            let end = self.t.int(self.args_below.unwrap_or(self.bump.end()));
            let heap = self.t.int(super::separation::HEAP);
            for sub in &applied {
                let value = crate::verify::solving::translate_with(&mut self.t, program, &mut |v| env[&v], sub);
                let below = self.t.lt(value, end);
                // A pointer cast to a 64-bit integer keeps the pointer: an
                // object's address (HEAP and above) stands for the kernel
                // pointer, which `unsigned long` holds unchanged.
                if let Expr::Apply(f, args) = sub {
                    if let (true, [a]) = (super::replay::pointer_cast(program, *f), args.as_slice()) {
                        let a = crate::verify::solving::translate_with(&mut self.t, program, &mut |v| env[&v], a);
                        let pointer = self.t.le(heap, a);
                        let same = self.t.eq(value, a);
                        let kept = self.t.implies(pointer, same);
                        let rest = self.t.or(&[pointer, below]);
                        self.constraints.push(kept);
                        self.constraints.push(rest);
                        continue;
                    }
                }
                self.constraints.push(below);
            }
        }
        crate::verify::solving::translate_with(&mut self.t, self.program, &mut |v| env[&v], e)
    }

    /// Whether a thread's action counts: it runs, and has not stopped.
    pub(super) fn active(&mut self, who: Who, reach: TermId, st: &State) -> TermId {
        if who == Who::Init {
            return reach;
        }
        let live = st.round.live(&mut self.t);
        self.t.and(&[reach, live])
    }

    /// A read by `who` under the path condition `reach`.
    pub(super) fn read(&mut self, who: Who, cell: Cell, address: TermId, st: &State, reach: TermId) -> TermId {
        let round = if who == Who::Init { None } else { Some(&st.round) };
        let before = self.mem.initial_count();
        let value = self.mem.read(&mut self.t, who, cell, address, round, reach);
        if who == Who::Init && !self.program_start {
            // Init alone reads, on its path, no address of an object it
            // allocates later: below the allocations made so far.
            let end = self.t.int(self.bump.end());
            for v in self.mem.initial_values_since(before) {
                let below = self.t.lt(v, end);
                let c = self.t.implies(reach, below);
                self.constraints.push(c);
            }
        }
        value
    }

    pub(super) fn write(&mut self, who: Who, cell: Cell, address: TermId, value: TermId, st: &State, reach: TermId) {
        let round = if who == Who::Init || self.mem.is_private(cell) { None } else { Some(st.round.clone()) };
        self.mem.write(Write { who, cell, round, guard: reach, address, value });
    }

    pub(super) fn step(&mut self, who: Who, reach: TermId, st: &State, span: Option<&Span>, function: &str, kind: StepKind) -> usize {
        self.steps.push(Step { who, guard: reach, round: st.round.clone(), span: span.cloned(), function: function.to_string(), kind, site: self.site });
        self.steps.len() - 1
    }

    /// A yield: the round may advance, up to K + 1 (stopped).
    pub(super) fn switch(&mut self, who: Who, st: &mut State, reach: TermId, span: Option<&Span>, function: &str) {
        if who == Who::Init {
            return;
        }
        self.fresh += 1;
        let (n, tag) = (self.fresh, who_tag(who));
        let (to, c) = st.round.later(&mut self.t, |j| format!("round.{tag}!{n}.{}", j + 2));
        self.constraints.push(c);
        self.yields += 1;
        let from = std::mem::replace(&mut st.round, to.clone());
        self.record(Choice::Switch(to.clone()));
        self.step(who, reach, st, span, function, StepKind::Switch { from, to });
    }
}

pub(super) fn who_tag(who: Who) -> &'static str {
    match who {
        Who::Init => "init",
        Who::T1 => "t1",
        Who::T2 => "t2",
    }
}

/// Where the loop with head `head` is, for the bound reached: the first
/// command with a span in a breadth-first walk from the head (a head that
/// only branches has none; the loop's condition or body then gives the
/// line).
fn loop_line(procedure: &crate::ir::Procedure, head: BlockId) -> Option<(String, u32)> {
    let mut seen = HashSet::from([head]);
    let mut queue = std::collections::VecDeque::from([head]);
    while let Some(b) = queue.pop_front() {
        let block = &procedure.blocks[b];
        if let Some(at) = block.commands.iter().find_map(|c| c.span().map(line_of)) {
            return Some(at);
        }
        if let Terminator::Goto(targets) = &block.terminator {
            queue.extend(targets.iter().copied().filter(|t| seen.insert(*t)));
        }
    }
    None
}

pub(super) fn line_of(s: &Span) -> (String, u32) {
    (s.file.display().to_string(), s.line)
}
