//! History: one earlier complete call of a callback, run after init and
//! before the pair, for a race that needs the driver's memory in a state
//! only earlier calls leave.
//!
//! # Algorithm
//!
//! A kernel module's run starts from its load-time memory: every global
//! holds its C initial value (zero, or its constant initialiser), except
//! module parameters, which the loader sets before init
//! ([`super::start::StartValues::of_module`]). The search starts from
//! arbitrary memory, which also covers every state earlier calls can
//! leave; its witness is replayed under the module-start check
//! ([`super::replay::ModuleStart`]), which rejects a witness whose run
//! reads, as a global's value before init, anything but its load-time
//! value, and names the region of that global. The search then asks
//! again with the load-time values assumed.
//!
//! When it finds nothing that way, the race may still be real: a global
//! that init leaves at 0 and an earlier `ioctl` sets. So the search runs
//! once more per candidate callback `h`, as init's second sequential
//! thread: init runs from load-time memory, then `h` runs alone to its
//! end (on arguments the kernel may pass, after its begin callback when it
//! has one, [`super::prefix`], and only once a registration made it
//! live), then the pair runs as before. The candidates ([`candidates`])
//! are the entry points other than init and exit ones that write a
//! region the rejected witnesses needed at another value, or that arm a
//! callback they started without a registration of the run naming it, at
//! most [`CANDIDATES`] of them, in the program's order.
//!
//! Liveness: the replay makes a kernel module's callback live only where
//! a registration naming it runs in the witness (init's `misc_register`,
//! an `ioctl`'s `mod_timer`). The search itself, without a history, also
//! lets a callback start that a live callback's body may arm
//! ([`super::liveness`]), which stands for an earlier call that did; such
//! a witness is rejected unless the history search shows that call.
//!
//! # Soundness
//!
//! It adds no "not found": a region whose havoc witness was rejected and
//! whose history searches found nothing stays unknown, since longer
//! histories were not searched. A witness found with a history is a run
//! the kernel can make: the module is loaded, init runs, `h` is called
//! once it is registered and returns, then the pair runs; the replay
//! checks the whole of it, the history's liveness included. Running `h`
//! alone before the pair needs no kernel guarantee (the kernel may always
//! delay the pair); its accesses carry no race check, since its races
//! with the pair's threads are other pairs' verdicts.

use crate::ir::{EntryPointInfo, RegionId};
use crate::models::Role;
use std::collections::BTreeSet;

/// At most this many callbacks are tried as the history of a region.
pub const CANDIDATES: usize = 4;

/// What the rejected witnesses of a region needed that loading the
/// module and init do not give.
#[derive(Clone, Debug, Default)]
pub struct Needs {
    /// Regions whose globals they read at values other than the load-time
    /// ones.
    pub regions: BTreeSet<RegionId>,
    /// Callbacks they started that no registration of the run named.
    pub live: BTreeSet<String>,
}

impl Needs {
    /// Adds what `other` needs.
    pub fn extend(&mut self, other: &Needs) {
        self.regions.extend(other.regions.iter().copied());
        self.live.extend(other.live.iter().cloned());
    }
}

/// The entry points (by the index pairs use) that may run as the history
/// of a race whose witnesses needed `needed`: those, other than init and
/// exit entry points, whose footprint writes one of the regions, or whose
/// body registers (arms) one of the callbacks.
pub fn candidates(
    entries: &[&EntryPointInfo],
    footprints: &[super::yields::Footprint],
    closure: &super::liveness::LiveClosure,
    needed: &Needs,
) -> Vec<usize> {
    entries
        .iter()
        .zip(footprints)
        .enumerate()
        .filter(|(_, (e, _))| e.kind.role() == Role::Live)
        .filter(|(_, (e, f))| f.writes.iter().any(|r| needed.regions.contains(r)) || needed.live.iter().any(|n| closure.arms(&e.name, n)))
        .map(|(i, _)| i)
        .take(CANDIDATES)
        .collect()
}
