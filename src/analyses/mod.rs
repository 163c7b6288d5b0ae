//! Analyses over what the front end extracted. They read, never mutate.
//!
//! * [`pairs`]: which entry points may run at the same time.
//! * [`held`]: which locks may be held at the accesses to each region.

pub mod held;
pub mod pairs;
