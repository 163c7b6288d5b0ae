//! Per-call private memory: the accesses whose address can only point to
//! memory that no other thread reaches, which need no race check.
//!
//! # Sources
//!
//! Three kinds of object are private to the call that makes them until
//! they are published:
//!
//! - a **per-call argument**: a parameter of an entry point that the
//!   kernel models (`<private-arg>` on the callback field,
//!   kernel-models/entry-points/) as pointing to an object the kernel made
//!   for this one call, or that no other thread touches while it runs
//!   (`loff_t *ppos` of `read`, ksys_read's copy of `f_pos`; the sysfs
//!   buffer of `show`; the `rtnl_link_stats64` of `ndo_get_stats64`);
//!   a function registered several ways has such a parameter only if every
//!   registration says so;
//! - a **fresh allocation**: the result of a function model that
//!   `allocates` (every `fresh`/`null-or-fresh` allocator, `memdup_user`);
//! - an **address-taken local** (and a temporary object) of the procedure.
//!
//! The lowering records which IR variables hold these addresses, which
//! variables hold an address inside the object another expression points
//! into (the ranged accesses of models and array leaves), and which values
//! a call may keep ([`Facts`]).
//!
//! # Algorithm
//!
//! Flow-insensitive and context-insensitive, to a fixpoint over the whole
//! program. Each variable gets the set of sources its value may be derived
//! from, plus `unknown` when it may be derived from anything else: a load
//! (anything read from memory), a havoc, a global's or function's address,
//! a kernel function of the models (`netdev_priv`, drvdata getters), a
//! parameter of an entry point that is not per-call private or of a
//! procedure nothing calls. Copies, arithmetic (pointer arithmetic, field
//! offsets, casts' wrap-around, bit operations), `if` and the lowering's
//! own uninterpreted arithmetic propagate the union; comparisons, and a
//! difference whose right operand is derived from private addresses only
//! (C's pointer difference), give plain integers. A procedure's parameter takes the union over every call
//! site (and the kernel's value, for an entry point); a call's result, the
//! callee's return variable.
//!
//! A source **escapes** (is published) when a value derived from it is
//! stored at an address that is unknown, constant or derived from an
//! escaped source; is kept by a call (an external call or a function
//! pointer without known target: every argument; a model: the arguments
//! its `keeps` names, all by default; variadic arguments a procedure does
//! not receive; inline assembly operands); is returned by an entry point
//! to the kernel; or is assigned to a global variable. A value stored into
//! a private object escapes when that object does (the edge is followed to
//! a fixpoint).
//!
//! An access is **private** when its address is derived from sources only
//! (not unknown, not a constant), none of which escapes. Such accesses
//! become `AccessKind::Private`: the lockset instrumentation does not watch
//! them and the precise phase neither yields nor checks behind them.
//!
//! **Before publication** (issue 14, [`fresh_sites`]): a fresh allocation
//! or an address-taken local that escapes somewhere is still private, in
//! the procedure that allocates or declares it, at the accesses whose
//! address is derived from it only through that procedure's variables,
//! made at a point every path from the allocation (the declaration)
//! reaches without a command that may publish it (a forward must-analysis
//! per procedure). A callee's accesses through a parameter that receives
//! the unpublished object are private too when the lowering seeds that
//! parameter ([`FreshParam`], src/frontend/lower/fresh_callees.rs: one call
//! site, a parameter the callee never publishes), the callee's analysis
//! then starting with the parameter holding the object. A value stored
//! into such an unpublished object is published with it.
//!
//! # Soundness
//!
//! An object that escapes anywhere is never private by the
//! flow-insensitive rule, and by the flow-sensitive one only before every
//! command that may publish it (publish-then-initialise is reported); the
//! flow-sensitive rule takes "may publish" from the flow-insensitive
//! values, which cover every path, and assumes interleavings are
//! sequentially consistent (docs/soundness.md). Everything read from
//! memory is unknown, so a private pointer stored into a private object
//! and read back is treated as shared: only accesses through pointers the
//! analysis follows from the source itself are unwatched, and those can
//! touch only the object, which no other thread reaches while it has not
//! escaped. The IR's integers do not say which operand of a sum is the
//! pointer; an address computed from private addresses and integers only
//! is taken to lie in one of those objects, as C's pointer arithmetic
//! requires (an address computed from an unknown value is never private).
//! Standing assumptions (docs/soundness.md): the per-call argument models;
//! a function called only by the kernel through an unmodelled registration
//! and also by the driver is analysed with the driver's arguments only (its
//! kernel-side runs are not analysed at all, the existing entry-point
//! assumption); frees are not publications (an access after the free is a
//! use after free, not a race on the object).

use crate::ir::{AccessKind, BinaryOp, BlockId, Command, Expr, FuncId, ProcId, Program, Scope, UnaryOp, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// What the lowering records for the analysis.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Variables holding a new allocation, with the allocator's name.
    pub allocations: Vec<(VarId, String)>,
    /// Variables holding the address of a local object of their procedure.
    pub locals: Vec<VarId>,
    /// `(a, base)`: `a` holds an address inside the object `base` points
    /// into.
    pub within: Vec<(VarId, Expr)>,
    /// Values a call may keep after it returns.
    pub kept: Vec<Expr>,
    /// Where each kept value is kept: the procedure, the block, and how
    /// many of the block's commands other than `lock`, `unlock` and
    /// held-lock annotations come before (the lowering may remove those
    /// later), for the flow-sensitive rule.
    pub kept_at: Vec<(ProcId, BlockId, usize, Expr)>,
}

/// A per-call private parameter of an entry point's procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrivateParam {
    /// The procedure.
    pub procedure: ProcId,
    /// 0-based parameter index.
    pub index: usize,
    /// How the output names it: `file_operations.read argument 3`.
    pub label: String,
}

/// A parameter whose procedure every call passes an unpublished fresh
/// object that the procedure never publishes (found by [`fresh_calls`]):
/// the procedure's accesses through it are private like the caller's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreshParam {
    /// The procedure.
    pub procedure: ProcId,
    /// 0-based parameter index.
    pub index: usize,
    /// The object's source: the allocation's result variable or the
    /// local's address variable, as in [`Facts`].
    pub source: VarId,
}

/// A call that passes unpublished fresh objects to parameters its callee
/// never publishes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreshCall {
    /// The calling procedure.
    pub caller: ProcId,
    /// The call's block.
    pub block: BlockId,
    /// The call's index in its block.
    pub index: usize,
    /// The procedure called.
    pub callee: ProcId,
    /// The parameters, each with its object's source variable.
    pub params: Vec<(usize, VarId)>,
}

/// The calls that pass unpublished fresh objects to parameters their
/// callees never publish, given the parameters already seeded.
pub fn fresh_calls(program: &Program, facts: &Facts, opaque: BTreeSet<FuncId>, entries: &[ProcId], params: &[PrivateParam], seeds: &[FreshParam]) -> Vec<FreshCall> {
    let (st, _) = values(program, facts, opaque, entries, params);
    let entry_set: BTreeSet<ProcId> = entries.iter().copied().collect();
    // A parameter whose values are all private objects already (the
    // flow-insensitive rule: derived from sources only, none of which
    // escapes) needs no seed; splitting the call off would leave the
    // callee's other calls fewer private sources (only a null pointer, say).
    let escaped = escaped_sources(&st, facts, &entry_set);
    let private = |q: ProcId, j: usize| {
        let v = &st.vals[program.procedures[q].params[j].as_u32() as usize];
        !v.unknown && !v.sources.is_empty() && v.sources.iter().all(|s| !escaped.contains(s))
    };
    let mut calls = fresh_sites(&st, facts, &entry_set, seeds).1;
    for call in &mut calls {
        call.params.retain(|(j, _)| !private(call.callee, *j));
    }
    calls.retain(|c| !c.params.is_empty());
    calls
}

/// What the analysis found, for `--verbose` and the tests.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PrivateReport {
    /// Accesses made `.private` (not race-checked).
    pub accesses: usize,
    /// The same accesses by the kind of memory they touch.
    pub by_source: BTreeMap<String, usize>,
    /// Sources found, and how many of them escaped.
    pub sources: usize,
    /// Sources that escaped.
    pub escaped: usize,
    /// Address-taken locals that escaped: their address may reach another
    /// thread, while the lowering keeps the local's own accesses in a
    /// thread-private region (docs/soundness.md, Lowering). `racewatch
    /// svcomp` answers `unknown` when there is one.
    #[serde(default)]
    pub escaped_locals: usize,
}

/// Where an object comes from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Param(ProcId, usize),
    Allocation(VarId),
    Local(VarId),
}

/// The abstract value of a variable or expression.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Val {
    unknown: bool,
    sources: BTreeSet<u32>,
}

impl Val {
    fn unknown() -> Val {
        Val { unknown: true, sources: BTreeSet::new() }
    }

    fn join(&mut self, other: &Val) -> bool {
        let before = (self.unknown, self.sources.len());
        self.unknown |= other.unknown;
        self.sources.extend(other.sources.iter().copied());
        before != (self.unknown, self.sources.len())
    }
}

struct State<'a> {
    program: &'a Program,
    /// Functions whose result is a kernel value (models), never arithmetic.
    opaque: BTreeSet<FuncId>,
    vals: Vec<Val>,
    /// The value a havoc gives a variable the facts describe.
    seeded: BTreeMap<VarId, Seed>,
    /// The sources whose values were stored into each source's object: a
    /// load through an address derived from a source may give them back
    /// (besides anything else), so that a pointer stored into a private
    /// object, read back and then published is published too.
    contents: BTreeMap<u32, BTreeSet<u32>>,
}

#[derive(Clone)]
enum Seed {
    Source(u32),
    Within(Expr),
}

impl State<'_> {
    fn eval(&self, e: &Expr) -> Val {
        match e {
            Expr::Int(_) | Expr::Bool(_) => Val::default(),
            Expr::Var(v) => self.vals[v.as_u32() as usize].clone(),
            Expr::Unary(UnaryOp::Neg, a) => self.eval(a),
            Expr::Unary(UnaryOp::Not, _) => Val::default(),
            Expr::Binary(op, a, b) => match op {
                // `p - q` with `q` derived from private addresses only is
                // a pointer difference (C allows no other subtraction of a
                // pointer): an integer, no address.
                BinaryOp::Sub => {
                    let right = self.eval(b);
                    if !right.unknown && !right.sources.is_empty() {
                        return Val::default();
                    }
                    let mut v = self.eval(a);
                    v.join(&right);
                    v
                }
                BinaryOp::Add | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
                    let mut v = self.eval(a);
                    v.join(&self.eval(b));
                    v
                }
                BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Implies => Val::default(),
            },
            Expr::Ite(_, a, b) => {
                let mut v = self.eval(a);
                v.join(&self.eval(b));
                v
            }
            Expr::Apply(f, args) => {
                // A global's or a function's address, a string literal, or
                // a kernel function's result: not a private address.
                if args.is_empty() || self.opaque.contains(f) {
                    return Val::unknown();
                }
                let mut v = Val::default();
                for a in args {
                    v.join(&self.eval(a));
                }
                v
            }
        }
    }

    fn flow(&mut self, target: VarId, v: &Val) -> bool {
        self.vals[target.as_u32() as usize].join(v)
    }

    fn havoc(&mut self, target: VarId) -> bool {
        let v = match self.seeded.get(&target).cloned() {
            Some(Seed::Source(s)) => Val { unknown: false, sources: BTreeSet::from([s]) },
            Some(Seed::Within(base)) => self.eval(&base),
            None => Val::unknown(),
        };
        self.flow(target, &v)
    }
}

/// The private accesses of a program: `(procedure, block, command index)`.
pub struct PrivateAccesses {
    /// The accesses to mark.
    pub sites: BTreeSet<(ProcId, BlockId, usize)>,
    /// The summary.
    pub report: PrivateReport,
}

/// Runs the analysis. `opaque` are the uninterpreted functions that stand
/// for kernel functions (model results), `entries` the entry points'
/// procedures, `params` their per-call private parameters.
pub fn analyse(program: &Program, facts: &Facts, opaque: BTreeSet<FuncId>, entries: &[ProcId], params: &[PrivateParam], seeds: &[FreshParam]) -> PrivateAccesses {
    let (st, sources) = values(program, facts, opaque, entries, params);
    let entry_set: BTreeSet<ProcId> = entries.iter().copied().collect();
    escapes_and_sites(&st, &sources, facts, &entry_set, seeds)
}

/// The flow-insensitive values of the program's variables, with the
/// sources they are numbered by.
fn values<'a>(program: &'a Program, facts: &Facts, opaque: BTreeSet<FuncId>, entries: &[ProcId], params: &[PrivateParam]) -> (State<'a>, Vec<(Source, String)>) {
    let mut sources: Vec<(Source, String)> = Vec::new();
    let mut seeded = BTreeMap::new();
    for (v, name) in &facts.allocations {
        seeded.insert(*v, Seed::Source(sources.len() as u32));
        sources.push((Source::Allocation(*v), format!("fresh allocation ({name})")));
    }
    for v in &facts.locals {
        seeded.insert(*v, Seed::Source(sources.len() as u32));
        sources.push((Source::Local(*v), "address-taken local".to_string()));
    }
    for (v, base) in &facts.within {
        seeded.entry(*v).or_insert_with(|| Seed::Within(base.clone()));
    }
    let mut st = State { program, opaque, vals: vec![Val::default(); program.variables.len()], seeded, contents: BTreeMap::new() };
    // Unknown starting values: globals, and the parameters of procedures
    // the kernel calls (entry points) or that nothing calls.
    let mut called: BTreeSet<ProcId> = BTreeSet::new();
    for (_, p) in program.procedures.iter() {
        for (_, b) in p.blocks.iter() {
            for c in &b.commands {
                if let Command::Call { procedure, .. } = c {
                    called.insert(*procedure);
                }
            }
        }
    }
    for (v, var) in program.variables.iter() {
        if var.scope == Scope::Global {
            st.vals[v.as_u32() as usize] = Val::unknown();
        }
    }
    let entry_set: BTreeSet<ProcId> = entries.iter().copied().collect();
    for (id, p) in program.procedures.iter() {
        if !entry_set.contains(&id) && called.contains(&id) {
            continue;
        }
        for (i, &param) in p.params.iter().enumerate() {
            let private = params.iter().find(|pp| pp.procedure == id && pp.index == i && entry_set.contains(&id));
            let v = match private {
                Some(pp) => {
                    let s = sources.len() as u32;
                    sources.push((Source::Param(id, i), format!("per-call argument ({})", pp.label)));
                    Val { unknown: false, sources: BTreeSet::from([s]) }
                }
                None => Val::unknown(),
            };
            st.flow(param, &v);
        }
    }
    // The values of variables, to a fixpoint.
    loop {
        let mut changed = false;
        for (_, p) in program.procedures.iter() {
            for (_, b) in p.blocks.iter() {
                for c in &b.commands {
                    changed |= step(&mut st, c);
                }
            }
        }
        if !changed {
            break;
        }
    }
    (st, sources)
}

/// The escapes, then the private accesses of both rules.
fn escapes_and_sites(st: &State<'_>, sources: &[(Source, String)], facts: &Facts, entry_set: &BTreeSet<ProcId>, seeds: &[FreshParam]) -> PrivateAccesses {
    let program = st.program;
    let escaped = escaped_sources(st, facts, entry_set);
    // The private accesses.
    let mut sites = BTreeSet::new();
    let escaped_locals = escaped.iter().filter(|s| matches!(sources.get(**s as usize), Some((Source::Local(_), _)))).count();
    let mut report = PrivateReport { sources: sources.len(), escaped: escaped.len(), escaped_locals, ..PrivateReport::default() };
    for (id, p) in program.procedures.iter() {
        for (bid, b) in p.blocks.iter() {
            for (i, c) in b.commands.iter().enumerate() {
                let address = match c {
                    Command::Load { address, access: AccessKind::Plain, .. } | Command::Store { address, access: AccessKind::Plain, .. } => address,
                    _ => continue,
                };
                let a = st.eval(address);
                if a.unknown || a.sources.is_empty() || a.sources.iter().any(|s| escaped.contains(s)) {
                    continue;
                }
                sites.insert((id, bid, i));
                report.accesses += 1;
                let first = a.sources.iter().next().map(|s| sources[*s as usize].1.clone()).unwrap_or_default();
                let kind = first.split(" (").next().unwrap_or_default().to_string();
                let label = if kind == "per-call argument" { first } else { kind };
                *report.by_source.entry(label).or_default() += 1;
            }
        }
    }
    // The flow-sensitive rule: accesses to a fresh allocation or an
    // address-taken local before it may be published.
    for (site, source) in fresh_sites(st, facts, entry_set, seeds).0 {
        if sites.insert(site) {
            report.accesses += 1;
            let label = match sources.get(source as usize) {
                Some((Source::Local(_), _)) => "address-taken local before publication",
                _ => "fresh allocation before publication",
            };
            *report.by_source.entry(label.to_string()).or_default() += 1;
        }
    }
    PrivateAccesses { sites, report }
}

/// The sources that escape, flow-insensitively (module comment).
fn escaped_sources(st: &State<'_>, facts: &Facts, entry_set: &BTreeSet<ProcId>) -> BTreeSet<u32> {
    let program = st.program;
    // Escapes, and the edges "stored into".
    let mut escaped: BTreeSet<u32> = BTreeSet::new();
    let mut edges: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    let publish = |v: &Val, escaped: &mut BTreeSet<u32>| escaped.extend(v.sources.iter().copied());
    for e in &facts.kept {
        let v = st.eval(e);
        publish(&v, &mut escaped);
    }
    for (id, p) in program.procedures.iter() {
        if entry_set.contains(&id) {
            for r in &p.returns {
                publish(&st.vals[r.as_u32() as usize].clone(), &mut escaped);
            }
        }
        for (_, b) in p.blocks.iter() {
            for c in &b.commands {
                match c {
                    Command::Store { address, value, .. } => {
                        let v = st.eval(value);
                        if v.sources.is_empty() {
                            continue;
                        }
                        let a = st.eval(address);
                        if a.unknown || a.sources.is_empty() {
                            publish(&v, &mut escaped);
                        } else {
                            for s in &a.sources {
                                edges.entry(*s).or_default().extend(v.sources.iter().copied());
                            }
                        }
                    }
                    Command::Assign { target, value, .. } if program.variables[*target].scope == Scope::Global => {
                        publish(&st.eval(value), &mut escaped);
                    }
                    Command::Call { procedure, args, .. } if !program.procedures[*procedure].body => {
                        for a in args {
                            publish(&st.eval(a), &mut escaped);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    let mut work: Vec<u32> = escaped.iter().copied().collect();
    while let Some(s) = work.pop() {
        for t in edges.get(&s).into_iter().flatten() {
            if escaped.insert(*t) {
                work.push(*t);
            }
        }
    }
    escaped
}

/// What an expression's value is derived from, for the flow-sensitive
/// rule.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Derived {
    /// No address: constants and integers computed from them.
    Neutral,
    /// The current object of this allocation source, unpublished.
    Fresh(u32),
    /// Anything else.
    Other,
}

fn combine(a: Derived, b: Derived) -> Derived {
    match (a, b) {
        (Derived::Neutral, x) | (x, Derived::Neutral) => x,
        (Derived::Fresh(s), Derived::Fresh(t)) if s == t => Derived::Fresh(s),
        _ => Derived::Other,
    }
}

/// The state of the flow-sensitive rule at a point of one procedure.
#[derive(Clone, Default, PartialEq, Eq)]
struct FreshVars {
    /// The variables that hold an address derived only from the current,
    /// unpublished object of a source (paths meet by intersection).
    vars: BTreeMap<VarId, u32>,
    /// The address-taken locals that may have been published on some path
    /// to the point (paths meet by union): a declaration reached again (a
    /// loop) names the same frame slot, which a pointer kept from the
    /// earlier pass may still reach, so such a local is never fresh again.
    published: BTreeSet<u32>,
}

impl FreshVars {
    fn get(&self, v: &VarId) -> Option<&u32> {
        self.vars.get(v)
    }

    fn insert(&mut self, v: VarId, s: u32) {
        self.vars.insert(v, s);
    }

    fn remove(&mut self, v: &VarId) {
        self.vars.remove(v);
    }

    /// The meet of two paths' states.
    fn meet(&self, other: &FreshVars) -> FreshVars {
        let vars = self.vars.iter().filter(|(v, s)| other.vars.get(v) == Some(s)).map(|(v, s)| (*v, *s)).collect();
        let published = self.published.union(&other.published).copied().collect();
        FreshVars { vars, published }
    }
}

/// The accesses the flow-sensitive rule makes private, with the source
/// each touches.
type Sites = BTreeMap<(ProcId, BlockId, usize), u32>;

/// What the flow-sensitive rule reads: the flow-insensitive values, the
/// allocation commands' variables and the kept values by block.
struct FreshCtx<'a, 'b> {
    st: &'a State<'b>,
    /// The variables a havoc gives a new object of a source: allocations'
    /// results and locals' addresses (at the declaration).
    allocation: BTreeMap<VarId, u32>,
    /// The sources that are address-taken locals.
    locals: BTreeSet<u32>,
    kept: BTreeMap<(ProcId, BlockId), Vec<(usize, &'a Expr)>>,
    /// The parameters a procedure of the driver may publish.
    publishing: BTreeSet<(ProcId, usize)>,
    /// Each source's variable (the allocation's result, the local's
    /// address), by number.
    source_vars: Vec<VarId>,
    /// The entry points' procedures.
    entries: &'a BTreeSet<ProcId>,
}

/// The position of the next command of a block, counted without the
/// commands the lowering may remove after the facts were recorded (lock,
/// unlock and held-lock annotation commands of pseudo or dropped locks).
pub fn stable_position(commands: &[Command]) -> usize {
    commands.iter().filter(|c| stable(c)).count()
}

fn stable(c: &Command) -> bool {
    !matches!(c, Command::Lock { .. } | Command::Unlock { .. } | Command::HeldAnnotation { .. } | Command::Keep { .. })
}

impl FreshCtx<'_, '_> {
    fn derived(&self, fresh: &FreshVars, e: &Expr) -> Derived {
        match e {
            Expr::Int(_) | Expr::Bool(_) => Derived::Neutral,
            Expr::Var(v) => match fresh.get(v) {
                Some(s) => Derived::Fresh(*s),
                None => {
                    let val = &self.st.vals[v.as_u32() as usize];
                    if !val.unknown && val.sources.is_empty() { Derived::Neutral } else { Derived::Other }
                }
            },
            Expr::Unary(UnaryOp::Neg, a) => self.derived(fresh, a),
            Expr::Unary(UnaryOp::Not, _) => Derived::Neutral,
            Expr::Binary(op, a, b) => match op {
                // A pointer difference, as in the flow-insensitive rule.
                BinaryOp::Sub if matches!(self.derived(fresh, b), Derived::Fresh(_)) => Derived::Neutral,
                BinaryOp::Sub | BinaryOp::Add | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => combine(self.derived(fresh, a), self.derived(fresh, b)),
                _ => Derived::Neutral,
            },
            Expr::Ite(_, a, b) => combine(self.derived(fresh, a), self.derived(fresh, b)),
            Expr::Apply(f, args) => {
                if args.is_empty() || self.st.opaque.contains(f) {
                    return Derived::Other;
                }
                args.iter().fold(Derived::Neutral, |d, a| combine(d, self.derived(fresh, a)))
            }
        }
    }

    /// A value that may be derived from a source (the flow-insensitive
    /// values, which over-approximate every path) may publish it, and with
    /// it every source whose value was stored into its object anywhere
    /// (the flow-insensitive contents, to a fixpoint): no variable then
    /// holds their current objects as unpublished.
    fn publish(&self, fresh: &mut FreshVars, value: &Expr) {
        let v = self.st.eval(value);
        if v.sources.is_empty() {
            return;
        }
        let mut closed = v.sources;
        let mut work: Vec<u32> = closed.iter().copied().collect();
        while let Some(s) = work.pop() {
            for t in self.st.contents.get(&s).into_iter().flatten() {
                if closed.insert(*t) {
                    work.push(*t);
                }
            }
        }
        fresh.vars.retain(|_, s| !closed.contains(s));
        fresh.published.extend(closed.iter().filter(|s| self.locals.contains(s)));
    }

    /// Whether parameter `j` of `callee`, called from `caller`, may start
    /// as an unpublished object: the callee has a body, takes the
    /// parameter, never publishes it, and the kernel never calls it.
    fn seedable(&self, caller: ProcId, callee: ProcId, j: usize) -> bool {
        let q = &self.st.program.procedures[callee];
        q.body && callee != caller && j < q.params.len() && !self.publishing.contains(&(callee, j)) && !self.entries.contains(&callee)
    }

    /// One command's effect.
    fn transfer(&self, fresh: &mut FreshVars, c: &Command) {
        let program = self.st.program;
        match c {
            Command::Assign { target, value, .. } => {
                let d = self.derived(fresh, value);
                if !matches!(program.variables[*target].scope, Scope::Local(_)) {
                    self.publish(fresh, value);
                }
                match d {
                    Derived::Fresh(s) if matches!(program.variables[*target].scope, Scope::Local(_)) => {
                        fresh.insert(*target, s);
                    }
                    _ => {
                        fresh.remove(target);
                    }
                }
            }
            Command::Load { target, .. } => {
                fresh.remove(target);
            }
            // A value stored into an unpublished object stays with it:
            // it is published when the object is (`publish`).
            Command::Store { address, value, .. } => {
                if !matches!(self.derived(fresh, address), Derived::Fresh(_)) {
                    self.publish(fresh, value);
                }
            }
            Command::Havoc { vars, .. } => {
                for v in vars {
                    if let Some(s) = self.allocation.get(v) {
                        // A new object: the variables holding the old one
                        // no longer follow the source. A local that may
                        // have been published gets the same slot again.
                        fresh.vars.retain(|_, t| t != s);
                        if !fresh.published.contains(s) {
                            fresh.insert(*v, *s);
                        }
                    } else if let Some(Seed::Within(base)) = self.st.seeded.get(v) {
                        match self.derived(fresh, base) {
                            Derived::Fresh(s) => {
                                fresh.insert(*v, s);
                            }
                            _ => {
                                fresh.remove(v);
                            }
                        }
                    } else {
                        fresh.remove(v);
                    }
                }
            }
            Command::Call { procedure, args, results, .. } => {
                let callee = &program.procedures[*procedure];
                for (j, a) in args.iter().enumerate() {
                    if !callee.body || j >= callee.params.len() || self.publishing.contains(&(*procedure, j)) {
                        self.publish(fresh, a);
                    }
                }
                for r in results {
                    fresh.remove(r);
                }
            }
            Command::TryLock { success, .. } => {
                fresh.remove(success);
            }
            Command::Assume { .. }
            | Command::Assert { .. }
            | Command::Lock { .. }
            | Command::Unlock { .. }
            | Command::LockUnknown { .. }
            | Command::HeldAnnotation { .. }
            | Command::InterruptControl { .. }
            | Command::GhostAccess { .. }
            | Command::Keep { .. }
            | Command::MakeLive { .. }
            | Command::Quiesce { .. }
            | Command::Approximation { .. } => {}
        }
    }

    /// Runs a block from its entry state; records its accesses through
    /// unpublished fresh objects in `sites` when given.
    fn block(&self, p: ProcId, b: BlockId, mut fresh: FreshVars, mut sites: Option<&mut Sites>, mut calls: Option<&mut Vec<FreshCall>>) -> FreshVars {
        let kept = self.kept.get(&(p, b));
        let mut position = 0;
        let commands = &self.st.program.procedures[p].blocks[b].commands;
        for (i, c) in commands.iter().enumerate() {
            for (at, e) in kept.into_iter().flatten() {
                if *at == position {
                    self.publish(&mut fresh, e);
                }
            }
            if let Some(sites) = sites.as_deref_mut() {
                if let Command::Load { address, access: AccessKind::Plain, .. } | Command::Store { address, access: AccessKind::Plain, .. } = c {
                    if let Derived::Fresh(s) = self.derived(&fresh, address) {
                        sites.insert((p, b, i), s);
                    }
                }
            }
            if let (Some(calls), Command::Call { procedure, args, .. }) = (calls.as_deref_mut(), c) {
                let params: Vec<(usize, VarId)> = args
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| self.seedable(p, *procedure, *j))
                    .filter_map(|(j, a)| match self.derived(&fresh, a) {
                        Derived::Fresh(s) => Some((j, self.source_vars[s as usize])),
                        _ => None,
                    })
                    .collect();
                if !params.is_empty() {
                    calls.push(FreshCall { caller: p, block: b, index: i, callee: *procedure, params });
                }
            }
            self.transfer(&mut fresh, c);
            if stable(c) {
                position += 1;
            }
        }
        for (at, e) in kept.into_iter().flatten() {
            if *at >= position {
                self.publish(&mut fresh, e);
            }
        }
        fresh
    }
}

/// The flow-sensitive rule for fresh allocations and address-taken
/// locals: in the procedure that allocates (declares), or that receives
/// the object at a seeded parameter (`seeds`), an access whose address is
/// derived only from the object through the procedure's own variables
/// (never through memory), at a point every path reaches from the
/// allocation (the declaration's havoc of the local's address; the entry,
/// for a seeded parameter) without a command that may publish the object.
/// Also the calls that pass such an object to a parameter that could be
/// seeded (`FreshCtx::seedable`), for src/frontend/lower/fresh_callees.rs. A forward
/// must-analysis per procedure: the state maps each local variable to the
/// source whose current, unpublished object it points into; paths meet by
/// intersection. May publish (every source the flow-insensitive values
/// say a value may be derived from, with every source whose value was
/// stored into their objects, transitively): a store of the value
/// anywhere but into an object still unpublished at that point (whose
/// publication then publishes it), a call of the driver at a parameter it
/// may publish, a call without body, a value kept by a model, an external
/// call, a function pointer or inline assembly (at the call, as the
/// lowering recorded), an assignment to a global or to the procedure's
/// return. The allocation command itself starts a new object and forgets
/// every variable holding the old one, so a copy carried around a loop
/// never stands for the new object; a local's declaration reached again
/// after the local may have been published starts nothing (the same frame
/// slot, which a kept pointer may still reach).
fn fresh_sites(st: &State<'_>, facts: &Facts, entries: &BTreeSet<ProcId>, seeds: &[FreshParam]) -> (Sites, Vec<FreshCall>) {
    // The sources' numbering of `analyse`: allocations, then locals.
    let mut allocation: BTreeMap<VarId, u32> = facts.allocations.iter().enumerate().map(|(i, (v, _))| (*v, i as u32)).collect();
    let source_vars: Vec<VarId> = facts.allocations.iter().map(|(v, _)| *v).chain(facts.locals.iter().copied()).collect();
    let first_local = facts.allocations.len();
    let mut locals = BTreeSet::new();
    for (j, v) in facts.locals.iter().enumerate() {
        let s = (first_local + j) as u32;
        allocation.insert(*v, s);
        locals.insert(s);
    }
    let mut kept: BTreeMap<(ProcId, BlockId), Vec<(usize, &Expr)>> = BTreeMap::new();
    for (p, b, at, e) in &facts.kept_at {
        kept.entry((*p, *b)).or_default().push((*at, e));
    }
    let program = st.program;
    let publishing = publishing_params(program, &st.seeded, &kept);
    let ctx = FreshCtx { st, allocation, locals, kept, publishing, source_vars, entries };
    let mut sites = Sites::new();
    let mut calls = Vec::new();
    for (id, p) in program.procedures.iter() {
        if !p.body {
            continue;
        }
        // A parameter that every call passes an unpublished object its
        // callee never publishes starts as that object.
        let mut start = FreshVars::default();
        for seed in seeds.iter().filter(|s| s.procedure == id) {
            if let (Some(param), Some(s)) = (p.params.get(seed.index), ctx.allocation.get(&seed.source)) {
                start.insert(*param, *s);
            }
        }
        let allocates = p.locals.iter().any(|v| ctx.allocation.contains_key(v));
        if !allocates && start.vars.is_empty() {
            continue;
        }
        let mut entry: BTreeMap<BlockId, FreshVars> = BTreeMap::from([(p.entry, start)]);
        let mut work = vec![p.entry];
        while let Some(b) = work.pop() {
            let out = ctx.block(id, b, entry[&b].clone(), None, None);
            if let crate::ir::Terminator::Goto(targets) = &p.blocks[b].terminator {
                for t in targets {
                    let next = match entry.get(t) {
                        None => out.clone(),
                        Some(old) => old.meet(&out),
                    };
                    if entry.get(t) != Some(&next) {
                        entry.insert(*t, next);
                        work.push(*t);
                    }
                }
            }
        }
        for (b, fresh) in entry {
            ctx.block(id, b, fresh, Some(&mut sites), Some(&mut calls));
        }
    }
    (sites, calls)
}

/// One command's effect on the variables' values; whether anything grew.
fn step(st: &mut State<'_>, c: &Command) -> bool {
    match c {
        Command::Assign { target, value, .. } => {
            let v = st.eval(value);
            st.flow(*target, &v)
        }
        Command::Load { target, address, .. } => {
            // Anything read from memory is unknown, and it may be a
            // pointer stored into the object the address points into.
            let mut v = Val::unknown();
            for a in st.eval(address).sources {
                if let Some(stored) = st.contents.get(&a) {
                    v.sources.extend(stored.iter().copied());
                }
            }
            st.flow(*target, &v)
        }
        Command::Store { address, value, .. } => {
            let v = st.eval(value);
            if v.sources.is_empty() {
                return false;
            }
            let mut changed = false;
            for a in st.eval(address).sources {
                let into = st.contents.entry(a).or_default();
                let before = into.len();
                into.extend(v.sources.iter().copied());
                changed |= into.len() > before;
            }
            changed
        }
        Command::Havoc { vars, .. } => {
            let mut changed = false;
            for v in vars {
                changed |= st.havoc(*v);
            }
            changed
        }
        Command::Call { procedure, args, results, .. } => {
            let callee = &st.program.procedures[*procedure];
            let mut changed = false;
            if callee.body {
                let params = callee.params.clone();
                let returns = callee.returns.clone();
                for (p, a) in params.iter().zip(args) {
                    let v = st.eval(a);
                    changed |= st.flow(*p, &v);
                }
                for (r, ret) in results.iter().zip(&returns) {
                    let v = st.vals[ret.as_u32() as usize].clone();
                    changed |= st.flow(*r, &v);
                }
                for r in results.iter().skip(returns.len()) {
                    changed |= st.flow(*r, &Val::unknown());
                }
            } else {
                for r in results {
                    changed |= st.flow(*r, &Val::unknown());
                }
            }
            changed
        }
        Command::TryLock { success, .. } => st.flow(*success, &Val::default()),
        Command::Assume { .. }
        | Command::Assert { .. }
        | Command::Lock { .. }
        | Command::Unlock { .. }
        | Command::LockUnknown { .. }
        | Command::HeldAnnotation { .. }
        | Command::InterruptControl { .. }
        | Command::GhostAccess { .. }
        | Command::Keep { .. }
        | Command::MakeLive { .. }
        | Command::Quiesce { .. }
        | Command::Approximation { .. } => false,
    }
}

/// Marks the private accesses of a program `.private` (the one rewrite,
/// applied by the lowering once the analysis has read the whole program).
pub fn apply(program: &mut Program, accesses: &PrivateAccesses) {
    for &(p, b, i) in &accesses.sites {
        if let Some(Command::Load { access, .. } | Command::Store { access, .. }) = program.procedures[p].blocks[b].commands.get_mut(i) {
            *access = AccessKind::Private;
        }
    }
}

/// The parameters of the driver's procedures that a call may publish: a
/// value derived from the parameter through the procedure's variables
/// (flow-insensitively) is stored anywhere but into the parameter's own
/// object by a procedure that reads nothing back from it
/// (`INIT_LIST_HEAD`), assigned to a global, kept by
/// a model, an external call, a function pointer or inline assembly, or
/// passed to a procedure without body or to a parameter that its callee
/// may publish (a least fixpoint over the call graph: a publication needs
/// a finite chain of calls). Returning the value is no publication here:
/// the caller's variables receive it, and the caller's own commands are
/// checked with the flow-insensitive values, which follow returns.
fn publishing_params(program: &Program, seeded: &BTreeMap<VarId, Seed>, kept: &BTreeMap<(ProcId, BlockId), Vec<(usize, &Expr)>>) -> BTreeSet<(ProcId, usize)> {
    // The variables derived from each parameter, per procedure.
    let mut derived: BTreeMap<(ProcId, usize), BTreeSet<VarId>> = BTreeMap::new();
    for (id, p) in program.procedures.iter() {
        if !p.body {
            continue;
        }
        for (i, param) in p.params.iter().enumerate() {
            let mut taint = BTreeSet::from([*param]);
            let hit = |e: &Expr, taint: &BTreeSet<VarId>| e.variables().iter().any(|v| taint.contains(v));
            loop {
                let before = taint.len();
                for (_, b) in p.blocks.iter() {
                    for c in &b.commands {
                        match c {
                            Command::Assign { target, value, .. } if hit(value, &taint) => {
                                taint.insert(*target);
                            }
                            Command::Havoc { vars, .. } => {
                                for v in vars {
                                    if let Some(Seed::Within(base)) = seeded.get(v) {
                                        if hit(base, &taint) {
                                            taint.insert(*v);
                                        }
                                    }
                                }
                            }
                            Command::Call { args, results, .. } if args.iter().any(|a| hit(a, &taint)) => {
                                taint.extend(results.iter().copied());
                            }
                            _ => {}
                        }
                    }
                }
                if taint.len() == before {
                    break;
                }
            }
            derived.insert((id, i), taint);
        }
    }
    let mut publishing: BTreeSet<(ProcId, usize)> = BTreeSet::new();
    loop {
        let mut changed = false;
        for (&(id, i), taint) in &derived {
            if publishing.contains(&(id, i)) {
                continue;
            }
            let hit = |e: &Expr| e.variables().iter().any(|v| taint.contains(v));
            // An address derived from the parameter alone lies in its
            // object (C's pointer arithmetic).
            let within_object = |e: &Expr| {
                let vars = e.variables();
                !vars.is_empty() && vars.iter().all(|v| taint.contains(v))
            };
            let p = &program.procedures[id];
            let reads_object = p
                .blocks
                .iter()
                .flat_map(|(_, b)| b.commands.iter())
                .any(|c| matches!(c, Command::Load { address, .. } if within_object(address)));
            let mut publishes = kept.iter().any(|((q, _), list)| *q == id && list.iter().any(|(_, e)| hit(e)));
            for (_, b) in p.blocks.iter() {
                for c in &b.commands {
                    publishes |= match c {
                        // A store into the object itself (`INIT_LIST_HEAD`:
                        // `list->next = list`) reaches no one who does not
                        // reach the object already, unless the procedure
                        // may read it back (a load gives an unknown value,
                        // whose publication this analysis does not follow).
                        Command::Store { address, value, .. } => hit(value) && (reads_object || !within_object(address)),
                        Command::Assign { target, value, .. } => program.variables[*target].scope == Scope::Global && hit(value),
                        Command::Call { procedure, args, .. } => {
                            let callee = &program.procedures[*procedure];
                            args.iter().enumerate().any(|(j, a)| hit(a) && (!callee.body || j >= callee.params.len() || publishing.contains(&(*procedure, j))))
                        }
                        _ => false,
                    };
                }
            }
            if publishes {
                publishing.insert((id, i));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    publishing
}
