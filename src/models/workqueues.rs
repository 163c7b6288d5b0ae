//! The workqueue models: which kernel functions queue a work item on a
//! workqueue, which take a work item's address without queueing it, and
//! which allocate an ordered workqueue, as read from
//! `kernel-models/entry-points/*.xml`. The frontend pass
//! `frontend::workqueues` uses them to find the work items queued on one
//! ordered workqueue only, for the `same-ordered-workqueue` serialisation
//! rule.
//!
//! The schema, by example:
//!
//! ```xml
//! <work-queueing function="queue_work" workqueue-arg="0" work-arg="1" reason="…"/>
//! <work-neutral function="cancel_work_sync" reason="…"/>
//! <ordered-workqueue-allocator function="alloc_workqueue" flags-arg="1" ordered-flags="0x20000" reason="…"/>
//! ```
//!
//! Argument indexes are 0-based. A work item whose address reaches any
//! other call, or is stored, is not known to be queued on one workqueue.

use serde::Deserialize;

/// A function that queues the work item of one argument on the workqueue
/// of another.
#[derive(Clone, Debug)]
pub struct WorkQueueing {
    /// The argument that is the workqueue.
    pub workqueue_arg: usize,
    /// The argument that is the work item (`work_struct *`, `delayed_work *`).
    pub work_arg: usize,
    /// Why: the 6.12 mechanism.
    pub reason: String,
}

/// A function that allocates a workqueue, ordered when its flags argument
/// has every bit of `ordered_flags`.
#[derive(Clone, Debug)]
pub struct OrderedAllocator {
    /// The argument holding the flags.
    pub flags_arg: usize,
    /// The bits that make the workqueue ordered (`__WQ_ORDERED`).
    pub ordered_flags: u64,
    /// Why: the 6.12 mechanism.
    pub reason: String,
}

/// `<work-queueing>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WorkQueueingXml {
    #[serde(rename = "@function")]
    pub(super) function: String,
    #[serde(rename = "@workqueue-arg")]
    workqueue_arg: usize,
    #[serde(rename = "@work-arg")]
    work_arg: usize,
    #[serde(rename = "@reason")]
    reason: String,
}

/// `<work-neutral>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WorkNeutralXml {
    #[serde(rename = "@function")]
    pub(super) function: String,
    #[serde(rename = "@reason")]
    pub(super) reason: String,
}

/// `<ordered-workqueue-allocator>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OrderedAllocatorXml {
    #[serde(rename = "@function")]
    pub(super) function: String,
    #[serde(rename = "@flags-arg")]
    flags_arg: usize,
    #[serde(rename = "@ordered-flags")]
    ordered_flags: String,
    #[serde(rename = "@reason")]
    reason: String,
}

/// Checks and converts one `<work-queueing>`.
pub(super) fn work_queueing(x: WorkQueueingXml) -> Result<(String, WorkQueueing), String> {
    super::reason_given(&format!("work-queueing `{}`", x.function), &x.reason)?;
    if x.workqueue_arg == x.work_arg {
        return Err(format!("work-queueing `{}`: the workqueue and the work item are the same argument", x.function));
    }
    Ok((x.function, WorkQueueing { workqueue_arg: x.workqueue_arg, work_arg: x.work_arg, reason: x.reason }))
}

/// Checks and converts one `<ordered-workqueue-allocator>`.
pub(super) fn ordered_allocator(x: OrderedAllocatorXml) -> Result<(String, OrderedAllocator), String> {
    let context = format!("ordered-workqueue-allocator `{}`", x.function);
    super::reason_given(&context, &x.reason)?;
    let text = x.ordered_flags.trim();
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    let ordered_flags = parsed.map_err(|_| format!("{context}: ordered-flags `{text}` is not a number"))?;
    if ordered_flags == 0 {
        return Err(format!("{context}: ordered-flags is 0, which every workqueue has"));
    }
    Ok((x.function, OrderedAllocator { flags_arg: x.flags_arg, ordered_flags, reason: x.reason }))
}
