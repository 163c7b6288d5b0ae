//! The kernel's own locking annotations, as data
//! (`kernel-models/locks/annotations.xml`).
//!
//! ```xml
//! <annotation macro="lockdep_assert_held" kind="assert-held" lock-arg="0" reason="…"/>
//! <annotation macro="ASSERT_RTNL" kind="assert-held" global-lock="rtnl" reason="…"/>
//! <annotation macro="__must_hold" kind="must-hold" reason="…"/>
//! <annotation macro="ASSERT_EXCLUSIVE_WRITER" kind="assert-exclusive-writer" reason="…"/>
//! ```
//!
//! An annotation is recognised by the macro that wrote it: the statement a
//! statement macro expands to (`lockdep_assert_held(&l)` is `do { (void)(l);
//! } while (0)` without lockdep), the call a KCSAN assertion expands to, or
//! the attribute macro written in a function's definition (`__must_hold(l)`
//! expands to nothing outside sparse). `mode` is `any` (the default),
//! `exclusive` or `shared`; `lock-arg` the macro argument naming the lock
//! (a pointer for lockdep, the lock itself for sparse's context macros);
//! `global-lock` a pseudo lock instead.

use super::locks::LockMode;
use super::{choice, reason_given};
use serde::Deserialize;

/// What an annotation says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnnotationKind {
    /// A statement: the running thread holds the lock here.
    AssertHeld,
    /// A function attribute: every caller holds the lock at the call.
    MustHold,
    /// A function attribute: the function returns holding the lock.
    Acquires,
    /// A function attribute: the function is entered holding the lock and
    /// returns without it.
    Releases,
    /// A statement: no other thread writes the object concurrently.
    AssertExclusiveWriter,
    /// A statement: no other thread accesses the object concurrently.
    AssertExclusiveAccess,
}

const KINDS: &[(&str, AnnotationKind)] = &[
    ("assert-held", AnnotationKind::AssertHeld),
    ("must-hold", AnnotationKind::MustHold),
    ("acquires", AnnotationKind::Acquires),
    ("releases", AnnotationKind::Releases),
    ("assert-exclusive-writer", AnnotationKind::AssertExclusiveWriter),
    ("assert-exclusive-access", AnnotationKind::AssertExclusiveAccess),
];

/// One annotation macro.
#[derive(Clone, Debug)]
pub struct Annotation {
    /// The macro's name.
    pub macro_name: String,
    /// What it says.
    pub kind: AnnotationKind,
    /// The mode the lock is said to be held in; `None`: any.
    pub mode: Option<LockMode>,
    /// The macro argument naming the lock or the object.
    pub arg: usize,
    /// A kernel-wide pseudo lock it names instead of an argument.
    pub global_lock: Option<String>,
    /// What the macro is in 6.12, and what checks it.
    pub reason: String,
}

/// `<annotation>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AnnotationXml {
    #[serde(rename = "@macro")]
    macro_name: String,
    #[serde(rename = "@kind")]
    kind: String,
    #[serde(rename = "@mode")]
    mode: Option<String>,
    #[serde(rename = "@lock-arg")]
    arg: Option<usize>,
    #[serde(rename = "@global-lock")]
    global_lock: Option<String>,
    #[serde(rename = "@reason")]
    reason: String,
}

/// Checks and converts one `<annotation>`.
pub(super) fn annotation(a: AnnotationXml) -> Result<Annotation, String> {
    let context = format!("annotation `{}`", a.macro_name);
    reason_given(&context, &a.reason)?;
    let kind = choice(&context, "kind", &a.kind, KINDS)?;
    let mode = match a.mode.as_deref() {
        None | Some("any") => None,
        Some(m) => Some(choice(&context, "mode", m, &[("exclusive", LockMode::Exclusive), ("shared", LockMode::Shared)])?),
    };
    if a.global_lock.is_some() && a.arg.is_some() {
        return Err(format!("{context} names both a lock argument and a global lock"));
    }
    Ok(Annotation { macro_name: a.macro_name, kind, mode, arg: a.arg.unwrap_or(0), global_lock: a.global_lock, reason: a.reason })
}
