//! Instrumentation: passes that add ghost state and checks to the lowered
//! program, and nothing else.
//!
//! * [`lockset`]: Whoop's symbolic lockset instrumentation, once per entry
//!   point (reused by all of that entry point's pairs).
//!
//! **Invariant:** instrumentation only adds ghost variables and updates
//! them, and makes the program's own behaviour less determined (shared
//! reads become arbitrary); it never removes a behaviour the driver has.

pub mod lockset;
