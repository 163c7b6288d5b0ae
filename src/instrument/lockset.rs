//! The symbolic lockset instrumentation (Whoop, thesis §3.3).
//!
//! # Algorithm
//!
//! For each entry point E, every procedure E reaches is copied, renamed
//! apart (`E__proc`), and given ghost state of its own, all booleans:
//!
//! - `CLS_E[L]`: E currently holds lock L (any mode); `CLX_E[L]`: holds it
//!   exclusively (only for locks with a shared mode);
//! - `LS_E[R][L]` (and `LSX_E[R][L]`): L was held (exclusively) at every
//!   access of E to the watched address of region R;
//! - `READ_E[R]`, `WRITE_E[R]`, `AREAD_E[R]`, `AWRITE_E[R]`: E read or
//!   wrote the watched address, plainly or atomically;
//! - `SITE_E[R]` (integer): the access site that last hit it, per read and
//!   write, for the race report.
//!
//! An init entry point (module init, probe) also has `LIVE_E`, false until
//! it makes callbacks live (`live` commands: registration calls, and any
//! call the lowering cannot see into); its accesses before that are not
//! recorded, since no callback of the device can run yet, so the part of
//! init after a registration is what pairs with the callbacks
//! ("registered before initialised" races).
//!
//! One unconstrained integer `W_R` per region R, shared by all entry
//! points, is the watched address: proving the pair assertion for an
//! arbitrary `W_R` proves it for every address of R. An access of E to R at
//! address `a` becomes, with `hit = (a == W_R)`:
//!
//! ```text
//! READ_E[R] := READ_E[R] || hit;                  (or WRITE, AREAD, AWRITE)
//! LS_E[R][L] := LS_E[R][L] && (!hit || CLS_E[L]);  for every lock L
//! SITE_E[R] := if hit then site else SITE_E[R];
//! ```
//!
//! A read of shared memory returns an arbitrary value (`havoc`) and a write
//! is not modelled: this abstraction covers whatever any number of other
//! threads do to shared memory, so the memory maps disappear. Accesses to
//! thread-private regions are not watched (their reads are still
//! arbitrary). `lock L` sets `CLS_E[L]`, `unlock L` clears it, a trylock
//! sets it to an arbitrary success value; `lock ?` (an unidentified lock)
//! and interrupt control change nothing, so they protect nothing.
//!
//! # Soundness
//!
//! The ghost updates only record; the program's own behaviour is only
//! made less determined (reads havocked), so every execution of the driver
//! is an execution of the instrumented program. Approximations that affect
//! soundness reachable from E are collected, so that the verdicts of E's
//! pairs can be made unknown.

use crate::diagnostics::Span;
use crate::ir::{
    AccessKind, BlockId, Command, Expr, LockId, LockMode, ProcId, Procedure, Program, RegionId, Scope, Sort, Terminator,
    Variable, VarId,
};
use crate::models::EntryKind;
use std::collections::{BTreeMap, BTreeSet, HashMap};

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
    /// The procedure (original name) containing it.
    pub function: String,
}

/// The ghost variables of one entry point.
#[derive(Clone, Debug, Default)]
pub struct EntryGhost {
    /// `CLS_E[L]`.
    pub cls: BTreeMap<LockId, VarId>,
    /// `CLX_E[L]`, for locks with a shared mode.
    pub clx: BTreeMap<LockId, VarId>,
    /// `READ_E[R]`, plain reads.
    pub read: BTreeMap<RegionId, VarId>,
    /// `WRITE_E[R]`, plain writes.
    pub write: BTreeMap<RegionId, VarId>,
    /// `AREAD_E[R]`, atomic reads.
    pub aread: BTreeMap<RegionId, VarId>,
    /// `AWRITE_E[R]`, atomic writes.
    pub awrite: BTreeMap<RegionId, VarId>,
    /// `LS_E[R][L]`.
    pub ls: BTreeMap<(RegionId, LockId), VarId>,
    /// `LSX_E[R][L]`, for locks with a shared mode.
    pub lsx: BTreeMap<(RegionId, LockId), VarId>,
    /// The last read site hitting the watched address.
    pub site_read: BTreeMap<RegionId, VarId>,
    /// The last write site hitting it.
    pub site_write: BTreeMap<RegionId, VarId>,
    /// For an init entry point: whether it has made callbacks live yet;
    /// its accesses before that cannot race with any callback of the
    /// device (no callback can run yet), so they are not recorded.
    pub live: Option<VarId>,
}

impl EntryGhost {
    /// Every ghost variable of the entry point with its value at the start
    /// of a run: no lock held, nothing accessed, every lockset full.
    pub fn initial_values(&self) -> Vec<(VarId, Expr)> {
        let mut out = Vec::new();
        for v in self.cls.values().chain(self.clx.values()) {
            out.push((*v, Expr::bool(false)));
        }
        for v in self.read.values().chain(self.write.values()).chain(self.aread.values()).chain(self.awrite.values()) {
            out.push((*v, Expr::bool(false)));
        }
        for v in self.ls.values().chain(self.lsx.values()) {
            out.push((*v, Expr::bool(true)));
        }
        for v in self.site_read.values().chain(self.site_write.values()) {
            out.push((*v, Expr::int(-1)));
        }
        if let Some(v) = self.live {
            out.push((v, Expr::bool(false)));
        }
        out
    }
}

/// One instrumented entry point.
#[derive(Clone, Debug)]
pub struct InstrumentedEntry {
    /// The C function.
    pub name: String,
    /// Its kind.
    pub kind: EntryKind,
    /// Its instrumented procedure.
    pub procedure: ProcId,
    /// Every procedure copied for it.
    pub procedures: Vec<ProcId>,
    /// Its ghost state.
    pub ghost: EntryGhost,
    /// The shared regions it accesses.
    pub regions: BTreeSet<RegionId>,
    /// Approximations reachable from it that affect soundness.
    pub unsound: Vec<(Option<Span>, String)>,
}

/// A driver's program instrumented for every entry point.
#[derive(Clone, Debug)]
pub struct LocksetProgram {
    /// The lowered program plus every entry point's instrumented copies
    /// and ghost globals.
    pub program: Program,
    /// The entry points, in the lowered program's order.
    pub entries: Vec<InstrumentedEntry>,
    /// `W_R` of every shared region.
    pub watched: BTreeMap<RegionId, VarId>,
    /// Access sites by number.
    pub sites: Vec<AccessSite>,
}

/// Instruments every entry point of a lowered program.
pub fn instrument(lowered: &Program) -> LocksetProgram {
    let mut program = lowered.clone();
    let mut watched = BTreeMap::new();
    for (r, region) in lowered.regions.iter() {
        if !region.thread_private {
            let v = program.add_ghost_global(format!("W_{}", r.as_u32()), Sort::Int);
            watched.insert(r, v);
        }
    }
    let mut result = LocksetProgram { program, entries: Vec::new(), watched, sites: Vec::new() };
    let entries: Vec<(String, EntryKind, ProcId)> =
        lowered.entry_points.values().map(|e| (e.name.clone(), e.kind, e.procedure)).collect();
    for (index, (name, kind, root)) in entries.into_iter().enumerate() {
        let entry = instrument_entry(&mut result, lowered, index, &name, kind, root);
        result.entries.push(entry);
    }
    result
}

/// The procedures a root reaches through calls, root first.
fn reachable(program: &Program, root: ProcId) -> Vec<ProcId> {
    let mut order = vec![root];
    let mut i = 0;
    while i < order.len() {
        let p = order[i];
        i += 1;
        for (_, block) in program.procedures[p].blocks.iter() {
            for c in &block.commands {
                if let Command::Call { procedure, .. } = c {
                    if !order.contains(procedure) {
                        order.push(*procedure);
                    }
                }
            }
        }
    }
    order
}

fn instrument_entry(
    lp: &mut LocksetProgram,
    lowered: &Program,
    index: usize,
    name: &str,
    kind: EntryKind,
    root: ProcId,
) -> InstrumentedEntry {
    let procs = reachable(lowered, root);
    // The regions and locks this entry point touches decide its ghost state.
    let mut regions = BTreeSet::new();
    let mut unsound = Vec::new();
    for &p in &procs {
        for (_, block) in lowered.procedures[p].blocks.iter() {
            for c in &block.commands {
                match c {
                    Command::Load { region, .. } | Command::Store { region, .. } => {
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
    let tag = format!("e{index}");
    let program = &mut lp.program;
    let mut ghost = EntryGhost::default();
    if kind.role() == crate::models::Role::Init {
        ghost.live = Some(program.add_ghost_global(format!("LIVE_{tag}"), Sort::Bool));
    }
    for (l, lock) in lowered.locks.iter() {
        ghost.cls.insert(l, program.add_ghost_global(format!("CLS_{tag}_l{}", l.as_u32()), Sort::Bool));
        if lock.kind.has_shared_mode() {
            ghost.clx.insert(l, program.add_ghost_global(format!("CLX_{tag}_l{}", l.as_u32()), Sort::Bool));
        }
    }
    for &r in &regions {
        let n = r.as_u32();
        ghost.read.insert(r, program.add_ghost_global(format!("READ_{tag}_r{n}"), Sort::Bool));
        ghost.write.insert(r, program.add_ghost_global(format!("WRITE_{tag}_r{n}"), Sort::Bool));
        ghost.aread.insert(r, program.add_ghost_global(format!("AREAD_{tag}_r{n}"), Sort::Bool));
        ghost.awrite.insert(r, program.add_ghost_global(format!("AWRITE_{tag}_r{n}"), Sort::Bool));
        ghost.site_read.insert(r, program.add_ghost_global(format!("SITER_{tag}_r{n}"), Sort::Int));
        ghost.site_write.insert(r, program.add_ghost_global(format!("SITEW_{tag}_r{n}"), Sort::Int));
        for l in lowered.locks.ids() {
            let ln = l.as_u32();
            ghost.ls.insert((r, l), program.add_ghost_global(format!("LS_{tag}_r{n}_l{ln}"), Sort::Bool));
            if ghost.clx.contains_key(&l) {
                ghost.lsx.insert((r, l), program.add_ghost_global(format!("LSX_{tag}_r{n}_l{ln}"), Sort::Bool));
            }
        }
    }
    // Declare the copies first, so that calls can be renamed.
    let mut copies: HashMap<ProcId, ProcId> = HashMap::new();
    for &p in &procs {
        let original = &lowered.procedures[p];
        let mut copy = Procedure::declaration(format!("{tag}__{}", original.name));
        copy.span = original.span.clone();
        let id = lp.program.procedures.push(copy);
        copies.insert(p, id);
    }
    for &p in &procs {
        copy_procedure(lp, lowered, p, copies[&p], &copies, &ghost, &regions);
    }
    InstrumentedEntry {
        name: name.to_string(),
        kind,
        procedure: copies[&root],
        procedures: procs.iter().map(|p| copies[p]).collect(),
        ghost,
        regions,
        unsound,
    }
}

fn copy_procedure(
    lp: &mut LocksetProgram,
    lowered: &Program,
    from: ProcId,
    to: ProcId,
    copies: &HashMap<ProcId, ProcId>,
    ghost: &EntryGhost,
    regions: &BTreeSet<RegionId>,
) {
    let original = &lowered.procedures[from];
    let mut vars: HashMap<VarId, VarId> = HashMap::new();
    let mut new_var = |program: &mut Program, v: VarId, scope: Scope| {
        let old: &Variable = &lowered.variables[v];
        let id = program.variables.push(Variable { scope, ..old.clone() });
        vars.insert(v, id);
        id
    };
    let params: Vec<VarId> = original.params.iter().map(|v| new_var(&mut lp.program, *v, Scope::Param(to))).collect();
    let returns: Vec<VarId> = original.returns.iter().map(|v| new_var(&mut lp.program, *v, Scope::Return(to))).collect();
    let locals: Vec<VarId> = original.locals.iter().map(|v| new_var(&mut lp.program, *v, Scope::Local(to))).collect();
    let mut map_var = |v: VarId| vars.get(&v).copied().unwrap_or(v);
    let mut map_proc = |p: ProcId| copies.get(&p).copied().unwrap_or(p);
    let mut blocks = crate::ir::Arena::<BlockId, crate::ir::Block>::new();
    for (_, block) in original.blocks.iter() {
        let mut commands = Vec::new();
        for c in &block.commands {
            let c = c.map(&mut map_var, &mut map_proc);
            instrument_command(lp, &c, ghost, regions, &original.name, &mut commands);
        }
        blocks.push(crate::ir::Block { commands, terminator: block.terminator.clone() });
    }
    let procedure = &mut lp.program.procedures[to];
    procedure.params = params;
    procedure.returns = returns;
    procedure.locals = locals;
    procedure.blocks = blocks;
    procedure.entry = original.entry;
    procedure.body = original.body;
    if !original.body {
        procedure.blocks[procedure.entry].terminator = Terminator::Return;
    }
}

/// The ghost updates of one access.
#[allow(clippy::too_many_arguments)]
fn record_access(
    lp: &mut LocksetProgram,
    region: RegionId,
    address: &Expr,
    write: bool,
    atomic: bool,
    span: &Option<Span>,
    function: &str,
    ghost: &EntryGhost,
    out: &mut Vec<Command>,
) {
    let Some(&w) = lp.watched.get(&region) else { return };
    let site = lp.sites.len();
    lp.sites.push(AccessSite { region, write, atomic, span: span.clone(), function: function.to_string() });
    let hit = match ghost.live {
        Some(live) => Expr::and(Expr::eq(address.clone(), Expr::var(w)), Expr::var(live)),
        None => Expr::eq(address.clone(), Expr::var(w)),
    };
    let flag = match (write, atomic) {
        (false, false) => ghost.read[&region],
        (true, false) => ghost.write[&region],
        (false, true) => ghost.aread[&region],
        (true, true) => ghost.awrite[&region],
    };
    out.push(Command::Assign { target: flag, value: Expr::or(Expr::var(flag), hit.clone()), span: None });
    for (&(r, l), &ls) in ghost.ls.range((region, LockId::from_u32(0))..) {
        if r != region {
            break;
        }
        let held = Expr::var(ghost.cls[&l]);
        out.push(Command::Assign { target: ls, value: Expr::and(Expr::var(ls), Expr::or(Expr::not(hit.clone()), held)), span: None });
        if let (Some(&lsx), Some(&clx)) = (ghost.lsx.get(&(r, l)), ghost.clx.get(&l)) {
            let value = Expr::and(Expr::var(lsx), Expr::or(Expr::not(hit.clone()), Expr::var(clx)));
            out.push(Command::Assign { target: lsx, value, span: None });
        }
    }
    let site_var = if write { ghost.site_write[&region] } else { ghost.site_read[&region] };
    let value = Expr::ite(hit, Expr::int(site as i128), Expr::var(site_var));
    out.push(Command::Assign { target: site_var, value, span: None });
}

fn instrument_command(
    lp: &mut LocksetProgram,
    c: &Command,
    ghost: &EntryGhost,
    regions: &BTreeSet<RegionId>,
    function: &str,
    out: &mut Vec<Command>,
) {
    match c {
        Command::Load { target, region, address, access, span } => {
            // Shared reads return arbitrary values.
            out.push(Command::Havoc { vars: vec![*target], span: span.clone() });
            if regions.contains(region) {
                let atomic = *access == AccessKind::Atomic;
                record_access(lp, *region, address, false, atomic, span, function, ghost, out);
            }
        }
        Command::Store { region, address, access, span, .. } => {
            if regions.contains(region) {
                let atomic = *access == AccessKind::Atomic;
                record_access(lp, *region, address, true, atomic, span, function, ghost, out);
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
        Command::MakeLive { span, .. } => {
            if let Some(live) = ghost.live {
                out.push(Command::Assign { target: live, value: Expr::bool(true), span: span.clone() });
            }
        }
        // Recorded, and protecting nothing: no ghost effect.
        Command::LockUnknown { .. } | Command::InterruptControl { .. } | Command::GhostAccess { .. } | Command::Approximation { .. } => {}
    }
}
