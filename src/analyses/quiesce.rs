//! Which callbacks a quiescing call surely stops (`quiesce` commands,
//! kernel-models/entry-points/quiescing.xml), and which callbacks a
//! procedure surely leaves quiesced when it returns.
//!
//! # Algorithm
//!
//! A `quiesce` command names the entry points its model says the call
//! waits for (`targets`). Target t is *effectively* quiesced at the
//! command (its `effective` set) when nothing can make it live again
//! afterwards, other than the caller's own later `live` commands (which
//! the phases see): let Q be the entry points surely quiesced earlier on
//! every path through the same procedure (a forward must-analysis:
//! `quiesce` adds its effective set, `live` removes what it makes live,
//! closed over callbacks, a call removes what its callee may make live and
//! adds what the callee surely leaves quiesced). The effective set E is
//! the largest subset of the targets such that, with S every entry point
//! that may still run (neither in E nor in Q, nor an init or exit entry
//! point) plus the members of Q that a member of E may have made live
//! again before it stopped, no member of E is among the entry points S
//! may make live (closed under callbacks making others live,
//! [`crate::instrument::lockset`]); for a model whose call only waits for
//! the run in progress (`self="waits"`: flush_work), no member of E may
//! make a member of E live either.
//! A procedure's summary (what it surely leaves quiesced) is the
//! intersection of the states at its returns; summaries are iterated
//! from empty sets upwards, so each iterate is sound.
//!
//! # Soundness
//!
//! A callback that may be live after the command is never in `effective`
//! (an unknown call in a live callback makes every callback live, so it
//! keeps every target live), except for two standing assumptions
//! (docs/soundness.md): init entry points (module init, probe) and exit
//! entry points other than the caller do not make a callback live again
//! after the caller quiesced it (probe and remove of one device are
//! serialised by the device lock; a module's init has returned before its
//! devices are removed), and a kind's single registration is the object
//! the call names. Procedures the must-analysis does not reach (no
//! `quiesce` below them) quiesce nothing.

use crate::instrument::lockset::{LiveSet, Liveness, targets_of};
use crate::ir::{BlockId, Command, ProcId, Program, Terminator};
use crate::models::Role;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The entry points (indices in the program's entry point order) each
/// procedure surely leaves quiesced when it returns; absent: none.
pub type Quiesced = HashMap<ProcId, BTreeSet<usize>>;

/// Which entry points (indices in the program's entry point order) may
/// run at the same time as one another: `concurrent(a, b)`.
pub type Concurrent<'c> = &'c dyn Fn(usize, usize) -> bool;

/// Fills the `effective` set of every `quiesce` command of `program`,
/// taking every two entry points to be able to run at the same time.
pub fn resolve(program: &mut Program) {
    resolve_with(program, &|_, _| true);
}

/// Fills the `effective` set of every `quiesce` command of `program`; only
/// entry points that `concurrent` says may run beside one that reaches the
/// command can make a target live again while it runs.
pub fn resolve_with(program: &mut Program, concurrent: Concurrent<'_>) {
    let (summaries, effective) = analyse(program, concurrent);
    program.quiesce_summaries = Some(summaries);
    for (p, b, i, names) in effective {
        if let Command::Quiesce { effective, .. } = &mut program.procedures[p].blocks[b].commands[i] {
            *effective = names;
        }
    }
}

/// What each procedure surely leaves quiesced when it returns: the
/// summaries [`resolve_with`] stored, or, for a program it did not run on,
/// computed taking every two entry points to be able to run together.
pub fn summaries(program: &Program) -> Quiesced {
    program.quiesce_summaries.clone().unwrap_or_else(|| analyse(program, &|_, _| true).0)
}

/// The summaries, and the effective set of every quiesce command.
#[allow(clippy::type_complexity)]
fn analyse(program: &Program, concurrent: Concurrent<'_>) -> (Quiesced, Vec<(ProcId, BlockId, usize, Vec<String>)>) {
    let with: BTreeSet<ProcId> = program
        .procedures
        .iter()
        .filter(|(_, p)| p.blocks.iter().any(|(_, b)| b.commands.iter().any(|c| matches!(c, Command::Quiesce { .. }))))
        .map(|(id, _)| id)
        .collect();
    if with.is_empty() {
        return (Quiesced::new(), Vec::new());
    }
    let liveness = Liveness::of(program);
    let roles: Vec<Role> = program.entry_points.values().map(|e| e.kind.role()).collect();
    let names: Vec<String> = program.entry_points.values().map(|e| e.name.clone()).collect();
    // The procedures that reach a quiesce command (callers of `with`,
    // transitively): the only ones whose summary can be non-empty.
    let mut relevant = with.clone();
    loop {
        let before = relevant.len();
        for (id, p) in program.procedures.iter() {
            let calls = p.blocks.iter().flat_map(|(_, b)| b.commands.iter());
            if calls.into_iter().any(|c| matches!(c, Command::Call { procedure, .. } if relevant.contains(procedure))) {
                relevant.insert(id);
            }
        }
        if relevant.len() == before {
            break;
        }
    }
    // Per procedure that reaches a quiesce command, the entry points that
    // may run beside some entry point whose body runs it.
    let reach: Vec<BTreeSet<ProcId>> = program.entry_points.values().map(|e| program.reachable(e.procedure).into_iter().collect()).collect();
    let beside: HashMap<ProcId, BTreeSet<usize>> = relevant
        .iter()
        .map(|&p| {
            let callers: Vec<usize> = (0..reach.len()).filter(|&c| reach[c].contains(&p)).collect();
            let set = (0..reach.len()).filter(|&x| callers.iter().any(|&c| concurrent(c, x))).collect();
            (p, set)
        })
        .collect();
    let mut cx = Cx { liveness: &liveness, roles: &roles, live_within: HashMap::new(), summaries: Quiesced::new(), beside, current: None, rearming: HashMap::new() };
    // Summaries grow from empty sets to a fixpoint (bounded: each round
    // that changes something adds an entry point to a summary).
    for _ in 0..=roles.len() * relevant.len() {
        let mut changed = false;
        for &p in &relevant {
            let (returned, _) = cx.procedure(program, p);
            if !returned.is_empty() && cx.summaries.get(&p) != Some(&returned) {
                cx.summaries.insert(p, returned);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = Vec::new();
    for &p in &with {
        let (_, effective) = cx.procedure(program, p);
        for ((b, i), set) in effective {
            out.push((p, b, i, set.iter().map(|&e| names[e].clone()).collect()));
        }
    }
    (cx.summaries, out)
}

struct Cx<'a> {
    liveness: &'a Liveness,
    roles: &'a [Role],
    live_within: HashMap<ProcId, LiveSet>,
    summaries: Quiesced,
    /// Per procedure, the entry points that may run beside its callers.
    beside: HashMap<ProcId, BTreeSet<usize>>,
    /// The procedure being analysed.
    current: Option<ProcId>,
    /// Per `rearmed-by` list (and, for an `exclusive` model, the quiescing
    /// function and its targets), the liveness that counts only those calls
    /// (and only those that may give back another caller's hold).
    rearming: HashMap<RearmKey, std::rc::Rc<Liveness>>,
}

/// The `rearmed-by` functions, and for an `exclusive` model the quiescing
/// function with its targets.
type RearmKey = (Vec<String>, Option<(String, Vec<String>)>);

/// The effective set of each quiesce command, by block and position.
type Effective = Vec<((BlockId, usize), BTreeSet<usize>)>;

impl Cx<'_> {
    /// The liveness that counts only calls of `functions` (cached); for an
    /// `exclusive` model (`held`: its function and targets), not those
    /// that give back their own entry point's hold ([`giving_back`]).
    fn rearming(&mut self, program: &Program, functions: &[String], held: Option<(String, Vec<String>)>) -> std::rc::Rc<Liveness> {
        let key = (functions.to_vec(), held);
        if let Some(l) = self.rearming.get(&key) {
            return l.clone();
        }
        let l = match &key.1 {
            None => Liveness::of_functions(program, functions),
            Some((function, targets)) => {
                let skip = giving_back(program, function, &targets.iter().cloned().collect(), functions);
                Liveness::of_functions_except(program, functions, &skip)
            }
        };
        let l = std::rc::Rc::new(l);
        self.rearming.insert(key, l.clone());
        l
    }

    /// What a call to `q` may make live (closed).
    fn made_live(&mut self, program: &Program, q: ProcId) -> LiveSet {
        if let Some(set) = self.live_within.get(&q) {
            return set.clone();
        }
        let set = self.liveness.close(&self.liveness.reached(&program.reachable(q)));
        self.live_within.insert(q, set.clone());
        set
    }

    /// The targets `wanted` of one quiesce command that stay quiesced
    /// after it, reached with `q` surely quiesced: the largest subset E
    /// such that no entry point that may still run (S: neither in E nor in
    /// Q, nor init or exit, plus the members of Q that E's callbacks may
    /// have made live again before they stopped) may make a member of E
    /// live; with `self="waits"`, no member of E may make one live either.
    fn effective(&self, wanted: BTreeSet<usize>, q: &BTreeSet<usize>, stops_self: bool, rearm: Option<&Liveness>) -> BTreeSet<usize> {
        let mut e = wanted;
        loop {
            if e.is_empty() {
                return e;
            }
            // Only what may run beside the caller can re-arm a target while
            // the caller runs (an `ndo_open` that requests the interrupt
            // again cannot run while RTNL keeps the `ndo_stop` that freed it
            // going).
            let beside = self.current.and_then(|p| self.beside.get(&p));
            let mut s: BTreeSet<usize> = (0..self.roles.len())
                .filter(|x| !e.contains(x) && !q.contains(x) && !matches!(self.roles[*x], Role::Init | Role::Exit))
                .filter(|x| beside.is_none_or(|b| b.contains(x)))
                .collect();
            let mut by_e: LiveSet = Some(BTreeSet::new());
            for &x in &e {
                super::super::instrument::lockset::join_sets(&mut by_e, &self.liveness.per_entry[x]);
            }
            match &by_e {
                None => s.extend(q.iter().copied()),
                Some(set) => s.extend(set.iter().copied().filter(|y| q.contains(y) && !e.contains(y))),
            }
            if let Some(rearm) = rearm {
                let mut by_e_rearm: LiveSet = Some(BTreeSet::new());
                for &x in &e {
                    super::super::instrument::lockset::join_sets(&mut by_e_rearm, &rearm.per_entry[x]);
                }
                if !stops_self && by_e_rearm.as_ref().is_none_or(|set| set.iter().any(|y| e.contains(y))) {
                    return BTreeSet::new();
                }
            } else if !stops_self && by_e.as_ref().is_none_or(|set| set.iter().any(|y| e.contains(y))) {
                return BTreeSet::new();
            }
            // What S may make live, closed over callbacks making others live
            // but not through init and exit entry points (by the standing
            // assumption above, they make nothing live again here: an
            // unknown call may make a probe live, and the probe requests
            // everything again), nor through entry points that cannot run
            // beside the caller (made live, they still wait for it).
            let roles = self.roles;
            let stop = |x: usize| matches!(roles[x], Role::Init | Role::Exit) || beside.is_some_and(|b| !b.contains(&x));
            let closed = self.liveness.close_unless(&Some(s), &stop);
            // With `rearmed-by`, what may run re-arms a target only through
            // a call of one of those functions in its body.
            let rearmed: LiveSet = match (rearm, closed) {
                (None, closed) => closed,
                (Some(rearm), closed) => {
                    let runnable: Vec<usize> = match closed {
                        Some(set) => set.into_iter().filter(|x| !stop(*x)).collect(),
                        None => (0..self.roles.len()).filter(|x| !stop(*x)).collect(),
                    };
                    let mut set: LiveSet = Some(BTreeSet::new());
                    for x in runnable {
                        super::super::instrument::lockset::join_sets(&mut set, &rearm.per_entry[x]);
                    }
                    set
                }
            };
            let Some(rearmed) = rearmed else {
                return BTreeSet::new();
            };
            let next: BTreeSet<usize> = e.iter().copied().filter(|t| !rearmed.contains(t)).collect();
            if next == e {
                return e;
            }
            e = next;
        }
    }

    /// The must-analysis of one procedure: the set surely quiesced at its
    /// returns, and each quiesce command's effective set.
    fn procedure(&mut self, program: &Program, p: ProcId) -> (BTreeSet<usize>, Effective) {
        self.current = Some(p);
        let procedure = &program.procedures[p];
        let mut at: HashMap<BlockId, BTreeSet<usize>> = HashMap::new();
        at.insert(procedure.entry, BTreeSet::new());
        let mut work = vec![procedure.entry];
        let mut effective = Vec::new();
        let mut returned: Option<BTreeSet<usize>> = None;
        let mut steps = 0usize;
        while let Some(b) = work.pop() {
            steps += 1;
            if steps > 100_000 {
                // Give up soundly: nothing quiesced.
                return (BTreeSet::new(), Vec::new());
            }
            let mut state = at[&b].clone();
            self.block(program, p, b, &mut state, None);
            match &procedure.blocks[b].terminator {
                Terminator::Goto(targets) => {
                    for &s in targets {
                        let merged = match at.get(&s) {
                            None => state.clone(),
                            Some(old) => old.intersection(&state).copied().collect(),
                        };
                        if at.get(&s) != Some(&merged) {
                            at.insert(s, merged);
                            work.push(s);
                        }
                    }
                }
                Terminator::Return | Terminator::Unreachable => {}
            }
        }
        for (b, block) in procedure.blocks.iter() {
            let Some(start) = at.get(&b) else { continue };
            let mut state = start.clone();
            self.block(program, p, b, &mut state, Some(&mut effective));
            if matches!(block.terminator, Terminator::Return) {
                returned = Some(match returned {
                    None => state,
                    Some(r) => r.intersection(&state).copied().collect(),
                });
            }
        }
        (returned.unwrap_or_default(), effective)
    }

    fn block(&mut self, program: &Program, p: ProcId, b: BlockId, state: &mut BTreeSet<usize>, mut out: Option<&mut Effective>) {
        for (i, c) in program.procedures[p].blocks[b].commands.iter().enumerate() {
            match c {
                Command::MakeLive { targets, .. } => {
                    match self.liveness.close(&targets_of(&self.liveness.index, targets)) {
                        None => state.clear(),
                        Some(set) => state.retain(|e| !set.contains(e)),
                    }
                }
                Command::Call { procedure: q, .. } => {
                    match self.made_live(program, *q) {
                        None => state.clear(),
                        Some(set) => state.retain(|e| !set.contains(e)),
                    }
                    if let Some(s) = self.summaries.get(q) {
                        state.extend(s.iter().copied());
                    }
                }
                Command::Quiesce { function, targets, stops_self, rearmed_by, exclusive, .. } => {
                    let stops_self = *stops_self;
                    let wanted: BTreeSet<usize> = targets.iter().filter_map(|t| self.liveness.index.get(t).copied()).collect();
                    let held = (*exclusive && !targets.is_empty()).then(|| (function.clone(), targets.clone()));
                    let rearm = (!rearmed_by.is_empty()).then(|| self.rearming(program, rearmed_by, held));
                    let eff = self.effective(wanted, state, stops_self, rearm.as_deref());
                    state.extend(eff.iter().copied());
                    if let Some(out) = out.as_deref_mut() {
                        out.push(((b, i), eff));
                    }
                }
                _ => {}
            }
        }
    }
}

/// The `live` commands of calls to `rearm` that only give back a hold
/// their own entry point took with an `exclusive` quiescing call
/// (`function` quiescing exactly `targets`), by address in `program`.
/// Such a call cannot re-arm a target while another caller holds it: that
/// caller's quiescing call returned only once no hold was left (for
/// `napi_disable`, once SCHED and NPSVC were clear, net/core/dev.c), so
/// this entry point's own quiescing call, which came after, is still
/// waiting for it. A command gives back its own hold when it makes live
/// exactly `targets` and, on every path from the start of its procedure
/// (callees' summaries included), the last quiescing or re-arming call was
/// such a quiescing call: a forward must-analysis, starting from "not
/// held" at each procedure's entry (a hold taken by a caller is not
/// counted, which loses precision, not soundness), where a call the
/// lowering cannot see into (`live` with every target) gives the hold
/// back, a callee that reaches neither kind of call changes nothing, and
/// another callee leaves what its summary says for the state it is
/// entered in (held or not).
fn giving_back(program: &Program, function: &str, targets: &BTreeSet<String>, rearm: &[String]) -> HashSet<*const Command> {
    let takes = |c: &Command| {
        matches!(c, Command::Quiesce { function: f, targets: t, exclusive: true, .. }
            if f == function && t.iter().cloned().collect::<BTreeSet<_>>() == *targets)
    };
    let mut touching: BTreeSet<ProcId> = program
        .procedures
        .iter()
        .filter(|(_, p)| p.blocks.iter().any(|(_, b)| b.commands.iter().any(|c| takes(c) || matches!(c, Command::MakeLive { .. }))))
        .map(|(id, _)| id)
        .collect();
    loop {
        let before = touching.len();
        for (id, p) in program.procedures.iter() {
            let mut calls = p.blocks.iter().flat_map(|(_, b)| b.commands.iter());
            if calls.any(|c| matches!(c, Command::Call { procedure, .. } if touching.contains(procedure))) {
                touching.insert(id);
            }
        }
        if touching.len() == before {
            break;
        }
    }
    let g = Hold { program, takes: &takes, targets, rearm, touching: &touching };
    // Whether each procedure surely returns holding, from "not held" and
    // from "held" on entry; iterated from false upwards, so each iterate
    // is sound.
    let mut held_after: HashMap<ProcId, [bool; 2]> = HashMap::new();
    for _ in 0..=2 * touching.len() + 1 {
        let mut changed = false;
        for &p in &touching {
            let exits = [g.flow(p, false, &held_after, None), g.flow(p, true, &held_after, None)];
            if held_after.get(&p).copied().unwrap_or([false; 2]) != exits {
                held_after.insert(p, exits);
                changed = true;
            }
        }
        if !changed {
            // Only from "not held": a hold taken by a caller is not counted.
            let mut out = HashSet::new();
            for &p in &touching {
                g.flow(p, false, &held_after, Some(&mut out));
            }
            return out;
        }
    }
    HashSet::new()
}

/// What [`giving_back`]'s must-analysis needs.
struct Hold<'a> {
    program: &'a Program,
    takes: &'a dyn Fn(&Command) -> bool,
    targets: &'a BTreeSet<String>,
    rearm: &'a [String],
    touching: &'a BTreeSet<ProcId>,
}

impl Hold<'_> {
    /// Whether procedure `p`, entered holding or not (`entry`), surely
    /// returns holding; with `out`, adds the re-arming commands reached
    /// holding.
    fn flow(&self, p: ProcId, entry: bool, held_after: &HashMap<ProcId, [bool; 2]>, mut out: Option<&mut HashSet<*const Command>>) -> bool {
        let procedure = &self.program.procedures[p];
        let mut at: HashMap<BlockId, bool> = HashMap::new();
        at.insert(procedure.entry, entry);
        let mut work = vec![procedure.entry];
        let mut steps = 0usize;
        while let Some(b) = work.pop() {
            steps += 1;
            if steps > 100_000 {
                return false;
            }
            let mut state = at[&b];
            self.block(p, b, &mut state, held_after, None);
            if let Terminator::Goto(next) = &procedure.blocks[b].terminator {
                for &s in next {
                    let merged = at.get(&s).map_or(state, |&old| old && state);
                    if at.get(&s) != Some(&merged) {
                        at.insert(s, merged);
                        work.push(s);
                    }
                }
            }
        }
        let mut exit: Option<bool> = None;
        for (b, block) in procedure.blocks.iter() {
            let Some(&start) = at.get(&b) else { continue };
            let mut state = start;
            self.block(p, b, &mut state, held_after, out.as_deref_mut());
            if matches!(block.terminator, Terminator::Return) {
                exit = Some(exit.map_or(state, |e| e && state));
            }
        }
        exit.unwrap_or(false)
    }

    fn block(&self, p: ProcId, b: BlockId, state: &mut bool, held_after: &HashMap<ProcId, [bool; 2]>, mut out: Option<&mut HashSet<*const Command>>) {
        for c in &self.program.procedures[p].blocks[b].commands {
            match c {
                _ if (self.takes)(c) => *state = true,
                Command::MakeLive { function, targets, .. } if self.rearm.contains(function) => {
                    let exact = targets.as_ref().is_some_and(|t| t.iter().cloned().collect::<BTreeSet<_>>() == *self.targets);
                    if *state && exact {
                        if let Some(out) = out.as_deref_mut() {
                            out.insert(c as *const Command);
                        }
                    }
                    *state = false;
                }
                Command::MakeLive { targets: None, .. } => *state = false,
                Command::Call { procedure: q, .. } if self.touching.contains(q) => {
                    *state = held_after.get(q).is_some_and(|exits| exits[usize::from(*state)]);
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Span;
    use crate::ir::{EntryPointInfo, ProcedureBuilder};
    use crate::models::EntryKind;

    fn span() -> Span {
        Span { file: std::sync::Arc::from(std::path::Path::new("t.c")), line: 1, column: 1 }
    }

    fn quiesce(target: &str) -> Command {
        Command::Quiesce {
            function: "q".into(),
            targets: vec![target.into()],
            stops_self: true,
            rearmed_by: Vec::new(),
            exclusive: false,
            effective: Vec::new(),
            span: None,
        }
    }

    fn make_live(target: &str) -> Command {
        Command::MakeLive { function: "queue_work_on".into(), targets: Some(vec![target.into()]), assumed: false, span: None }
    }

    /// An interrupt handler that queues a work item, the work item, and a
    /// remove that quiesces them in the given order; returns the effective
    /// sets of remove's two quiesce commands.
    fn remove_quiescing(order: [&str; 2]) -> Vec<Vec<String>> {
        let mut program = Program::new();
        let entry = |program: &mut Program, name: &str, kind: EntryKind, body: Vec<Command>| {
            let mut b = ProcedureBuilder::new(program, name, None);
            for c in body {
                b.push(c);
            }
            b.ret();
            let procedure = b.finish();
            program.entry_points.push(EntryPointInfo { name: name.into(), procedure, kind, span: span(), objects: Vec::new(), held_by_object: Vec::new() });
        };
        entry(&mut program, "handler", EntryKind::Irq, vec![make_live("work")]);
        entry(&mut program, "work", EntryKind::Work, vec![]);
        entry(&mut program, "remove", EntryKind::Remove, vec![quiesce(order[0]), quiesce(order[1])]);
        resolve(&mut program);
        let remove = program.entry_points.values().find(|e| e.name == "remove").map(|e| e.procedure).expect("remove");
        let mut out = Vec::new();
        for (_, block) in program.procedures[remove].blocks.iter() {
            for c in &block.commands {
                if let Command::Quiesce { effective, .. } = c {
                    out.push(effective.clone());
                }
            }
        }
        out
    }

    #[test]
    fn a_work_item_the_live_handler_may_queue_again_is_not_quiesced() {
        let sets = remove_quiescing(["work", "handler"]);
        assert_eq!(sets, vec![Vec::<String>::new(), vec!["handler".to_string()]]);
    }

    /// A NAPI poll, a callback `stopper` that disables it (napi_disable,
    /// re-armed only by napi_enable, exclusive) and a callback `enabler`
    /// whose body is `enabler` (`d`: napi_disable, `e`: napi_enable, `u`: a
    /// call the lowering cannot see into);
    /// returns the stopper's effective set, with `concurrent` deciding
    /// which entry points run together.
    fn napi_quiesced(enabler: &str, concurrent: Concurrent<'_>) -> Vec<String> {
        let mut program = Program::new();
        let entry = |program: &mut Program, name: &str, kind: EntryKind, body: Vec<Command>| {
            let mut b = ProcedureBuilder::new(program, name, None);
            for c in body {
                b.push(c);
            }
            b.ret();
            let procedure = b.finish();
            program.entry_points.push(EntryPointInfo { name: name.into(), procedure, kind, span: span(), objects: Vec::new(), held_by_object: Vec::new() });
        };
        let disable = Command::Quiesce {
            function: "napi_disable".into(),
            targets: vec!["poll".into()],
            stops_self: true,
            rearmed_by: vec!["napi_enable".into()],
            exclusive: true,
            effective: Vec::new(),
            span: None,
        };
        let enable = Command::MakeLive { function: "napi_enable".into(), targets: Some(vec!["poll".into()]), assumed: false, span: None };
        let unknown = Command::MakeLive { function: "f".into(), targets: None, assumed: true, span: None };
        let body = enabler
            .chars()
            .map(|c| match c {
                'd' => disable.clone(),
                'u' => unknown.clone(),
                _ => enable.clone(),
            })
            .collect();
        entry(&mut program, "poll", EntryKind::Napi, vec![]);
        entry(&mut program, "enabler", EntryKind::Callback, body);
        entry(&mut program, "stopper", EntryKind::Callback, vec![disable]);
        resolve_with(&mut program, concurrent);
        let stopper = program.entry_points.values().find(|e| e.name == "stopper").map(|e| e.procedure).expect("stopper");
        let block = program.procedures[stopper].blocks.iter().next().map(|(_, b)| b.commands.clone()).expect("block");
        block.iter().find_map(|c| if let Command::Quiesce { effective, .. } = c { Some(effective.clone()) } else { None }).expect("quiesce")
    }

    /// The cause of issue 14's remaining napi false alarms (r8169's
    /// rtl8169_cleanup): the pair model does not see locks, so a callback
    /// that calls napi_enable under RTNL with no napi_disable of its own
    /// before it (rtl8169_up from rtl_open and the resume callbacks) counts
    /// as able to re-arm the poll while an RTNL holder is past its
    /// napi_disable. Until the analysis knows the held locks and the
    /// handoffs, the poll must stay live there.
    #[test]
    fn a_poll_that_a_concurrent_callback_may_enable_again_is_not_quiesced() {
        assert_eq!(napi_quiesced("e", &|_, _| true), Vec::<String>::new());
        // The first napi_enable gives back no hold of the enabler's own.
        assert_eq!(napi_quiesced("ede", &|_, _| true), Vec::<String>::new());
    }

    #[test]
    fn a_poll_that_only_a_callback_kept_apart_enables_is_quiesced() {
        // Entry points: 0 poll, 1 enabler, 2 stopper; the enabler and the
        // stopper never run together.
        let apart = |a: usize, b: usize| !matches!((a.min(b), a.max(b)), (1, 2));
        assert_eq!(napi_quiesced("e", &apart), vec!["poll".to_string()]);
    }

    #[test]
    fn a_napi_enable_after_the_callers_own_napi_disable_does_not_re_arm() {
        // napi_disable waits for every other hold to be given back, so the
        // enabler's napi_enable cannot end the stopper's.
        assert_eq!(napi_quiesced("de", &|_, _| true), vec!["poll".to_string()]);
        assert_eq!(napi_quiesced("dede", &|_, _| true), vec!["poll".to_string()]);
        // An unknown call between them may have given the hold back.
        assert_eq!(napi_quiesced("due", &|_, _| true), Vec::<String>::new());
    }

    #[test]
    fn a_work_item_cancelled_after_its_handler_is_quiesced() {
        let sets = remove_quiescing(["handler", "work"]);
        assert_eq!(sets, vec![vec!["handler".to_string()], vec!["work".to_string()]]);
    }
}
