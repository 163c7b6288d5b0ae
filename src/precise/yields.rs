//! Where the bounded checker lets a thread be switched out: the yield
//! policies `all`, `epp` and `mr` (thesis §3.5).
//!
//! # Algorithm
//!
//! Every policy yields where a thread starts and after a registration
//! (`live`). `all` and `epp` yield before every lock acquire (so a blocked
//! acquire can wait for the other thread) and after every release (so the
//! other thread can take the lock). They differ on memory accesses:
//!
//! - `all`: after every access to a shared region (the baseline; a dead
//!   load the executor leaves out, a no-op, has none under any policy);
//! - `epp`: per pair, no access yields if every region of the pair was
//!   proven race-free, else as `all`;
//! - `mr`: only where the other thread of the pair can interfere: after an
//!   access to a region not proven race-free for the pair that the other
//!   thread writes (or, for a write, reads), and around an acquire or
//!   release of a lock the other thread also takes. What the other thread
//!   can do is its [`Footprint`]: the regions read and written and the
//!   locks taken by every procedure its entry point reaches through calls,
//!   and the pseudo locks it runs holding.
//!
//! `mr` keeps the yield after an atomic access the other thread can
//! interfere with even when its region was proven: atomics are
//! synchronisation (a flag taken with a test-and-set, a state moved with a
//! compare-and-exchange), and a region can be proven race-free because all
//! its accesses are atomic, with no lock behind them.
//!
//! An atomic load immediately followed by an atomic store to the same
//! region and address is one read-modify-write (the lowering's invariant
//! for modelled atomics, docs/kernel-models.md): no yield between them.
//!
//! # Soundness
//!
//! Yields are where context switches may happen, so removing one removes
//! interleavings; `mr` removes only yields behind actions that commute with
//! everything the other thread can do at that point (Lipton's movers):
//!
//! - an access to a region the other thread never accesses, a read of one
//!   it never writes, and an acquire or release of a lock it never takes
//!   commute with every action of the other thread (they touch no state
//!   the other thread reads or writes, and whether they are enabled does
//!   not depend on it);
//! - an access to a region the lockset phase proved race-free for the pair
//!   is protected by a lock both threads take, so the other thread cannot
//!   touch the region between the acquire and the release around it
//!   (Whoop, §3.5); this argument rests on the lockset proof and inherits
//!   its approximations (docs/soundness.md), hence the yields kept after
//!   atomic accesses, which no lock protects.
//!
//! Take any execution within the bounds of `all` and move each of those
//! actions of a thread to the right, past the other thread's actions, up
//! to its own thread's next kept action (a yield is kept after every
//! action that is not a mover). Swapping commuting actions leaves every
//! state the non-movers see unchanged, so every race check reads what it
//! read before, and the result switches only where `mr` keeps a yield,
//! with no more context switches than before (a segment made only of
//! movers vanishes into the thread's next one). A thread that stopped at
//! a removed yield stops at the kept yield before it instead: what it did
//! in between commutes with the other thread and no check depends on it.
//! So `mr` confirms exactly the races `all` confirms within the same K.

use crate::ir::{Command, LockId, ProcId, Program, RegionId};
use super::memory::Who;
use clap::ValueEnum;
use std::collections::BTreeSet;

/// A yield placement policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum, serde::Serialize, serde::Deserialize)]
pub enum YieldMode {
    /// After every shared access and around every lock operation.
    All,
    /// Lock operations only for a pair proven race-free, else as `all`.
    Epp,
    /// After accesses to regions not proven for the pair that the other
    /// thread can interfere with, and around operations on locks both
    /// threads take.
    Mr,
}

impl YieldMode {
    /// The printed name.
    pub fn as_str(self) -> &'static str {
        match self {
            YieldMode::All => "all",
            YieldMode::Epp => "epp",
            YieldMode::Mr => "mr",
        }
    }
}

/// What a thread can touch: the regions it reads and writes and the locks
/// it takes, over every procedure its entry point reaches through calls.
#[derive(Clone, Debug, Default)]
pub struct Footprint {
    /// Regions loaded from.
    pub reads: BTreeSet<RegionId>,
    /// Regions stored to.
    pub writes: BTreeSet<RegionId>,
    /// Locks acquired, tried or released, and the pseudo locks it runs
    /// holding.
    pub locks: BTreeSet<LockId>,
}

impl Footprint {
    /// The footprint of entry procedure `root` run holding `held`.
    pub fn of(program: &Program, root: ProcId, held: &[LockId]) -> Footprint {
        let mut f = Footprint { locks: held.iter().copied().collect(), ..Footprint::default() };
        for p in program.reachable(root) {
            for (_, b) in program.procedures[p].blocks.iter() {
                for c in &b.commands {
                    match c {
                        Command::Load { region, .. } => {
                            f.reads.insert(*region);
                        }
                        Command::Store { region, .. } => {
                            f.writes.insert(*region);
                        }
                        Command::Lock { lock, .. }
                        | Command::TryLock { lock, .. }
                        | Command::Unlock { lock, .. }
                        | Command::HeldAnnotation { lock, trusted: true, .. } => {
                            f.locks.insert(*lock);
                        }
                        Command::Call { .. }
                        | Command::Assign { .. }
                        | Command::Assume { .. }
                        | Command::Assert { .. }
                        | Command::Havoc { .. }
                        | Command::LockUnknown { .. }
                        | Command::HeldAnnotation { .. }
                        | Command::InterruptControl { .. }
                        | Command::MakeLive { .. }
                        | Command::Quiesce { .. }
                        | Command::GhostAccess { .. }
                        | Command::Keep { .. }
                        | Command::Approximation { .. } => {}
                    }
                }
            }
        }
        f
    }
}

/// The yield placement of one pair, in one thread order.
#[derive(Clone, Debug)]
pub struct YieldPolicy {
    mode: YieldMode,
    /// The regions the lockset phase proved race-free for the pair.
    proven: BTreeSet<RegionId>,
    /// Whether every region of the pair was proven.
    pair_proven: bool,
    /// What each thread of the pair can touch, first thread first (`mr`
    /// asks what the other one can do).
    threads: [Footprint; 2],
}

impl YieldPolicy {
    /// The policy of a pair whose proven regions are `proven`
    /// (`pair_proven` when no region of the pair is unproven), whose
    /// threads have the footprints `threads`.
    pub fn new(mode: YieldMode, proven: BTreeSet<RegionId>, pair_proven: bool, threads: [Footprint; 2]) -> YieldPolicy {
        YieldPolicy { mode, proven, pair_proven, threads }
    }

    /// What the thread other than `who` can touch; init, alone before
    /// the pair, has no other thread.
    fn other(&self, who: Who) -> Option<&Footprint> {
        match who {
            Who::Init => None,
            Who::T1 => Some(&self.threads[1]),
            Who::T2 => Some(&self.threads[0]),
        }
    }

    /// Whether thread `who` yields after accessing a shared `region`
    /// (writing it when `write`, atomically when `atomic`).
    pub fn after_access(&self, who: Who, region: RegionId, write: bool, atomic: bool) -> bool {
        match self.mode {
            YieldMode::All => true,
            YieldMode::Epp => atomic || !self.pair_proven,
            YieldMode::Mr => {
                let interferes = self.other(who).is_some_and(|o| o.writes.contains(&region) || (write && o.reads.contains(&region)));
                interferes && (atomic || !self.proven.contains(&region))
            }
        }
    }

    /// Whether thread `who` yields before acquiring (after releasing)
    /// `lock`.
    pub fn around_lock(&self, who: Who, lock: LockId) -> bool {
        match self.mode {
            YieldMode::All | YieldMode::Epp => true,
            YieldMode::Mr => self.other(who).is_some_and(|o| o.locks.contains(&lock)),
        }
    }
}
