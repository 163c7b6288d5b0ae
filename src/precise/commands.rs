//! The bounded checker's meaning of each IR command: real memory through
//! the round-indexed log, real locks, yields where the policy puts them,
//! and the race checks behind the yields.
//!
//! # Algorithm
//!
//! - A load reads the log; a store appends to it. An access to memory
//!   private to the running call (`.private`, src/analyses/private.rs) is
//!   neither followed by a yield nor race-checked: no other thread can
//!   touch that memory, so the access commutes with all it does. Behind an access to a
//!   shared region the policy yields at, the thread yields, and behind a
//!   plain access to a region being checked comes the race check (Whoop,
//!   thesis §3.5): for a write `s := e`, `s == e` again after the yield;
//!   for a read `x := s`, `x == s`. With `--strict` the check compares the
//!   address's write stamp instead of its value, so a write of the same
//!   value (a "benign" race) fails it too. A check fails only while the
//!   thread has not stopped.
//! - `lock L` yields first, then blocks: it assumes L free (no holder for
//!   an exclusive acquire, no exclusive holder for a shared one) and takes
//!   it. A trylock (and an acquire that may be interrupted) takes the lock
//!   when its success value is true, which it can be only if the lock is
//!   free; it may fail at any time. `unlock L` releases and then yields.
//! - `live` marks the device's callbacks live and yields, like a release
//!   (the callbacks may start right after the registration); calls are inlined to the
//!   bound; interrupt control changes nothing (two threads are two CPUs,
//!   and disabling interrupts on one does not stop a handler on the
//!   other); an unidentified lock protects nothing.
//!
//! # Soundness
//!
//! Everything here is exact except: a trylock that fails although the lock
//! was free (real for `mutex_lock_interruptible`, not for `mutex_trylock`:
//! may make a witness infeasible, docs/soundness.md), and the value checks,
//! which miss a race that writes the value already there unless `--strict`.

use super::exec::{Exec, Hit, RaceCheck, State, StepKind, line_of};
use super::memory::{Cell, Who};
use crate::diagnostics::Span;
use crate::ir::{AccessKind, Command, LockId, LockMode, RegionId, Sort};
use crate::solver::TermId;

impl Exec<'_> {
    /// Executes one command under `reach`; returns the reach after it
    /// (changed by a call that may not return).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn command(
        &mut self,
        who: Who,
        c: &Command,
        next: Option<&Command>,
        st: &mut State,
        reach: TermId,
        depth: u32,
        function: &str,
    ) -> TermId {
        match c {
            Command::Assign { target, value, span } => {
                let v = self.expr(st, value);
                st.env.insert(*target, v);
                self.line(who, reach, st, span.as_ref(), function);
            }
            Command::Assert { check: crate::ir::CheckKind::Unsupported, span, .. } => {
                // A construct the checker cannot follow: the thread stops.
                self.hits.insert(Hit::Unsupported("unsupported construct".to_string(), span.as_ref().map(line_of)));
                self.stop(who, st, reach);
            }
            Command::Assume { cond, span } | Command::Assert { cond, span, .. } => {
                let v = self.expr(st, cond);
                let c = self.t.implies(reach, v);
                self.constraints.push(c);
                self.line(who, reach, st, span.as_ref(), function);
            }
            Command::Havoc { vars, span } => {
                let mut values = Vec::with_capacity(vars.len());
                for v in vars {
                    let f = match super::separation::object(self.program, *v) {
                        // A new object: its own address (super::separation).
                        Some(crate::ir::Address::Local { .. }) => {
                            let a = self.bump.local();
                            let local = self.program.variables[*v].name.strip_prefix("addr_").unwrap_or(&self.program.variables[*v].name);
                            self.bump.name(a, &format!("local {local}"), &format!("of {function}"));
                            self.t.int(a)
                        }
                        Some(crate::ir::Address::Allocation { may_fail }) => {
                            let a = self.bump.next();
                            self.bump.name(a, "new object", &allocated(function, span.as_ref()));
                            let a = self.t.int(a);
                            // In program-start mode an allocation succeeds:
                            // a real outcome, and a witness never rests on
                            // a NULL dereference, which ends the program.
                            if may_fail && !self.program_start {
                                let fails = self.fresh("alloc.fails", Sort::Bool);
                                let null = self.t.int(0);
                                self.t.ite(fails, null, a)
                            } else {
                                a
                            }
                        }
                        Some(crate::ir::Address::AllocationOrError) => {
                            let a = self.bump.next();
                            self.bump.name(a, "new object", &allocated(function, span.as_ref()));
                            let a = self.t.int(a);
                            let fails = self.fresh("alloc.fails", Sort::Bool);
                            let error = self.fresh("alloc.error", Sort::Int);
                            // An error value is no object of the pair, and
                            // no access through it (at an offset below the
                            // stride) reaches one.
                            let limit = self.t.int(super::separation::HEAP - super::separation::STRIDE);
                            let below = self.t.lt(error, limit);
                            self.constraints.push(below);
                            self.t.ite(fails, error, a)
                        }
                        // An address inside the object its base points
                        // into (super::separation::object_end).
                        None => {
                            let h = self.fresh("havoc", self.program.variables[*v].sort);
                            let program = self.program;
                            if let Some(base) = program.inside.get(v) {
                                let b = self.expr(st, base);
                                let end = super::separation::object_end(&mut self.t, b);
                                let inside = self.t.lt(h, end);
                                self.constraints.push(inside);
                            }
                            if self.program_start && self.program.variables[*v].sort == Sort::Int && !self.is_address_havoc(*v) {
                                // A value every C integer type holds: the
                                // witness never needs one outside its type;
                                // a nondet result may take any value of its
                                // own type when the search allows it.
                                let (lo, hi) = match program.nondet_ranges.get(v) {
                                    Some(&range) if self.nondet_values => range,
                                    _ => (0, 1),
                                };
                                let zero = self.t.int(lo);
                                let one = self.t.int(hi);
                                let lo = self.t.le(zero, h);
                                let hi = self.t.le(h, one);
                                let c = self.t.and(&[lo, hi]);
                                self.constraints.push(c);
                            }
                            h
                        }
                    };
                    values.push(f);
                    st.env.insert(*v, f);
                }
                self.record(super::replay::Choice::Values(values));
            }
            Command::Call { procedure, args, results, span } => {
                self.line(who, reach, st, span.as_ref(), function);
                let args: Vec<TermId> = args.iter().map(|a| self.expr(st, a)).collect();
                let callee = &self.program.procedures[*procedure];
                let active = self.stack.iter().filter(|p| **p == *procedure).count();
                let recursive = callee.body && active > self.bounds.unroll as usize;
                let (values, returned) = if recursive || (callee.body && depth >= self.bounds.inline_depth) {
                    let hit = if recursive { Hit::Recursion(callee.name.clone()) } else { Hit::Inline(callee.name.clone()) };
                    self.hits.insert(hit);
                    self.record(super::replay::Choice::Stop);
                    self.stop(who, st, reach);
                    (results.iter().map(|r| self.fresh("result", self.program.variables[*r].sort)).collect(), reach)
                } else {
                    let (after, returned, values) = self.procedure(who, *procedure, args, st.clone(), reach, depth + 1);
                    *st = after;
                    (values, returned)
                };
                for (r, v) in results.iter().zip(values) {
                    st.env.insert(*r, v);
                }
                return returned;
            }
            Command::Load { target, region, address, access, span } => {
                let a = self.expr(st, address);
                let cell = Cell::Region(*region);
                let value = self.read(who, cell, a, st, reach);
                st.env.insert(*target, value);
                let atomic = *access == AccessKind::Atomic;
                let step = self.step(who, reach, st, span.as_ref(), function, StepKind::Read { region: *region, address: a, value, atomic });
                let rmw = atomic
                    && matches!(next, Some(Command::Store { region: r, address: b, access: AccessKind::Atomic, .. }) if r == region && b == address);
                // Memory private to the call: no yield, no race check.
                if !rmw && *access != AccessKind::Private {
                    self.behind_access(who, *region, a, value, false, atomic, step, st, reach, span.as_ref(), function);
                }
            }
            Command::Store { region, address, value, access, span } => {
                let a = self.expr(st, address);
                let v = self.expr(st, value);
                let cell = Cell::Region(*region);
                self.write(who, cell, a, v, st, reach);
                // Nothing writes read-only data (string literals).
                let program = self.program;
                for f in &program.read_only {
                    let Some(&size) = program.global_sizes.get(f) else { continue };
                    let base = crate::verify::solving::translate_with(&mut self.t, program, &mut |_| unreachable!(), &crate::ir::Expr::Apply(*f, Vec::new()));
                    let end = self.t.int(i128::from(size));
                    let end = self.t.add(&[base, end]);
                    let from = self.t.ge(a, base);
                    let to = self.t.lt(a, end);
                    let inside = self.t.and(&[from, to]);
                    let outside = self.t.not(inside);
                    let c = self.t.implies(reach, outside);
                    self.constraints.push(c);
                }
                let atomic = *access == AccessKind::Atomic;
                let step = self.step(who, reach, st, span.as_ref(), function, StepKind::Write { region: *region, address: a, value: v, atomic });
                if *access == AccessKind::Private {
                    return reach;
                }
                self.behind_access(who, *region, a, v, true, atomic, step, st, reach, span.as_ref(), function);
            }
            Command::Lock { lock, mode, span } => {
                let yes = self.t.bool(true);
                self.acquire(who, *lock, *mode, Some(yes), st, reach, span.as_ref(), function);
            }
            Command::TryLock { lock, mode, success, span } => {
                let ok = self.fresh("trylock", Sort::Bool);
                self.record(super::replay::Choice::Values(vec![ok]));
                st.env.insert(*success, ok);
                self.acquire(who, *lock, *mode, Some(ok), st, reach, span.as_ref(), function);
            }
            Command::Unlock { lock, mode, span } => self.release(who, *lock, *mode, span.as_ref(), st, reach, function),
            Command::HeldAnnotation { lock, mode, trusted: true, span, .. } => {
                self.held_annotation(who, *lock, *mode, st, reach);
                self.line(who, reach, st, span.as_ref(), function);
            }
            Command::HeldAnnotation { span, .. } => self.line(who, reach, st, span.as_ref(), function),
            Command::MakeLive { function: registrar, targets, assumed, span } => {
                if *assumed {
                    self.hits.insert(Hit::AssumedLive(registrar.clone(), span.as_ref().map(line_of)));
                }
                let one = self.t.int(1);
                let both = self.pair_names[0] == self.pair_names[1]
                    && self.live_closure.makes_live(targets.as_deref(), *assumed, &self.pair_names[0]);
                if self.program_start && both {
                    // Two threads of one function (a self-pair): each
                    // pthread_create starts one, so the first call starts
                    // thread 1 and a later one thread 2.
                    let a1 = self.t.int(super::exec::live_address(Who::T1));
                    let a2 = self.t.int(super::exec::live_address(Who::T2));
                    let l1 = self.read(who, Cell::Live, a1, st, reach);
                    let l2 = self.read(who, Cell::Live, a2, st, reach);
                    let started = self.t.eq(l1, one);
                    let v2 = self.t.ite(started, one, l2);
                    self.write(who, Cell::Live, a2, v2, st, reach);
                    self.write(who, Cell::Live, a1, one, st, reach);
                } else {
                    let pair = [(super::exec::live_address(Who::T1), self.pair_names[0].clone()), (super::exec::live_address(Who::T2), self.pair_names[1].clone())];
                    let history: Vec<(i128, String)> =
                        self.history_names.iter().enumerate().map(|(k, n)| (super::exec::history_live_address(k), n.clone())).collect();
                    for (address, name) in pair.into_iter().chain(history) {
                        // A search with a history makes live only what the
                        // command itself starts (super::history).
                        let made = if self.history_names.is_empty() {
                            self.live_closure.makes_live(targets.as_deref(), *assumed, &name)
                        } else {
                            super::liveness::LiveClosure::names(self.program, registrar, targets.as_deref(), *assumed, &name)
                        };
                        if made {
                            let address = self.t.int(address);
                            self.write(who, Cell::Live, address, one, st, reach);
                        }
                    }
                }
                self.step(who, reach, st, span.as_ref(), function, StepKind::Live);
                // Registration publishes the device like a release: the
                // callbacks may start right here.
                self.switch(who, st, reach, span.as_ref(), function);
            }
            Command::Quiesce { targets, span, .. } => {
                // Every quiescing call waits for the run in progress of the
                // callbacks its model names (free_irq's synchronize_irq,
                // timer_delete_sync, cancel_work_sync, flush_work,
                // tasklet_kill: kernel-models/entry-points/quiescing.xml), and
                // the callback runs again only once something makes it live
                // again. Here only modelled registrations make a callback
                // live, so the call clears the callback's liveness: the other
                // thread has finished (settle_waits), or starts later, after
                // a registration made it live again. The lockset phase's
                // `effective` set also allows for unknown calls making it live
                // again; a witness never rests on those.
                let zero = self.t.int(0);
                for (thread, name) in [(Who::T1, self.pair_names[0].clone()), (Who::T2, self.pair_names[1].clone())] {
                    if thread != who && targets.contains(&name) {
                        let address = self.t.int(super::exec::live_address(thread));
                        self.write(who, Cell::Live, address, zero, st, reach);
                    }
                }
                let other = match who {
                    Who::T1 => Some(&self.pair_names[1]),
                    Who::T2 => Some(&self.pair_names[0]),
                    Who::Init => None,
                };
                if other.is_some_and(|o| targets.contains(o)) {
                    self.switch(who, st, reach, span.as_ref(), function);
                    let active = self.active(who, reach, st);
                    self.waits.push((who, st.round.clone(), active));
                }
                self.line(who, reach, st, span.as_ref(), function);
            }
            Command::Keep { .. } => {}
            Command::Approximation { kind, detail, span } => {
                if kind.affects_soundness() {
                    self.approximated = true;
                    self.hits.insert(Hit::Unsupported(detail.clone(), span.as_ref().map(line_of)));
                }
            }
            Command::LockUnknown { span, .. } | Command::InterruptControl { span, .. } | Command::GhostAccess { span, .. } => {
                self.line(who, reach, st, span.as_ref(), function);
            }
        }
        reach
    }

    fn line(&mut self, who: Who, reach: TermId, st: &State, span: Option<&Span>, function: &str) {
        if span.is_some() {
            self.step(who, reach, st, span, function, StepKind::Line);
        }
    }

    /// The yield behind a shared access and the race check behind it.
    #[allow(clippy::too_many_arguments)]
    fn behind_access(
        &mut self,
        who: Who,
        region: RegionId,
        address: TermId,
        value: TermId,
        write: bool,
        atomic: bool,
        step: usize,
        st: &mut State,
        reach: TermId,
        span: Option<&Span>,
        function: &str,
    ) {
        let cell = Cell::Region(region);
        if who == Who::Init || self.mem.is_private(cell) {
            return;
        }
        let checked = !self.in_prefix && self.race_checked(region, if atomic { AccessKind::Atomic } else { AccessKind::Plain });
        let stamp = Cell::Stamp(region);
        // With a begin prefix in the pair, writes outside the prefixes
        // stamp too, and a check fails only if one of them came between
        // (the replay counts no prefix write as the conflicting one).
        let stamps = self.strict || self.prefixed;
        let mine = if stamps && checked {
            if write {
                self.stamps += 1;
                let id = self.t.int(self.stamps);
                self.write(who, stamp, address, id, st, reach);
                Some(id)
            } else {
                Some(self.read(who, stamp, address, st, reach))
            }
        } else {
            if stamps && write && !self.in_prefix && self.checked.contains(&region) {
                // Every write stamps, so that a checked read sees it.
                self.stamps += 1;
                let id = self.t.int(self.stamps);
                self.write(who, stamp, address, id, st, reach);
            }
            None
        };
        if !self.policy.after_access(who, region, write, atomic) {
            return;
        }
        let before = st.round.clone();
        self.switch(who, st, reach, span, function);
        if !checked {
            return;
        }
        let same = match mine {
            Some(expected) => {
                let now = self.read(who, stamp, address, st, reach);
                let stamp_same = self.t.eq(now, expected);
                if self.strict {
                    stamp_same
                } else {
                    let now = self.read(who, cell, address, st, reach);
                    let value_same = self.t.eq(now, value);
                    self.t.or(&[stamp_same, value_same])
                }
            }
            None => {
                let now = self.read(who, cell, address, st, reach);
                self.t.eq(now, value)
            }
        };
        let active = self.active(who, reach, st);
        let differs = self.t.not(same);
        // An access to the first page is a NULL dereference, which oopses
        // (the kernel maps nothing there: mm/mmap.c mmap_min_addr, and a
        // kernel access to it faults) rather than races; so is one to the
        // last page, where the error pointers lie (include/linux/err.h
        // ERR_PTR, -4095..-1; the integers model a pointer below 0 as the
        // 64-bit address it wraps to).
        let low = self.t.int(super::separation::NULL_PAGE);
        let high = self.t.int(-super::separation::NULL_PAGE);
        let above = self.t.ge(address, low);
        let negative = self.t.lt(address, high);
        let not_null = self.t.or(&[above, negative]);
        let fail = self.t.and(&[active, differs, not_null]);
        self.checks.push(RaceCheck { region, who, fail, access: step, address, before, after: st.round.clone() });
    }

    /// Whether an access gets a race check behind its yield: the one place
    /// that decides it. A plain access to a region the lockset phase left
    /// unproven is checked; a marked (atomic) access never races with
    /// another marked one, and the plain side of such a pair is checked
    /// on its own.
    pub(super) fn race_checked(&self, region: RegionId, access: AccessKind) -> bool {
        match access {
            AccessKind::Plain => self.checked.contains(&region),
            AccessKind::Atomic => false,
            // Per-call private memory (src/analyses/private.rs): no other
            // thread can reach it.
            AccessKind::Private => false,
        }
    }

    /// Takes a lock when `ok` (blocking: the lock must be free), after a
    /// yield.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn acquire(
        &mut self,
        who: Who,
        lock: LockId,
        mode: LockMode,
        ok: Option<TermId>,
        st: &mut State,
        reach: TermId,
        span: Option<&Span>,
        function: &str,
    ) {
        if self.policy.around_lock(who, lock) {
            self.switch(who, st, reach, span, function);
        }
        let ok = ok.unwrap_or_else(|| self.t.bool(true));
        let address = self.t.int(i128::from(lock.as_u32()));
        let held = self.read(who, Cell::Lock, address, st, reach);
        let zero = self.t.int(0);
        let (free, taken) = match mode {
            LockMode::Exclusive => (self.t.eq(held, zero), self.t.int(who.holder())),
            LockMode::Shared => {
                let one = self.t.int(1);
                (self.t.le(held, zero), self.t.sub(held, one))
            }
        };
        let active = self.active(who, reach, st);
        let when = self.t.and(&[active, ok]);
        let c = self.t.implies(when, free);
        self.constraints.push(c);
        let value = self.t.ite(ok, taken, held);
        self.write(who, Cell::Lock, address, value, st, reach);
        self.step(who, reach, st, span, function, StepKind::Acquire { lock, ok });
    }

    /// A trusted lock annotation: the thread holds the lock from here. When
    /// it does not hold it yet (an entry point whose kernel caller took
    /// it), it takes it now, as the lockset phase does; an execution where
    /// another thread holds it conflictingly is not one the kernel runs.
    /// The same rule as the replay's ([`super::replay`]).
    fn held_annotation(&mut self, who: Who, lock: LockId, mode: Option<LockMode>, st: &mut State, reach: TermId) {
        let address = self.t.int(i128::from(lock.as_u32()));
        let held = self.read(who, Cell::Lock, address, st, reach);
        let zero = self.t.int(0);
        let me = self.t.int(who.holder());
        let free = self.t.eq(held, zero);
        let mine = self.t.eq(held, me);
        let (fine, taken) = match mode {
            Some(LockMode::Exclusive) => (self.t.or(&[free, mine]), me),
            None | Some(LockMode::Shared) => {
                let readers = self.t.lt(held, zero);
                (self.t.or(&[free, mine, readers]), self.t.int(-1))
            }
        };
        let active = self.active(who, reach, st);
        let c = self.t.implies(active, fine);
        self.constraints.push(c);
        let value = self.t.ite(free, taken, held);
        self.write(who, Cell::Lock, address, value, st, reach);
    }

    /// Releases a lock, then yields.
    pub(super) fn release(&mut self, who: Who, lock: LockId, mode: LockMode, span: Option<&Span>, st: &mut State, reach: TermId, function: &str) {
        let address = self.t.int(i128::from(lock.as_u32()));
        let value = match mode {
            LockMode::Exclusive => self.t.int(0),
            LockMode::Shared => {
                let held = self.read(who, Cell::Lock, address, st, reach);
                let zero = self.t.int(0);
                let one = self.t.int(1);
                let readers = self.t.lt(held, zero);
                let less = self.t.add(&[held, one]);
                self.t.ite(readers, less, held)
            }
        };
        self.write(who, Cell::Lock, address, value, st, reach);
        self.step(who, reach, st, span, function, StepKind::Release { lock });
        if self.policy.around_lock(who, lock) {
            self.switch(who, st, reach, span, function);
        }
    }
}

/// Where a new object was allocated, for witnesses.
fn allocated(function: &str, span: Option<&Span>) -> String {
    match span {
        Some(s) => format!("({}:{})", s.file.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(), s.line),
        None => format!("(in {function})"),
    }
}
