//! Analyses over what the front end extracted. They read, never mutate.
//!
//! * [`pairs`]: which entry points may run at the same time.
//! * [`annotations`]: which of the kernel's held-lock annotations hold
//!   (the one analysis that writes: it marks the checked ones trusted).
//! * [`held`]: which locks may be held at the accesses to each region.
//! * [`must_held`]: which locks are certainly held at each access of each
//!   entry point.
//! * [`liveness`]: which loads read a value nobody uses.
//! * [`objects`]: which parameters of a pair point to distinct kernel
//!   objects.
//! * [`private`]: which accesses touch only memory private to the running
//!   call (per-call arguments, fresh allocations and locals not published).

pub mod annotations;
pub mod held;
pub mod liveness;
pub mod must_held;
pub mod objects;
pub mod pairs;
pub mod private;
pub mod quiesce;
