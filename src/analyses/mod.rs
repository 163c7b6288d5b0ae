//! Analyses over what the front end extracted. They read, never mutate.
//!
//! * [`pairs`]: which entry points may run at the same time.

pub mod pairs;
