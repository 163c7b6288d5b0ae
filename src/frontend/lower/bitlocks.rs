//! Bit locks: one bit of a word used as an exclusive lock
//! (`test_and_set_bit_lock` / `clear_bit_unlock`, `bit_spin_lock`,
//! `wait_on_bit_lock`, and the single-owner flag
//! `if (test_and_set_bit(N, &w)) return -EBUSY; … clear_bit(N, &w)`).
//!
//! # Lowering
//!
//! A call of a `<bit-lock-function>` (kernel-models/locks/bitlock.xml)
//! whose bit number is an integer constant and whose word is identified as
//! a lock object is ([`super::locks`]: a global by name, a field by
//! structure type and byte offset) works on the pseudo lock `bit N of W`:
//!
//! - an acquire is the exact atomic read-modify-write setting the bit
//!   ([`super::atomics`], load and store adjacent), then
//!   `ok := trylock L; assume ok == (old bit == 0)` (the lock is taken
//!   exactly when the bit was clear), and the result the kernel returns
//!   (`test_and_set_bit`: 0 taken, 1 not; `wait_on_bit_lock`: 0 or a
//!   negative errno). `bit_spin_lock`, which spins until it sets a clear
//!   bit, is the read-modify-write, `assume old bit == 0`, `lock L`;
//! - a release is `unlock L` and then the exact atomic clear.
//!
//! The atomic accesses stay as they are, so the precise phase executes the
//! real bit values; the lock commands agree with them: the lock is taken
//! only where the bit was 0, and released before the bit is cleared, so a
//! bit seen clear always means the lock is free.
//!
//! Otherwise (a bit number that is not a constant, a word without an
//! identity, a word that is not one `unsigned long`) the call is lowered by
//! the function's `<function>` model alone, as a plain atomic operation.
//!
//! # When the bit is a lock ([`settle`])
//!
//! A bit excludes two holders only if nobody clears it but its holder.
//! After lowering (regions unified) each pseudo lock is kept only if:
//!
//! 1. every write to the word's region that may clear that bit is one of
//!    its releases: every other store to the region is an exact bit
//!    operation that sets or only reads a bit, or clears or flips a bit at
//!    another position in its word (a plain assignment, `bitmap_zero`,
//!    `__clear_bit`, a bit operation with a variable bit number, … may
//!    clear it; regions contain every access that can touch the same
//!    bytes, docs/soundness.md);
//! 2. every release is made while the lock is certainly held: the
//!    must-held analysis ([`crate::analyses::must_held`]) finds it held
//!    just before the `unlock` in every entry point that reaches it, and at
//!    least one does. A bit another context clears for its owner (floppy's
//!    FDC handed to the work that ends the request) fails this: hand-offs
//!    are not assumed.
//!
//! Otherwise the pseudo lock is removed (`trylock` becomes `havoc ok`, the
//! `lock` and `unlock` commands go; the bit's atomic values and the
//! assumptions tying them to `ok` stay, and are exact), and a note names
//! the clear that prevented it.
//!
//! # Soundness
//!
//! With both conditions, the bit is 1 whenever the pseudo lock is held by
//! someone (only an acquire that found it 0 takes the lock, and only the
//! holder clears it, after releasing), so two threads never hold it
//! together: it is an exclusive lock like a spinlock, and the lockset
//! rules apply. The must-held analysis under-approximates what is held;
//! the region test over-approximates what may clear the bit. Identifying
//! a word in a structure by type and offset assumes, as for every lock,
//! that the two entry points of a pair use the same instance
//! (docs/soundness.md).

use super::context::FnLower;
use crate::analyses::must_held::{CommandAt, EntryRoot, must_held_at};
use crate::diagnostics::{Diagnostic, Level, Span};
use crate::frontend::clang::Cursor;
use crate::ir::{Command, Expr, LockId, LockKind, LockMode, Program, RegionId};
use crate::models::{AtomicAccess, AtomicEffect, AtomicOp, AtomicResult, AtomicValue, BitLockFunction, BitUpdate, Extent, LockOp, Role};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What the lowering records of one pseudo bit lock.
#[derive(Clone, Debug, Default)]
pub struct BitLockSites {
    /// `bit N of W`.
    pub name: String,
    /// The bit's position in its 64-bit word.
    pub bit_in_word: u32,
    /// The `trylock` / `lock` commands of its acquires.
    pub acquires: Vec<(CommandAt, Option<Span>)>,
    /// The `unlock` commands of its releases.
    pub releases: Vec<(CommandAt, Option<Span>)>,
    /// The stores of its acquires and releases (the bit set or cleared).
    pub own_stores: BTreeSet<CommandAt>,
    /// Why it cannot be a lock, found while lowering.
    pub broken: Option<(String, Option<Span>)>,
}

/// The bit locks of a driver and the exact bit writes of the program.
#[derive(Clone, Debug, Default)]
pub struct BitLockLog {
    /// Every pseudo bit lock met, by lock.
    pub locks: BTreeMap<LockId, BitLockSites>,
    /// Every store of an exact bit operation: the bit's position in its
    /// word and what it does to it.
    pub bit_stores: HashMap<CommandAt, (u32, BitUpdate)>,
}

impl<'t> FnLower<'_, '_, '_, 't> {
    /// Where the next command pushed into the current block goes.
    pub(super) fn next_command(&mut self) -> CommandAt {
        let procedure = self.b.id();
        let block = self.b.current_block();
        let index = self.b.program().procedures[procedure].blocks[block].commands.len();
        CommandAt { procedure, block, index }
    }

    /// Lowers a call of a bit-lock function (module comment).
    pub(super) fn bit_lock_call(&mut self, c: Cursor<'t>, model: &BitLockFunction, args: &[Cursor<'t>]) -> Expr {
        let models = self.s.models;
        let Some(function) = models.functions.get(&model.name) else {
            // The loader requires the function model; without it the call
            // would be unmodelled.
            return Expr::var(self.havoc_var());
        };
        let nr = args.get(model.bit_arg).and_then(|a| super::expr::constant(*a)).filter(|n| *n >= 0);
        let word = args.get(model.word_arg).map(|w| self.lock_identity(*w));
        let (Some(nr), Some(word)) = (nr, word.filter(|w| w.key().is_some())) else {
            return self.modelled_call(c, function, args);
        };
        let values = self.model_arguments(function, args);
        let span = Some(self.span(c));
        let identity = super::locks::LockIdentity::Pseudo(format!("bit {nr} of {}", word.display()));
        let Some(lock) = self.lock_id(&identity, LockKind::Pseudo) else {
            return self.modelled_effects(c, function, args, values);
        };
        let bit_in_word = u32::try_from(nr % 64).unwrap_or(0);
        let update = if model.op == LockOp::Release { BitUpdate::Clear } else { BitUpdate::Set };
        let effect = AtomicEffect {
            arg: model.word_arg,
            access: AtomicAccess::Rmw,
            extent: Extent::Unbounded,
            value: Some(AtomicValue { op: AtomicOp::Bit { bit_arg: model.bit_arg, update }, returns: AtomicResult::OldBit }),
            field: None,
        };
        let sites = self.s.bit_locks.locks.entry(lock).or_default();
        sites.name = identity.display();
        sites.bit_in_word = bit_in_word;
        if model.op == LockOp::Release {
            // Released before the bit is cleared: a clear bit always means
            // a free lock.
            let at = self.next_command();
            self.b.push(Command::Unlock { lock, mode: LockMode::Exclusive, span: span.clone() });
            self.note_site(lock, at, span.clone(), false);
            let before = self.next_command();
            return match self.atomic_operation(args, &values, &effect, effect.value.expect("set above"), span.clone()) {
                Some(old_bit) => {
                    self.s.stats.atomic_values += 1;
                    self.own_store_after(lock, before);
                    old_bit
                }
                None => {
                    self.break_lock(lock, "its word is not one unsigned long", span);
                    self.modelled_effects(c, function, args, values)
                }
            };
        }
        let before = self.next_command();
        let Some(old_bit) = self.atomic_operation(args, &values, &effect, effect.value.expect("set above"), span.clone()) else {
            self.break_lock(lock, "its word is not one unsigned long", span);
            return self.modelled_effects(c, function, args, values);
        };
        self.s.stats.atomic_values += 1;
        self.own_store_after(lock, before);
        let was_clear = Expr::eq(old_bit, Expr::int(0));
        let result = self.tmp();
        let at = self.next_command();
        match model.op {
            LockOp::Acquire => {
                self.b.assume(was_clear, None);
                self.b.push(Command::Lock { lock, mode: LockMode::Exclusive, span: span.clone() });
                self.b.assign(result, Expr::int(0), None);
            }
            LockOp::TryAcquire | LockOp::AcquireMayFail => {
                let ok = self.tmp_bool();
                self.b.push(Command::TryLock { lock, mode: LockMode::Exclusive, success: ok, span: span.clone() });
                self.b.assume(Expr::binary(crate::ir::BinaryOp::Eq, Expr::var(ok), was_clear), None);
                self.lock_result(result, ok, model.success, model.failure, model.op == LockOp::TryAcquire);
            }
            LockOp::Release => unreachable!("handled above"),
        }
        self.note_site(lock, at, span, true);
        Expr::var(result)
    }

    fn havoc_var(&mut self) -> crate::ir::VarId {
        let t = self.tmp();
        self.b.push(Command::Havoc { vars: vec![t], span: None });
        t
    }

    fn note_site(&mut self, lock: LockId, at: CommandAt, span: Option<Span>, acquire: bool) {
        let sites = self.s.bit_locks.locks.entry(lock).or_default();
        if acquire { sites.acquires.push((at, span)) } else { sites.releases.push((at, span)) }
    }

    /// Records the store of the bit operation emitted since `before` (in
    /// the current block) as the lock's own.
    fn own_store_after(&mut self, lock: LockId, before: CommandAt) {
        let end = self.next_command();
        let commands = &self.b.program().procedures[before.procedure].blocks[before.block].commands;
        let stores: Vec<CommandAt> = (before.index..end.index)
            .filter(|i| matches!(commands[*i], Command::Store { .. }))
            .map(|index| CommandAt { index, ..before })
            .collect();
        self.s.bit_locks.locks.entry(lock).or_default().own_stores.extend(stores);
    }

    fn break_lock(&mut self, lock: LockId, why: &str, span: Option<Span>) {
        let sites = self.s.bit_locks.locks.entry(lock).or_default();
        sites.broken.get_or_insert((why.to_string(), span));
    }
}

/// Keeps the pseudo bit locks that are locks and removes the others (module
/// comment), with a note for each.
pub fn settle(program: &mut Program, log: &BitLockLog, warnings: &mut Vec<Diagnostic>, stats: &mut super::LoweringStats) {
    if log.locks.is_empty() {
        return;
    }
    let mut broken: BTreeMap<LockId, (String, Option<Span>)> = BTreeMap::new();
    // 1. The writes that may clear the bit.
    for (lock, sites) in &log.locks {
        if let Some(why) = &sites.broken {
            broken.insert(*lock, why.clone());
            continue;
        }
        if sites.acquires.is_empty() {
            broken.insert(*lock, ("it is never acquired".into(), None));
            continue;
        }
        let regions: BTreeSet<RegionId> = sites.own_stores.iter().filter_map(|at| store_region(program, *at)).collect();
        'scan: for (p, procedure) in program.procedures.iter() {
            for (b, block) in procedure.blocks.iter() {
                for (index, c) in block.commands.iter().enumerate() {
                    let Command::Store { region, span, .. } = c else { continue };
                    let at = CommandAt { procedure: p, block: b, index };
                    if !regions.contains(region) || sites.own_stores.contains(&at) {
                        continue;
                    }
                    let harmless = match log.bit_stores.get(&at) {
                        Some((_, BitUpdate::Set | BitUpdate::Keep)) => true,
                        Some((bit, BitUpdate::Clear | BitUpdate::Change)) => *bit != sites.bit_in_word,
                        None => false,
                    };
                    if !harmless {
                        broken.insert(*lock, ("a write that may clear the bit is not its release".into(), span.clone()));
                        break 'scan;
                    }
                }
            }
        }
    }
    // 2. Every release made holding the lock.
    // The end callback of an open object whose begin callback keeps the
    // lock on success clears the object's own hold (src/frontend/lower/owned_bits.rs).
    let candidates: BTreeSet<LockId> = log.locks.keys().filter(|l| !broken.contains_key(l)).copied().collect();
    let owners = super::owned_bits::Owners::of(program, &candidates);
    if !candidates.is_empty() {
        let wanted: BTreeSet<CommandAt> = candidates.iter().flat_map(|l| log.locks[l].releases.iter().map(|(at, _)| *at)).collect();
        let roots: Vec<EntryRoot> = program
            .entry_points
            .values()
            .enumerate()
            .map(|(i, e)| EntryRoot { procedure: e.procedure, held: owners.seeded(i, &candidates), init: e.kind.role() == Role::Init })
            .collect();
        let facts = must_held_at(program, &roots, &wanted);
        for lock in &candidates {
            for (at, span) in &log.locks[lock].releases {
                let reached: Vec<_> = facts.iter().filter_map(|f| f.get(at)).collect();
                let held = !reached.is_empty() && reached.iter().all(|f| f.locks.contains_key(lock));
                if !held {
                    let why = if reached.is_empty() { "a release no entry point reaches" } else { "a release made without certainly holding it" };
                    broken.insert(*lock, (why.into(), span.clone()));
                    break;
                }
            }
        }
    }
    // The entry points that run holding a surviving lock their object's
    // begin callback owns.
    let kept: BTreeSet<LockId> = candidates.iter().filter(|l| !broken.contains_key(l)).copied().collect();
    let entry_ids: Vec<_> = program.entry_points.ids().collect();
    for (i, id) in entry_ids.into_iter().enumerate() {
        program.entry_points[id].held_by_object = owners.held_by(i, &kept).into_iter().collect();
    }
    // Remove the pseudo locks that are not locks; report each decision.
    for (lock, sites) in &log.locks {
        let first = sites.acquires.first().and_then(|(_, s)| s.clone());
        match broken.get(lock) {
            None => {
                stats.bit_locks += 1;
                let begins: Vec<String> = program
                    .entry_points
                    .values()
                    .enumerate()
                    .filter(|(i, _)| owners.owns(*i, *lock))
                    .map(|(_, e)| e.name.clone())
                    .collect();
                let message = if begins.is_empty() {
                    format!("{} is a bit lock: it is cleared only by its holder", sites.name)
                } else {
                    format!(
                        "{} is a bit lock that each object {} opens holds until its end callback: {} keeps it whenever it succeeds, only that callback or a holder clears it, and the object's other callbacks run holding it shared",
                        sites.name,
                        begins.join(" or "),
                        begins.join(" or ")
                    )
                };
                warnings.push(note(message, first, Vec::new()));
            }
            Some((why, span)) => {
                if !sites.acquires.is_empty() {
                    stats.bit_locks_demoted += 1;
                    let notes = vec![(why.clone(), span.clone())];
                    warnings.push(note(format!("{} protects nothing: it is not cleared only by its holder", sites.name), first, notes));
                }
                demote(program, *lock);
            }
        }
    }
    // The removed pseudo locks leave the program, so that nothing (ghost
    // state, candidate invariants) is spent on them.
    if !broken.is_empty() {
        stats.locks -= broken.len();
        drop_locks(program, &broken.keys().copied().collect());
    }
}

/// Removes unused locks from the program, renumbering the others in the
/// lock commands.
fn drop_locks(program: &mut Program, dropped: &BTreeSet<LockId>) {
    let old = std::mem::replace(&mut program.locks, crate::ir::Arena::new());
    let mut renumber: BTreeMap<LockId, LockId> = BTreeMap::new();
    for (id, lock) in old.iter() {
        if !dropped.contains(&id) {
            renumber.insert(id, program.locks.push(lock.clone()));
        }
    }
    let ids: Vec<_> = program.procedures.ids().collect();
    for p in ids {
        let blocks: Vec<_> = program.procedures[p].blocks.ids().collect();
        for b in blocks {
            let commands = &mut program.procedures[p].blocks[b].commands;
            // An annotation of a dropped lock says nothing any more.
            commands.retain(|c| !matches!(c, Command::HeldAnnotation { lock, .. } if !renumber.contains_key(lock)));
            for c in commands.iter_mut() {
                if let Command::Lock { lock, .. }
                | Command::TryLock { lock, .. }
                | Command::Unlock { lock, .. }
                | Command::HeldAnnotation { lock, .. } = c
                {
                    *lock = renumber[lock];
                }
            }
        }
    }
    for (_, e) in program.entry_points.iter_mut() {
        e.held_by_object = e.held_by_object.iter().filter_map(|(l, m)| renumber.get(l).map(|n| (*n, *m))).collect();
    }
    let keys = std::mem::take(&mut program.lock_keys);
    program.lock_keys = keys.into_iter().filter_map(|(id, k)| renumber.get(&id).map(|n| (*n, k))).collect();
}

/// The region of the store at `at`.
fn store_region(program: &Program, at: CommandAt) -> Option<RegionId> {
    match program.procedures[at.procedure].blocks[at.block].commands.get(at.index)? {
        Command::Store { region, .. } => Some(*region),
        _ => None,
    }
}

/// Removes a pseudo lock's commands: its trylocks succeed arbitrarily (the
/// assumptions tying them to the bit's value stay), its locks and unlocks go.
fn demote(program: &mut Program, lock: LockId) {
    let ids: Vec<_> = program.procedures.ids().collect();
    for p in ids {
        let blocks: Vec<_> = program.procedures[p].blocks.ids().collect();
        for b in blocks {
            let commands = &mut program.procedures[p].blocks[b].commands;
            commands.retain(|c| !matches!(c, Command::Lock { lock: l, .. } | Command::Unlock { lock: l, .. } if *l == lock));
            for c in commands.iter_mut() {
                if let Command::TryLock { lock: l, success, span, .. } = c {
                    if *l == lock {
                        *c = Command::Havoc { vars: vec![*success], span: span.clone() };
                    }
                }
            }
        }
    }
}

fn note(message: String, span: Option<Span>, notes: Vec<(String, Option<Span>)>) -> Diagnostic {
    Diagnostic { level: Level::Note, check: "bit-lock", message, span, notes }
}
