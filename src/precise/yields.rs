//! Where the bounded checker lets a thread be switched out: the yield
//! policies `all`, `epp` and `mr` (thesis §3.5).
//!
//! # Algorithm
//!
//! Every policy yields where a thread starts, before every lock acquire
//! (so a blocked acquire can wait for the other thread) and after every
//! release (so the other thread can take the lock). They differ on memory
//! accesses:
//!
//! - `all`: after every access to a shared region (the baseline);
//! - `epp`: per pair, no access yields if every region of the pair was
//!   proven race-free, else as `all`;
//! - `mr`: after accesses to the regions not proven race-free for this
//!   pair only.
//!
//! `epp` and `mr` keep the yield after every atomic access: atomics are
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
//! interleavings. `mr` removes only the yields after accesses to regions
//! the lockset phase proved race-free for the pair: such an access is
//! protected by a lock both threads take, so the other thread cannot touch
//! the region until the release, and the yield after the release offers
//! every interleaving that can communicate through it (Whoop, §3.5). That
//! argument needs a lock, hence the yields kept after atomic accesses. The
//! argument rests on the lockset proof, so it inherits its approximations
//! (docs/soundness.md).

use crate::ir::RegionId;
use clap::ValueEnum;
use std::collections::BTreeSet;

/// A yield placement policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum, serde::Serialize, serde::Deserialize)]
pub enum YieldMode {
    /// After every shared access and around every lock operation.
    All,
    /// Lock operations only for a pair proven race-free, else as `all`.
    Epp,
    /// After accesses to regions not proven for the pair, and around
    /// every lock operation.
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

/// The yield placement of one pair.
#[derive(Clone, Debug)]
pub struct YieldPolicy {
    mode: YieldMode,
    /// The regions the lockset phase proved race-free for the pair.
    proven: BTreeSet<RegionId>,
    /// Whether every region of the pair was proven.
    pair_proven: bool,
}

impl YieldPolicy {
    /// The policy of a pair whose proven regions are `proven`
    /// (`pair_proven` when no region of the pair is unproven).
    pub fn new(mode: YieldMode, proven: BTreeSet<RegionId>, pair_proven: bool) -> YieldPolicy {
        YieldPolicy { mode, proven, pair_proven }
    }

    /// Whether a thread yields after accessing a shared `region`
    /// (atomically when `atomic`).
    pub fn after_access(&self, region: RegionId, atomic: bool) -> bool {
        match self.mode {
            YieldMode::All => true,
            YieldMode::Epp => atomic || !self.pair_proven,
            YieldMode::Mr => atomic || !self.proven.contains(&region),
        }
    }
}
