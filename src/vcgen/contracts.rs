//! Procedure contracts for the lockset analysis: the Houdini candidates,
//! what each procedure may modify, and the facts that hold by construction.
//!
//! # Candidates
//!
//! For every procedure an entry point reaches (its own procedure included,
//! for loop invariants), and every ghost variable the procedure may modify
//! (a syntactic, transitive set), the candidates are the shapes the
//! original tool guessed (thesis §3.4.6): a lock is held / not held / as
//! held as on entry at exit; an access flag is unchanged (the procedure
//! does not touch the watched address); a lockset is unchanged, and
//! unchanged when the lock was held on entry (a helper called under the
//! lock). Loop heads get the same shapes relative to the procedure's entry.
//! Houdini ([`super::houdini`]) keeps the ones it proves.
//!
//! Liveness is per pair (`PARTNER`, [`crate::instrument::lockset`]), so
//! its candidates are formulas over `PARTNER`, with `in_p` = `PARTNER` is
//! among the entry points procedure p may make live
//! ([`LocksetProgram::live_within`]): `LIVE ==> old(LIVE) || in_p` (what p
//! makes live, at most), and, for access state, `old(LIVE) || in_p ||
//! v == old(v)` (p records nothing for a partner that is not live on entry
//! and that p cannot make live).
//!
//! # Facts by construction
//!
//! Locksets only shrink and access flags only grow (the instrumentation
//! only ever conjoins and disjoins them), and a site variable only takes
//! the numbers of sites the procedure contains: these hold for every
//! execution and are assumed, not checked.

use crate::instrument::lockset::LocksetProgram;
use crate::ir::{BlockId, Command, Expr, ProcId, Program, VarId};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The shape of a candidate, over ghost globals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `v == old(v)`.
    Unchanged(VarId),
    /// `v` (true) or `!v` (false).
    Equals(VarId, bool),
    /// `old(held) ==> v == old(v)`.
    UnchangedWhenHeld(VarId, VarId),
    /// `old(live) || v == old(v)`: an init entry point's code changes no
    /// access state before it makes the partner live.
    UnchangedUnlessLive(VarId, VarId),
    /// `old(live) || in_p || v == old(v)`: nor for a partner that is not
    /// live on entry and that the procedure cannot make live (only where
    /// `in_p` is neither false nor true).
    UnchangedUnlessMadeLive(VarId, VarId),
    /// `live ==> old(live) || in_p`: the procedure makes no partner live
    /// but those it may.
    LiveWithin(VarId),
    /// `q_p ==> !live`: the procedure leaves the partner not live if it
    /// surely quiesces it (`q_p`: `PARTNER` is among the entry points the
    /// procedure surely leaves quiesced, [`crate::analyses::quiesce`]).
    QuiescedWithin(VarId),
    /// `q_p ==> v == old(v)`: nor does it record an access then (its
    /// accesses come after the quiescing call).
    UnchangedWhenQuiesced(VarId),
}

impl Shape {
    /// The variable the candidate constrains (the others are read only).
    pub fn subject(self) -> VarId {
        match self {
            Shape::Unchanged(v)
            | Shape::Equals(v, _)
            | Shape::UnchangedWhenHeld(_, v)
            | Shape::UnchangedUnlessLive(_, v)
            | Shape::UnchangedUnlessMadeLive(_, v)
            | Shape::LiveWithin(v)
            | Shape::QuiescedWithin(v)
            | Shape::UnchangedWhenQuiesced(v) => v,
        }
    }
}

/// Where a candidate stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum At {
    /// A postcondition.
    Ensures,
    /// A loop invariant at this head.
    Loop(BlockId),
}

/// One candidate.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Its procedure.
    pub procedure: ProcId,
    /// Where.
    pub at: At,
    /// What.
    pub shape: Shape,
    /// For a liveness shape, the entry points its `in_p` ranges over when
    /// narrower than all the procedure may make live
    /// ([`super::live_points`]); `None`: those.
    pub made: Option<crate::instrument::lockset::LiveSet>,
}

/// How a ghost variable evolves by construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Monotone {
    /// Only ever made false (locksets).
    Shrinks,
    /// Only ever made true (access flags).
    Grows,
}

/// All contracts of an instrumented program.
#[derive(Clone, Debug, Default)]
pub struct Summaries {
    /// Every candidate; its index is its id.
    pub candidates: Vec<Candidate>,
    /// Whether each candidate is still believed (Houdini's state).
    pub alive: Vec<bool>,
    by_place: HashMap<(ProcId, At), Vec<usize>>,
    modifies: HashMap<ProcId, BTreeSet<VarId>>,
    monotone: HashMap<VarId, Monotone>,
    sites: HashMap<ProcId, Vec<(VarId, Vec<usize>)>>,
    empty: BTreeSet<VarId>,
    /// `PARTNER`, and the entry points each procedure may make live.
    partner: Option<VarId>,
    live_within: HashMap<ProcId, crate::instrument::lockset::LiveSet>,
    /// The entry points each procedure surely leaves quiesced.
    quiesced_within: HashMap<ProcId, BTreeSet<usize>>,
    /// `LIVE`, and what may be live where procedures under an init entry
    /// point record each access site ([`super::live_points`]).
    live: Option<VarId>,
    points: super::live_points::LivePoints,
}

impl Summaries {
    /// Alive candidates at a place.
    fn at(&self, p: ProcId, at: At) -> impl Iterator<Item = (usize, &Candidate)> {
        self.by_place.get(&(p, at)).into_iter().flatten().filter(|i| self.alive[**i]).map(|i| (*i, &self.candidates[*i]))
    }

    /// Alive postcondition candidates of a procedure.
    pub fn ensures_candidates(&self, p: ProcId) -> impl Iterator<Item = (usize, &Candidate)> {
        self.at(p, At::Ensures)
    }

    /// Alive precondition candidates (none are generated: postconditions
    /// guarded by the lock held on entry cover helpers called under locks).
    pub fn requires_candidates(&self, _p: ProcId) -> impl Iterator<Item = (usize, &Candidate)> {
        std::iter::empty()
    }

    /// Alive invariant candidates of a loop head.
    pub fn loop_candidates(&self, p: ProcId, head: BlockId) -> impl Iterator<Item = (usize, &Candidate)> {
        self.at(p, At::Loop(head))
    }

    /// The ghost globals a procedure may modify, transitively.
    pub fn modifies(&self, p: ProcId) -> &BTreeSet<VarId> {
        self.modifies.get(&p).unwrap_or(&self.empty)
    }

    /// The ghost globals a command may modify through a call.
    pub fn call_modifies(&self, c: &Command) -> Vec<VarId> {
        match c {
            Command::Call { procedure, .. } => self.modifies(*procedure).iter().copied().collect(),
            _ => Vec::new(),
        }
    }

    /// How a ghost variable evolves, if it is a lockset or access flag.
    pub fn monotone(&self, v: VarId) -> Option<Monotone> {
        self.monotone.get(&v).copied()
    }

    /// The site variables a procedure may set, with the sites it may set
    /// them to.
    pub fn site_facts(&self, p: ProcId) -> &[(VarId, Vec<usize>)] {
        self.sites.get(&p).map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// The entry points procedure p may have made live, since its entry,
    /// where it records `site` in `site_var`, with `LIVE`; `None` when p
    /// was not analysed (then the site needs no liveness).
    pub fn site_live(&self, p: ProcId, site_var: VarId, site: usize) -> Option<(VarId, &crate::instrument::lockset::LiveSet)> {
        let set = self.points.site_live.get(&p)?.get(&(site_var, site))?;
        Some((self.live?, set))
    }

    /// `in_p` of procedure p over the given `PARTNER` term: `PARTNER` is
    /// among the entry points p may make live.
    pub fn partner_made_live(&self, p: ProcId, partner: Expr) -> Expr {
        self.partner_made_live_in(p, None, partner)
    }

    /// `PARTNER` is among `made` when given (a candidate's narrower set,
    /// [`Candidate::made`]), else among what p may make live.
    pub fn partner_made_live_in(&self, p: ProcId, made: Option<&crate::instrument::lockset::LiveSet>, partner: Expr) -> Expr {
        if let Some(set) = made {
            return crate::instrument::lockset::partner_in(partner, set);
        }
        match self.live_within.get(&p) {
            None => Expr::bool(false),
            Some(set) => crate::instrument::lockset::partner_in(partner, set),
        }
    }

    /// `q_p` of procedure p over the given `PARTNER` term: `PARTNER` is
    /// among the entry points p surely leaves quiesced.
    pub fn partner_quiesced(&self, p: ProcId, partner: Expr) -> Expr {
        match self.quiesced_within.get(&p) {
            None => Expr::bool(false),
            Some(set) => crate::instrument::lockset::partner_in(partner, &Some(set.clone())),
        }
    }

    /// `PARTNER`.
    pub fn partner(&self) -> Option<VarId> {
        self.partner
    }

    /// The procedures whose VC mentions candidate `i`: its own, and, for a
    /// postcondition, its callers.
    pub fn dependents(&self, i: usize, callers: &HashMap<ProcId, BTreeSet<ProcId>>) -> BTreeSet<ProcId> {
        let c = &self.candidates[i];
        let mut out = BTreeSet::from([c.procedure]);
        if c.at == At::Ensures {
            out.extend(callers.get(&c.procedure).into_iter().flatten().copied());
        }
        out
    }
}

/// Builds the contracts of every procedure an entry point reaches.
pub fn build(lp: &LocksetProgram) -> Summaries {
    let program = &lp.program;
    let g = &lp.ghost;
    let mut s = Summaries {
        partner: Some(g.partner),
        live_within: lp.live_within.clone(),
        quiesced_within: lp.quiesced_within.clone(),
        ..Summaries::default()
    };
    for v in g.lsr.values().chain(g.lsx.values()).chain(g.lsrx.values()).chain(g.lsw.values()) {
        s.monotone.insert(*v, Monotone::Shrinks);
    }
    for v in g.read.values().chain(g.write.values()).chain(g.aread.values()).chain(g.awrite.values()) {
        s.monotone.insert(*v, Monotone::Grows);
    }
    // A quiesce command lowers `LIVE`; without one it only grows.
    if !lp.quiesces {
        s.monotone.insert(g.live, Monotone::Grows);
    }
    let procedures: BTreeSet<ProcId> = lp.entries.iter().flat_map(|e| e.procedures.iter().copied()).collect();
    // Liveness candidates only where an init entry point can run, an entry
    // point that starts with some partner not live (`quiet_at_start`: an
    // `ndo_open`), or an entry point that quiesces callbacks.
    let quiescing: BTreeSet<ProcId> = lp.quiesced_within.keys().copied().collect();
    let under_init: BTreeSet<ProcId> = lp
        .entries
        .iter()
        .enumerate()
        .filter(|(i, e)| {
            e.is_init()
                || lp.quiet_at_start.iter().any(|(entry, _)| entry == i)
                || (lp.quiesces && e.procedures.iter().any(|p| quiescing.contains(p) || quiesces_here(program, *p)))
        })
        .map(|(_, e)| e)
        .flat_map(|e| e.procedures.iter().copied())
        .collect();
    let called: BTreeSet<ProcId> = procedures
        .iter()
        .flat_map(|p| program.procedures[*p].blocks.iter())
        .flat_map(|(_, b)| b.commands.iter())
        .filter_map(|c| match c {
            Command::Call { procedure, .. } => Some(*procedure),
            _ => None,
        })
        .collect();
    compute_modifies(program, lp, &procedures, &mut s);
    let kinds = ghost_kinds(lp);
    let tracked: BTreeSet<VarId> =
        kinds.iter().filter(|(_, k)| matches!(k, GhostKind::Lockset(_) | GhostKind::Flag)).map(|(v, _)| *v).collect();
    let analysed: BTreeSet<ProcId> = procedures.intersection(&under_init).copied().collect();
    let points = super::live_points::analyse(lp, &analysed, &tracked, &s);
    for &p in &procedures {
        // `in_p` matters where it is neither false nor true.
        let bounded = s.live_within.get(&p).is_some_and(|set| set.is_some());
        let init = under_init.contains(&p).then_some(bounded);
        generate_candidates(program, &kinds, p, called.contains(&p), init, lp.ghost.live, Some(&points), &mut s);
        if called.contains(&p) && s.quiesced_within.contains_key(&p) {
            quiesce_candidates(&kinds, p, lp.ghost.live, &mut s);
        }
    }
    s.live = Some(lp.ghost.live);
    s.points = points;
    s.alive = vec![true; s.candidates.len()];
    s
}

/// Whether procedure p contains a quiesce command.
fn quiesces_here(program: &Program, p: ProcId) -> bool {
    program.procedures[p].blocks.iter().any(|(_, b)| b.commands.iter().any(|c| matches!(c, Command::Quiesce { .. })))
}

/// The postconditions of a procedure that surely leaves some partners
/// quiesced: `q_p ==> !LIVE`, and `q_p ==> v == old(v)` for its access
/// flags and locksets.
fn quiesce_candidates(kinds: &HashMap<VarId, GhostKind>, p: ProcId, live: VarId, s: &mut Summaries) {
    let modified: Vec<VarId> = s.modifies(p).iter().copied().collect();
    let mut shapes = vec![Shape::QuiescedWithin(live)];
    for v in modified {
        if matches!(kinds.get(&v), Some(GhostKind::Lockset(_) | GhostKind::Flag)) {
            shapes.push(Shape::UnchangedWhenQuiesced(v));
        }
    }
    for shape in shapes {
        let i = s.candidates.len();
        s.candidates.push(Candidate { procedure: p, at: At::Ensures, shape, made: None });
        s.by_place.entry((p, At::Ensures)).or_default().push(i);
    }
}

fn compute_modifies(program: &Program, lp: &LocksetProgram, procedures: &BTreeSet<ProcId>, s: &mut Summaries) {
    let ghost_site_vars: BTreeSet<VarId> = lp.ghost.site_vars().collect();
    let mut direct: HashMap<ProcId, BTreeSet<VarId>> = HashMap::new();
    let mut sites: HashMap<ProcId, BTreeMap<VarId, BTreeSet<usize>>> = HashMap::new();
    let mut callees: HashMap<ProcId, BTreeSet<ProcId>> = HashMap::new();
    for &p in procedures {
        let mut set = BTreeSet::new();
        for (_, block) in program.procedures[p].blocks.iter() {
            for c in &block.commands {
                match c {
                    Command::Assign { target, value, .. } if program.variables[*target].ghost => {
                        set.insert(*target);
                        if ghost_site_vars.contains(target) {
                            if let Expr::Ite(_, then, _) = value {
                                if let Expr::Int(site) = **then {
                                    sites.entry(p).or_default().entry(*target).or_default().insert(site as usize);
                                }
                            }
                        }
                    }
                    Command::Havoc { vars, .. } => set.extend(vars.iter().filter(|v| program.variables[**v].ghost)),
                    Command::Call { procedure, .. } => {
                        callees.entry(p).or_default().insert(*procedure);
                    }
                    _ => {}
                }
            }
        }
        direct.insert(p, set);
    }
    // Transitive closure, to a fixpoint (recursion included).
    let mut modifies = direct.clone();
    let mut all_sites = sites.clone();
    loop {
        let mut changed = false;
        for &p in procedures {
            for q in callees.get(&p).cloned().unwrap_or_default() {
                let add: Vec<VarId> = modifies.get(&q).cloned().unwrap_or_default().into_iter().collect();
                let set = modifies.entry(p).or_default();
                for v in add {
                    changed |= set.insert(v);
                }
                let add_sites = all_sites.get(&q).cloned().unwrap_or_default();
                let mine = all_sites.entry(p).or_default();
                for (v, ss) in add_sites {
                    let entry = mine.entry(v).or_default();
                    for site in ss {
                        changed |= entry.insert(site);
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    for (p, set) in modifies {
        s.modifies.insert(p, set);
    }
    for (p, map) in all_sites {
        s.sites.insert(p, map.into_iter().map(|(v, ss)| (v, ss.into_iter().collect())).collect());
    }
}

/// What a ghost variable is, for the candidate shapes.
#[derive(Clone, Copy)]
enum GhostKind {
    /// `CLS`, `CLX` or `LIVE`.
    State,
    /// A lockset, with the lock-state variable it follows.
    Lockset(VarId),
    /// An access flag.
    Flag,
}

fn ghost_kinds(lp: &LocksetProgram) -> HashMap<VarId, GhostKind> {
    let g = &lp.ghost;
    let mut kinds = HashMap::new();
    for v in g.cls.values().chain(g.clx.values()).chain([&g.live]) {
        kinds.insert(*v, GhostKind::State);
    }
    for ((_, l), v) in g.lsr.iter().chain(&g.lsw) {
        kinds.insert(*v, GhostKind::Lockset(g.cls[l]));
    }
    for ((_, l), v) in g.lsx.iter().chain(&g.lsrx) {
        kinds.insert(*v, GhostKind::Lockset(g.clx[l]));
    }
    for v in g.read.values().chain(g.write.values()).chain(g.aread.values()).chain(g.awrite.values()) {
        kinds.insert(*v, GhostKind::Flag);
    }
    kinds
}

fn shapes_for(kinds: &HashMap<VarId, GhostKind>, v: VarId, live: Option<(VarId, bool)>) -> Vec<Shape> {
    // Site variables get none: they are constrained by facts.
    let Some(kind) = kinds.get(&v) else { return Vec::new() };
    let mut shapes = match kind {
        GhostKind::State => vec![Shape::Unchanged(v), Shape::Equals(v, false), Shape::Equals(v, true)],
        GhostKind::Lockset(held) => vec![Shape::Unchanged(v), Shape::UnchangedWhenHeld(*held, v)],
        GhostKind::Flag => vec![Shape::Unchanged(v)],
    };
    match (live, kind) {
        (Some((live, bounded)), GhostKind::Lockset(_) | GhostKind::Flag) => {
            shapes.push(Shape::UnchangedUnlessLive(live, v));
            if bounded {
                shapes.push(Shape::UnchangedUnlessMadeLive(live, v));
            }
        }
        (Some((live, true)), GhostKind::State) if live == v => shapes.push(Shape::LiveWithin(v)),
        _ => {}
    }
    shapes
}

/// The candidates of procedure `p`: postconditions if it is called, loop
/// invariants at its loop heads; liveness-guarded ones if an init entry
/// point reaches it.
fn generate_candidates(
    program: &Program,
    kinds: &HashMap<VarId, GhostKind>,
    p: ProcId,
    called: bool,
    under_init: Option<bool>,
    live: VarId,
    points: Option<&super::live_points::LivePoints>,
    s: &mut Summaries,
) {
    let modified: Vec<VarId> = s.modifies(p).iter().copied().collect();
    let mut places = Vec::new();
    if called {
        places.push((At::Ensures, modified));
    }
    let cfg = super::cfg::analyse(&program.procedures[p], &|c| s.call_modifies(c));
    for (head, vars) in &cfg.loop_modifies {
        let ghosts: Vec<VarId> = vars.iter().filter(|v| program.variables[**v].ghost).copied().collect();
        places.push((At::Loop(*head), ghosts));
    }
    let in_p = s.live_within.get(&p).cloned().unwrap_or(Some(BTreeSet::new()));
    let live_var = live;
    let live = under_init.map(|bounded| (live, bounded));
    for (at, vars) in places {
        for v in vars {
            let mut shapes: Vec<(Shape, Option<crate::instrument::lockset::LiveSet>)> =
                shapes_for(kinds, v, live).into_iter().map(|shape| (shape, None)).collect();
            // Flow-sensitive ones: what may be live where v changes, or at
            // this loop head, when narrower than all p may make live.
            let narrower = |set: &Option<&crate::instrument::lockset::LiveSet>| match set {
                Some(Some(x)) => in_p.as_ref().is_none_or(|all| x != all && x.is_subset(all)),
                _ => false,
            };
            if let (Some(_), Some(points)) = (live, points) {
                match kinds.get(&v) {
                    Some(GhostKind::Lockset(_) | GhostKind::Flag) => {
                        let set = points.changed_live.get(&p).and_then(|m| m.get(&v));
                        if narrower(&set) && set.is_some_and(|x| x.as_ref().is_some_and(|x| !x.is_empty())) {
                            shapes.push((Shape::UnchangedUnlessMadeLive(live_var, v), set.cloned()));
                        }
                    }
                    Some(GhostKind::State) if v == live_var => {
                        let set = match at {
                            At::Loop(head) => points.at_head.get(&p).and_then(|m| m.get(&head)),
                            At::Ensures => None,
                        };
                        if narrower(&set) {
                            shapes.push((Shape::LiveWithin(v), set.cloned()));
                        }
                    }
                    _ => {}
                }
            }
            for (shape, made) in shapes {
                let i = s.candidates.len();
                s.candidates.push(Candidate { procedure: p, at, shape, made });
                s.by_place.entry((p, at)).or_default().push(i);
            }
        }
    }
}
