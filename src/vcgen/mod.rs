//! Verification-condition generation: from instrumented procedures to
//! constraints and failure conditions, in passive form (single assignment,
//! no quantifiers), for the solver.
//!
//! * [`cfg`]: back edges, loop heads and what their loops modify, and the
//!   acyclic order.
//! * [`contracts`]: Houdini candidates, modifies sets, facts by
//!   construction.
//! * [`live_points`]: what a procedure may have made live where it changes
//!   each access flag or lockset, and at each loop head.
//! * [`encode`]: the passive encoding of a procedure body.
//! * [`pair`]: the VC of a pair of entry points with its race conditions.
//!
//! **Invariant:** VC generation builds formulas; it never talks to the
//! solver (src/solver/ does).

pub mod cfg;
pub mod contracts;
pub mod encode;
pub mod live_points;
pub mod pair;
