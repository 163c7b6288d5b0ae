//! Passive-form encoding of a procedure into constraints and failure
//! conditions.
//!
//! # Algorithm
//!
//! Blocks are visited in the topological order of the acyclic graph left
//! when back edges are cut ([`super::cfg`]). Every variable has an SSA
//! incarnation: an assignment makes a fresh one with a defining equality,
//! a havoc makes a fresh unconstrained one. Control is a boolean
//! reachability literal per point: a block is reached when one of its
//! incoming edges is taken; a reached block takes exactly one of its
//! outgoing edges; an `assume` conjoins its condition. At a join, a variable
//! whose incarnations differ gets a fresh one, equal to the predecessor's
//! on the taken edge. Since exactly one edge is taken per reached block and
//! the graph is acyclic, the reached blocks of any model form one path, so
//! these conditional equalities never conflict.
//!
//! A loop head havocs every variable its loop (strongly connected
//! component) may change and assumes the loop's invariant candidates, which
//! are checked on every edge into the head, the back edges included; the
//! back edges are then dropped. A call checks the callee's precondition
//! candidates, havocs the ghost globals the callee may modify (and its
//! results), and assumes the callee's postcondition candidates and its free
//! facts. A return checks the procedure's postcondition candidates.
//!
//! Every check is a *failure condition* (a formula true exactly when the
//! check fails on the chosen path), kept with what it checks, so that one
//! satisfiable query names every failing candidate at once, and an
//! unsatisfiable one proves them all. Candidates are guarded by a boolean
//! literal each, set by the solver's assumptions (Houdini).
//!
//! # Soundness
//!
//! Havoc is always sound (it only adds behaviours); the equalities define
//! fresh incarnations; loop cutting is the classic sound reduction given
//! that invariants are checked on entry and preserved around the loop.

use super::cfg::{self, Cfg};
use super::contracts::{Candidate, Summaries};
use crate::ir::{Arena, BlockId, Command, Expr, ProcId, Program, RegionId, Sort, Terminator, VarId};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// An SSA variable of a verification condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsaVar {
    /// A readable name (`CLS_e0_l1@3`), unique within the VC.
    pub name: String,
    /// Its sort.
    pub sort: Sort,
}

/// What a failure condition checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckOf {
    /// A Houdini candidate (by index in the summaries).
    Candidate(usize),
    /// The race assertion of one region in a pair check.
    Race(crate::ir::RegionId),
}

/// A verification condition: constraints, and failure conditions.
#[derive(Debug, Default)]
pub struct Vc {
    /// The SSA variables; expressions refer to them by `VarId`.
    pub vars: Arena<VarId, SsaVar>,
    /// Facts that hold.
    pub constraints: Vec<Expr>,
    /// Failure conditions and what they check.
    pub checks: Vec<(Expr, CheckOf)>,
    /// Candidate literals used, by candidate index.
    pub literals: BTreeMap<usize, VarId>,
}

impl Vc {
    /// A fresh SSA variable.
    pub fn fresh(&mut self, base: &str, sort: Sort) -> VarId {
        let n = self.vars.len();
        self.vars.push(SsaVar { name: format!("{base}@{n}"), sort })
    }

    /// The boolean literal guarding a candidate.
    pub fn literal(&mut self, candidate: usize) -> VarId {
        if let Some(&v) = self.literals.get(&candidate) {
            return v;
        }
        let v = self.vars.push(SsaVar { name: format!("cand{candidate}"), sort: Sort::Bool });
        self.literals.insert(candidate, v);
        v
    }
}

/// Program variables to their current incarnation.
pub type Env = HashMap<VarId, VarId>;

/// The result of encoding one procedure body.
pub struct Encoded {
    /// Reachability of the end of the return block (false if none).
    pub exit_reach: Expr,
    /// Incarnations at the end of the return block.
    pub exit_env: Env,
}

/// Encodes procedures of one program into one VC.
pub struct Encoder<'a> {
    /// The program.
    pub program: &'a Program,
    /// Contracts and candidates.
    pub summaries: &'a Summaries,
    /// The VC under construction.
    pub vc: Vc,
    /// Whether the believed candidates are proven facts (a pair check,
    /// after Houdini): they are then assumed without literals and never
    /// checked again.
    facts: bool,
    /// The slice encoded, if not everything.
    slice: Option<Slice<'a>>,
}

/// A slice of the ghost state: the per-region ghost variables of the kept
/// regions, and every variable that belongs to no region (program
/// variables, lock state, liveness).
///
/// Slicing is a cone-of-influence reduction, sound and exact because the
/// per-region ghost variables of one region depend only on the lock state,
/// program values and that region's own ghost variables, and nothing but
/// the race condition and the candidates over them reads them: a variable
/// sliced away is never defined, havocked or constrained, and a fact that
/// mentions one constrains only sliced variables and is left out.
#[derive(Clone, Debug)]
pub struct Slice<'a> {
    /// The region of every per-region ghost variable.
    pub region_of: &'a HashMap<VarId, RegionId>,
    /// The regions kept.
    pub keep: BTreeSet<RegionId>,
    /// Which candidates are checked, by the variable they constrain:
    /// those of the kept regions' variables (`true`), or those of the
    /// variables of no region (`false`, the lock state and liveness).
    pub check_regions: bool,
    /// Variables sliced away whatever their region: the access selection
    /// ([`crate::instrument::lockset::Selection`]), except in the check
    /// that uses it.
    pub dropped: Option<&'a std::collections::HashSet<VarId>>,
}

impl Slice<'_> {
    fn dropped(&self, v: VarId) -> bool {
        self.dropped.is_some_and(|d| d.contains(&v)) || self.region_of.get(&v).is_some_and(|r| !self.keep.contains(r))
    }
}

impl<'a> Encoder<'a> {
    /// A new encoder for Houdini: every candidate guarded by its literal
    /// and checked where it must hold.
    pub fn new(program: &'a Program, summaries: &'a Summaries) -> Encoder<'a> {
        Encoder { program, summaries, vc: Vc::default(), facts: false, slice: None }
    }

    /// A new encoder for Houdini on a slice: only the candidates the slice
    /// selects are checked.
    pub fn sliced(program: &'a Program, summaries: &'a Summaries, slice: Slice<'a>) -> Encoder<'a> {
        Encoder { program, summaries, vc: Vc::default(), facts: false, slice: Some(slice) }
    }

    /// A new encoder for a pair check, after Houdini: the surviving
    /// candidates are facts, and only the slice is encoded.
    pub fn for_pair(program: &'a Program, summaries: &'a Summaries, slice: Slice<'a>) -> Encoder<'a> {
        Encoder { program, summaries, vc: Vc::default(), facts: true, slice: Some(slice) }
    }

    /// Whether a program variable is sliced away.
    pub fn is_dropped(&self, v: VarId) -> bool {
        self.slice.as_ref().is_some_and(|s| s.dropped(v))
    }

    /// Whether a candidate mentions a sliced variable.
    fn is_sliced(&self, c: &Candidate) -> bool {
        use super::contracts::Shape;
        match c.shape {
            Shape::Unchanged(v)
            | Shape::Equals(v, _)
            | Shape::LiveWithin(v)
            | Shape::QuiescedWithin(v)
            | Shape::UnchangedWhenQuiesced(v) => self.is_dropped(v),
            Shape::UnchangedWhenHeld(a, v) | Shape::UnchangedUnlessLive(a, v) | Shape::UnchangedUnlessMadeLive(a, v) => {
                self.is_dropped(a) || self.is_dropped(v)
            }
        }
    }

    /// Whether a candidate is checked here.
    fn checks(&self, c: &Candidate) -> bool {
        if self.facts || self.is_sliced(c) {
            return false;
        }
        match &self.slice {
            None => true,
            Some(s) => s.region_of.contains_key(&c.shape.subject()) == s.check_regions,
        }
    }

    /// Assumes a believed candidate's formula on top of `r`: guarded by
    /// its literal for Houdini, plainly for a pair check.
    fn assume_candidate(&mut self, i: usize, f: Expr, r: Expr) -> Expr {
        if self.facts {
            return self.define_bool("reach", Expr::and(r, f));
        }
        let lit = self.vc.literal(i);
        self.define_bool("reach", Expr::and(r, Expr::implies(Expr::var(lit), f)))
    }

    /// Checks a candidate where it must hold (Houdini only).
    fn check_candidate(&mut self, i: usize, f: Expr, r: Expr) {
        let lit = self.vc.literal(i);
        let failure = Expr::and(r, Expr::and(Expr::var(lit), Expr::not(f)));
        self.vc.checks.push((failure, CheckOf::Candidate(i)));
    }

    /// A fresh incarnation of `v` in `env` (a havoc), unless `v` is sliced
    /// away.
    fn havoc(&mut self, env: &mut Env, v: VarId) {
        if self.is_dropped(v) {
            return;
        }
        let sort = self.program.variables[v].sort;
        let name = self.program.variables[v].name.clone();
        let s = self.vc.fresh(&name, sort);
        env.insert(v, s);
    }

    fn name(&self, v: VarId) -> &str {
        &self.program.variables[v].name
    }

    /// The current incarnation of a program variable, created on first use.
    pub fn current(&mut self, env: &mut Env, v: VarId) -> VarId {
        if let Some(&s) = env.get(&v) {
            return s;
        }
        let sort = self.program.variables[v].sort;
        let name = self.name(v).to_string();
        let s = self.vc.fresh(&name, sort);
        env.insert(v, s);
        s
    }

    /// An expression over program variables, over incarnations.
    pub fn rename(&mut self, env: &mut Env, e: &Expr) -> Expr {
        e.map_vars(&mut |v| self.current_no_borrow(env, v))
    }

    fn current_no_borrow(&mut self, env: &mut Env, v: VarId) -> VarId {
        self.current(env, v)
    }

    fn bool_var(&mut self, base: &str) -> VarId {
        self.vc.fresh(base, Sort::Bool)
    }

    /// A fresh reach literal equal to `value`.
    fn define_bool(&mut self, base: &str, value: Expr) -> Expr {
        let v = self.bool_var(base);
        self.vc.constraints.push(Expr::eq(Expr::var(v), value));
        Expr::var(v)
    }

    /// Encodes a procedure body from `entry_env` with the entry reached
    /// when `entry_reach` holds. `check_ensures` checks the procedure's
    /// postcondition candidates at its return (Houdini); pair checks do
    /// not.
    pub fn encode_body(&mut self, p: ProcId, entry_env: Env, entry_reach: Expr, check_ensures: bool) -> Encoded {
        let program = self.program;
        let procedure = &program.procedures[p];
        let summaries = self.summaries;
        let cfg: Cfg = cfg::analyse(procedure, &|c| summaries.call_modifies(c));
        let old = entry_env.clone();
        let mut block_env: BTreeMap<BlockId, Env> = BTreeMap::new();
        let mut edge_reach: HashMap<(BlockId, BlockId), Expr> = HashMap::new();
        let mut exit = Encoded { exit_reach: Expr::bool(false), exit_env: Env::new() };
        for &b in &cfg.order {
            // Entry state: merge the incoming forward edges.
            let (mut env, reach) = if b == procedure.entry {
                (entry_env.clone(), entry_reach.clone())
            } else {
                let preds = cfg.preds.get(&b).cloned().unwrap_or_default();
                let incoming: Vec<(Expr, &Env)> = preds
                    .iter()
                    .filter_map(|q| Some((edge_reach.get(&(*q, b))?.clone(), block_env.get(q)?)))
                    .collect();
                if incoming.is_empty() {
                    (Env::new(), Expr::bool(false))
                } else {
                    let reach = self.define_bool("reach", Expr::or_all(incoming.iter().map(|(r, _)| r.clone()).collect()));
                    (self.merge(&incoming), reach)
                }
            };
            let mut r = reach;
            // A loop head: havoc what the loop changes, assume invariants.
            if let Some(vars) = cfg.loop_modifies.get(&b) {
                for v in vars {
                    self.havoc(&mut env, *v);
                }
                for (i, c) in summaries.loop_candidates(p, b) {
                    if self.is_sliced(c) {
                        continue;
                    }
                    let f = self.candidate_formula(c, &mut env.clone(), &old);
                    r = self.assume_candidate(i, f, r);
                }
                let before = old.clone();
                r = self.loop_free_facts(vars, &before, &env, r);
                r = self.site_facts_at(p, vars, &before, &env, r);
            }
            for command in &procedure.blocks[b].commands {
                r = self.command(command, &mut env, r);
            }
            // Outgoing edges: exactly one is taken when the block is reached.
            let succs: Vec<BlockId> = match &procedure.blocks[b].terminator {
                Terminator::Goto(t) => t.clone(),
                Terminator::Return => {
                    if check_ensures {
                        for (i, c) in summaries.ensures_candidates(p) {
                            if !self.checks(c) {
                                continue;
                            }
                            let f = self.candidate_formula(c, &mut env.clone(), &old);
                            self.check_candidate(i, f, r.clone());
                        }
                    }
                    exit = Encoded { exit_reach: r.clone(), exit_env: env.clone() };
                    Vec::new()
                }
                Terminator::Unreachable => Vec::new(),
            };
            let takes = self.choose(&r, succs.len());
            for (s, take) in succs.iter().zip(takes) {
                let er = if take == Expr::bool(true) { r.clone() } else { Expr::and(r.clone(), take) };
                // Invariants of a loop head are checked on every edge into it.
                if cfg.loop_modifies.contains_key(s) {
                    for (i, c) in summaries.loop_candidates(p, *s) {
                        if !self.checks(c) {
                            continue;
                        }
                        let f = self.candidate_formula(c, &mut env.clone(), &old);
                        self.check_candidate(i, f, er.clone());
                    }
                }
                if !cfg.back_edges.contains(&(b, *s)) {
                    edge_reach.insert((b, *s), er);
                }
            }
            block_env.insert(b, env);
        }
        exit
    }

    /// Literals choosing exactly one of `n` successors when `reach` holds.
    fn choose(&mut self, reach: &Expr, n: usize) -> Vec<Expr> {
        match n {
            0 => Vec::new(),
            1 => vec![Expr::bool(true)],
            _ => {
                let takes: Vec<VarId> = (0..n).map(|_| self.bool_var("take")).collect();
                let any = Expr::or_all(takes.iter().map(|t| Expr::var(*t)).collect());
                self.vc.constraints.push(Expr::implies(reach.clone(), any));
                for i in 0..n {
                    for j in i + 1..n {
                        self.vc.constraints.push(Expr::not(Expr::and(Expr::var(takes[i]), Expr::var(takes[j]))));
                    }
                }
                takes.into_iter().map(Expr::var).collect()
            }
        }
    }

    /// The environment at a join: shared incarnations kept, differing ones
    /// made fresh and tied to each incoming edge.
    fn merge(&mut self, incoming: &[(Expr, &Env)]) -> Env {
        let mut vars: BTreeSet<VarId> = BTreeSet::new();
        for (_, env) in incoming {
            vars.extend(env.keys().copied());
        }
        let mut out = Env::new();
        for v in vars {
            let versions: Vec<Option<VarId>> = incoming.iter().map(|(_, env)| env.get(&v).copied()).collect();
            let first = versions[0];
            if versions.iter().all(|x| *x == first && first.is_some()) {
                out.insert(v, first.expect("checked"));
                continue;
            }
            let sort = self.program.variables[v].sort;
            let name = self.program.variables[v].name.clone();
            let joined = self.vc.fresh(&name, sort);
            for ((reach, _), version) in incoming.iter().zip(versions) {
                if let Some(version) = version {
                    self.vc.constraints.push(Expr::implies(reach.clone(), Expr::eq(Expr::var(joined), Expr::var(version))));
                }
            }
            out.insert(v, joined);
        }
        out
    }

    /// Monotonicity facts of the lockset state across a havoc (a loop head
    /// or a call): locksets only shrink, access flags only grow. They hold
    /// by construction of the instrumentation, and make the summaries of
    /// procedures that do not preserve a fact still useful.
    fn loop_free_facts(&mut self, vars: &BTreeSet<VarId>, before: &Env, after: &Env, r: Expr) -> Expr {
        let mut facts = Vec::new();
        for v in vars {
            let (Some(&b), Some(&a)) = (before.get(v), after.get(v)) else { continue };
            match self.summaries.monotone(*v) {
                Some(super::contracts::Monotone::Shrinks) => facts.push(Expr::implies(Expr::var(a), Expr::var(b))),
                Some(super::contracts::Monotone::Grows) => facts.push(Expr::implies(Expr::var(b), Expr::var(a))),
                None => {}
            }
        }
        if facts.is_empty() { r } else { self.define_bool("reach", Expr::and(r, Expr::and_all(facts))) }
    }

    fn command(&mut self, c: &Command, env: &mut Env, r: Expr) -> Expr {
        match c {
            Command::Assign { target, .. } | Command::Load { target, .. } if self.is_dropped(*target) => r,
            Command::Assign { target, value, .. } => {
                let value = self.rename(env, value);
                let sort = self.program.variables[*target].sort;
                let name = self.program.variables[*target].name.clone();
                let s = self.vc.fresh(&name, sort);
                self.vc.constraints.push(Expr::eq(Expr::var(s), value));
                env.insert(*target, s);
                r
            }
            Command::Havoc { vars, .. } => {
                for v in vars {
                    self.havoc(env, *v);
                }
                r
            }
            Command::Load { target, .. } => {
                let sort = self.program.variables[*target].sort;
                let name = self.program.variables[*target].name.clone();
                let s = self.vc.fresh(&name, sort);
                env.insert(*target, s);
                r
            }
            Command::TryLock { success, .. } => {
                let s = self.vc.fresh("trylock", Sort::Bool);
                env.insert(*success, s);
                r
            }
            Command::Assume { cond, .. } => {
                let cond = self.rename(env, cond);
                self.define_bool("reach", Expr::and(r, cond))
            }
            // The lowering emits no checks of its own; race checks are added
            // by the pair harness, candidate checks by this encoder.
            Command::Assert { cond, .. } => {
                let cond = self.rename(env, cond);
                self.define_bool("reach", Expr::and(r, cond))
            }
            Command::Call { procedure, results, .. } => self.call(*procedure, results, env, r),
            Command::Store { .. }
            | Command::Lock { .. }
            | Command::Unlock { .. }
            | Command::LockUnknown { .. }
            | Command::HeldAnnotation { .. }
            | Command::InterruptControl { .. }
            | Command::MakeLive { .. }
            | Command::Quiesce { .. }
            | Command::GhostAccess { .. }
            | Command::Keep { .. }
            | Command::Approximation { .. } => r,
        }
    }

    /// A call through the callee's summary; its arguments matter only to
    /// the callee's body, since the candidates mention ghost globals only.
    fn call(&mut self, callee: ProcId, results: &[VarId], env: &mut Env, r: Expr) -> Expr {
        let summaries = self.summaries;
        // Preconditions of the callee, in the caller's state.
        let before = env.clone();
        for (i, c) in summaries.requires_candidates(callee) {
            if self.checks(c) {
                let f = self.candidate_formula(c, &mut env.clone(), &before);
                self.check_candidate(i, f, r.clone());
            }
        }
        let modifies: Vec<VarId> = summaries.modifies(callee).iter().copied().collect();
        for v in modifies.iter().chain(results) {
            self.havoc(env, *v);
        }
        let mut r = r;
        for (i, c) in summaries.ensures_candidates(callee) {
            if self.is_sliced(c) {
                continue;
            }
            let f = self.candidate_formula(c, &mut env.clone(), &before);
            r = self.assume_candidate(i, f, r);
        }
        let modified: BTreeSet<VarId> = modifies.into_iter().collect();
        r = self.loop_free_facts(&modified, &before, env, r);
        // The access sites the callee may leave in its site variables.
        let all: BTreeSet<VarId> = summaries.site_facts(callee).iter().map(|(v, _)| *v).collect();
        self.site_facts_at(callee, &all, &before, env, r)
    }

    /// After a havoc of `vars`: each site variable among them holds its
    /// value from before, or one of the sites procedure `p` can set.
    fn site_facts_at(&mut self, p: ProcId, vars: &BTreeSet<VarId>, before: &Env, after: &Env, mut r: Expr) -> Expr {
        for (site_var, sites) in self.summaries.site_facts(p) {
            if !vars.contains(site_var) {
                continue;
            }
            let (Some(&b), Some(&a)) = (before.get(site_var), after.get(site_var)) else { continue };
            let mut options = vec![Expr::eq(Expr::var(a), Expr::var(b))];
            for s in sites {
                let at = Expr::eq(Expr::var(a), Expr::int(*s as i128));
                // A site is recorded only at a hit, so with `LIVE`: live
                // before p, or made live by p before the site.
                let live = self.summaries.site_live(p, *site_var, *s).and_then(|(live, set)| {
                    let old_live = before.get(&live)?;
                    let partner = self.summaries.partner()?;
                    let term = Expr::var(*before.get(&partner).or(after.get(&partner))?);
                    Some(Expr::or(Expr::var(*old_live), crate::instrument::lockset::partner_in(term, set)))
                });
                options.push(match live {
                    Some(live) => Expr::and(at, live),
                    None => at,
                });
            }
            r = self.define_bool("reach", Expr::and(r, Expr::or_all(options)));
        }
        r
    }

    /// `in_p` of procedure p: `PARTNER` (never assigned, so its current
    /// incarnation is its value throughout) is among the entry points p may
    /// make live.
    fn partner_made_live(&mut self, p: ProcId, made: Option<&crate::instrument::lockset::LiveSet>, now: &mut Env) -> Expr {
        let summaries = self.summaries;
        match summaries.partner() {
            Some(partner) => {
                let term = Expr::var(self.current(now, partner));
                summaries.partner_made_live_in(p, made, term)
            }
            None => Expr::bool(false),
        }
    }

    /// `q_p` of procedure p: `PARTNER` is among the entry points p surely
    /// leaves quiesced.
    fn partner_quiesced(&mut self, p: ProcId, now: &mut Env) -> Expr {
        let summaries = self.summaries;
        match summaries.partner() {
            Some(partner) => {
                let term = Expr::var(self.current(now, partner));
                summaries.partner_quiesced(p, term)
            }
            None => Expr::bool(false),
        }
    }

    /// A candidate's formula with `old` the incarnations at the start of
    /// the procedure (or before the call) and `now` the current ones.
    pub fn candidate_formula(&mut self, c: &Candidate, now: &mut Env, old: &Env) -> Expr {
        let made = match c.shape {
            super::contracts::Shape::UnchangedUnlessMadeLive(..) | super::contracts::Shape::LiveWithin(_) => {
                self.partner_made_live(c.procedure, c.made.as_ref(), now)
            }
            super::contracts::Shape::QuiescedWithin(_) | super::contracts::Shape::UnchangedWhenQuiesced(_) => {
                self.partner_quiesced(c.procedure, now)
            }
            _ => Expr::bool(false),
        };
        let mut now_of = |this: &mut Self, v: VarId| Expr::var(this.current(now, v));
        let old_of = |this: &mut Self, v: VarId| match old.get(&v) {
            Some(s) => Expr::var(*s),
            None => {
                // A variable never seen before the point: its value then is
                // its value now.
                let mut tmp = old.clone();
                Expr::var(this.current(&mut tmp, v))
            }
        };
        match c.shape {
            super::contracts::Shape::Unchanged(v) => {
                let (n, o) = (now_of(self, v), old_of(self, v));
                Expr::eq(n, o)
            }
            super::contracts::Shape::Equals(v, b) => {
                let n = now_of(self, v);
                if b { n } else { Expr::not(n) }
            }
            super::contracts::Shape::UnchangedWhenHeld(held, v) => {
                let h = old_of(self, held);
                let (n, o) = (now_of(self, v), old_of(self, v));
                Expr::implies(h, Expr::eq(n, o))
            }
            super::contracts::Shape::UnchangedUnlessLive(live, v) => {
                let l = old_of(self, live);
                let (n, o) = (now_of(self, v), old_of(self, v));
                Expr::or(l, Expr::eq(n, o))
            }
            super::contracts::Shape::UnchangedUnlessMadeLive(live, v) => {
                let l = old_of(self, live);
                let (n, o) = (now_of(self, v), old_of(self, v));
                Expr::or_all(vec![l, made, Expr::eq(n, o)])
            }
            super::contracts::Shape::QuiescedWithin(live) => {
                let n = now_of(self, live);
                Expr::implies(made, Expr::not(n))
            }
            super::contracts::Shape::UnchangedWhenQuiesced(v) => {
                let (n, o) = (now_of(self, v), old_of(self, v));
                Expr::implies(made, Expr::eq(n, o))
            }
            super::contracts::Shape::LiveWithin(live) => {
                let (n, o) = (now_of(self, live), old_of(self, live));
                Expr::implies(n, Expr::or(o, made))
            }
        }
    }
}
