//! The lockset verification of a driver: instrument every entry point,
//! infer summaries with Houdini, check every candidate pair per region,
//! and return verdicts with evidence.
//!
//! * [`run`]: the order of the stages for one driver, and the pair checks.
//! * [`infer`]: Houdini over the call graph's components, in parallel
//!   levels.
//! * [`evidence`]: the canonical evidence of a race.
//! * [`solving`]: VCs as solver terms; the one place verification uses
//!   the solver.
//! * [`verdict`]: verdicts, their evidence, totals and diagnostics.
//! * [`identity`]: a race's source-level name and fingerprint.

mod evidence;
pub mod identity;
mod infer;
pub mod run;
pub mod solving;
pub mod verdict;
