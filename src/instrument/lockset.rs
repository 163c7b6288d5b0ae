//! The symbolic lockset instrumentation (Whoop, thesis §3.3).
//!
//! # Algorithm
//!
//! Every procedure is instrumented once, in place, with ghost state, all
//! booleans unless said otherwise:
//!
//! - `CLS[L]`: the running entry point currently holds lock L (any mode);
//!   `CLX[L]`: holds it exclusively (only for locks with a shared mode);
//! - `LSR[R][L]`: L was held at every read of the watched address of
//!   region R (plain or atomic), and `LSW[R][L]` at every write to it, so
//!   that each conflicting kind of pair (write/write, write/read) is
//!   checked with the locks of the accesses it is made of: a read without
//!   a lock does not hide the lock of every write, and the race report
//!   names the accesses that conflict with the locks each held;
//! - `LSX[R][L]`: L was held exclusively at every write to it, and
//!   `LSRX[R][L]` at every read of it (only for locks with a shared mode):
//!   an access holding L exclusively excludes every other holder of L, so
//!   a write under the shared mode beside a read under the exclusive one
//!   (a file's `write` beside another file's `open` that took the
//!   single-open bit, src/frontend/lower/owned_bits.rs) does not race;
//! - `READ[R]`, `WRITE[R]`, `AREAD[R]`, `AWRITE[R]`: the watched address
//!   was read or written, plainly or atomically;
//! - `SITE[R]` (integer): the access site that last hit it, per read and
//!   write, for the race report;
//! - `LIVE`: the other entry point of the pair can run. It starts true for
//!   every entry point but init (module init, probe), where it starts false
//!   until init makes that entry point live. Accesses made while it is
//!   false are not recorded, since the other entry point cannot run yet, so
//!   the part of init after the registration that makes a callback live is
//!   what pairs with that callback ("registered before initialised" races).
//! - `PARTNER` (integer, never assigned): the index of the other entry point
//!   of the pair, fixed by the pair check. A `live` command with target set
//!   T (the callbacks the kernel models say the call makes live,
//!   [`crate::ir::Command::MakeLive`]) becomes `LIVE := LIVE || PARTNER ∈
//!   T*`, where T* closes T under "a live callback may itself make others
//!   live" (the targets of every `live` command the callbacks of T* reach);
//!   a `live` command without targets (any call the lowering cannot see
//!   into, an unresolved function pointer, a registration the models do not
//!   narrow) makes every callback live: `LIVE := true`. One instrumented
//!   procedure and one Houdini summary serve every partner: the summaries
//!   are formulas over `PARTNER` ([`crate::vcgen::contracts`]). A
//!   `quiesce` command with effective set Q (the callbacks the call waits
//!   for and that nothing still live can make live again,
//!   [`crate::analyses::quiesce`]) becomes `LIVE := LIVE && PARTNER ∉ Q`:
//!   what the running entry point does afterwards cannot race with a
//!   quiesced partner (teardown: `free_irq`, `timer_delete_sync`, …).
//!
//! The ghost state belongs to "the entry point running": a pair check
//! encodes the two entry points' bodies separately, each from its own
//! start state, so their ghost variables get different SSA incarnations
//! and are renamed apart without copying any procedure (a self-pair is two
//! encodings of the same body). This is what lets Houdini infer each
//! procedure's summary once for all the entry points that reach it.
//!
//! One unconstrained integer `W_R` per region R, shared by both entry
//! points of a pair, is the watched address: proving the pair assertion
//! for an arbitrary `W_R` proves it for every address of R. An access to R
//! at address `a` becomes, with `hit = (a == W_R) && LIVE`:
//!
//! ```text
//! READ[R] := READ[R] || hit;                  (or WRITE, AREAD, AWRITE)
//! LSR[R][L] := LSR[R][L] && (!hit || CLS[L]); for every lock L, at a read
//! LSW[R][L] := LSW[R][L] && (!hit || CLS[L]); the same, at a write
//! SITE[R] := if hit then site else SITE[R];
//! ```
//!
//! A read of shared memory returns an arbitrary value (`havoc`) and a write
//! is not modelled: this abstraction covers whatever any number of other
//! threads do to shared memory, so the memory maps disappear. Accesses to
//! thread-private regions, and `.private` accesses (memory private to
//! the running call, src/analyses/private.rs), are not watched (their
//! reads are still arbitrary). `lock L` sets `CLS[L]`, `unlock L` clears it, a trylock
//! sets it to an arbitrary success value; `lock ?` (an unidentified lock)
//! and interrupt control change nothing, so they protect nothing.
//!
//! # Selected accesses
//!
//! `LSW[R][L]` intersects the locks over every write of an entry point, so
//! a write under {A, C} in one entry point against writes under {A, B} and
//! under {C} in the other looks unprotected although every pair of
//! accesses shares a lock. Each hit therefore also selects itself, or not,
//! as the one access the pair check looks at:
//!
//! ```text
//! CHOOSE := *;
//! if (hit && CHOOSE) { SEL[R] := true; SELW[R] := write; SELA[R] := atomic;
//!                      SELLS[R][L] := CLS[L]; SELLSX[R][L] := CLX[L]; }
//! ```
//!
//! Some run of CHOOSE leaves any one hit selected (true there, false at
//! every later hit), so a pair of conflicting accesses with disjoint
//! locksets is a model of the selected pair's failure condition
//! ([`crate::vcgen::pair`]): proving it unsatisfiable proves the region
//! race-free for the pair. The selection variables have no Houdini
//! candidate (a call that may change them leaves them arbitrary, which
//! loses precision, not soundness), and only the second check of a region
//! the intersection check reports encodes them; Houdini and the first check
//! slice them away ([`LocksetProgram::selection_vars`]).
//!
//! # Soundness
//!
//! The ghost updates only record; the program's own behaviour is only
//! made less determined (reads havocked), so every execution of the driver
//! is an execution of the instrumented program. Approximations that affect
//! soundness reachable from an entry point are collected, so that the
//! verdicts of its pairs can be made unknown.

use crate::diagnostics::Span;
use crate::ir::{
    AccessKind, BlockId, Command, Expr, LockId, LockMode, ProcId, Program, RegionId, Sort, Terminator, VarId,
};
use crate::models::EntryKind;
use std::collections::{BTreeMap, BTreeSet};

/// One access the race report can point at.
#[derive(Clone, Debug)]
pub struct AccessSite {
    /// The region accessed.
    pub region: RegionId,
    /// A write rather than a read.
    pub write: bool,
    /// An atomic access.
    pub atomic: bool,
    /// Where in C.
    pub span: Option<Span>,
    /// The procedure containing it.
    pub procedure: ProcId,
    /// Its C function's name.
    pub function: String,
}

/// The ghost variables of the instrumented program.
#[derive(Clone, Debug)]
pub struct Ghost {
    /// `CLS[L]`.
    pub cls: BTreeMap<LockId, VarId>,
    /// `CLX[L]`, for locks with a shared mode.
    pub clx: BTreeMap<LockId, VarId>,
    /// `READ[R]`, plain reads.
    pub read: BTreeMap<RegionId, VarId>,
    /// `WRITE[R]`, plain writes.
    pub write: BTreeMap<RegionId, VarId>,
    /// `AREAD[R]`, atomic reads.
    pub aread: BTreeMap<RegionId, VarId>,
    /// `AWRITE[R]`, atomic writes.
    pub awrite: BTreeMap<RegionId, VarId>,
    /// `LSR[R][L]`.
    pub lsr: BTreeMap<(RegionId, LockId), VarId>,
    /// `LSX[R][L]`, for locks with a shared mode.
    pub lsx: BTreeMap<(RegionId, LockId), VarId>,
    /// `LSRX[R][L]`, for locks with a shared mode.
    pub lsrx: BTreeMap<(RegionId, LockId), VarId>,
    /// `LSW[R][L]`.
    pub lsw: BTreeMap<(RegionId, LockId), VarId>,
    /// The last plain read site hitting the watched address.
    pub site_read: BTreeMap<RegionId, VarId>,
    /// The last plain write site hitting it.
    pub site_write: BTreeMap<RegionId, VarId>,
    /// The last atomic read site hitting it.
    pub site_aread: BTreeMap<RegionId, VarId>,
    /// The last atomic write site hitting it. Four site variables, one
    /// per flag, so that the race report can name two accesses that race
    /// (not both atomic), not the last of each direction.
    pub site_awrite: BTreeMap<RegionId, VarId>,
    /// Whether the other entry point of the pair can run.
    pub live: VarId,
    /// The index of the other entry point of the pair.
    pub partner: VarId,
    /// The selection of one access per entry point (see "Selected
    /// accesses" above).
    pub selection: Selection,
}

/// The ghost variables selecting one access per entry point and region:
/// `CHOOSE` (an arbitrary boolean, havocked at every hit), `SEL[R]`,
/// `SELW[R]`, `SELA[R]` (the selected access is a write, atomic), and
/// `SELLS[R][L]`, `SELLSX[R][L]` (the lock state at it).
#[derive(Clone, Debug)]
pub struct Selection {
    /// `CHOOSE`.
    pub choose: VarId,
    /// `SEL[R]`.
    pub sel: BTreeMap<RegionId, VarId>,
    /// `SELW[R]`.
    pub write: BTreeMap<RegionId, VarId>,
    /// `SELA[R]`.
    pub atomic: BTreeMap<RegionId, VarId>,
    /// `SELLS[R][L]`.
    pub ls: BTreeMap<(RegionId, LockId), VarId>,
    /// `SELLSX[R][L]`.
    pub lsx: BTreeMap<(RegionId, LockId), VarId>,
}

impl Selection {
    /// The selection variables kept per region, with their region.
    fn region_vars(&self) -> impl Iterator<Item = (RegionId, VarId)> + '_ {
        let flags = [&self.sel, &self.write, &self.atomic].into_iter().flat_map(|m| m.iter().map(|(r, v)| (*r, *v)));
        flags.chain(self.ls.iter().chain(&self.lsx).map(|((r, _), v)| (*r, *v)))
    }

    /// Every selection variable, `CHOOSE` included: the ones the
    /// intersection check and Houdini slice away.
    pub fn vars(&self) -> std::collections::HashSet<VarId> {
        let flags = self.sel.values().chain(self.write.values()).chain(self.atomic.values());
        flags.chain(self.ls.values()).chain(self.lsx.values()).chain([&self.choose]).copied().collect()
    }
}

impl Ghost {
    /// The value of every ghost variable at the start of an entry point's
    /// run: no lock held, nothing accessed, every lockset full, and
    /// callbacks live unless the entry point is an init one.
    pub fn initial_values(&self, init: bool) -> Vec<(VarId, Expr)> {
        let mut out = Vec::new();
        for v in self.cls.values().chain(self.clx.values()) {
            out.push((*v, Expr::bool(false)));
        }
        for v in self.read.values().chain(self.write.values()).chain(self.aread.values()).chain(self.awrite.values()) {
            out.push((*v, Expr::bool(false)));
        }
        for v in self.lsr.values().chain(self.lsx.values()).chain(self.lsrx.values()).chain(self.lsw.values()) {
            out.push((*v, Expr::bool(true)));
        }
        for v in self.site_vars() {
            out.push((v, Expr::int(-1)));
        }
        for v in self.selection.sel.values() {
            out.push((*v, Expr::bool(false)));
        }
        out.push((self.live, Expr::bool(!init)));
        out
    }

    /// Every site variable.
    pub fn site_vars(&self) -> impl Iterator<Item = VarId> + '_ {
        [&self.site_read, &self.site_write, &self.site_aread, &self.site_awrite].into_iter().flat_map(|m| m.values().copied())
    }

    /// The access flag of accesses of one kind to region `r`.
    pub fn flag_var(&self, r: RegionId, write: bool, atomic: bool) -> VarId {
        by_kind([&self.read, &self.write, &self.aread, &self.awrite], write, atomic)[&r]
    }

    /// The site variable of accesses of one kind to region `r`.
    pub fn site_var(&self, r: RegionId, write: bool, atomic: bool) -> VarId {
        by_kind([&self.site_read, &self.site_write, &self.site_aread, &self.site_awrite], write, atomic)[&r]
    }

    /// The ghost variables kept per region, with their region: access
    /// flags, site variables and locksets.
    pub fn region_vars(&self) -> impl Iterator<Item = (RegionId, VarId)> + '_ {
        let per_region = [&self.read, &self.write, &self.aread, &self.awrite, &self.site_read, &self.site_write, &self.site_aread, &self.site_awrite];
        per_region
            .into_iter()
            .flat_map(|m| m.iter().map(|(r, v)| (*r, *v)))
            .chain(self.lsr.iter().chain(&self.lsx).chain(&self.lsw).map(|((r, _), v)| (*r, *v)))
            .chain(self.selection.region_vars())
    }
}

/// The map of one kind of access among the plain read, plain write,
/// atomic read and atomic write ones.
fn by_kind<T>(maps: [T; 4], write: bool, atomic: bool) -> T {
    let [read, write_map, aread, awrite] = maps;
    match (write, atomic) {
        (false, false) => read,
        (true, false) => write_map,
        (false, true) => aread,
        (true, true) => awrite,
    }
}

/// One entry point of the instrumented program.
#[derive(Clone, Debug)]
pub struct InstrumentedEntry {
    /// The C function.
    pub name: String,
    /// Its kind.
    pub kind: EntryKind,
    /// Its procedure.
    pub procedure: ProcId,
    /// Every procedure it reaches, itself first.
    pub procedures: Vec<ProcId>,
    /// The shared regions it accesses.
    pub regions: BTreeSet<RegionId>,
    /// Approximations reachable from it that affect soundness.
    pub unsound: Vec<(Option<Span>, String)>,
}

impl InstrumentedEntry {
    /// Whether it runs before its callbacks are live (module init, probe).
    pub fn is_init(&self) -> bool {
        self.kind.role() == crate::models::Role::Init
    }
}

/// A driver's program instrumented for the lockset analysis.
#[derive(Clone, Debug)]
pub struct LocksetProgram {
    /// The lowered program, every procedure instrumented, plus the ghost
    /// globals.
    pub program: Program,
    /// The ghost variables.
    pub ghost: Ghost,
    /// The region of every per-region ghost variable (for slicing).
    pub region_of: std::collections::HashMap<VarId, RegionId>,
    /// The entry points, in the lowered program's order.
    pub entries: Vec<InstrumentedEntry>,
    /// `W_R` of every shared region.
    pub watched: BTreeMap<RegionId, VarId>,
    /// The selection variables ([`Selection::vars`]).
    pub selection_vars: std::collections::HashSet<VarId>,
    /// Access sites by number.
    pub sites: Vec<AccessSite>,
    /// For every instrumented procedure, the entry points (indices into
    /// `entries`) that running it may make live, closed under callbacks
    /// making others live; `None`: any. A procedure that makes nothing
    /// live is absent.
    pub live_within: std::collections::HashMap<ProcId, LiveSet>,
    /// For every procedure that surely leaves some entry points quiesced
    /// when it returns, those entry points ([`crate::analyses::quiesce`]).
    pub quiesced_within: std::collections::HashMap<ProcId, BTreeSet<usize>>,
    /// Whether some `quiesce` command clears `LIVE` for some partner (then
    /// `LIVE` is not monotone).
    pub quiesces: bool,
    /// Pairs (entry point, partner), by index, where the partner cannot be
    /// running when the entry point starts ([`quiet_at_begin`]): `LIVE`
    /// starts false.
    pub quiet_at_start: BTreeSet<(usize, usize)>,
}

/// A set of entry points made live (indices into
/// [`LocksetProgram::entries`]); `None`: all of them.
pub type LiveSet = Option<BTreeSet<usize>>;

/// `a := a ∪ b`.
pub(crate) fn join_sets(a: &mut LiveSet, b: &LiveSet) {
    join(a, b)
}

/// `a := a ∪ b`.
fn join(a: &mut LiveSet, b: &LiveSet) {
    match (a.as_mut(), b) {
        (Some(x), Some(y)) => x.extend(y.iter().copied()),
        (Some(_), None) => *a = None,
        (None, _) => {}
    }
}

/// The entry points made live per procedure: the direct targets of its
/// own `live` commands, the closure of a target set, and the set a
/// procedure and its callees may make live.
pub(crate) struct Liveness {
    /// Per procedure, the union of the (unclosed) targets of its commands.
    direct: std::collections::HashMap<ProcId, LiveSet>,
    /// Per entry point, what its body (callees included) makes live.
    pub(crate) per_entry: Vec<LiveSet>,
    pub(crate) index: std::collections::HashMap<String, usize>,
}

impl Liveness {
    /// The liveness of a lowered program's entry points, in its order.
    pub(crate) fn of(lowered: &Program) -> Liveness {
        Liveness::new(lowered, &Liveness::entries(lowered))
    }

    /// Each entry point's name with the procedures it reaches.
    fn entries(lowered: &Program) -> Vec<(String, Vec<ProcId>)> {
        lowered.entry_points.values().map(|e| (e.name.clone(), lowered.reachable(e.procedure))).collect()
    }

    /// The liveness counting only the `live` commands of calls to
    /// `functions` that a model describes (not `live assumed`): what can
    /// re-arm a callback that only those functions re-arm.
    pub(crate) fn of_functions(lowered: &Program, functions: &[String]) -> Liveness {
        Liveness::build(lowered, &Liveness::entries(lowered), &|c| {
            matches!(c, Command::MakeLive { function, assumed: false, .. } if functions.contains(function))
        })
    }

    /// As [`Liveness::of_functions`], not counting the commands `skip`
    /// names (by address in `lowered`): the re-arming calls that cannot
    /// re-arm what another caller holds ([`crate::analyses::quiesce`]).
    pub(crate) fn of_functions_except(lowered: &Program, functions: &[String], skip: &std::collections::HashSet<*const Command>) -> Liveness {
        Liveness::build(lowered, &Liveness::entries(lowered), &|c| {
            matches!(c, Command::MakeLive { function, assumed: false, .. } if functions.contains(function)) && !skip.contains(&(c as *const Command))
        })
    }

    fn new(lowered: &Program, entries: &[(String, Vec<ProcId>)]) -> Liveness {
        Liveness::build(lowered, entries, &|_| true)
    }

    fn build(lowered: &Program, entries: &[(String, Vec<ProcId>)], counts: &dyn Fn(&Command) -> bool) -> Liveness {
        let index: std::collections::HashMap<String, usize> = entries.iter().enumerate().map(|(i, e)| (e.0.clone(), i)).collect();
        let mut direct = std::collections::HashMap::new();
        for (p, procedure) in lowered.procedures.iter() {
            let mut set: LiveSet = Some(BTreeSet::new());
            let mut any = false;
            for (_, block) in procedure.blocks.iter() {
                for c in &block.commands {
                    if let Command::MakeLive { targets, .. } = c {
                        if !counts(c) {
                            continue;
                        }
                        any = true;
                        join(&mut set, &targets_of(&index, targets));
                    }
                }
            }
            if any {
                direct.insert(p, set);
            }
        }
        let mut this = Liveness { direct, per_entry: Vec::new(), index };
        this.per_entry = entries.iter().map(|e| this.reached(&e.1)).collect();
        this
    }

    /// The union of the direct targets of `procs` (unclosed).
    pub(crate) fn reached(&self, procs: &[ProcId]) -> LiveSet {
        let mut set = Some(BTreeSet::new());
        for p in procs {
            if let Some(d) = self.direct.get(p) {
                join(&mut set, d);
            }
        }
        set
    }

    /// `set` closed under "a live entry point makes what its body makes
    /// live".
    pub(crate) fn close(&self, set: &LiveSet) -> LiveSet {
        self.close_unless(set, &|_| false)
    }

    /// `set` closed under "a live entry point makes what its body makes
    /// live", except for the entry points `stop` names, which are live but
    /// whose bodies are not followed.
    pub(crate) fn close_unless(&self, set: &LiveSet, stop: &dyn Fn(usize) -> bool) -> LiveSet {
        let mut out = set.clone();
        let mut todo: Vec<usize> = set.iter().flatten().copied().collect();
        let mut done = BTreeSet::new();
        while let Some(e) = todo.pop() {
            if !done.insert(e) || stop(e) {
                continue;
            }
            let reach = &self.per_entry[e];
            join(&mut out, reach);
            match &out {
                None => return None,
                Some(_) => todo.extend(reach.iter().flatten().copied()),
            }
        }
        out
    }
}

/// The entry points a `live` command names (those that are entry points
/// of this program; `None`: all).
pub(crate) fn targets_of(index: &std::collections::HashMap<String, usize>, targets: &Option<Vec<String>>) -> LiveSet {
    targets.as_ref().map(|t| t.iter().filter_map(|f| index.get(f).copied()).collect())
}

/// `PARTNER ∈ set`, for a non-empty finite set (`true` for all).
pub fn partner_in(partner: Expr, set: &LiveSet) -> Expr {
    match set {
        None => Expr::bool(true),
        Some(s) => Expr::or_all(s.iter().map(|i| Expr::eq(partner.clone(), Expr::int(*i as i128))).collect()),
    }
}

/// Instruments a lowered program for every entry point; `held[i]` are the
/// kernel pseudo locks entry point `i` runs holding.
pub fn instrument(lowered: &Program, held: &[BTreeSet<LockId>]) -> LocksetProgram {
    let mut program = lowered.clone();
    let mut watched = BTreeMap::new();
    for (r, region) in lowered.regions.iter() {
        if !region.thread_private {
            let v = program.add_ghost_global(format!("W_{}", r.as_u32()), Sort::Int);
            watched.insert(r, v);
        }
    }
    let entries: Vec<InstrumentedEntry> = lowered
        .entry_points
        .values()
        .map(|e| {
            let procedures = lowered.reachable(e.procedure);
            let (regions, unsound) = touched(lowered, &procedures);
            InstrumentedEntry { name: e.name.clone(), kind: e.kind, procedure: e.procedure, procedures, regions, unsound }
        })
        .collect();
    let regions: BTreeSet<RegionId> = entries.iter().flat_map(|e| e.regions.iter().copied()).collect();
    // The locks each entry point runs holding: the kernel's pseudo locks,
    // and the bit locks its open object holds.
    let roots: Vec<(ProcId, BTreeSet<LockId>)> = entries
        .iter()
        .zip(lowered.entry_points.values())
        .enumerate()
        .map(|(i, (e, info))| {
            // The kernel's locks are held exclusively (src/vcgen/pair.rs).
            let kernel = held.get(i).cloned().unwrap_or_default();
            let mut locks: BTreeSet<LockId> = kernel.iter().flat_map(|l| [*l, crate::analyses::held::exclusive_token(*l)]).collect();
            for (l, mode) in &info.held_by_object {
                locks.insert(*l);
                if *mode == LockMode::Exclusive {
                    locks.insert(crate::analyses::held::exclusive_token(*l));
                }
            }
            (e.procedure, locks)
        })
        .collect();
    let locks_at = crate::analyses::held::locks_at_accesses(lowered, &roots);
    let ghost = declare_ghost(&mut program, lowered, &regions, &locks_at);
    let reached: BTreeSet<ProcId> = entries.iter().flat_map(|e| e.procedures.iter().copied()).collect();
    let parts: Vec<(String, Vec<ProcId>)> = entries.iter().map(|e| (e.name.clone(), e.procedures.clone())).collect();
    let liveness = Liveness::new(lowered, &parts);
    let mut live_within = std::collections::HashMap::new();
    for &p in &reached {
        let set = liveness.close(&liveness.reached(&lowered.reachable(p)));
        if set.as_ref().is_none_or(|s| !s.is_empty()) {
            live_within.insert(p, set);
        }
    }
    let mut cx = Context { ghost: &ghost, watched: &watched, regions: &regions, sites: Vec::new(), liveness: &liveness, quiesces: false };
    for p in reached {
        instrument_procedure(&mut cx, &mut program, lowered, p);
    }
    let sites = cx.sites;
    let region_of = ghost.region_vars().map(|(r, v)| (v, r)).collect();
    let quiesced_within = crate::analyses::quiesce::summaries(lowered);
    let quiesces = cx.quiesces;
    let quiet_at_start = quiet_at_begin(lowered, &liveness, &quiesced_within);
    let selection_vars = ghost.selection.vars();
    LocksetProgram {
        program,
        ghost,
        region_of,
        entries,
        watched,
        selection_vars,
        sites,
        live_within,
        quiesced_within,
        quiesces,
        quiet_at_start,
    }
}

/// The callbacks not running when a `begin` callback of a lifetime rule
/// with `quiet-at-begin` starts (`ndo_open`: the device is down, either
/// never opened or closed by `ndo_stop`).
///
/// Let B be the rule's begin entry points and E its end ones. Outside the
/// object's life, what may be live is L0: the closure of what every entry
/// point but B makes live, not passing through B. A callback B made live
/// in an earlier life may still be live unless every end entry point
/// leaves it quiesced when it returns (its quiescing summary). So what may
/// be running when b ∈ B starts is the closure (not through B) of L0 and of
/// what b makes live minus what every end leaves quiesced; every other
/// entry point is quiet: the pair (b, x) starts with `LIVE` false.
///
/// Soundness rests on the rule's mechanism (the kernel calls begin only
/// on an object that is new or ended, `__dev_open` only for a device
/// without IFF_UP, under RTNL) and on one assumption (docs/soundness.md):
/// a begin call that fails leaves no callback running that its end would
/// have stopped, since the kernel will not call end after a failed begin.
fn quiet_at_begin(
    lowered: &Program,
    liveness: &Liveness,
    quiesced: &std::collections::HashMap<ProcId, BTreeSet<usize>>,
) -> BTreeSet<(usize, usize)> {
    let entries: Vec<&crate::ir::EntryPointInfo> = lowered.entry_points.values().collect();
    let mut rules: BTreeSet<&str> = BTreeSet::new();
    for e in &entries {
        for o in &e.objects {
            if o.quiet_at_begin {
                rules.insert(&o.rule);
            }
        }
    }
    let mut out = BTreeSet::new();
    for rule in rules {
        let stage_of = |e: &crate::ir::EntryPointInfo, stage: crate::models::Stage| {
            e.objects.iter().any(|o| o.rule == rule && o.stage == stage)
        };
        let begins: BTreeSet<usize> = (0..entries.len()).filter(|&i| stage_of(entries[i], crate::models::Stage::Begin)).collect();
        let ends: Vec<usize> = (0..entries.len()).filter(|&i| stage_of(entries[i], crate::models::Stage::End)).collect();
        if begins.is_empty() || ends.is_empty() {
            continue;
        }
        // What every end leaves quiesced.
        let mut after_end: Option<BTreeSet<usize>> = None;
        for &e in &ends {
            let s = quiesced.get(&entries[e].procedure).cloned().unwrap_or_default();
            after_end = Some(match after_end {
                None => s,
                Some(a) => a.intersection(&s).copied().collect(),
            });
        }
        let after_end = after_end.unwrap_or_default();
        let stop = |x: usize| begins.contains(&x);
        let mut outside: LiveSet = Some(BTreeSet::new());
        for x in (0..entries.len()).filter(|x| !begins.contains(x)) {
            join(&mut outside, &liveness.per_entry[x]);
        }
        let outside = liveness.close_unless(&outside, &stop);
        for &b in &begins {
            let Some(mut running) = outside.clone() else { continue };
            let Some(earlier) = liveness.close_unless(&liveness.per_entry[b], &stop) else { continue };
            running.extend(earlier.into_iter().filter(|x| !after_end.contains(x)));
            let Some(running) = liveness.close_unless(&Some(running), &stop) else { continue };
            for x in 0..entries.len() {
                if x != b && !running.contains(&x) && !begins.contains(&x) && !ends.contains(&x) {
                    out.insert((b, x));
                }
            }
        }
    }
    out
}

/// What instrumenting a command needs.
struct Context<'a> {
    ghost: &'a Ghost,
    watched: &'a BTreeMap<RegionId, VarId>,
    regions: &'a BTreeSet<RegionId>,
    sites: Vec<AccessSite>,
    liveness: &'a Liveness,
    /// Whether some `quiesce` command was instrumented with an effect.
    quiesces: bool,
}

/// The shared regions some procedure of `procs` accesses, and the
/// approximations affecting soundness they contain.
fn touched(lowered: &Program, procs: &[ProcId]) -> (BTreeSet<RegionId>, Vec<(Option<Span>, String)>) {
    let mut regions = BTreeSet::new();
    let mut unsound = Vec::new();
    for &p in procs {
        for (_, block) in lowered.procedures[p].blocks.iter() {
            for c in &block.commands {
                match c {
                    // Accesses to per-call private memory are not watched.
                    Command::Load { region, access, .. } | Command::Store { region, access, .. } if *access != AccessKind::Private => {
                        if !lowered.regions[*region].thread_private {
                            regions.insert(*region);
                        }
                    }
                    Command::Approximation { kind, detail, span } if kind.affects_soundness() => {
                        unsound.push((span.clone(), format!("{}: {detail}", kind.as_str())));
                    }
                    _ => {}
                }
            }
        }
    }
    (regions, unsound)
}

/// The ghost variables; `LSR[R][L]`, `LSW[R][L]` only for the locks possibly held at an
/// access to R ([`crate::analyses::held`]: another lock cannot protect R),
/// and `LSX[R][L]`, `LSRX[R][L]` only for a lock possibly held exclusively
/// at a write, a read of R (without one the variable would be false once
/// that kind of access hit, which a missing variable means too).
fn declare_ghost(program: &mut Program, lowered: &Program, regions: &BTreeSet<RegionId>, locks_at: &crate::analyses::held::LocksAt) -> Ghost {
    let mut ghost = Ghost {
        cls: BTreeMap::new(),
        clx: BTreeMap::new(),
        read: BTreeMap::new(),
        write: BTreeMap::new(),
        aread: BTreeMap::new(),
        awrite: BTreeMap::new(),
        lsr: BTreeMap::new(),
        lsx: BTreeMap::new(),
        lsrx: BTreeMap::new(),
        lsw: BTreeMap::new(),
        site_read: BTreeMap::new(),
        site_write: BTreeMap::new(),
        site_aread: BTreeMap::new(),
        site_awrite: BTreeMap::new(),
        live: program.add_ghost_global("LIVE", Sort::Bool),
        partner: program.add_ghost_global("PARTNER", Sort::Int),
        selection: Selection {
            choose: program.add_ghost_global("CHOOSE", Sort::Bool),
            sel: BTreeMap::new(),
            write: BTreeMap::new(),
            atomic: BTreeMap::new(),
            ls: BTreeMap::new(),
            lsx: BTreeMap::new(),
        },
    };
    for (l, lock) in lowered.locks.iter() {
        ghost.cls.insert(l, program.add_ghost_global(format!("CLS_l{}", l.as_u32()), Sort::Bool));
        if lock.kind.has_shared_mode() {
            ghost.clx.insert(l, program.add_ghost_global(format!("CLX_l{}", l.as_u32()), Sort::Bool));
        }
    }
    for &r in regions {
        let n = r.as_u32();
        ghost.read.insert(r, program.add_ghost_global(format!("READ_r{n}"), Sort::Bool));
        ghost.write.insert(r, program.add_ghost_global(format!("WRITE_r{n}"), Sort::Bool));
        ghost.aread.insert(r, program.add_ghost_global(format!("AREAD_r{n}"), Sort::Bool));
        ghost.awrite.insert(r, program.add_ghost_global(format!("AWRITE_r{n}"), Sort::Bool));
        ghost.site_read.insert(r, program.add_ghost_global(format!("SITER_r{n}"), Sort::Int));
        ghost.site_write.insert(r, program.add_ghost_global(format!("SITEW_r{n}"), Sort::Int));
        ghost.site_aread.insert(r, program.add_ghost_global(format!("SITEAR_r{n}"), Sort::Int));
        ghost.site_awrite.insert(r, program.add_ghost_global(format!("SITEAW_r{n}"), Sort::Int));
        let sel = &mut ghost.selection;
        sel.sel.insert(r, program.add_ghost_global(format!("SEL_r{n}"), Sort::Bool));
        sel.write.insert(r, program.add_ghost_global(format!("SELW_r{n}"), Sort::Bool));
        sel.atomic.insert(r, program.add_ghost_global(format!("SELA_r{n}"), Sort::Bool));
        let exclusive_at = |write: bool, l: LockId| locks_at.exclusive.get(&(r, write)).is_some_and(|x| x.contains(&l));
        for &l in locks_at.any.get(&r).into_iter().flatten() {
            let ln = l.as_u32();
            ghost.lsr.insert((r, l), program.add_ghost_global(format!("LSR_r{n}_l{ln}"), Sort::Bool));
            ghost.lsw.insert((r, l), program.add_ghost_global(format!("LSW_r{n}_l{ln}"), Sort::Bool));
            ghost.selection.ls.insert((r, l), program.add_ghost_global(format!("SELLS_r{n}_l{ln}"), Sort::Bool));
            if ghost.clx.contains_key(&l) {
                if exclusive_at(true, l) {
                    ghost.lsx.insert((r, l), program.add_ghost_global(format!("LSX_r{n}_l{ln}"), Sort::Bool));
                }
                if exclusive_at(false, l) {
                    ghost.lsrx.insert((r, l), program.add_ghost_global(format!("LSRX_r{n}_l{ln}"), Sort::Bool));
                }
                ghost.selection.lsx.insert((r, l), program.add_ghost_global(format!("SELLSX_r{n}_l{ln}"), Sort::Bool));
            }
        }
    }
    ghost
}

/// Instruments one procedure in place.
fn instrument_procedure(cx: &mut Context<'_>, program: &mut Program, lowered: &Program, p: ProcId) {
    let original = &lowered.procedures[p];
    let mut blocks = crate::ir::Arena::<BlockId, crate::ir::Block>::new();
    for (_, block) in original.blocks.iter() {
        let mut commands = Vec::new();
        for c in &block.commands {
            instrument_command(cx, c, (p, crate::ir::Procedure::source_name(&original.name)), &mut commands);
        }
        blocks.push(crate::ir::Block { commands, terminator: block.terminator.clone() });
    }
    let procedure = &mut program.procedures[p];
    procedure.blocks = blocks;
    if !original.body {
        procedure.blocks[procedure.entry].terminator = Terminator::Return;
    }
}

/// The ghost updates of one access.
#[allow(clippy::too_many_arguments)]
fn record_access(
    cx: &mut Context<'_>,
    region: RegionId,
    address: &Expr,
    write: bool,
    atomic: bool,
    span: &Option<Span>,
    (procedure, function): (ProcId, &str),
    out: &mut Vec<Command>,
) {
    let Some(&w) = cx.watched.get(&region) else { return };
    let site = cx.sites.len();
    cx.sites.push(AccessSite { region, write, atomic, span: span.clone(), procedure, function: function.to_string() });
    let ghost = cx.ghost;
    let hit = Expr::and(Expr::eq(address.clone(), Expr::var(w)), Expr::var(ghost.live));
    let flag = ghost.flag_var(region, write, atomic);
    out.push(Command::Assign { target: flag, value: Expr::or(Expr::var(flag), hit.clone()), span: None });
    // The locksets of the access's kind, held and held exclusively.
    let (kind_sets, exclusive_sets) = if write { (&ghost.lsw, &ghost.lsx) } else { (&ghost.lsr, &ghost.lsrx) };
    for (&(r, l), &ls) in kind_sets.range((region, LockId::from_u32(0))..) {
        if r != region {
            break;
        }
        let held = Expr::var(ghost.cls[&l]);
        out.push(Command::Assign { target: ls, value: Expr::and(Expr::var(ls), Expr::or(Expr::not(hit.clone()), held)), span: None });
        if let (Some(&lsx), Some(&clx)) = (exclusive_sets.get(&(r, l)), ghost.clx.get(&l)) {
            let value = Expr::and(Expr::var(lsx), Expr::or(Expr::not(hit.clone()), Expr::var(clx)));
            out.push(Command::Assign { target: lsx, value, span: None });
        }
    }
    let site_var = ghost.site_var(region, write, atomic);
    let value = Expr::ite(hit.clone(), Expr::int(site as i128), Expr::var(site_var));
    out.push(Command::Assign { target: site_var, value, span: None });
    select_access(ghost, region, hit, write, atomic, out);
}

/// `CHOOSE := *; if (hit && CHOOSE) { SEL := true; SELW := write; SELA :=
/// atomic; SELLS[L] := CLS[L]; SELLSX[L] := CLX[L] }`, as assignments.
fn select_access(ghost: &Ghost, region: RegionId, hit: Expr, write: bool, atomic: bool, out: &mut Vec<Command>) {
    let sel = &ghost.selection;
    out.push(Command::Havoc { vars: vec![sel.choose], span: None });
    let take = Expr::and(hit, Expr::var(sel.choose));
    let mut set = |target: VarId, value: Expr| {
        out.push(Command::Assign { target, value: Expr::ite(take.clone(), value, Expr::var(target)), span: None });
    };
    set(sel.sel[&region], Expr::bool(true));
    set(sel.write[&region], Expr::bool(write));
    set(sel.atomic[&region], Expr::bool(atomic));
    for (&(r, l), &v) in sel.ls.range((region, LockId::from_u32(0))..) {
        if r != region {
            break;
        }
        set(v, Expr::var(ghost.cls[&l]));
        if let (Some(&x), Some(&clx)) = (sel.lsx.get(&(r, l)), ghost.clx.get(&l)) {
            set(x, Expr::var(clx));
        }
    }
}

fn instrument_command(cx: &mut Context<'_>, c: &Command, at: (ProcId, &str), out: &mut Vec<Command>) {
    let (ghost, regions) = (cx.ghost, cx.regions);
    match c {
        Command::Load { target, region, address, access, span } => {
            // Shared reads return arbitrary values.
            out.push(Command::Havoc { vars: vec![*target], span: span.clone() });
            if regions.contains(region) && *access != AccessKind::Private {
                let atomic = *access == AccessKind::Atomic;
                record_access(cx, *region, address, false, atomic, span, at, out);
            }
        }
        Command::Store { region, address, access, span, .. } => {
            if regions.contains(region) && *access != AccessKind::Private {
                let atomic = *access == AccessKind::Atomic;
                record_access(cx, *region, address, true, atomic, span, at, out);
            }
        }
        // A trusted annotation: the running entry point holds the lock from
        // here (already, when checked; taken by the kernel's caller, when
        // it is the standing assumption on an entry point's call).
        Command::HeldAnnotation { lock, mode, trusted: true, span, .. } => {
            out.push(Command::Assign { target: ghost.cls[lock], value: Expr::bool(true), span: span.clone() });
            if let (Some(LockMode::Exclusive), Some(&clx)) = (mode, ghost.clx.get(lock)) {
                out.push(Command::Assign { target: clx, value: Expr::bool(true), span: None });
            }
        }
        Command::Lock { lock, mode, span } => {
            out.push(Command::Assign { target: ghost.cls[lock], value: Expr::bool(true), span: span.clone() });
            if let (LockMode::Exclusive, Some(&clx)) = (mode, ghost.clx.get(lock)) {
                out.push(Command::Assign { target: clx, value: Expr::bool(true), span: None });
            }
        }
        Command::TryLock { lock, mode, success, span } => {
            out.push(Command::Havoc { vars: vec![*success], span: span.clone() });
            let cls = ghost.cls[lock];
            out.push(Command::Assign { target: cls, value: Expr::or(Expr::var(cls), Expr::var(*success)), span: None });
            if let (LockMode::Exclusive, Some(&clx)) = (mode, ghost.clx.get(lock)) {
                out.push(Command::Assign { target: clx, value: Expr::or(Expr::var(clx), Expr::var(*success)), span: None });
            }
        }
        Command::Unlock { lock, span, .. } => {
            out.push(Command::Assign { target: ghost.cls[lock], value: Expr::bool(false), span: span.clone() });
            if let Some(&clx) = ghost.clx.get(lock) {
                out.push(Command::Assign { target: clx, value: Expr::bool(false), span: None });
            }
        }
        Command::Assign { .. } | Command::Assume { .. } | Command::Assert { .. } | Command::Havoc { .. } | Command::Call { .. } => {
            out.push(c.clone());
        }
        Command::MakeLive { targets, span, .. } => {
            let set = cx.liveness.close(&targets_of(&cx.liveness.index, targets));
            if set.as_ref().is_none_or(|s| !s.is_empty()) {
                let value = Expr::or(Expr::var(ghost.live), partner_in(Expr::var(ghost.partner), &set));
                out.push(Command::Assign { target: ghost.live, value, span: span.clone() });
            }
        }
        Command::Quiesce { effective, span, .. } => {
            // The partner, if quiesced here, runs no more: the accesses
            // that follow cannot race with it.
            let set: BTreeSet<usize> = effective.iter().filter_map(|f| cx.liveness.index.get(f).copied()).collect();
            if !set.is_empty() {
                cx.quiesces = true;
                let value = Expr::and(Expr::var(ghost.live), Expr::not(partner_in(Expr::var(ghost.partner), &Some(set))));
                out.push(Command::Assign { target: ghost.live, value, span: span.clone() });
            }
        }
        // Recorded, and protecting nothing: no ghost effect.
        Command::LockUnknown { .. }
        | Command::HeldAnnotation { .. }
        | Command::InterruptControl { .. }
        | Command::GhostAccess { .. }
        | Command::Keep { .. }
        | Command::Approximation { .. } => {}
    }
}
