//! The witness replay: a confirmed race is re-run concretely on the IR,
//! following the witness's schedule, and rejected unless the run
//! reproduces the two conflicting accesses.
//!
//! # Algorithm
//!
//! While the pair is expanded, every choice the formula leaves open is
//! recorded with the site it is made at (a [`Trace`]): which invocation of
//! which procedure a call site inlines, the selector of every branching
//! `goto`, the values of `havoc`s and of calls not inlined, trylock
//! outcomes, and the round every yield moves its thread to. A site is
//! `(invocation, block instance, command)`: the expansion is acyclic and
//! each invocation runs once, so a site runs at most once per execution.
//!
//! The replay is an interpreter over the lowered program, independent of
//! the sequentialisation: one concrete memory (a map per region and
//! address; a map per thread for thread-private regions), real locks, and
//! the threads run as the schedule says, init first, then round 1 of
//! thread 1, round 1 of thread 2, round 2 of thread 1, and so on. Each
//! thread is a stack of frames walking the expansion's block instances;
//! at a branch it takes the edge the model's selector names; every value
//! the formula left open comes from the model (the recorded terms'
//! values, initial memory as the model's uninterpreted `m0` maps at the
//! concrete address, uninterpreted functions applied to concrete
//! arguments); every other value is computed. At a yield the thread
//! moves to the model's round and is suspended until that round comes.
//! The run is rejected, with the reason, when it leaves what the kernel
//! can do:
//!
//! - an `assume` (a branch condition, a model's fact, the function a
//!   call through a pointer takes) is false, or the path reaches an
//!   `unreachable` block; the functions' addresses are the separation's
//!   (distinct, non-null: [`super::separation::function_layout`]), so a
//!   call takes only the function its pointer holds;
//! - a thread takes a lock another holds, or starts before init made the
//!   callbacks live;
//! - a new object (an allocator's result, a local's frame) overlaps an
//!   object or global that already exists, or an allocator that cannot
//!   fail returns NULL;
//! - a value no thread computed (initial memory, a result of a call not
//!   inlined) points into an object a thread of the pair created in this
//!   run and has not yet published by a registration (a `live` command
//!   after the object's creation: the kernel hands registered objects to
//!   callbacks through paths the lowering does not model, such as
//!   misc_open's `file->private_data`): nothing else could have held that
//!   address; nor, once published, an address into an object one of the
//!   two threads created that no thread formed (the object's base, or a
//!   value an expression of the driver computed): the kernel reaches a
//!   driver's object only through the pointers the driver gave it, so
//!   `base + 1` read from initial memory, where only `base` was stored,
//!   is no pointer it holds; nor an address into a local's frame whose
//!   call has returned; nor an address into an object init created that
//!   no call handed to the kernel (a `keep` command: a registration, a
//!   call without body, a model that keeps the argument): the kernel
//!   stores only the pointers it is given, and the driver's own stores are
//!   in the run, so another device's private data that points at this
//!   probe's buffer is no state the kernel can make;
//! - an address at an unknown offset from another (a `havoc` the lowering
//!   uses for a model's ranged access or an array's elements,
//!   [`crate::ir::Program::inside`]) reaches past the end of the object
//!   its base points into;
//! - a value no thread computed is an address above every C pointer value
//!   (where only objects lie) of an object the run allocates only later:
//!   nothing can hold the address of an object before it is allocated;
//! - an ordering comparison of an object's address with a bound in the
//!   last page of the address space (IS_ERR's `(unsigned long)-MAX_ERRNO`,
//!   computed with C's wrap-around) answers as if the object lay in that
//!   page, where only error pointers are (include/linux/err.h).
//!
//! The race is reproduced when the checked access runs at the witness's
//! site, its thread is suspended by the yield behind it and resumes in
//! a later round, and in between the other thread of the pair wrote the
//! same region at the same address, leaving a value other than the one
//! the checked access read or wrote (with `--strict`, any write). That
//! write must be to the same bytes of the same object: not to another
//! offset inside another object of the same record type (the two would
//! overlap partially, [`same_object`]), and, in a region of pointees,
//! not through a pointer read from the initial value of another pointer
//! field than the one the checked access's pointer came from
//! ([`one_buffer`]).
//!
//! # Soundness
//!
//! The replay only rejects: a rejected witness becomes `unknown` with the
//! reason, never `not-found`, so no race is hidden. It accepts a witness
//! only when a concrete interleaving of the lowered program with real
//! memory, locks and separated objects performs the two conflicting
//! accesses, which is what a confirmed race claims; it inherits the
//! lowering's approximations (docs/soundness.md), as the search does.

use super::exec::{Edge, Expansion};
use super::memory::Who;
use super::round::Round;
use super::separation::{STRIDE, global_layout, in_heap};
use crate::ir::{AccessKind, Address, Command, LockId, LockMode, ProcId, Program, RegionId, Scope, Sort, Terminator, VarId};
use crate::solver::{Model, TermBank, TermId};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use super::replay_objects::{Origins, POINTER_LIKE, Typed, one_buffer, same_object};

mod concrete;
pub(crate) use concrete::pointer_cast;

/// Where a choice is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Site {
    /// A thread's prologue and epilogue (its start, each pseudo lock taken
    /// and released, its body's call), by stage.
    Thread(Who, u32),
    /// A command of a block instance of an invocation.
    At {
        /// The invocation.
        inv: u32,
        /// The block instance in the invocation's expansion.
        instance: u32,
        /// The command in the block.
        command: u32,
    },
}

/// A choice the formula leaves open.
#[derive(Clone, Debug)]
pub enum Choice {
    /// A yield to this round.
    Switch(Round),
    /// The values of a havoc (or a trylock's success).
    Values(Vec<TermId>),
    /// A call inlined as this invocation.
    Call(u32),
    /// A call not inlined, with these results.
    Results(Vec<TermId>),
    /// The thread stopped at a bound.
    Stop,
    /// A load left out (its value is dead and no check watches its
    /// region): the replay leaves it out too.
    Skipped,
}

/// How a thread starts.
#[derive(Clone, Debug)]
pub struct ThreadStart {
    /// The thread.
    pub who: Who,
    /// Its entry procedure.
    pub entry: ProcId,
    /// The arguments' terms.
    pub args: Vec<TermId>,
    /// The pseudo locks it runs holding.
    pub held: Vec<LockId>,
    /// Whether it waits for the callbacks to be live.
    pub require_live: bool,
    /// The prologue stage of its body's call.
    pub body: u32,
    /// The begin callback run before the body, at the stage before it,
    /// and its arguments' terms ([`super::prefix`]).
    pub prefix: Option<(ProcId, Vec<TermId>)>,
    /// Its first prologue stage: 0, except for a second thread of init
    /// (the history callback, [`super::history`]), whose stages follow
    /// init's.
    pub first: u32,
}

/// The choices of one expansion.
#[derive(Default)]
pub struct Trace {
    /// Every invocation: its procedure and expansion.
    pub(super) invocations: Vec<(ProcId, Rc<Expansion>)>,
    /// The choices by site, in the order made.
    pub choices: HashMap<Site, Vec<Choice>>,
    /// The selector of each branching block instance.
    pub gotos: HashMap<(u32, u32), TermId>,
    /// The threads, in the order they ran.
    pub threads: Vec<ThreadStart>,
}

/// The race a witness claims.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The thread of the checked access.
    pub who: Who,
    /// The checked access's site.
    pub site: Site,
    /// Its region.
    pub region: RegionId,
    /// Whether `--strict` (any write counts).
    pub strict: bool,
    /// Whether memory started as the C program's ([`super::start`]): then
    /// an initial value is the global's start value, and a witness that
    /// reads any other initial value of shared memory, or a value the
    /// lowering leaves uninterpreted, is rejected.
    pub program_start: bool,
}

/// A kernel module's memory when it is loaded, for the module-start check:
/// a witness that reads, as the initial value of a global, anything but
/// the global's load-time value is rejected, with the value pinned for
/// the search's next attempt ([`Pin`]). Regions that an init-role entry
/// point other than the one the run executes may write (module init
/// before a probe) are left out: those globals may hold anything that
/// code leaves.
#[derive(Clone, Debug, Default)]
pub struct ModuleStart {
    /// The recorded globals' load-time values ([`super::start::StartValues::of_module`]).
    pub values: super::start::StartValues,
    /// Regions written before the run's init by code the run does not execute.
    pub written_before: std::collections::BTreeSet<RegionId>,
}

/// A rejected witness's initial value of a global that is not the
/// global's load-time value: the term of that initial value in the
/// formula, the load-time value the search must give it, and the region
/// of that global (the history search's candidates write it,
/// [`super::history`]).
pub type Pin = (TermId, i128, RegionId);

/// What a rejected witness needed that no run from loading the module
/// gives, for the history search ([`super::history`]).
#[derive(Clone, Debug)]
pub enum Need {
    /// A global's initial value other than its load-time one ([`Pin`]).
    Start(Pin),
    /// A callback started without a registration of the run naming it:
    /// only a callback that ran earlier and armed it (a `mod_timer` in an
    /// `ioctl`) makes it live.
    Live(String),
}

/// Why a witness was rejected, for the search's refinement: the bases of
/// the objects of the run that a value no thread computed pointed into (or
/// may not point into)
/// although it could not have held its address, and that value's term in
/// the formula (when the value has one).
#[derive(Clone, Debug, Default)]
pub struct Blame {
    /// The objects' bases.
    pub bases: Vec<i128>,
    /// The value's term.
    pub term: Option<TermId>,
    /// The addresses in those objects the value may still take (the ones
    /// a thread formed), for a value that pointed into one at an address
    /// no thread formed.
    pub allowed: Vec<i128>,
}

/// What the replay found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The race happens.
    Reproduced,
    /// Why the witness is no execution of the kernel's.
    Rejected(String),
}

/// Where the model's values come from.
pub struct Oracle<'a> {
    /// The solver's bank (new terms are added for concrete applications).
    pub terms: &'a mut TermBank,
    /// The model.
    pub model: &'a Model,
}

impl Oracle<'_> {
    fn int(&mut self, t: TermId) -> Option<i128> {
        self.terms.as_int(t).or_else(|| self.model.eval_int(self.terms, t))
    }

    fn bool(&mut self, t: TermId) -> Option<bool> {
        self.terms.as_bool(t).or_else(|| self.model.eval_bool(self.terms, t))
    }

    /// A value of sort `sort` as an integer (booleans as 0 and 1).
    fn value(&mut self, t: TermId, sort: Sort) -> Option<i128> {
        match sort {
            Sort::Int => self.int(t),
            Sort::Bool => self.bool(t).map(i128::from),
        }
    }

    fn round(&mut self, r: &Round) -> Option<u32> {
        let mut n = 1;
        for &b in r.bits() {
            if self.bool(b)? {
                n += 1;
            }
        }
        Some(n)
    }

    /// The uninterpreted map `name` at `address`.
    fn map(&mut self, name: &str, address: i128) -> Option<i128> {
        let t = self.map_term(name, address);
        self.int(t)
    }

    /// The term of the uninterpreted map `name` at `address`.
    fn map_term(&mut self, name: &str, address: i128) -> TermId {
        let d = self.terms.declare(name, &[crate::solver::Sort::Int], crate::solver::Sort::Int);
        let a = self.terms.int(address);
        self.terms.apply(d, &[a])
    }
}

/// Why the replay stops early.
enum Stop {
    /// The witness is rejected.
    Reject(String),
    /// The claim was decided.
    Done(Outcome),
}

type Run<T> = Result<T, Stop>;

fn reject<T>(why: impl Into<String>) -> Run<T> {
    Err(Stop::Reject(why.into()))
}

/// An object created in the run.
struct Object {
    base: i128,
    /// Its creator.
    who: Who,
    /// Whether a registration of the creator's has published it since.
    published: bool,
    /// Whether a call has handed the kernel a pointer into it (a `keep`
    /// command): only then can memory the run did not write, or a value
    /// the kernel gives, point into an object init created.
    handed: bool,
    /// For a local's frame, the depth of its call in the creator's stack;
    /// the object dies when that call returns.
    frame: Option<usize>,
    /// False once the call of a local's frame has returned.
    alive: bool,
}

struct Frame {
    inv: u32,
    instance: usize,
    command: usize,
    env: HashMap<VarId, i128>,
    /// The caller's variables receiving the results.
    results: Vec<VarId>,
    /// Whether the yield before the current command (a lock's) was made.
    yielded: bool,
    /// Choices consumed at the current site.
    used: usize,
}

struct Thread {
    who: Who,
    start: usize,
    /// Prologue stage; past the body's, the epilogue.
    stage: u32,
    frames: Vec<Frame>,
    globals: HashMap<VarId, i128>,
    round: u32,
    done: bool,
    /// Choices consumed at the current prologue or epilogue stage.
    used: usize,
    /// Whether the current stage's yield was made.
    yielded: bool,
}

/// The checked access, once it ran: the value and the number of writes
/// logged before it.
struct Pending {
    address: i128,
    value: i128,
    writes: usize,
    /// Where in an object of which record type the access was
    /// ([`Interp::typed`]).
    typed: Typed,
    /// The fields whose initial values its address came from
    /// ([`Interp::origins`]).
    origins: Origins,
}

struct Interp<'p, 'o, 'a, 'c> {
    program: &'p Program,
    trace: &'p Trace,
    oracle: &'o mut Oracle<'a>,
    k: u32,
    live_at_start: bool,
    claim: Claim,
    memory: HashMap<(RegionId, i128), i128>,
    private: HashMap<(Who, RegionId, i128), i128>,
    private_regions: std::collections::BTreeSet<RegionId>,
    locks: HashMap<LockId, i128>,
    /// The threads whose entry point a registration has made live.
    live: std::collections::BTreeSet<Who>,
    /// The history's threads (init's second and later threads,
    /// [`super::history`]) made live, by their index in the trace.
    live_history: std::collections::BTreeSet<usize>,
    /// What each registration makes live.
    closure: &'c super::liveness::LiveClosure,
    /// Objects created in this run.
    objects: Vec<Object>,
    /// The addresses inside objects created in this run that a thread
    /// (init included) formed: each object's base, and every value an
    /// expression of the driver computed. The kernel holds a pointer into
    /// a driver's object only if the driver gave it one.
    formed: std::collections::HashSet<i128>,
    /// Every write to shared memory: thread, region, address.
    writes: Vec<(Who, RegionId, i128, Typed, Origins)>,
    /// The threads running their begin prefix: their writes are not the
    /// other thread's conflicting write.
    in_prefix: HashSet<Who>,
    /// Per thread, the values it read from initial shared memory (values
    /// nothing in the run wrote) that may be pointers, with the regions
    /// they were read from.
    initial_pointers: HashMap<(Who, i128), Origins>,
    /// The shared cells read from initial memory that nothing has written
    /// since.
    unwritten: std::collections::HashSet<(RegionId, i128)>,
    /// The values no thread computed, above every C pointer value, that
    /// pointed into no object when they were taken, with what they were:
    /// an object allocated there later makes the run impossible.
    unallocated: Vec<(i128, String, Option<TermId>)>,
    pending: Option<Pending>,
    globals: Vec<(i128, i128)>,
    /// The read-only globals' addresses and sizes.
    read_only: Vec<(i128, i128)>,
    /// The entry point (C name) each thread runs, and the threads that
    /// have finished, for the waits of `quiesce` commands.
    names: HashMap<Who, String>,
    finished: Vec<Who>,
    /// The threads past their start (their entry point running or done).
    started: Vec<Who>,
    /// The globals' start values, in program-start mode.
    start: Option<super::start::StartValues>,
    /// The havocked variables that receive addresses, in program-start
    /// mode.
    address_havocs: std::collections::HashSet<VarId>,
    /// The base of the object a rejected run's value was not allowed to
    /// point into, and that value's term, for the search's refinement
    /// ([`replay_blamed`]).
    blame: Option<Blame>,
    /// The module-start check, for a kernel module.
    module_start: Option<ModuleStart>,
    /// The initial value a rejected run read against the module-start
    /// check.
    need: Option<Need>,
}

/// Replays the witness of `claim` over `trace`; `live_at_start` is the
/// callbacks' liveness before init.
pub fn replay(
    program: &Program,
    trace: &Trace,
    oracle: &mut Oracle<'_>,
    k: u32,
    live_at_start: bool,
    claim: Claim,
    closure: &super::liveness::LiveClosure,
) -> Outcome {
    replay_blamed(program, trace, oracle, k, live_at_start, claim, closure, None).0
}

/// [`replay`], and for a witness rejected because a value no thread
/// computed pointed into an object of the run that it could not have held,
/// the base of that object: the search may exclude the checked access's
/// address from that object and look for another witness (mod.rs); for
/// one rejected by the module-start check, the initial value to pin.
#[allow(clippy::too_many_arguments)]
pub fn replay_blamed(
    program: &Program,
    trace: &Trace,
    oracle: &mut Oracle<'_>,
    k: u32,
    live_at_start: bool,
    claim: Claim,
    closure: &super::liveness::LiveClosure,
    module_start: Option<ModuleStart>,
) -> (Outcome, Option<Blame>, Option<Need>) {
    // Every function lies at its own address (super::separation): a
    // call through a pointer takes only the function the pointer holds.
    for (f, at) in super::separation::function_layout(program) {
        let t = crate::verify::solving::translate_with(oracle.terms, program, &mut |_| unreachable!(), &crate::ir::Expr::Apply(f, Vec::new()));
        if oracle.int(t).is_some_and(|v| v != at) {
            return (Outcome::Rejected(format!("the model places function {} at another address", program.functions[f].name)), None, None);
        }
    }
    let private_regions = program.regions.iter().filter(|(_, r)| r.thread_private).map(|(id, _)| id).collect();
    let start = claim.program_start.then(|| super::start::StartValues::of(program));
    let address_havocs = if claim.program_start { super::start::address_havocs(program) } else { Default::default() };
    let mut it = Interp {
        program,
        trace,
        oracle,
        k,
        live_at_start,
        claim,
        memory: HashMap::new(),
        private: HashMap::new(),
        private_regions,
        locks: HashMap::new(),
        live: if live_at_start { [Who::Init, Who::T1, Who::T2].into_iter().collect() } else { Default::default() },
        live_history: Default::default(),
        objects: Vec::new(),
        formed: std::collections::HashSet::new(),
        writes: Vec::new(),
        in_prefix: HashSet::new(),
        initial_pointers: HashMap::new(),
        unwritten: std::collections::HashSet::new(),
        unallocated: Vec::new(),
        pending: None,
        globals: global_layout(program),
        read_only: super::separation::read_only_layout(program),
        closure,
        names: trace
            .threads
            .iter()
            .map(|s| {
                let name = program.entry_points.values().find(|e| e.procedure == s.entry).map(|e| e.name.clone());
                (s.who, name.unwrap_or_else(|| program.procedures[s.entry].name.clone()))
            })
            .collect(),
        finished: Vec::new(),
        started: Vec::new(),
        start,
        address_havocs,
        blame: None,
        module_start,
        need: None,
    };
    let outcome = match it.run() {
        Ok(()) => Outcome::Rejected("the replay ended before the checked access was interleaved".to_string()),
        Err(Stop::Reject(why)) => Outcome::Rejected(why),
        Err(Stop::Done(outcome)) => outcome,
    };
    let rejected = matches!(outcome, Outcome::Rejected(_));
    let blame = if rejected { it.blame } else { None };
    let need = if rejected { it.need } else { None };
    (outcome, blame, need)
}

impl Interp<'_, '_, '_, '_> {
    fn run(&mut self) -> Run<()> {
        let _ = self.live_at_start;
        let mut threads: Vec<Thread> = self
            .trace
            .threads
            .iter()
            .enumerate()
            .map(|(i, s)| Thread {
                who: s.who,
                start: i,
                stage: s.first,
                frames: Vec::new(),
                globals: HashMap::new(),
                round: 1,
                done: false,
                used: 0,
                yielded: false,
            })
            .collect();
        for th in threads.iter_mut().filter(|t| t.who == Who::Init) {
            self.thread(th, 0)?;
        }
        for r in 1..=self.k {
            for who in [Who::T1, Who::T2] {
                for th in threads.iter_mut().filter(|t| t.who == who) {
                    if !th.done && th.round == r {
                        self.thread(th, r)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The next choice at a site, consumed.
    fn choice(&self, site: Site, used: &mut usize) -> Option<Choice> {
        let c = self.trace.choices.get(&site)?.get(*used)?.clone();
        *used += 1;
        Some(c)
    }

    /// A yield at `site`, if one was recorded there: moves the thread's
    /// round; returns whether the thread is suspended (or stopped).
    fn yield_at(&mut self, th: &mut Thread, site: Site, used: &mut usize) -> Run<bool> {
        if th.who == Who::Init {
            return Ok(false);
        }
        let Some(Choice::Switch(to)) = self.trace.choices.get(&site).and_then(|c| c.get(*used)).cloned() else {
            return Ok(false);
        };
        *used += 1;
        let Some(r) = self.oracle.round(&to) else { return reject("the model gives no round to a yield") };
        if r < th.round {
            return reject("a yield goes back to an earlier round");
        }
        let moved = r > th.round;
        if moved && self.start.is_some() && self.holds_atomic(th.who) {
            // SV-COMP's atomic sections (`__VERIFIER_atomic_*`) run without
            // interruption; the lock that stands for them excludes only
            // other sections.
            return reject("a thread is switched out inside an atomic section");
        }
        th.round = r;
        if r > self.k {
            th.done = true;
        }
        Ok(moved)
    }

    /// Resumes a thread; returns when it is suspended into a later round,
    /// or ends.
    fn thread(&mut self, th: &mut Thread, round: u32) -> Run<()> {
        let start = self.trace.threads[th.start].clone();
        if th.who != Who::Init {
            self.resumed(th.who)?;
        }
        loop {
            if th.done || (th.who != Who::Init && th.round > round) {
                return Ok(());
            }
            if !th.frames.is_empty() {
                if self.step(th)? {
                    return Ok(());
                }
                continue;
            }
            let site = Site::Thread(th.who, th.stage);
            let last = start.body + start.held.len() as u32;
            if th.stage > last {
                th.done = true;
                self.finished.push(th.who);
                return Ok(());
            }
            let mut used = th.used;
            if th.stage == start.first && !th.yielded {
                th.yielded = true;
                let moved = self.yield_at(th, site, &mut used)?;
                th.used = used;
                if moved {
                    return Ok(());
                }
                continue;
            }
            if th.stage == start.first {
                let live = match start.who {
                    Who::Init => self.live_at_start || self.live_history.contains(&th.start),
                    _ => self.live.contains(&start.who),
                };
                if start.require_live && !live {
                    self.need = Some(Need::Live(start_name(self.program, &start)));
                    return reject(format!("{} starts before init made the callbacks live", start_name(self.program, &start)));
                }
                self.started.push(th.who);
                th.stage += 1;
                th.used = 0;
                th.yielded = false;
                continue;
            }
            if let (Some((open, args)), true) = (&start.prefix, th.stage + 1 == start.body) {
                th.stage += 1;
                th.used = 0;
                th.yielded = false;
                if let Some(Choice::Call(inv)) = self.choice(site, &mut used) {
                    let params = self.program.procedures[*open].params.clone();
                    let mut env = HashMap::new();
                    for (p, &a) in params.iter().zip(args) {
                        let v = self.open_value(a, self.program.variables[*p].sort, "an argument")?;
                        env.insert(*p, v);
                    }
                    self.in_prefix.insert(th.who);
                    th.frames.push(Frame { inv, instance: 0, command: 0, env, results: Vec::new(), yielded: false, used: 0 });
                }
                continue;
            }
            if th.stage < start.body {
                let lock = start.held[(th.stage - start.first) as usize - 1];
                if !th.yielded {
                    th.yielded = true;
                    let moved = self.yield_at(th, site, &mut used)?;
                    th.used = used;
                    if moved {
                        return Ok(());
                    }
                }
                self.acquire(th.who, lock, LockMode::Exclusive, true)?;
                th.stage += 1;
                th.used = 0;
                th.yielded = false;
                continue;
            }
            if th.stage == start.body {
                th.stage += 1;
                th.used = 0;
                th.yielded = false;
                match self.choice(site, &mut used) {
                    Some(Choice::Call(inv)) => {
                        let params = self.program.procedures[start.entry].params.clone();
                        let mut env = HashMap::new();
                        for (p, &a) in params.iter().zip(&start.args) {
                            let v = self.open_value(a, self.program.variables[*p].sort, "an argument")?;
                            env.insert(*p, v);
                        }
                        th.frames.push(Frame { inv, instance: 0, command: 0, env, results: Vec::new(), yielded: false, used: 0 });
                    }
                    _ => continue,
                }
                continue;
            }
            // The epilogue: the pseudo locks released, each followed by
            // its yield.
            let lock = start.held[(th.stage - start.body - 1) as usize];
            self.release(lock, LockMode::Exclusive);
            th.stage += 1;
            th.used = 0;
            let moved = self.yield_at(th, site, &mut used)?;
            if moved {
                return Ok(());
            }
        }
    }

    /// A value the formula left open, checked not to point into an object
    /// the pair created.
    fn open_value(&mut self, t: TermId, sort: Sort, what: &str) -> Run<i128> {
        let Some(v) = self.oracle.value(t, sort) else { return reject(format!("the model gives no value to {what}")) };
        self.not_into_pair_object(v, what, Some(t))?;
        Ok(v)
    }

    /// `term` is the value's term in the formula, when there is one, for
    /// the search's refinement.
    fn not_into_pair_object(&mut self, v: i128, what: &str, term: Option<TermId>) -> Run<()> {
        if !in_heap(v) {
            return Ok(());
        }
        // Above every C pointer value only objects' addresses lie: one
        // where no object exists yet is no pointer anything could have
        // held if the run allocates that object later (checked when it
        // does: `new_object`). (One this run never allocates stays
        // allowed: the search reserves an address for every allocation of
        // the expansion, taken or not.)
        let Some(o) = self.objects.iter().find(|o| v >= o.base && v < o.base + STRIDE) else {
            self.unallocated.push((v, what.to_string(), term));
            return Ok(());
        };
        let base = o.base;
        // An object init created is reachable from memory the run did not
        // write, or through a value the kernel gives, only once a call
        // handed the kernel a pointer into it (`keep`: a registration, an
        // external call, a model that keeps its argument): the kernel
        // stores only the pointers it is given, and every store of the
        // driver's own is in the run. (Another device's private data
        // pointing at this probe's buffer is no state the kernel makes.)
        if o.who == Who::Init && !o.handed {
            // Kept out of every object init created and has not handed
            // over, at once: a kernel value points into none of them.
            let bases = self.objects.iter().filter(|o| o.who == Who::Init && !o.handed && o.frame.is_none()).map(|o| o.base).collect();
            self.blame = Some(Blame { bases, term, allowed: Vec::new() });
            return reject(format!("{what} points into an object init created and never handed to the kernel"));
        }
        if !o.alive {
            self.blame = Some(Blame { bases: vec![base], term, allowed: Vec::new() });
            return reject(format!("{what} points into a local of a call that has returned"));
        }
        if o.who != Who::Init && !o.published {
            self.blame = Some(Blame { bases: vec![base], term, allowed: Vec::new() });
            return reject(format!("{what} points into an object the pair created, which it cannot have held"));
        }
        // Published, an object of the pair is reachable only through the
        // pointers the driver formed: a value no thread computed (the
        // object's address plus an offset nobody formed) is no address the
        // kernel holds. (Init's objects are not checked: the kernel hands
        // them to callbacks through registrations the lowering does not
        // always model, at offsets it computes itself, such as
        // `&priv->timer`.)
        if o.who != Who::Init && !self.formed.contains(&v) {
            let allowed: Vec<i128> = self.formed.iter().copied().filter(|&f| f >= base && f < base + STRIDE).collect();
            self.blame = Some(Blame { bases: vec![base], term, allowed });
            return reject(format!("{what} points into an object created in this run, at an address no thread formed"));
        }
        Ok(())
    }

    /// When the checking thread runs again after the checked access: the
    /// claim is decided.
    fn resumed(&mut self, who: Who) -> Run<()> {
        if who != self.claim.who {
            return Ok(());
        }
        let Some(p) = self.pending.take() else { return Ok(()) };
        let region = self.claim.region;
        let between: Vec<&(Who, RegionId, i128, Typed, Origins)> =
            self.writes[p.writes..].iter().filter(|(w, r, a, _, _)| *w != who && *w != Who::Init && *r == region && *a == p.address).collect();
        if between.is_empty() {
            return Err(Stop::Done(Outcome::Rejected("no write of the other thread to the address came between the access and its check".to_string())));
        }
        let between: Vec<_> = between.into_iter().filter(|(_, _, _, typed, _)| same_object(&p.typed, typed)).collect();
        if between.is_empty() {
            return Err(Stop::Done(Outcome::Rejected(
                "the other thread's write is to another field of another object of the same record type, which would overlap the first partially".to_string(),
            )));
        }
        if !between.iter().any(|(_, _, _, _, origins)| one_buffer(&p.origins, origins)) {
            return Err(Stop::Done(Outcome::Rejected(
                "the two accesses reach one buffer only through pointers that different fields held before the run, which nothing in the run stored: the witness assumes they point into one buffer".to_string(),
            )));
        }
        let now = self.memory.get(&(region, p.address)).copied();
        if !self.claim.strict && now == Some(p.value) {
            return Err(Stop::Done(Outcome::Rejected("the other thread's writes left the value the access saw".to_string())));
        }
        Err(Stop::Done(Outcome::Reproduced))
    }

    /// Runs one command (or terminator) of the innermost frame; returns
    /// whether the thread was suspended.
    fn step(&mut self, th: &mut Thread) -> Run<bool> {
        let depth = th.frames.len() - 1;
        let (inv, n, i) = {
            let f = &th.frames[depth];
            (f.inv, f.instance, f.command)
        };
        let (p, expansion) = self.trace.invocations[inv as usize].clone();
        let block = &self.program.procedures[p].blocks[expansion.keys[n].0];
        let site = Site::At { inv, instance: n as u32, command: i as u32 };
        if i >= block.commands.len() {
            return self.terminator(th, &expansion, &block.terminator, inv, n);
        }
        let c = &block.commands[i];
        let mut used = th.frames[depth].used;
        if matches!(self.trace.choices.get(&site).and_then(|c| c.first()), Some(Choice::Skipped)) {
            let f = th.frames.last_mut().unwrap_or_else(|| unreachable!());
            f.command += 1;
            return Ok(false);
        }
        let next = |th: &mut Thread| {
            let f = th.frames.last_mut().unwrap_or_else(|| unreachable!());
            f.command += 1;
            f.used = 0;
            f.yielded = false;
        };
        match c {
            Command::Assign { target, value, .. } => {
                let v = self.eval(th, value)?;
                self.set(th, *target, v);
            }
            Command::Assume { cond, span } | Command::Assert { cond, span, check: crate::ir::CheckKind::DataRace | crate::ir::CheckKind::User | crate::ir::CheckKind::Bound } => {
                if self.eval(th, cond)? == 0 {
                    return reject(format!("an assumption fails{}", at(span.as_ref())));
                }
            }
            Command::Assert { check: crate::ir::CheckKind::Unsupported, .. } => {
                th.done = true;
                return Ok(true);
            }
            Command::Havoc { vars, .. } => {
                let Some(Choice::Values(terms)) = self.choice(site, &mut used) else { return reject("no recorded havoc") };
                for (v, t) in vars.iter().zip(terms) {
                    let sort = self.program.variables[*v].sort;
                    let value = match self.program.addresses.get(v) {
                        Some(kind) => {
                            let Some(a) = self.oracle.value(t, sort) else { return reject("the model gives no address") };
                            self.new_object(th.who, th.frames.len() - 1, a, *kind)?;
                            a
                        }
                        // A havoc may stand for an address inside an object
                        // (a ranged access of a model): it stays inside the
                        // object its base points into (super::separation).
                        None => match self.oracle.value(t, sort) {
                            Some(x)
                                if self.start.is_some()
                                    && sort == Sort::Int
                                    && !super::start::havoc_allowed(x)
                                    && !self.address_havocs.contains(v)
                                    && !self.program.nondet_ranges.get(v).is_some_and(|&(lo, hi)| lo <= x && x <= hi) =>
                            {
                                return reject("a havocked value outside what every integer type holds");
                            }
                            Some(x) => {
                                if let Some(base) = self.program.inside.get(v) {
                                    let b = self.eval(th, base)?;
                                    if x >= super::separation::object_end_of(b) {
                                        return reject("an access at an unknown offset reaches past the end of its object");
                                    }
                                }
                                x
                            }
                            None => return reject("the model gives no value to a havoc"),
                        },
                    };
                    self.set(th, *v, value);
                }
            }
            Command::Call { procedure, args, results, .. } => {
                let values: Vec<i128> = args.iter().map(|a| self.eval(th, a)).collect::<Run<_>>()?;
                match self.choice(site, &mut used) {
                    Some(Choice::Call(callee)) => {
                        let params = self.program.procedures[*procedure].params.clone();
                        let env = params.into_iter().zip(values).collect();
                        next(th);
                        th.frames.push(Frame { inv: callee, instance: 0, command: 0, env, results: results.clone(), yielded: false, used: 0 });
                        return Ok(false);
                    }
                    Some(Choice::Results(terms)) => {
                        for (r, t) in results.iter().zip(terms) {
                            let v = self.open_value(t, self.program.variables[*r].sort, "a call's result")?;
                            self.set(th, *r, v);
                        }
                    }
                    _ => {
                        th.done = true;
                        return Ok(true);
                    }
                }
            }
            Command::Load { target, region, address, access, .. } => {
                let a = self.eval(th, address)?;
                let v = self.load(th.who, *region, a)?;
                self.set(th, *target, v);
                let typed = self.typed(address);
                let origins = self.origins(th, *region, address);
                self.accessed(th.who, site, *region, a, v, *access, typed, origins);
            }
            Command::Store { region, address, value, access, .. } => {
                let a = self.eval(th, address)?;
                let v = self.eval(th, value)?;
                if self.read_only.iter().any(|&(base, size)| a >= base && a < base + size) {
                    return reject("a store into read-only data (a string literal)");
                }
                let typed = self.typed(address);
                let origins = self.origins(th, *region, address);
                self.store(th.who, *region, a, v, typed.clone(), origins.clone())?;
                self.accessed(th.who, site, *region, a, v, *access, typed, origins);
            }
            Command::Lock { lock, mode, .. } | Command::TryLock { lock, mode, .. } => {
                let mut ok = true;
                if let Command::TryLock { success, .. } = c {
                    if !th.frames[depth].yielded {
                        let Some(Choice::Values(t)) = self.choice(site, &mut used) else { return reject("no recorded trylock") };
                        let Some(b) = t.first().and_then(|t| self.oracle.bool(*t)) else { return reject("the model gives no trylock outcome") };
                        self.set(th, *success, i128::from(b));
                    }
                    ok = self.get(th, *success) != 0;
                }
                if !th.frames[depth].yielded {
                    th.frames[depth].yielded = true;
                    let moved = self.yield_at(th, site, &mut used)?;
                    th.frames[depth].used = used;
                    if moved {
                        return Ok(true);
                    }
                }
                if ok {
                    self.acquire(th.who, *lock, *mode, true)?;
                }
            }
            Command::Unlock { lock, mode, .. } => self.release(*lock, *mode),
            Command::HeldAnnotation { lock, mode, annotation, trusted: true, .. } => {
                // The encoder's rule: held by this thread (or shared), else
                // taken now if free.
                let held = self.locks.get(lock).copied().unwrap_or(0);
                let shared_ok = *mode != Some(LockMode::Exclusive) && held < 0;
                if held == 0 {
                    let taken = if *mode == Some(LockMode::Exclusive) { th.who.holder() } else { -1 };
                    self.locks.insert(*lock, taken);
                } else if held != th.who.holder() && !shared_ok {
                    let name = &self.program.locks[*lock].name;
                    return reject(format!("{annotation} says this thread holds {name}, which another thread holds"));
                }
            }
            Command::MakeLive { function: registrar, targets, assumed, .. } => {
                let made: Vec<Who> = self
                    .trace
                    .threads
                    .iter()
                    .filter(|start| {
                        // A kernel module's callback is live only once a
                        // registration naming it ran in the witness (the
                        // closure's "may have run earlier" is a history the
                        // witness must show, super::history).
                        let name = start_name(self.program, start);
                        match self.module_start {
                            Some(_) => super::liveness::LiveClosure::names(self.program, registrar, targets.as_deref(), *assumed, &name),
                            None => self.closure.makes_live(targets.as_deref(), *assumed, &name),
                        }
                    })
                    .map(|start| start.who)
                    .collect();
                // The history's callbacks, one liveness each.
                for (i, start) in self.trace.threads.iter().enumerate().filter(|(_, s)| s.who == Who::Init && s.first > 0) {
                    let name = start_name(self.program, start);
                    if super::liveness::LiveClosure::names(self.program, registrar, targets.as_deref(), *assumed, &name) {
                        self.live_history.insert(i);
                    }
                }
                let same = self.names.get(&Who::T1).is_some_and(|n| self.names.get(&Who::T2) == Some(n));
                if self.start.is_some() && same && made.contains(&Who::T1) && made.contains(&Who::T2) {
                    // A self-pair: each pthread_create starts one thread.
                    let next = if self.live.contains(&Who::T1) { Who::T2 } else { Who::T1 };
                    self.live.insert(next);
                } else {
                    self.live.extend(made);
                }
                // A registration publishes what its thread created.
                for o in self.objects.iter_mut().filter(|o| o.who == th.who) {
                    o.published = true;
                }
            }
            Command::Quiesce { function, targets, .. } => {
                // A call that names a thread's entry point clears its
                // liveness, and returns only once that thread has finished
                // or while it has not started (then a later registration
                // must make it live before it starts).
                // (Once: a command suspended at its yield is entered again.)
                if !th.frames[depth].yielded {
                    for start in &self.trace.threads {
                        if start.who != th.who && start.require_live && targets.contains(&start_name(self.program, start)) {
                            self.live.remove(&start.who);
                        }
                    }
                }
                let other = match th.who {
                    Who::T1 => Some(Who::T2),
                    Who::T2 => Some(Who::T1),
                    Who::Init => None,
                };
                let waited = other.and_then(|o| self.names.get(&o).filter(|n| targets.contains(n)).map(|n| (o, n.clone())));
                if let Some((o, name)) = waited {
                    if !th.frames[depth].yielded {
                        th.frames[depth].yielded = true;
                        let moved = self.yield_at(th, site, &mut used)?;
                        th.frames[depth].used = used;
                        if moved {
                            return Ok(true);
                        }
                    }
                    let may_start_later = self.trace.threads.iter().any(|s| s.who == o && s.require_live);
                    if !self.finished.contains(&o) && (self.started.contains(&o) || !may_start_later) {
                        return reject(format!("{function} returns while {name}, which it waits for, has not finished"));
                    }
                }
            }
            Command::Keep { values, .. } => {
                // The objects the kept values point into are the kernel's
                // to hand back. (A value the run cannot evaluate hands
                // nothing: the replay rejects only on what it computed.)
                for v in values {
                    let Ok(x) = self.eval(th, v) else { continue };
                    if in_heap(x) {
                        for o in self.objects.iter_mut().filter(|o| x >= o.base && x < o.base + STRIDE) {
                            o.handed = true;
                        }
                    }
                }
            }
            Command::Approximation { .. }
            | Command::LockUnknown { .. }
            | Command::HeldAnnotation { .. }
            | Command::InterruptControl { .. }
            | Command::GhostAccess { .. } => {}
        }
        // The yield behind the command, if one was recorded.
        let moved = self.yield_at(th, site, &mut used)?;
        if th.who == self.claim.who && site == self.claim.site && self.pending.is_some() && !moved {
            // The check behind the access reads right after it: nothing
            // of the other thread's came between.
            return Err(Stop::Done(Outcome::Rejected("the checked access's thread does not yield behind it".to_string())));
        }
        next(th);
        Ok(moved)
    }

    fn terminator(&mut self, th: &mut Thread, expansion: &Expansion, t: &Terminator, inv: u32, n: usize) -> Run<bool> {
        match t {
            Terminator::Goto(targets) => {
                let j = if targets.len() > 1 {
                    let Some(&sel) = self.trace.gotos.get(&(inv, n as u32)) else { return reject("no recorded branch") };
                    let Some(j) = self.oracle.int(sel) else { return reject("the model gives no branch") };
                    usize::try_from(j).unwrap_or(usize::MAX)
                } else {
                    0
                };
                match expansion.edges[n].get(j) {
                    Some(Edge::To(m)) => {
                        let f = th.frames.last_mut().unwrap_or_else(|| unreachable!());
                        f.instance = *m;
                        f.command = 0;
                        f.used = 0;
                        f.yielded = false;
                        Ok(false)
                    }
                    Some(Edge::Truncated(_)) => {
                        th.done = true;
                        Ok(true)
                    }
                    None => reject("a branch to no successor"),
                }
            }
            Terminator::Unreachable => reject("the path reaches an unreachable point"),
            Terminator::Return => {
                let Some(frame) = th.frames.pop() else { return Ok(false) };
                // The call's locals die with it.
                let depth = th.frames.len();
                for o in self.objects.iter_mut().filter(|o| o.who == th.who && o.frame == Some(depth)) {
                    o.alive = false;
                }
                let (p, _) = &self.trace.invocations[frame.inv as usize];
                let returns = self.program.procedures[*p].returns.clone();
                for (r, target) in returns.iter().zip(&frame.results) {
                    let v = frame.env.get(r).copied().unwrap_or(0);
                    self.set(th, *target, v);
                }
                if th.frames.is_empty() && self.in_prefix.remove(&th.who) {
                    // The begin prefix returned: the callback runs only if
                    // it returned 0.
                    if returns.first().is_some_and(|r| frame.env.get(r).copied().unwrap_or(0) != 0) {
                        let name = &self.program.procedures[self.trace.threads[th.start].entry].name;
                        return reject(format!("{name}'s begin callback returns an error"));
                    }
                }
                Ok(false)
            }
        }
    }
}


fn at(span: Option<&crate::diagnostics::Span>) -> String {
    match span {
        Some(s) => format!(" at {}:{}", s.file.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(), s.line),
        None => String::new(),
    }
}

fn start_name(program: &Program, start: &ThreadStart) -> String {
    program.procedures[start.entry].name.clone()
}
