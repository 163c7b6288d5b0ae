//! History: earlier complete calls of callbacks, run one after another
//! after init and before the pair, for a race that needs the driver's
//! memory, or a callback's arming, in a state only earlier calls leave.
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
//! once more per candidate history `h1, …`, each callback a further
//! sequential thread of init: init runs from load-time memory, then each
//! callback runs alone to its end (on arguments the kernel may pass, after
//! its begin callback when it has one, [`super::prefix`], and only once a
//! registration of the run made it live), then the pair runs as before.
//! The candidates ([`candidates`]) are the entry points other than init
//! and exit ones that write a region the rejected witnesses needed at
//! another value, or that arm a callback they started without a
//! registration of the run naming it; then, for an arming candidate, the
//! entry points arming it followed by it; at most [`CANDIDATES`]
//! histories, in the program's order. A callback of the history or of the
//! pair whose begin callback the history ran works on the history's object
//! ([`Objects`]): one open file, then its calls.
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
//! the kernel can make: the module is loaded, init runs, each callback of
//! the history is called once it is registered or armed and returns, then
//! the pair runs; the replay checks the whole of it, the history's
//! liveness included. Running the history alone before the pair needs no
//! kernel guarantee (the kernel may always delay the pair); its accesses
//! carry no race check, since its races with the pair's threads are other
//! pairs' verdicts.

use super::prefix::Prefix;
use crate::ir::{EntryPointInfo, RegionId};
use crate::models::{Role, Stage};
use crate::solver::TermId;
use std::collections::BTreeSet;

/// At most this many histories are tried for a region.
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

/// The histories to try for a race whose witnesses needed `needed`, each
/// a sequence of entry points (by the index pairs use) run in order: first
/// each entry point, other than init and exit ones, whose footprint writes
/// one of the regions or whose body registers (arms) one of the callbacks;
/// then, for a callback such a candidate arms, each entry point arming
/// that candidate followed by it (a file's `open` requesting the interrupt
/// whose handler arms the timer). At most [`CANDIDATES`] histories.
pub fn candidates(
    entries: &[&EntryPointInfo],
    footprints: &[super::yields::Footprint],
    closure: &super::liveness::LiveClosure,
    needed: &Needs,
) -> Vec<Vec<usize>> {
    let live = |i: usize| entries[i].kind.role() == Role::Live;
    let arming = |i: usize, name: &str| live(i) && closure.arms(&entries[i].name, name);
    let first: Vec<usize> = (0..entries.len())
        .filter(|&i| live(i))
        .filter(|&i| footprints.get(i).is_some_and(|f| f.writes.iter().any(|r| needed.regions.contains(r))) || needed.live.iter().any(|n| arming(i, n)))
        .collect();
    let mut out: Vec<Vec<usize>> = first.iter().map(|&i| vec![i]).collect();
    for &a in first.iter().filter(|&&a| needed.live.iter().any(|n| arming(a, n))) {
        for b in (0..entries.len()).filter(|&b| b != a && arming(b, &entries[a].name)) {
            out.push(vec![b, a]);
        }
    }
    out.truncate(CANDIDATES);
    out
}

/// The kernel objects the history's callbacks worked on, by lifetime
/// rule: a later callback of the history, or a thread of the pair, whose
/// begin callback (a file's `open`) an earlier callback of the history ran
/// or was, works on that object instead of running its own (the file
/// opened once, then its `read`); a rule whose end callback (`release`)
/// the history ran shares nothing, since no callback of that object runs
/// after it.
#[derive(Clone, Debug, Default)]
pub struct Objects {
    held: Vec<(String, TermId)>,
    ended: BTreeSet<String>,
}

impl Objects {
    /// How a thread with the begin prefix `prefix` starts: without it and
    /// on the history's object when the history holds one of its rule.
    pub fn start(&self, prefix: Option<Prefix>) -> (Option<Prefix>, Option<(usize, TermId)>) {
        let Some(p) = prefix else { return (None, None) };
        if self.ended.contains(&p.rule) {
            return (Some(p), None);
        }
        match self.held.iter().find(|(rule, _)| *rule == p.rule) {
            Some(&(_, object)) => (None, Some((p.own, object))),
            None => (Some(p), None),
        }
    }

    /// Records the objects of a history callback `e` that ran on `args`.
    pub fn record(&mut self, e: &EntryPointInfo, args: &[TermId]) {
        for o in &e.objects {
            if o.stage == Stage::End {
                self.ended.insert(o.rule.clone());
            } else if let Some(&a) = args.get(o.param) {
                if !self.held.iter().any(|(rule, _)| *rule == o.rule) {
                    self.held.push((o.rule.clone(), a));
                }
            }
        }
    }
}
