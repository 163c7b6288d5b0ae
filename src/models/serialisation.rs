//! The kernel's serialisation rules: pairs of entry points that the kernel
//! never runs at the same time, as read from `kernel-models/serialisation/*.xml`.
//! The pairs analysis (`analyses::pairs`) removes every pair a rule matches.
//!
//! The schema, by example:
//!
//! ```xml
//! <kernel-model kernel="6.12">
//!   <serialised name="rtnl" pairs="both" scope="global" kernel="6.12"
//!     reason="…">
//!     <select origin="net_device_ops.ndo_open"/>
//!     <select origin="ethtool_ops.get_ringparam"/>
//!   </serialised>
//!   <serialised name="exit-role" pairs="between" scope="device" kernel="6.12"
//!     reason="…">
//!     <select role="exit"/>
//!     <with role="any"/>
//!   </serialised>
//!   <serialised name="irq-handler-not-reentered" pairs="self" scope="object" max-registrations="1" kernel="6.12"
//!     reason="…">
//!     <select call="request_threaded_irq" kind="irq"/>
//!   </serialised>
//! </kernel-model>
//! ```
//!
//! **Relations** (`pairs`): `both`: a pair whose two entry points both match
//! the `<select>` set (self-pairs included); `between`: one matches the
//! `<select>` set and the other the `<with>` set; `self`: the self-pair of an
//! entry point matching the `<select>` set, and with `max-registrations="N"`
//! only when the entry point has at most N registrations (origins); `none`:
//! no pair, the rule only gives the selected entry points the pseudo lock of
//! its `holds-lock`. `unless-called="f g"` (any relation) voids a rule for
//! a driver that calls or registers one of those (unmodelled) kernel
//! functions.
//! `pm-ops-bus="pci"` restricts the entry points registered in a
//! `dev_pm_ops` to those whose structure only a `struct pci_driver` of the
//! file refers to (src/frontend/pm_ops.rs).
//! `requires-field="ping"` admits an entry point only when every
//! registration of it stored in a structure variable has a sibling in that
//! variable's `ping` field (some entry point of the driver is stored there):
//! the kernel calls the function one way or another depending on whether
//! the structure provides the other operation. `requires-field="watchdog_ops.ping"`
//! asks it only of the registrations in a `watchdog_ops`.
//! `unless-reaches="f m"` (for the relations that remove pairs) exempts
//! an entry point from the rule when its code reaches (directly or through
//! the driver's functions, as lowered) a call of the function `f` or a use
//! of the macro `m`: it matches neither set of that rule, so its pairs stay.
//!
//! **Selectors.** Each `<select>`/`<with>` constrains one registration
//! (origin) of an entry point; the attributes given must all hold:
//! `origin="struct.field"` (stored in that field), `struct="name"` (stored in
//! any field of that structure), `call="function"` (passed to that
//! registration function, named as the models name it: what the call resolves
//! to, `init_timer_key` for `timer_setup`), `kind="irq"` (the registration's
//! kind), `role="init|exit|live|any"` (the role of the registration's kind).
//! A set of selectors is their union. **An entry point matches a set only if
//! every one of its registrations matches some selector of the set**: a
//! function registered both as `ndo_open` (under RTNL) and as a work
//! function (not) also runs outside RTNL, so the RTNL rule must not apply.
//!
//! **Scope** says for which calls the kernel guarantees the exclusion:
//! `global` (whatever objects the calls work on: RTNL), `device` (calls for
//! the same device: the device lock), `object` (calls for the same kernel
//! object: one IRQ action, timer, work item, tasklet, NAPI context, TX
//! queue). docs/soundness.md lists what the narrower scopes leave out.
//!
//! Every rule names the kernel version it was checked against (`kernel`)
//! and its reason: the kernel mechanism and the file and function that
//! guarantee it. Rule names are unique across files. Structures, fields and
//! registration functions named by selectors must be modelled entry points
//! (checked once every file is read: [`check_against`]).

use super::entry_points::{EntryKind, OpsStruct, Registration, Role};
use super::{choice, reason_given};
use serde::Deserialize;
use std::collections::HashMap;

/// Which pairs a rule removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Both entry points match the selected set (self-pairs included).
    Both,
    /// One matches the selected set, the other the partner set.
    Between,
    /// The self-pair of an entry point matching the selected set.
    SelfPair,
    /// No pair: the rule only says which pseudo lock the selected entry
    /// points run holding (`holds-lock`).
    None,
}

impl Relation {
    /// The spelling in the models.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Both => "both",
            Relation::Between => "between",
            Relation::SelfPair => "self",
            Relation::None => "none",
        }
    }
}

/// For which calls the kernel guarantees the exclusion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Whatever objects the two calls work on.
    Global,
    /// Calls for the same device (or disk, or NFC device).
    Device,
    /// Calls for the same kernel object (IRQ action, timer, work item,
    /// tasklet, NAPI context, TX queue).
    Object,
}

impl Scope {
    /// The spelling in the models and the output.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Device => "device",
            Scope::Object => "object",
        }
    }
}

/// Which roles a selector admits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoleSelector {
    /// Exactly this role.
    Is(Role),
    /// Every role.
    Any,
}

impl RoleSelector {
    /// Whether a registration of role `role` is admitted.
    pub fn admits(self, role: Role) -> bool {
        match self {
            RoleSelector::Is(r) => r == role,
            RoleSelector::Any => true,
        }
    }
}

/// Constraints on one registration (origin) of an entry point; every
/// constraint given must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    /// Stored in a field of this structure.
    pub record: Option<String>,
    /// Stored in this field (of `record`).
    pub field: Option<String>,
    /// Passed to this registration function.
    pub call: Option<String>,
    /// Registered with this kind.
    pub kind: Option<EntryKind>,
    /// Registered with a kind of this role.
    pub role: Option<RoleSelector>,
}

impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        match (&self.record, &self.field) {
            (Some(r), Some(field)) => parts.push(format!("origin={r}.{field}")),
            (Some(r), None) => parts.push(format!("struct={r}")),
            _ => {}
        }
        if let Some(c) = &self.call {
            parts.push(format!("call={c}"));
        }
        if let Some(k) = self.kind {
            parts.push(format!("kind={}", k.as_str()));
        }
        match self.role {
            Some(RoleSelector::Is(r)) => parts.push(format!("role={}", role_name(r))),
            Some(RoleSelector::Any) => parts.push("role=any".into()),
            None => {}
        }
        f.write_str(&parts.join(" "))
    }
}

fn role_name(r: Role) -> &'static str {
    match r {
        Role::Init => "init",
        Role::Exit => "exit",
        Role::Live => "live",
    }
}

/// One serialisation rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SerialisationRule {
    /// Unique kebab-case name, shown with every pair it removes.
    pub name: String,
    /// Which pairs it removes.
    pub relation: Relation,
    /// For which calls the kernel guarantees it.
    pub scope: Scope,
    /// The selected set (`<select>`).
    pub selected: Vec<Selector>,
    /// The partner set (`<with>`), for `between` only.
    pub partners: Vec<Selector>,
    /// For `self` only: the most registrations the entry point may have.
    pub max_registrations: Option<usize>,
    /// A kernel pseudo lock the selected entry points run holding
    /// (`holds-lock="rtnl"`): the kernel takes it around every call, so
    /// driver code taking the same lock excludes them too.
    pub holds_lock: Option<String>,
    /// Kernel functions that void the rule for a driver calling or
    /// registering any of them (`unless-called="pm_runtime_force_suspend"`):
    /// they call the selected callbacks outside the mechanism the rule
    /// relies on. A `none` rule then gives no pseudo lock, another rule
    /// removes no pair. Only functions without a model (the lowering
    /// records exactly those it meets).
    pub unless_called: Vec<String>,
    /// Kernel functions and macros whose use exempts an entry point from
    /// the rule (`unless-reaches="try_to_freeze wait_event_freezable"`):
    /// an entry point whose lowered code reaches a call of one, or a
    /// statement a listed macro wrote, matches neither set. Not for
    /// `pairs="none"`.
    pub unless_reaches: Vec<String>,
    /// `same-ordered-workqueue="true"`: a pair is removed only when the
    /// work items of both entry points are queued on one ordered workqueue
    /// and nowhere else (`DriverEntryPoints::ordered_work`,
    /// src/frontend/workqueues.rs).
    pub same_ordered_workqueue: bool,
    /// `pm-ops-bus="pci"`: an entry point registered in a `dev_pm_ops`
    /// matches only when that structure is one only a `struct pci_driver`
    /// of the file refers to (`DriverEntryPoints::pci_pm_ops`,
    /// src/frontend/pm_ops.rs): the PCI bus's own sleep callbacks call it.
    pub pm_ops_bus: Option<String>,
    /// `requires-field="ping"`: an entry point matches only when every
    /// registration of it stored in a structure variable (`holder`) has a
    /// sibling: the same variable also stores a function of the driver in
    /// that field (a `watchdog_ops` with `.ping` set). Written
    /// `watchdog_ops.ping`, it asks only of the registrations in that
    /// structure, and the rule's other entry points match as usual.
    pub requires_field: Option<String>,
    /// The kernel version the rule was checked against.
    pub kernel: String,
    /// The kernel mechanism and where the kernel guarantees it.
    pub reason: String,
}

impl SerialisationRule {
    /// Whether the rule's pairs depend on the lowered code: its
    /// `unless-reaches`, or the `unless-called` of a rule that removes
    /// pairs (a `none` rule's voids only its pseudo lock). Without that
    /// code the rule removes no pair.
    pub fn needs_lowered_code(&self) -> bool {
        !self.unless_reaches.is_empty() || (self.relation != Relation::None && !self.unless_called.is_empty())
    }
}

/// `<serialised>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SerialisedXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@pairs")]
    pairs: String,
    #[serde(rename = "@scope")]
    scope: String,
    #[serde(rename = "@kernel")]
    kernel: String,
    #[serde(rename = "@max-registrations")]
    max_registrations: Option<usize>,
    #[serde(rename = "@holds-lock")]
    holds_lock: Option<String>,
    #[serde(rename = "@unless-called")]
    unless_called: Option<String>,
    #[serde(rename = "@unless-reaches")]
    unless_reaches: Option<String>,
    #[serde(rename = "@same-ordered-workqueue", default)]
    same_ordered_workqueue: bool,
    #[serde(rename = "@pm-ops-bus")]
    pm_ops_bus: Option<String>,
    #[serde(rename = "@requires-field")]
    requires_field: Option<String>,
    #[serde(rename = "@reason")]
    reason: String,
    #[serde(rename = "select", default)]
    selected: Vec<SelectorXml>,
    #[serde(rename = "with", default)]
    partners: Vec<SelectorXml>,
}

/// `<select>` and `<with>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SelectorXml {
    #[serde(rename = "@origin")]
    origin: Option<String>,
    #[serde(rename = "@struct")]
    record: Option<String>,
    #[serde(rename = "@call")]
    call: Option<String>,
    #[serde(rename = "@kind")]
    kind: Option<String>,
    #[serde(rename = "@role")]
    role: Option<String>,
}

const RELATIONS: &[(&str, Relation)] =
    &[("both", Relation::Both), ("between", Relation::Between), ("self", Relation::SelfPair), ("none", Relation::None)];
const SCOPES: &[(&str, Scope)] = &[("global", Scope::Global), ("device", Scope::Device), ("object", Scope::Object)];
const ROLES: &[(&str, RoleSelector)] = &[
    ("init", RoleSelector::Is(Role::Init)),
    ("exit", RoleSelector::Is(Role::Exit)),
    ("live", RoleSelector::Is(Role::Live)),
    ("any", RoleSelector::Any),
];

fn selector(context: &str, element: &str, s: SelectorXml) -> Result<Selector, String> {
    let context = format!("{context} <{element}>");
    let (record, field) = match (s.origin, s.record) {
        (Some(_), Some(_)) => return Err(format!("{context}: give origin=\"struct.field\" or struct=\"…\", not both")),
        (Some(origin), None) => match origin.split_once('.') {
            Some((r, f)) if !r.is_empty() && !f.is_empty() && !f.contains('.') => (Some(r.to_string()), Some(f.to_string())),
            _ => return Err(format!("{context}: origin `{origin}` is not of the form struct.field")),
        },
        (None, record) => (record, None),
    };
    if record.is_some() && s.call.is_some() {
        return Err(format!(
            "{context}: a registration is either a structure field or a call: struct/origin and call never match together"
        ));
    }
    let kind = s
        .kind
        .as_deref()
        .map(|k| {
            EntryKind::parse(k).ok_or_else(|| {
                let names: Vec<&str> = EntryKind::ALL.iter().map(|k| k.as_str()).collect();
                format!("{context}: unknown kind `{k}` (expected one of {})", names.join(", "))
            })
        })
        .transpose()?;
    let role = s.role.as_deref().map(|r| choice(&context, "role", r, ROLES)).transpose()?;
    let selector = Selector { record, field, call: s.call, kind, role };
    if selector == Selector::default() {
        return Err(format!("{context}: no origin, struct, call, kind or role: it would select nothing"));
    }
    Ok(selector)
}

/// Checks and converts one `<serialised>`.
pub(super) fn rule(r: SerialisedXml) -> Result<SerialisationRule, String> {
    let context = format!("serialised `{}`", r.name);
    if r.name.is_empty() || !r.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        return Err(format!("{context}: the name must be kebab-case (a-z, 0-9, -)"));
    }
    reason_given(&context, &r.reason)?;
    if r.kernel.trim().is_empty() {
        return Err(format!("{context}: the kernel version it was checked against is empty"));
    }
    let relation = choice(&context, "pairs", &r.pairs, RELATIONS)?;
    let scope = choice(&context, "scope", &r.scope, SCOPES)?;
    if r.selected.is_empty() {
        return Err(format!("{context}: no <select>"));
    }
    match (relation, r.partners.is_empty()) {
        (Relation::Between, true) => return Err(format!("{context}: pairs=\"between\" needs a <with> set")),
        (Relation::Both | Relation::SelfPair | Relation::None, false) => {
            return Err(format!("{context}: <with> is only for pairs=\"between\""));
        }
        _ => {}
    }
    let unless_called: Vec<String> = r.unless_called.as_deref().unwrap_or("").split_whitespace().map(String::from).collect();
    if relation == Relation::None && r.holds_lock.is_none() {
        return Err(format!("{context}: pairs=\"none\" removes no pair, so it needs holds-lock"));
    }
    let unless_reaches: Vec<String> = r.unless_reaches.as_deref().unwrap_or("").split_whitespace().map(String::from).collect();
    if relation == Relation::None && !unless_reaches.is_empty() {
        return Err(format!("{context}: unless-reaches exempts entry points from removed pairs; pairs=\"none\" removes none"));
    }
    match (relation, r.max_registrations) {
        (Relation::SelfPair, Some(0)) => return Err(format!("{context}: max-registrations must be at least 1")),
        (Relation::Both | Relation::Between | Relation::None, Some(_)) => {
            return Err(format!("{context}: max-registrations is only for pairs=\"self\""));
        }
        _ => {}
    }
    if r.same_ordered_workqueue && relation != Relation::Both {
        return Err(format!("{context}: same-ordered-workqueue is only for pairs=\"both\""));
    }
    if let Some(bus) = r.pm_ops_bus.as_deref().filter(|b| *b != "pci") {
        return Err(format!("{context}: pm-ops-bus `{bus}` is not known (expected pci)"));
    }
    let selected = r.selected.into_iter().map(|s| selector(&context, "select", s)).collect::<Result<Vec<_>, _>>()?;
    let partners = r.partners.into_iter().map(|s| selector(&context, "with", s)).collect::<Result<Vec<_>, _>>()?;
    Ok(SerialisationRule {
        name: r.name,
        relation,
        scope,
        selected,
        partners,
        max_registrations: r.max_registrations,
        holds_lock: r.holds_lock,
        unless_called,
        unless_reaches,
        same_ordered_workqueue: r.same_ordered_workqueue,
        pm_ops_bus: r.pm_ops_bus,
        requires_field: r.requires_field,
        kernel: r.kernel,
        reason: r.reason,
    })
}

/// Checks that every structure, field and registration function a rule
/// names is a modelled entry point, so that a misspelt name is an error and
/// not a rule that silently never applies.
pub(super) fn check_against(
    rule: &SerialisationRule,
    ops_structs: &HashMap<String, OpsStruct>,
    registrations: &HashMap<String, Registration>,
) -> Result<(), String> {
    for s in rule.selected.iter().chain(&rule.partners) {
        let context = format!("serialised `{}` selector `{s}`", rule.name);
        if let Some(record) = &s.record {
            let Some(model) = ops_structs.get(record) else {
                return Err(format!("{context}: `{record}` is not a modelled <ops-struct>"));
            };
            if let Some(field) = &s.field {
                if model.kind_of(field).is_none() {
                    return Err(format!("{context}: the models make no entry point of `{record}.{field}`"));
                }
            }
        }
        if let Some(call) = &s.call {
            if !registrations.contains_key(call) {
                return Err(format!("{context}: `{call}` is not a modelled <registration>"));
            }
        }
    }
    Ok(())
}
