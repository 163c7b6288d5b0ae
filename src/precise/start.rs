//! Program-start memory (`racewatch svcomp`): the globals hold what the C
//! program's definitions say when `main` starts, instead of arbitrary
//! values.
//!
//! # Algorithm
//!
//! The globals are laid out as [`super::separation::global_layout`] places
//! them (one range per address function of known size). A global the
//! lowering recorded in [`crate::ir::Program::zero_globals`] reads 0 at
//! every address of its range; one in
//! [`crate::ir::Program::global_values`] reads its constant at its base
//! address, and one in [`crate::ir::Program::global_functions`] the
//! address the separation gives its function
//! ([`super::separation::function_layout`]). Every other address keeps the arbitrary initial memory
//! (`m0`): heap objects, locals, globals whose initial value the lowering
//! did not record.
//!
//! Havocked values: the lowering havocs a model's results (a
//! `__VERIFIER_nondet_int`, a thread handle) as unbounded integers, but a
//! C value has its type's range. In program-start mode every havocked
//! integer that is not an address (one used directly as a load's or
//! store's address: a model's write inside an object) is 0 or 1, values
//! every integer type holds.
//!
//! # Soundness
//!
//! C11 6.7.9p10 and 5.1.2p1: objects of static storage duration are
//! initialised before program start, to zero without an initialiser, to
//! their initialiser's value otherwise; `main` is the program's first code
//! and its thread the only one. Fixing the recorded globals removes only
//! executions the program cannot have, so it is used only where a witness
//! claims an execution of the program (svcomp's `false`). The replay
//! ([`super::replay`]) uses the same values, and in program-start mode
//! rejects a witness that reads the initial value of any other address of
//! a shared region (an unrecorded global, or memory no one wrote), so no
//! `false` rests on an arbitrary initial value.

use crate::ir::{Command, Expr, Program, VarId};
use std::collections::HashSet;
use crate::solver::{TermBank, TermId};

/// What a global holds at program start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Every byte zero.
    Zero,
    /// A scalar: this value at its base address.
    Scalar(i128),
}

/// The start values of the globals: base, size, value.
#[derive(Clone, Debug, Default)]
pub struct StartValues {
    globals: Vec<(i128, i128, Option<Start>)>,
}

impl StartValues {
    /// The globals of `program`, laid out as the separation lays them out.
    pub fn of(program: &Program) -> StartValues {
        let layout = super::separation::global_layout(program);
        let functions: std::collections::HashMap<_, _> = super::separation::function_layout(program).into_iter().collect();
        let globals = program
            .global_sizes
            .keys()
            .zip(layout)
            .map(|(f, (base, size))| {
                let start = if program.zero_globals.contains(f) {
                    Some(Start::Zero)
                } else {
                    let function = program.global_functions.get(f).and_then(|g| functions.get(g));
                    program.global_values.get(f).or(function).map(|v| Start::Scalar(*v))
                };
                (base, size, start)
            })
            .collect();
        StartValues { globals }
    }

    /// The load-time values of a kernel module's globals: as
    /// [`StartValues::of`], without the globals whose address a file-scope
    /// initialiser takes ([`Program::initializer_addressed`]: module
    /// parameters, which the loader sets before module init).
    pub fn of_module(program: &Program) -> StartValues {
        let mut values = StartValues::of(program);
        for ((f, _), slot) in program.global_sizes.iter().zip(values.globals.iter_mut()) {
            if program.initializer_addressed.contains(f) {
                slot.2 = None;
            }
        }
        values
    }

    /// The start value at a concrete address: `Ok(Some(v))` inside a
    /// global whose start value is recorded, `Ok(None)` outside every
    /// global, `Err(())` inside a global whose value is not recorded.
    pub fn at(&self, address: i128) -> Result<Option<i128>, ()> {
        for &(base, size, start) in &self.globals {
            if base <= address && address < base + size {
                return match start {
                    Some(Start::Zero) => Ok(Some(0)),
                    Some(Start::Scalar(v)) if address == base => Ok(Some(v)),
                    _ => Err(()),
                };
            }
        }
        Ok(None)
    }

    /// The start value at a symbolic address over the arbitrary `base`:
    /// an `if-then-else` over the recorded globals.
    pub fn term(&self, t: &mut TermBank, address: TermId, base: TermId) -> TermId {
        let mut out = base;
        for &(lo, size, start) in self.globals.iter().rev() {
            let (inside, value) = match start {
                Some(Start::Zero) => {
                    let l = t.int(lo);
                    let h = t.int(lo + size);
                    let above = t.le(l, address);
                    let below = t.lt(address, h);
                    (t.and(&[above, below]), t.int(0))
                }
                Some(Start::Scalar(v)) => {
                    let l = t.int(lo);
                    (t.eq(address, l), t.int(v))
                }
                None => continue,
            };
            out = t.ite(inside, value, out);
        }
        out
    }
}

/// The variables a havoc gives an address to: used directly as the
/// address of a load or store (a model's access inside an object).
pub fn address_havocs(program: &Program) -> HashSet<VarId> {
    let mut out = HashSet::new();
    for (_, p) in program.procedures.iter() {
        for (_, b) in p.blocks.iter() {
            for c in &b.commands {
                if let Command::Load { address: Expr::Var(v), .. } | Command::Store { address: Expr::Var(v), .. } = c {
                    out.insert(*v);
                }
            }
        }
    }
    out
}

/// Whether a havocked integer may take `value` in program-start mode.
pub fn havoc_allowed(value: i128) -> bool {
    value == 0 || value == 1
}
