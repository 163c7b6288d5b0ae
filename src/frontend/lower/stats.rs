//! Counts the lowering keeps: constructs lowered and approximations made,
//! for `racewatch ivl --stats`, the results tables and the tests.

use crate::ir::ApproxKind;
use std::collections::{BTreeMap, BTreeSet};

/// What one driver's lowering did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoweringStats {
    /// Function bodies lowered (specialisations included).
    pub functions: usize,
    /// Statements lowered.
    pub statements: usize,
    /// Expressions lowered.
    pub expressions: usize,
    /// Loops.
    pub loops: usize,
    /// Switch statements.
    pub switches: usize,
    /// Calls of every kind.
    pub calls: usize,
    /// Calls replaced by a kernel function model.
    pub modelled_calls: usize,
    /// Calls through a function pointer whose targets were found.
    pub indirect_calls_resolved: usize,
    /// The functions called through a function-pointer variable whose
    /// values are all known (src/frontend/lower/constant_pointers.rs); such
    /// calls are not counted in `indirect_calls_resolved`.
    pub constant_pointer_targets: BTreeSet<String>,
    /// `asm` statements with an empty template and no operands (compiler
    /// barriers), among the `inline-asm` approximations: they run no
    /// instruction (`racewatch svcomp` does not count them).
    pub empty_asm: usize,
    /// Times the address of a thread-local variable was taken (`&tls`, an
    /// array decaying): that thread's instance may then reach another
    /// thread, while its own accesses stay in a thread-private region.
    pub thread_local_addresses: usize,
    /// Loads emitted.
    pub loads: usize,
    /// Stores emitted.
    pub stores: usize,
    /// Loads and stores of volatile lvalues (`READ_ONCE`, `WRITE_ONCE`),
    /// lowered as marked (atomic) accesses that never race with each other.
    pub marked_accesses: usize,
    /// Atomic operations lowered with their exact values.
    pub atomic_values: usize,
    /// Atomic operations with a value model lowered to arbitrary values
    /// instead (a bit number that is not a constant, …).
    pub atomic_value_fallbacks: usize,
    /// Locks identified.
    pub locks: usize,
    /// Bits of words kept as bit locks (every clear made holding them).
    pub bit_locks: usize,
    /// Bits acquired like a lock but left plain atomic flags (a clear
    /// without the lock held, or a write that may clear them).
    pub bit_locks_demoted: usize,
    /// The kernel's annotations recognised (`lockdep_assert_held`,
    /// `__must_hold`, `ASSERT_EXCLUSIVE_*`).
    pub lock_annotations: usize,
    /// Locals whose address is taken or that are records or arrays.
    pub address_taken_locals: usize,
    /// Functions specialised for the locks their callers pass.
    pub specialisations: usize,
    /// Calling contexts given the constants their calls pass
    /// (src/frontend/lower/const_callees.rs), and the copies among them.
    pub constant_contexts: usize,
    /// Procedures copied for one calling context's constants.
    pub constant_copies: usize,
    /// Addresses of scalars and arrays passed to a kernel function model
    /// that keeps no pointer, kept in their own regions instead of merged.
    pub unescaped_arguments: usize,
    /// Functions called without body or model, and modelled functions
    /// that call back into the driver (`calls-back`).
    pub external_functions: BTreeSet<String>,
    /// Functions called whose model (not body) the lowering used.
    pub modelled_functions: BTreeSet<String>,
    /// Approximations by kind.
    pub approximations: BTreeMap<&'static str, usize>,
}

impl LoweringStats {
    /// Counts one approximation.
    pub fn count_approximation(&mut self, kind: ApproxKind) {
        *self.approximations.entry(kind.as_str()).or_default() += 1;
    }

    /// Rows of `(name, count)` for printing, constructs first.
    pub fn rows(&self) -> Vec<(String, usize)> {
        let mut rows = vec![
            ("functions".to_string(), self.functions),
            ("statements".into(), self.statements),
            ("expressions".into(), self.expressions),
            ("loops".into(), self.loops),
            ("switches".into(), self.switches),
            ("calls".into(), self.calls),
            ("modelled calls".into(), self.modelled_calls),
            ("resolved indirect calls".into(), self.indirect_calls_resolved),
            ("loads".into(), self.loads),
            ("stores".into(), self.stores),
            ("marked accesses".into(), self.marked_accesses),
            ("atomic values".into(), self.atomic_values),
            ("atomic value fall-backs".into(), self.atomic_value_fallbacks),
            ("locks".into(), self.locks),
            ("bit locks".into(), self.bit_locks),
            ("bit locks demoted".into(), self.bit_locks_demoted),
            ("lock annotations".into(), self.lock_annotations),
            ("locals in memory".into(), self.address_taken_locals),
            ("lock specialisations".into(), self.specialisations),
            ("constant calling contexts".into(), self.constant_contexts),
            ("constant context copies".into(), self.constant_copies),
            ("unescaped model arguments".into(), self.unescaped_arguments),
            ("external functions".into(), self.external_functions.len()),
        ];
        for (kind, n) in &self.approximations {
            rows.push((format!("approximation {kind}"), *n));
        }
        rows
    }
}
