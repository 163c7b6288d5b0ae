//! The memory of the sequentialised program: K copies of every shared map,
//! kept as a log of guarded writes instead of SMT arrays.
//!
//! # Algorithm
//!
//! Lal and Reps's sequentialisation (STORM §2.2) runs thread 1 to its end,
//! then thread 2, over K copies of shared memory, one per round of the
//! round-robin schedule `T1.1 T2.1 T1.2 T2.2 … T1.K T2.K`. Copy 1 starts
//! as init left memory; copies 2..K start from guesses, and at the end the
//! program assumes each guess was right: what thread 2 left at the end of
//! round r is what thread 1 found at the start of round r + 1.
//!
//! Here a copy is not a data structure: every write is logged with its
//! thread, its round (the thread's context counter when it wrote, a
//! [`Round`]: K Booleans, so comparing rounds needs no arithmetic),
//! its path condition, address and value. A read of map M at address `a`
//! in round `c` by a thread is the `if-then-else` chain over the earlier
//! logged writes that can be seen from there, latest first, ending in the
//! round's start value:
//!
//! - thread 1 sees its own writes of the same round;
//! - thread 2 sees its own writes of the same round, then thread 1's;
//! - the start value of round 1 is init's writes over the arbitrary
//!   initial memory; of round r ≥ 2, the guess `g_r(a)`, an uninterpreted
//!   function; of the dead round K + 1 (a thread that stopped), anything.
//!
//! The guesses need checking only where the formula depends on them: a
//! guess `g_r(a)` that no asserted term contains (the read that made it
//! was dead: its value flows nowhere, as in the loads the lowering
//! makes for an external call's pointer arguments) can be chosen equal
//! to the true value without changing any execution. So the consistency
//! assumption is `g_{r+1}(a) = end_r(a)` for every guess reachable from
//! the constraints and the race checks, where `end_r(a)` is the read
//! chain of thread 2's and thread 1's round-r writes over round r's start
//! value. An assumption can reach further guesses (through its chain's
//! values and round r's own start); they are added until none is new
//! ([`Memory::consistency`]).
//!
//! Thread-private maps (locals whose address is taken) have one copy per
//! thread, not per round. Locks and the device's liveness are maps too
//! ([`Cell::Lock`], [`Cell::Live`]), so blocking and registration follow
//! the same rounds as data.
//!
//! # Soundness
//!
//! The chains are exact: with the consistency assumptions, every model is
//! a round-robin execution of init followed by the two threads in at most
//! K rounds each, and every such execution is a model. An unasserted
//! guess occurs in no asserted term, so any model can be changed to give
//! it the true value; a dead read's value in a model means nothing, and
//! witnesses show only the values of the terms the formula contains
//! ([`Consistency::live`]). The encoding is
//! quadratic in the number of writes and reads of each map, which is what
//! the bounds keep small.

use super::round::Round;
use crate::ir::RegionId;
use crate::solver::{Sort, TermBank, TermId};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Which thread runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Who {
    /// The driver's init entry point, alone, before the pair.
    Init,
    /// The pair's first entry point.
    T1,
    /// The pair's second entry point.
    T2,
}

impl Who {
    /// The value a lock holds while this thread holds it exclusively.
    pub fn holder(self) -> i128 {
        match self {
            Who::T1 => 1,
            Who::T2 => 2,
            Who::Init => 3,
        }
    }

    /// A short name for term names.
    pub(super) fn tag(self) -> &'static str {
        match self {
            Who::Init => "i",
            Who::T1 => "t1",
            Who::T2 => "t2",
        }
    }
}

/// A memory map of the sequentialised program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cell {
    /// A region of the driver.
    Region(RegionId),
    /// The state of every lock, by lock number: 0 free, a thread's
    /// [`Who::holder`] when held exclusively, `-n` when held by n readers.
    Lock,
    /// At address 0: whether the device's callbacks are live (1) or not.
    Live,
    /// `--strict`: per address of a region, the number of the last write
    /// (0 for none since the start).
    Stamp(RegionId),
}

impl Cell {
    pub(super) fn tag(self) -> String {
        match self {
            Cell::Region(r) => format!("r{}", r.as_u32()),
            Cell::Lock => "lock".to_string(),
            Cell::Live => "live".to_string(),
            Cell::Stamp(r) => format!("stamp{}", r.as_u32()),
        }
    }
}

/// One logged write.
#[derive(Clone, Debug)]
pub struct Write {
    /// The writing thread.
    pub who: Who,
    /// The map written.
    pub cell: Cell,
    /// The writer's round; `None` for init and for thread-private maps.
    pub round: Option<Round>,
    /// Whether the write happens (its path condition).
    pub guard: TermId,
    /// The address.
    pub address: TermId,
    /// The value.
    pub value: TermId,
}

/// The write log and the guesses of a sequentialised program.
pub struct Memory {
    k: u32,
    private: BTreeSet<Cell>,
    live_at_start: bool,
    writes: BTreeMap<Cell, Vec<Write>>,
    /// Every guess `g_r(a)` made, r ≥ 2: its map, address and round.
    guesses: HashMap<TermId, (Cell, TermId, u32)>,
    /// The globals' program-start values, when memory starts as the C
    /// program's does ([`super::start`]); `None`: arbitrary.
    start: Option<super::start::StartValues>,
    /// Every read of the initial memory of a shared region so far: its
    /// map, its address and its value `m0(a)` ([`Memory::initial_values`],
    /// [`Memory::module_start`]).
    initial_reads: std::cell::RefCell<Vec<(Cell, TermId, TermId)>>,
}

/// The consistency assumptions of a formula, and what they reach.
pub struct Consistency {
    /// The assumptions to assert.
    pub assumptions: Vec<TermId>,
    /// Every term the constraints, the checks and the assumptions contain:
    /// the terms whose values in a model belong to an execution.
    pub live: HashSet<TermId>,
}

impl Memory {
    /// An empty log for K rounds; `private` are the thread-private maps;
    /// `live_at_start` is the liveness before init runs (true when there is
    /// no init).
    pub fn new(k: u32, private: BTreeSet<Cell>, live_at_start: bool) -> Memory {
        Memory { k, private, live_at_start, writes: BTreeMap::new(), guesses: HashMap::new(), start: None, initial_reads: Default::default() }
    }

    /// Starts memory as the C program's: the recorded globals hold their
    /// initial values ([`super::start`]).
    pub fn start_as_program(&mut self, values: super::start::StartValues) {
        self.start = Some(values);
    }

    /// The arbitrary initial value `base` at `address`, overridden by the
    /// program-start values of globals when those are used.
    fn started(&self, t: &mut TermBank, address: TermId, base: TermId) -> TermId {
        match &self.start {
            Some(values) => values.term(t, address, base),
            None => base,
        }
    }

    /// Logs a write.
    pub fn write(&mut self, w: Write) {
        self.writes.entry(w.cell).or_default().push(w);
    }

    /// Whether a map is thread-private.
    pub fn is_private(&self, cell: Cell) -> bool {
        self.private.contains(&cell)
    }

    /// The value thread `who` reads from `cell` at `address` in round
    /// `round` (`None` for init), on the path where `reach` holds.
    pub fn read(&mut self, t: &mut TermBank, who: Who, cell: Cell, address: TermId, round: Option<&Round>, reach: TermId) -> TermId {
        let reader = Some((who, reach));
        if self.is_private(cell) {
            let base = uf(t, &format!("m0.{}.{}", who.tag(), cell.tag()), address);
            let base = self.started(t, address, base);
            return chain(t, self.log(cell).filter(|w| w.who == who), address, None, base, reader);
        }
        match (who, round) {
            (Who::Init, _) | (_, None) => {
                let base = self.initial(t, cell, address);
                chain(t, self.log(cell).filter(|w| w.who == Who::Init), address, None, base, reader)
            }
            (Who::T1 | Who::T2, Some(round)) => {
                let base = self.round_start(t, cell, address, round);
                let visible = self.log(cell).filter(|w| w.who == Who::T1 || (who == Who::T2 && w.who == Who::T2));
                chain(t, visible, address, Some(round), base, reader)
            }
        }
    }

    /// The assumptions that the guessed start of round r ≥ 2 is what round
    /// r − 1 left, for every guess the `roots` (the asserted constraints
    /// and the race checks) contain, directly or through the assumptions
    /// themselves.
    pub fn consistency(&mut self, t: &mut TermBank, roots: &[TermId]) -> Consistency {
        let mut assumptions = Vec::new();
        let mut live: HashSet<TermId> = HashSet::new();
        let mut work: Vec<TermId> = roots.to_vec();
        while let Some(x) = work.pop() {
            if !live.insert(x) {
                continue;
            }
            work.extend(t.term(x).children());
            let Some(&(cell, a, r)) = self.guesses.get(&x) else { continue };
            let previous = Round::constant(t, self.k, r - 1);
            let base = self.round_start(t, cell, a, &previous);
            let end = chain(t, self.log(cell).filter(|w| w.who != Who::Init), a, Some(&previous), base, None);
            let assumption = t.eq(x, end);
            assumptions.push(assumption);
            work.push(assumption);
        }
        Consistency { assumptions, live }
    }

    /// How many reads of initial shared memory were made so far (for
    /// [`Memory::initial_values_since`]).
    pub fn initial_count(&self) -> usize {
        self.initial_reads.borrow().len()
    }

    /// The values of initial shared memory read since the count was
    /// `since`.
    pub fn initial_values_since(&self, since: usize) -> Vec<TermId> {
        self.initial_reads.borrow()[since..].iter().map(|&(_, _, value)| value).collect()
    }

    /// That every initial value the formula reads of a recorded global,
    /// outside the regions `skip`, is the global's value in `values` (a
    /// kernel module's load-time memory, [`super::replay::ModuleStart`]).
    pub fn module_start(&self, t: &mut TermBank, values: &super::start::StartValues, skip: &BTreeSet<RegionId>) -> TermId {
        let sites = self.initial_reads.borrow().clone();
        let mut all = Vec::new();
        for (cell, address, base) in sites {
            if matches!(cell, Cell::Region(r) if skip.contains(&r)) {
                continue;
            }
            let started = values.term(t, address, base);
            if started != base {
                all.push(t.eq(base, started));
            }
        }
        t.and(&all)
    }

    /// The values of initial shared memory the formula reads (each
    /// `m0(a)` once per read chain that reaches it).
    pub fn initial_values(&self) -> Vec<TermId> {
        let mut v: Vec<TermId> = self.initial_reads.borrow().iter().map(|&(_, _, value)| value).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The writes to `cell`, in execution order.
    fn log(&self, cell: Cell) -> impl Iterator<Item = &Write> {
        self.writes.get(&cell).into_iter().flatten()
    }

    /// Memory before init: arbitrary driver memory, every lock free, the
    /// callbacks not yet live (unless there is no init), no write stamped.
    fn initial(&self, t: &mut TermBank, cell: Cell, address: TermId) -> TermId {
        match cell {
            Cell::Region(_) => {
                let base = uf(t, &format!("m0.{}", cell.tag()), address);
                self.initial_reads.borrow_mut().push((cell, address, base));
                self.started(t, address, base)
            }
            Cell::Lock | Cell::Stamp(_) => t.int(0),
            Cell::Live => t.int(i128::from(self.live_at_start)),
        }
    }

    /// What init leaves at `address`: its writes over the initial memory.
    fn after_init(&self, t: &mut TermBank, cell: Cell, address: TermId) -> TermId {
        let base = self.initial(t, cell, address);
        chain(t, self.log(cell).filter(|w| w.who == Who::Init), address, None, base, None)
    }

    /// A round's start value at `address`: after init for round 1, a
    /// guess for rounds 2..K, anything in the dead round K + 1.
    fn round_start(&mut self, t: &mut TermBank, cell: Cell, address: TermId, round: &Round) -> TermId {
        let mut value = uf(t, &format!("dead.{}", cell.tag()), address);
        for r in (1..=self.k).rev() {
            let is_r = round.is(t, r);
            if t.as_bool(is_r) == Some(false) {
                continue;
            }
            let start = if r == 1 {
                self.after_init(t, cell, address)
            } else {
                let guess = uf(t, &format!("g{r}.{}", cell.tag()), address);
                self.guesses.insert(guess, (cell, address, r));
                guess
            };
            value = t.ite(is_r, start, value);
        }
        value
    }
}

/// An uninterpreted map of one address: initial memory, a guess.
fn uf(t: &mut TermBank, name: &str, address: TermId) -> TermId {
    let d = t.declare(name, &[Sort::Int], Sort::Int);
    t.apply(d, &[address])
}

/// The read chain: the latest of `writes` that happened, in `round` (when
/// given), at `address`, else `base`. `writes` are in execution order.
///
/// A `reader` (the reading thread and its path condition) cuts the chain
/// at the reader's own latest write that certainly hits: made on the same
/// path (its guard is the reader's), in the same round (no yield between,
/// so the round terms are the same) and at the same address term. The
/// value matters only where the reader's path condition holds, and there
/// that write shadows every earlier one. Fewer yields make more such cuts.
fn chain<'w>(
    t: &mut TermBank,
    writes: impl Iterator<Item = &'w Write>,
    address: TermId,
    round: Option<&Round>,
    base: TermId,
    reader: Option<(Who, TermId)>,
) -> TermId {
    let writes: Vec<&Write> = writes.collect();
    let mut hits: Vec<(TermId, TermId)> = Vec::new();
    for w in writes.iter().rev() {
        let same_address = t.eq(w.address, address);
        let guard = match reader {
            Some((who, reach)) if who == w.who && w.guard == reach => t.bool(true),
            _ => w.guard,
        };
        let hit = match (round, &w.round) {
            (Some(r), Some(wr)) => {
                let same_round = r.eq(t, wr);
                t.and(&[guard, same_round, same_address])
            }
            (None, _) | (_, None) => t.and(&[guard, same_address]),
        };
        match t.as_bool(hit) {
            Some(false) => continue,
            Some(true) => return hits.iter().rev().fold(w.value, |value, &(h, v)| t.ite(h, v, value)),
            None => hits.push((hit, w.value)),
        }
    }
    hits.iter().rev().fold(base, |value, &(h, v)| t.ite(h, v, value))
}
