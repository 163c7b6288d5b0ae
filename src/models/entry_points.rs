//! The entry-point models: callback structures, registration functions and
//! module hooks, as read from `kernel-models/entry-points/*.xml`.
//!
//! The schema, by example:
//!
//! ```xml
//! <kernel-model kernel="6.12">
//!   <ops-struct name="pci_driver" default-kind="callback" reason="…">
//!     <field name="probe" kind="probe" reason="…"/>
//!   </ops-struct>
//!   <registration function="request_threaded_irq" reason="…">
//!     <argument index="1" kind="irq"/>
//!     <argument index="2" kind="irq-thread"/>
//!   </registration>
//!   <module-hook function="__inittest" kind="module-init" shown-as="module_init" reason="…"/>
//!   <internal-callback function="delayed_work_timer_fn" reason="…"/>
//!   <export-marker kind="exported" shown-as="EXPORT_SYMBOL" reason="…"/>
//! </kernel-model>
//! ```
//!
//! `default-kind` gives every function-pointer field of the structure that
//! kind unless a `<field>` says otherwise (`kind="none"`: not an entry point);
//! without it only the listed fields count. Argument indexes are 0-based.
//!
//! A `<field>` may list the parameters that point to **per-call private
//! memory**: an object the kernel makes for this one call (a copy on the
//! caller's stack, a buffer allocated per call) or that no other thread
//! touches while the call runs, each with the 6.12 caller that guarantees
//! it:
//!
//! ```xml
//! <field name="read" kind="callback">
//!   <private-arg index="3" reason="ksys_read passes &amp;pos, its own copy of f_pos (fs/read_write.c)"/>
//! </field>
//! ```
//! An export marker is the shape a symbol export leaves in the preprocessed
//! file: a static variable holding a function's address (`__ADDRESSABLE`)
//! followed, in the same macro expansion, by file-scope assembly (the
//! `.export_symbol` section entry); the function is an entry point of the
//! marker's kind. `redeclared="true"` markers match only when the expansion
//! starts with a redeclaration of the symbol (`EXPORT_SYMBOL`),
//! `redeclared="false"` ones only when it does not (an initcall of a file
//! built into the image, whose assembly is the `.initcall*.init` entry).
//!
//! An internal callback is a kernel function that kernel macros register on
//! the driver's behalf (the timer half of a delayed work): kernel code, not a
//! driver callback, so it is not listed among the external callbacks.

use serde::Deserialize;
use std::collections::HashMap;

/// What sort of entry point a function is; decides how it pairs with others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntryKind {
    /// The function `module_init` names.
    ModuleInit,
    /// The function of a file built into the kernel image that an initcall
    /// names (`module_init`, `device_initcall`, `subsys_initcall`, … without
    /// `MODULE`): `do_initcalls` calls it once during boot.
    Initcall,
    /// A bus driver's probe.
    Probe,
    /// The function `module_exit` names.
    ModuleExit,
    /// A bus driver's remove (usb: disconnect).
    Remove,
    /// An interrupt handler (hard-irq context).
    Irq,
    /// The threaded half of a threaded interrupt handler.
    IrqThread,
    /// A timer callback (timer_list, hrtimer).
    Timer,
    /// A work item's function (work_struct, delayed_work).
    Work,
    /// A tasklet's function.
    Tasklet,
    /// A NAPI poll function.
    Napi,
    /// A USB request block's completion handler: the host controller
    /// driver calls it when a submitted URB ends (drivers/usb/core/hcd.c
    /// `usb_hcd_giveback_urb`), so it runs only once an URB was submitted.
    Urb,
    /// Any other callback the kernel calls (ops structures, notifiers,
    /// attributes).
    Callback,
    /// A function the module exports (`EXPORT_SYMBOL`): other modules may
    /// call it at any time once the module is live.
    Exported,
}

/// Where an entry point stands in the driver's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Sets the driver up: module init or probe.
    Init,
    /// Tears it down: module exit or remove.
    Exit,
    /// Runs while the driver is live.
    Live,
}

impl EntryKind {
    /// The kebab-case name used in the models, the output and the tests.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::ModuleInit => "module-init",
            EntryKind::Initcall => "initcall",
            EntryKind::Probe => "probe",
            EntryKind::ModuleExit => "module-exit",
            EntryKind::Remove => "remove",
            EntryKind::Irq => "irq",
            EntryKind::IrqThread => "irq-thread",
            EntryKind::Timer => "timer",
            EntryKind::Work => "work",
            EntryKind::Tasklet => "tasklet",
            EntryKind::Napi => "napi",
            EntryKind::Urb => "urb",
            EntryKind::Callback => "callback",
            EntryKind::Exported => "exported",
        }
    }

    /// Parses the kebab-case name.
    pub fn parse(s: &str) -> Option<EntryKind> {
        EntryKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Every kind, in priority order (the first that applies names a function
    /// registered several ways).
    pub const ALL: [EntryKind; 14] = [
        EntryKind::ModuleInit,
        EntryKind::Initcall,
        EntryKind::Probe,
        EntryKind::ModuleExit,
        EntryKind::Remove,
        EntryKind::Irq,
        EntryKind::IrqThread,
        EntryKind::Timer,
        EntryKind::Work,
        EntryKind::Tasklet,
        EntryKind::Napi,
        EntryKind::Urb,
        EntryKind::Callback,
        EntryKind::Exported,
    ];

    /// The role of this kind.
    pub fn role(self) -> Role {
        match self {
            EntryKind::ModuleInit | EntryKind::Initcall | EntryKind::Probe => Role::Init,
            EntryKind::ModuleExit | EntryKind::Remove => Role::Exit,
            EntryKind::Irq
            | EntryKind::IrqThread
            | EntryKind::Timer
            | EntryKind::Work
            | EntryKind::Tasklet
            | EntryKind::Napi
            | EntryKind::Urb
            | EntryKind::Callback
            | EntryKind::Exported => Role::Live,
        }
    }
}

/// A structure whose function-pointer fields the kernel calls.
#[derive(Clone, Debug)]
pub struct OpsStruct {
    /// The struct tag, without `struct`.
    pub name: String,
    /// The kind of unlisted function-pointer fields; `None`: they are not
    /// entry points.
    pub default_kind: Option<EntryKind>,
    /// Per-field kinds; `None`: this field is not an entry point.
    pub fields: HashMap<String, Option<EntryKind>>,
    /// Per field, the parameters that point to per-call private memory.
    pub private_args: HashMap<String, Vec<PrivateArg>>,
    /// Why the kernel calls these.
    pub reason: String,
}

impl OpsStruct {
    /// The per-call private parameters of a function stored in `field`.
    pub fn private_args_of(&self, field: &str) -> &[PrivateArg] {
        self.private_args.get(field).map_or(&[], |v| v.as_slice())
    }

    /// The kind of a function stored in `field`, or `None` when storing a
    /// function there does not make it an entry point.
    pub fn kind_of(&self, field: &str) -> Option<EntryKind> {
        match self.fields.get(field) {
            Some(kind) => *kind,
            None => self.default_kind,
        }
    }
}

/// A parameter of a callback that points to memory private to the call:
/// no other thread reaches the object while the call runs, unless the
/// callback itself publishes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrivateArg {
    /// 0-based parameter index.
    pub index: usize,
    /// The 6.12 caller that makes it private, and how.
    pub reason: String,
}

/// One callback argument of a registration function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgumentRule {
    /// 0-based argument index.
    pub index: usize,
    /// The kind of entry point the function passed there becomes.
    pub kind: EntryKind,
}

/// A kernel function that registers callbacks passed as arguments.
#[derive(Clone, Debug)]
pub struct Registration {
    /// The function's name.
    pub function: String,
    /// Its callback arguments.
    pub arguments: Vec<ArgumentRule>,
    /// The only functions whose calls make a callback registered here live
    /// (`armed-by="napi_enable"`: netif_napi_add leaves the context
    /// disabled); empty: the usual liveness models apply.
    pub armed_by: Vec<String>,
    /// Why the kernel calls these.
    pub reason: String,
}

/// A function that a module macro generates and whose return value (or
/// alias) names the module's init or exit function.
#[derive(Clone, Debug)]
pub struct ModuleHook {
    /// The generated function (`__inittest`).
    pub function: String,
    /// `module-init` or `module-exit`.
    pub kind: EntryKind,
    /// The macro a user writes (`module_init`).
    pub shown_as: String,
    /// Why this identifies the hook.
    pub reason: String,
}

/// What a symbol export makes of the function it exports (the shape is
/// described in the module documentation).
#[derive(Clone, Debug)]
pub struct ExportMarker {
    /// The kind of entry point an exported function is.
    pub kind: EntryKind,
    /// Whether the macro first redeclares the symbol (`extern typeof(sym)
    /// sym;`, as `EXPORT_SYMBOL` does), which tells an export from an
    /// initcall of built-in code (the same `__ADDRESSABLE` and `asm`
    /// without the redeclaration).
    pub redeclared: bool,
    /// The macro a user writes (`EXPORT_SYMBOL`).
    pub shown_as: String,
    /// Why the kernel may call the function.
    pub reason: String,
}

/// `<export-marker>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExportMarkerXml {
    #[serde(rename = "@kind")]
    kind: String,
    #[serde(rename = "@shown-as")]
    shown_as: String,
    #[serde(rename = "@redeclared")]
    redeclared: bool,
    #[serde(rename = "@reason")]
    reason: String,
}

/// Checks and converts one `<export-marker>`.
pub(super) fn export_marker(m: ExportMarkerXml) -> Result<ExportMarker, String> {
    let k = kind(&m.kind, "export-marker")?;
    Ok(ExportMarker { kind: k, shown_as: m.shown_as, redeclared: m.redeclared, reason: m.reason })
}

/// `<internal-callback>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct InternalCallbackXml {
    #[serde(rename = "@function")]
    function: String,
    #[serde(rename = "@reason")]
    reason: String,
}

/// `<ops-struct>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OpsStructXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@default-kind")]
    default_kind: Option<String>,
    #[serde(rename = "@reason")]
    reason: String,
    #[serde(rename = "field", default)]
    fields: Vec<FieldXml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@kind")]
    kind: String,
    #[serde(rename = "@reason")]
    _reason: Option<String>,
    #[serde(rename = "private-arg", default)]
    private_args: Vec<PrivateArgXml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrivateArgXml {
    #[serde(rename = "@index")]
    index: usize,
    #[serde(rename = "@reason")]
    reason: String,
}

/// `<registration>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RegistrationXml {
    #[serde(rename = "@function")]
    function: String,
    #[serde(rename = "@reason")]
    reason: String,
    #[serde(rename = "@armed-by", default)]
    armed_by: Option<String>,
    #[serde(rename = "argument", default)]
    arguments: Vec<ArgumentXml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArgumentXml {
    #[serde(rename = "@index")]
    index: usize,
    #[serde(rename = "@kind")]
    kind: String,
}

/// `<module-hook>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModuleHookXml {
    #[serde(rename = "@function")]
    function: String,
    #[serde(rename = "@kind")]
    kind: String,
    #[serde(rename = "@shown-as")]
    shown_as: String,
    #[serde(rename = "@reason")]
    reason: String,
}

fn kind(s: &str, context: &str) -> Result<EntryKind, String> {
    EntryKind::parse(s).ok_or_else(|| {
        let names: Vec<&str> = EntryKind::ALL.iter().map(|k| k.as_str()).collect();
        format!("{context}: unknown kind `{s}` (expected one of {})", names.join(", "))
    })
}

/// Checks and converts one `<ops-struct>`.
pub(super) fn ops_struct(s: OpsStructXml) -> Result<OpsStruct, String> {
    let context = format!("ops-struct `{}`", s.name);
    let default_kind = s.default_kind.as_deref().map(|k| kind(k, &context)).transpose()?;
    let mut fields = HashMap::new();
    let mut private_args = HashMap::new();
    for f in s.fields {
        let field_context = format!("{context} field `{}`", f.name);
        let k = if f.kind == "none" { None } else { Some(kind(&f.kind, &field_context)?) };
        if fields.insert(f.name.clone(), k).is_some() {
            return Err(format!("{context}: field `{}` listed twice", f.name));
        }
        if f.private_args.is_empty() {
            continue;
        }
        if k.is_none() {
            return Err(format!("{field_context}: private-arg on a field that is not an entry point"));
        }
        let mut args: Vec<PrivateArg> = Vec::new();
        for a in f.private_args {
            super::reason_given(&format!("{field_context} private-arg {}", a.index), &a.reason)?;
            if args.iter().any(|b| b.index == a.index) {
                return Err(format!("{field_context}: private-arg {} listed twice", a.index));
            }
            args.push(PrivateArg { index: a.index, reason: a.reason });
        }
        private_args.insert(f.name, args);
    }
    if default_kind.is_none() && fields.is_empty() {
        return Err(format!("{context}: neither default-kind nor any field"));
    }
    Ok(OpsStruct { name: s.name, default_kind, fields, private_args, reason: s.reason })
}

/// Checks and converts one `<registration>`.
pub(super) fn registration(r: RegistrationXml) -> Result<Registration, String> {
    let context = format!("registration `{}`", r.function);
    if r.arguments.is_empty() {
        return Err(format!("{context}: no <argument>"));
    }
    let arguments = r
        .arguments
        .iter()
        .map(|a| Ok(ArgumentRule { index: a.index, kind: kind(&a.kind, &context)? }))
        .collect::<Result<Vec<_>, String>>()?;
    let armed_by: Vec<String> = r.armed_by.as_deref().map(|l| l.split(',').map(|n| n.trim().to_string()).collect()).unwrap_or_default();
    if armed_by.iter().any(|n| n.is_empty()) {
        return Err(format!("registration `{}`: `armed-by` must list function names", r.function));
    }
    Ok(Registration { function: r.function, arguments, armed_by, reason: r.reason })
}

/// Checks and converts one `<module-hook>`.
pub(super) fn module_hook(h: ModuleHookXml) -> Result<ModuleHook, String> {
    let k = kind(&h.kind, &format!("module-hook `{}`", h.function))?;
    Ok(ModuleHook { function: h.function, kind: k, shown_as: h.shown_as, reason: h.reason })
}

/// Converts one `<internal-callback>`: (function, reason).
pub(super) fn internal_callback(i: InternalCallbackXml) -> (String, String) {
    (i.function, i.reason)
}
