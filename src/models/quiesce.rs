//! `quiesces` rules (kernel-models/entry-points/quiescing.xml): kernel
//! functions that return only once some of the driver's callbacks have
//! finished and cannot start again until something makes them live again
//! (`free_irq`, `timer_delete_sync`, `cancel_work_sync`, …). Which
//! callbacks is data: `kinds:K,K` (the entry point of each kind, when
//! exactly one registration of that kind exists: the call names one timer,
//! work item or line, and the lowering does not identify which) or
//! `structs:S,S` (every entry point all of whose registrations are fields
//! of those structures: `unregister_netdev` and `net_device_ops`),
//! `member:M/S.F` (the callback stored in field F of the structure S that
//! member M of the call's first argument points to, read from that
//! argument's static initializer: `misc_deregister(&dev)` with `dev.fops
//! = &fops` names `fops.open`), `handle` (the thread a handle variable
//! names: `pthread_join(t, r)` names the function every registration
//! writing its handle to `&t` starts, when `t` is used nowhere else;
//! src/frontend/lower/quiesce.rs), `registered-by:F` (the entry point
//! that the file's one call of registration function F, outside loops,
//! registers, when F registers it nowhere else: `unregister_blkdev` and
//! `__register_blkdev`'s probe), or `unresolved` (none: the command only
//! marks the wait).

use super::EntryKind;

/// Which callbacks a call quiesces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Quiesced {
    /// The single registration of each of these kinds.
    Kinds(Vec<EntryKind>),
    /// Every entry point registered only through fields of these
    /// structures.
    Structs(Vec<String>),
    /// `unresolved`: the call waits for something the lowering does not
    /// resolve to entry points (`pthread_join` of a thread handle): it
    /// names none, and its command only marks where the wait is
    /// (`racewatch svcomp`'s precise phase stops `main` there).
    Unresolved,
    /// `handle`: the call's first argument is a variable `t` holding a
    /// thread handle; the call names the one function that every
    /// registration call whose first argument is `&t` starts, provided `t`
    /// is used nowhere but in those registrations' first argument and in
    /// such calls' first argument (so only those registrations ever write
    /// it). Whether the wait really ends every run of that function is
    /// decided by the caller of the lowering (`racewatch svcomp`: the
    /// function is started once, by `main`, which waits).
    Handle,
    /// `registered-by:F`: the entry point registered by the file's only
    /// call of the registration function F (outside any loop), when that
    /// call is its only registration.
    RegisteredBy(String),
    /// `queued-on`: the work items queued on the workqueue the call's
    /// first argument names (a static variable or a structure field), by
    /// every queueing of theirs and never with a delay
    /// ([`crate::frontend::workqueues`]).
    QueuedOn,
    /// The callback stored in field `field` (`record.field`) of the
    /// structure variable that member `member` of the call's first
    /// argument (a global with a static initializer) points to.
    Member {
        /// The member of the argument's structure (`fops`).
        member: String,
        /// The callback's field (`file_operations.open`).
        field: String,
    },
}

/// A function that quiesces callbacks.
#[derive(Clone, Debug)]
pub struct Quiesces {
    /// Which callbacks.
    pub quiesces: Quiesced,
    /// Whether it also stops a callback that re-arms itself while the call
    /// waits (`timer_delete_sync`, `cancel_work_sync`, `tasklet_kill`) as
    /// opposed to waiting for the current run only (`flush_work`).
    pub stops_self: bool,
    /// The only functions whose calls make a quiesced callback live again
    /// (`rearmed-by="napi_enable"`: after `napi_disable` the NAPI context
    /// keeps its SCHED bit, so `napi_schedule` cannot start the poll);
    /// empty: any call that makes it live.
    pub rearmed_by: Vec<String>,
    /// Whether the call takes the quiesced state for its caller, waiting
    /// while another caller holds it, so that a `rearmed-by` call an entry
    /// point makes after its own call only gives back its own hold
    /// (`exclusive="true"`: `napi_disable` waits until SCHED and NPSVC are
    /// clear before it sets both, and only `napi_enable` clears them).
    pub exclusive: bool,
    /// Why (the 6.12 mechanism).
    pub reason: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct QuiescesXml {
    #[serde(rename = "@function")]
    pub function: String,
    #[serde(rename = "@quiesces")]
    quiesces: String,
    #[serde(rename = "@self", default)]
    self_: Option<String>,
    #[serde(rename = "@rearmed-by", default)]
    rearmed_by: Option<String>,
    #[serde(rename = "@exclusive", default)]
    exclusive: Option<String>,
    #[serde(rename = "@reason")]
    reason: String,
}

/// Parses one `quiesces` rule.
pub(super) fn quiesces(x: QuiescesXml) -> Result<(String, Quiesces), String> {
    let f = &x.function;
    let quiesces = if let Some(list) = x.quiesces.strip_prefix("kinds:") {
        let kinds = list
            .split(',')
            .map(|k| EntryKind::parse(k.trim()).ok_or_else(|| format!("quiesces `{f}`: unknown kind `{k}`")))
            .collect::<Result<Vec<_>, _>>()?;
        Quiesced::Kinds(kinds)
    } else if let Some(list) = x.quiesces.strip_prefix("structs:") {
        Quiesced::Structs(list.split(',').map(|s| s.trim().to_string()).collect())
    } else if let Some(name) = x.quiesces.strip_prefix("registered-by:").filter(|n| !n.trim().is_empty()) {
        Quiesced::RegisteredBy(name.trim().to_string())
    } else if x.quiesces == "unresolved" {
        Quiesced::Unresolved
    } else if x.quiesces == "handle" {
        Quiesced::Handle
    } else if x.quiesces == "queued-on" {
        Quiesced::QueuedOn
    } else if let Some(spec) = x.quiesces.strip_prefix("member:") {
        match spec.split_once('/') {
            Some((member, field)) if !member.is_empty() && field.split_once('.').is_some_and(|(s, f)| !s.is_empty() && !f.is_empty()) => {
                Quiesced::Member { member: member.trim().to_string(), field: field.trim().to_string() }
            }
            _ => return Err(format!("quiesces `{f}`: `member:` must be member:M/S.F (got `{}`)", x.quiesces)),
        }
    } else {
        return Err(format!("quiesces `{f}`: `quiesces` must be kinds:K,K, structs:S,S, member:M/S.F, registered-by:F, queued-on, handle or unresolved (got `{}`)", x.quiesces));
    };
    let stops_self = match x.self_.as_deref() {
        None | Some("waits") => false,
        Some("stops") => true,
        Some(other) => return Err(format!("quiesces `{f}`: `self` must be stops or waits (got `{other}`)")),
    };
    let rearmed_by: Vec<String> = match x.rearmed_by.as_deref() {
        None => Vec::new(),
        Some(list) => {
            let names: Vec<String> = list.split(',').map(|n| n.trim().to_string()).collect();
            if names.iter().any(|n| n.is_empty()) {
                return Err(format!("quiesces `{f}`: `rearmed-by` must list function names (got `{list}`)"));
            }
            names
        }
    };
    let exclusive = match x.exclusive.as_deref() {
        None | Some("false") => false,
        Some("true") if !rearmed_by.is_empty() => true,
        Some("true") => return Err(format!("quiesces `{f}`: `exclusive` needs `rearmed-by`")),
        Some(other) => return Err(format!("quiesces `{f}`: `exclusive` must be true or false (got `{other}`)")),
    };
    Ok((x.function, Quiesces { quiesces, stops_self, rearmed_by, exclusive, reason: x.reason }))
}
