//! Object lifetimes: the kernel calls a callback on a kernel object only
//! between the callback that begins the object's life with the driver and
//! the one that ends it, as read from `kernel-models/lifetimes/*.xml`.
//!
//! The schema, by example:
//!
//! ```xml
//! <kernel-model kernel="6.12">
//!   <object-lifetime name="open-file" object="struct file" kernel="6.12" reason="…">
//!     <callback origin="file_operations.open" param="1" stage="begin"/>
//!     <callback origin="file_operations.release" param="1" stage="end"/>
//!     <callback origin="file_operations.read" param="0"/>
//!   </object-lifetime>
//! </kernel-model>
//! ```
//!
//! Each `<callback>` names a callback field (`origin`, as in the
//! serialisation rules), the index of the parameter through which the
//! kernel passes the object, and the callback's stage: `begin` (the object
//! is new to the driver: no other callback of the rule runs on it before
//! this one returns), `end` (the object's last callback: none runs on it
//! after this one starts, nor while it runs) or `during` (the default).
//!
//! **What it means for a pair.** Two entry points that both match a rule,
//! at least one of them at `begin` or `end`, cannot work on the same object
//! at the same time: whatever one does to its object happens before the
//! other's call on the same object starts, or after it returned. So in a
//! pair, the two objects may be taken as **distinct**; this is the precise
//! form of the original tool's `--inparam-aliasing`. Two `begin` calls
//! (two opens) work on two new objects; two `end` calls (two releases) on
//! two objects ending. Two `during` calls (two reads of one open file) may
//! share the object and get no constraint.
//!
//! An entry point matches a rule only if **every** one of its
//! registrations is a callback of the rule with the same parameter and
//! stage (a function that is both `open` and a work function also runs
//! outside the file's life).

use super::reason_given;
use serde::Deserialize;

/// Where a callback stands in its object's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// The object's first callback.
    Begin,
    /// Any callback in between.
    During,
    /// The object's last callback.
    End,
}

/// One callback of a lifetime rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifetimeCallback {
    /// The structure declaring the callback field (`file_operations`).
    pub record: String,
    /// The field (`open`).
    pub field: String,
    /// The parameter through which the object is passed, from 0.
    pub param: usize,
    /// Its stage.
    pub stage: Stage,
}

/// An object-lifetime rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifetimeRule {
    /// A unique name, shown in `--verbose` output.
    pub name: String,
    /// The kernel object (`struct file`), for reports.
    pub object: String,
    /// The kernel mechanism and the file and function that guarantee it.
    pub reason: String,
    /// The callbacks.
    pub callbacks: Vec<LifetimeCallback>,
    /// `quiet-at-begin="true"`: the begin callback runs only on an object
    /// that is new or whose end callback has returned, so a callback that
    /// only begin makes live and end quiesces is not running when begin
    /// starts ([`crate::instrument::lockset`]).
    pub quiet_at_begin: bool,
    /// `after-begin="true"`: every other callback runs on an object whose
    /// begin callback returned 0, so the precise phase runs the driver's
    /// begin callback of the same structure, to success, at the start of
    /// the thread of any other callback ([`crate::precise::prefix`]).
    pub after_begin: bool,
    /// `ops-field`: the object's field naming its operations (`f_op`);
    /// a driver storing to it may run an operation of another structure
    /// than the one whose begin callback ran.
    pub ops_field: Option<String>,
}

impl LifetimeRule {
    /// The callback stored in `record.field`, if the rule has it.
    pub fn callback(&self, record: &str, field: &str) -> Option<&LifetimeCallback> {
        self.callbacks.iter().find(|c| c.record == record && c.field == field)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LifetimeXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@object")]
    object: String,
    #[serde(rename = "@kernel")]
    _kernel: String,
    #[serde(rename = "@reason")]
    reason: String,
    #[serde(rename = "@quiet-at-begin", default)]
    quiet_at_begin: Option<String>,
    #[serde(rename = "@after-begin", default)]
    after_begin: Option<String>,
    #[serde(rename = "@ops-field", default)]
    ops_field: Option<String>,
    #[serde(rename = "callback", default)]
    callbacks: Vec<CallbackXml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallbackXml {
    #[serde(rename = "@origin")]
    origin: String,
    #[serde(rename = "@param")]
    param: usize,
    #[serde(rename = "@stage", default)]
    stage: Option<String>,
}

/// Checks and converts one `<object-lifetime>`.
pub(super) fn rule(x: LifetimeXml) -> Result<LifetimeRule, String> {
    let context = format!("object-lifetime `{}`", x.name);
    reason_given(&context, &x.reason)?;
    if x.callbacks.is_empty() {
        return Err(format!("{context}: no <callback>"));
    }
    let mut callbacks = Vec::new();
    for c in x.callbacks {
        let Some((record, field)) = c.origin.split_once('.') else {
            return Err(format!("{context}: origin `{}` is not STRUCT.FIELD", c.origin));
        };
        let stage = match c.stage.as_deref() {
            None | Some("during") => Stage::During,
            Some("begin") => Stage::Begin,
            Some("end") => Stage::End,
            Some(other) => return Err(format!("{context}: unknown stage `{other}` (begin, during, end)")),
        };
        if callbacks.iter().any(|k: &LifetimeCallback| k.record == record && k.field == field) {
            return Err(format!("{context}: `{}` is listed twice", c.origin));
        }
        callbacks.push(LifetimeCallback { record: record.to_string(), field: field.to_string(), param: c.param, stage });
    }
    let quiet_at_begin = match x.quiet_at_begin.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => return Err(format!("{context}: quiet-at-begin must be true or false (got `{other}`)")),
    };
    if quiet_at_begin && !(callbacks.iter().any(|c| c.stage == Stage::Begin) && callbacks.iter().any(|c| c.stage == Stage::End)) {
        return Err(format!("{context}: quiet-at-begin needs a begin and an end callback"));
    }
    let after_begin = match x.after_begin.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => return Err(format!("{context}: after-begin must be true or false (got `{other}`)")),
    };
    if after_begin && !callbacks.iter().any(|c| c.stage == Stage::Begin) {
        return Err(format!("{context}: after-begin needs a begin callback"));
    }
    Ok(LifetimeRule { name: x.name, object: x.object, reason: x.reason, callbacks, quiet_at_begin, after_begin, ops_field: x.ops_field })
}

/// Checks a rule's callbacks against the modelled callback structures.
pub(super) fn check_against(
    rule: &LifetimeRule,
    ops_structs: &std::collections::HashMap<String, super::OpsStruct>,
) -> Result<(), String> {
    for c in &rule.callbacks {
        let Some(model) = ops_structs.get(&c.record) else {
            return Err(format!("object-lifetime `{}`: `{}` is not a modelled <ops-struct>", rule.name, c.record));
        };
        if model.kind_of(&c.field).is_none() {
            return Err(format!("object-lifetime `{}`: the models make no entry point of `{}.{}`", rule.name, c.record, c.field));
        }
    }
    Ok(())
}
