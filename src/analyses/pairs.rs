//! Candidate pairs of entry points that may run concurrently.
//!
//! Every unordered pair of entry points, self-pairs included (two CPUs may
//! run the same `read` for two tasks), minus the pairs with an exit entry
//! point: `module_exit` and `remove` run after the kernel has stopped calling
//! into the device, so they race with nothing of the driver's. The kernel's
//! further serialisation (device lock, RTNL, one handler per IRQ line) is a
//! later, data-driven pass; until then the list over-approximates, which is
//! the sound direction: a pair kept too many may cost a false alarm, never a
//! missed race.

use crate::frontend::entry_points::DriverEntryPoints;
use crate::models::Role;

/// Two entry points that may run at the same time, as indexes into
/// [`DriverEntryPoints::entry_points`]; `first <= second`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    /// The first entry point.
    pub first: usize,
    /// The second, equal to `first` for a self-pair.
    pub second: usize,
}

/// All candidate pairs, in order.
pub fn candidate_pairs(driver: &DriverEntryPoints) -> Vec<Pair> {
    let live: Vec<usize> =
        (0..driver.entry_points.len()).filter(|&i| driver.entry_points[i].role() != Role::Exit).collect();
    let mut pairs = Vec::with_capacity(live.len() * (live.len() + 1) / 2);
    for (n, &first) in live.iter().enumerate() {
        for &second in &live[n..] {
            pairs.push(Pair { first, second });
        }
    }
    pairs
}
