//! racewatch's intermediate verification language (IVL): the program that
//! lowering produces from C, instrumentation extends with ghost lockset
//! state, and verification-condition generation turns into SMT.
//!
//! # Overview
//!
//! A [`Program`] declares global [`Variable`]s, memory [`Region`]s, [`Lock`]s,
//! uninterpreted functions ([`UninterpretedFn`]) and the driver's entry points
//! ([`EntryPointInfo`]), and holds [`Procedure`]s in the style of Boogie:
//! parameters, returns, locals, pre- and postconditions, and a control flow
//! graph of [`Block`]s. A block is a list of [`Command`]s ended by a
//! [`Terminator`]; branching is a nondeterministic `goto` whose targets start
//! with `assume`s. Everything refers to everything else by typed ids into
//! arenas ([`entity`]), so the IR is plain data: cloned, compared, printed.
//!
//! The data-race specific parts are commands: memory accesses (`load`,
//! `store`, plain or atomic) on regions, lock operations on statically
//! identified locks, records of what could not be modelled precisely
//! (unidentified locks, interrupt control, approximations), and the ghost
//! access hook that lockset instrumentation expands.
//!
//! # Deliberately absent
//!
//! - Bit-vectors: integers are mathematical, booleans are booleans; bit
//!   operations and inexpressible casts are uninterpreted functions.
//! - A heap other than regions: each region is a map from integer address
//!   to value, and an address of one region never aliases another region's.
//!   Pointer arithmetic is integer arithmetic on addresses.
//! - Memory reads inside expressions: expressions depend on variables only.
//! - I/O: the IR does no I/O and knows nothing of clang; spans are carried
//!   for diagnostics.
//!
//! # Modules
//!
//! - [`entity`]: ids, arenas and side maps.
//! - `program`, `command`, `expr`: the data.
//! - `printer`: the deterministic text form (`impl Display for Program`).
//! - `validate`: well-formedness, run between passes ([`debug_validate`]).
//! - `builder`: [`ProcedureBuilder`], for lowering.

mod builder;
mod command;
pub mod entity;
mod expr;
mod printer;
mod rewrite;
mod program;
mod validate;

#[cfg(test)]
mod tests;

pub use builder::ProcedureBuilder;
pub use command::{AccessKind, ApproxKind, CheckKind, Command, IrqOp, LockMode};
pub use entity::{Arena, BlockId, EntityId, EntryPointId, FuncId, LockId, ProcId, RegionId, SecondaryMap, VarId};
pub use expr::{BinaryOp, Expr, SortError, UnaryOp};
pub use printer::{CommandDisplay, ExprDisplay, ProcedureDisplay};
pub use program::{
    Address, Block, Contract, EntryPointInfo, Lock, LockKind, ObjectParam, Procedure, Program, Region, RegionKind, Scope, Sort,
    Terminator,
    UninterpretedFn, Variable,
};
pub use validate::{Place, ValidationError, debug_validate, validate};
