//! Kernel knowledge as data.
//!
//! Everything racewatch knows about the kernel's side of a driver lives in
//! XML files under `kernel-models/`: which structures hold callbacks and what
//! kind each field is, which functions register callbacks, which macros name
//! the module hooks ([`entry_points`]); which types are locks and which
//! functions take and release them or change the interrupt state
//! ([`locks`]); what the other kernel functions a driver calls do to driver
//! memory ([`functions`]); which pairs of entry points the kernel never runs
//! at the same time ([`serialisation`]). Each rule carries its reason. The files are
//! embedded at build time (`build.rs` lists them, so a new file needs no
//! code change) and can be replaced at run time with `--models DIR`. Any
//! file may hold any kind of rule; a name defined twice is an error, and a
//! function has at most one model among lock functions, lock passthroughs,
//! irq functions and function models.
//!
//! Functions are named as the driver's calls resolve to them after macro
//! expansion, with Debian's 6.12 amd64 configuration (docs/kernel-models.md).
//!
//! **Invariant:** this module only reads and validates data; it knows nothing
//! of clang or of any analysis.

mod annotations;
mod atomic_values;
mod entry_points;
mod functions;
mod lifetimes;
mod locks;
mod quiesce;
mod serialisation;
mod workqueues;
pub use annotations::{Annotation, AnnotationKind};
pub use quiesce::{Quiesced, Quiesces};

pub use atomic_values::{AtomicOp, AtomicResult, AtomicValue, BitUpdate};
pub use entry_points::{ArgumentRule, EntryKind, ExportMarker, ModuleHook, OpsStruct, PrivateArg, Registration, Role};
pub use functions::{AtomicAccess, AtomicEffect, Extent, FunctionModel, MemoryEffect, ReturnModel};
pub use lifetimes::{LifetimeCallback, LifetimeRule, Stage};
pub use locks::{
    BitLockFunction, Failure, IrqFunction, IrqOp, LockFunction, LockKind, LockMode, LockOp, LockPassthrough, LockRef, LockResult, LockType, Success,
};

pub use serialisation::{Relation, RoleSelector, Scope, Selector, SerialisationRule};
pub use workqueues::{OrderedAllocator, WorkQueueing};

use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/embedded_models.rs"));

/// All kernel models, indexed for lookup.
#[derive(Debug, Default)]
pub struct KernelModels {
    /// Callback-holding structures by name (`file_operations`).
    pub ops_structs: HashMap<String, OpsStruct>,
    /// Registration functions by name (`request_irq`).
    pub registrations: HashMap<String, Registration>,
    /// Module hooks by the name of the function their macro generates.
    pub module_hooks: HashMap<String, ModuleHook>,
    /// What symbol exports and built-in initcalls make of the functions
    /// they name (at most one marker per `redeclared` value).
    pub export_markers: Vec<ExportMarker>,
    /// Functions that are entry points by their name alone (a program's
    /// `main` in the POSIX models), by name.
    pub program_entries: HashMap<String, ModuleHook>,
    /// `volatile` accesses are plain (C11's data-race definition, which
    /// SV-COMP uses), not marked as the kernel's READ_ONCE/WRITE_ONCE are:
    /// set by `<volatile-accesses kind="plain"/>` in the POSIX models.
    pub volatile_plain: bool,
    /// Kernel functions registered by kernel macros on the driver's behalf,
    /// with the reason they are not driver callbacks.
    pub internal_callbacks: HashMap<String, String>,
    /// Functions that make the driver's callbacks live (registration of a
    /// device, an IRQ, a timer, …): which ones, with the reason.
    pub makes_live: HashMap<String, MakesLive>,
    /// Kernel functions without a memory model that make no driver
    /// callback live (they register nothing another thread can call), with
    /// the reason: a call to one is still an external call, but not a
    /// registration.
    pub makes_nothing_live: HashMap<String, String>,
    /// Functions that wait for some of the driver's callbacks to finish
    /// and keep them from starting again (`free_irq`, `timer_delete_sync`),
    /// by name.
    pub quiesces: HashMap<String, Quiesces>,
    /// Lock object types by structure tag (or typedef name, for a typedef
    /// of an anonymous structure: `rwlock_t`).
    pub lock_types: HashMap<String, LockType>,
    /// Functions that take or release a lock, by name.
    pub lock_functions: HashMap<String, LockFunction>,
    /// Functions that return the lock their argument points to, by name.
    pub lock_passthroughs: HashMap<String, LockPassthrough>,
    /// Functions that change the interrupt or preemption state, by name.
    pub irq_functions: HashMap<String, IrqFunction>,
    /// Functions that take or release a bit of a word as a lock, by name;
    /// each also has a function model (its atomic effect).
    pub bit_lock_functions: HashMap<String, BitLockFunction>,
    /// What other kernel functions do to driver memory, by name.
    pub functions: HashMap<String, FunctionModel>,
    /// The kernel's locking annotations (`lockdep_assert_held`,
    /// `__must_hold`, KCSAN's `ASSERT_EXCLUSIVE_*`), by macro name.
    pub annotations: HashMap<String, Annotation>,
    /// The kernel's serialisation rules, in file order (files sorted by
    /// path), names unique.
    pub serialisation: Vec<SerialisationRule>,
    /// Object-lifetime rules (`kernel-models/lifetimes/`), in file order.
    pub lifetimes: Vec<LifetimeRule>,
    /// Functions that queue a work item on a workqueue, by name.
    pub work_queueing: HashMap<String, WorkQueueing>,
    /// Functions that take a work item's address without queueing it
    /// (cancel, flush), with the reason, by name.
    pub work_neutral: HashMap<String, String>,
    /// Functions that allocate a workqueue that may be ordered, by name.
    pub ordered_allocators: HashMap<String, OrderedAllocator>,
}

/// A model file that could not be read or is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    /// The file.
    pub file: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: error: invalid kernel model: {}", self.file.display(), self.message)
    }
}

/// One model file as written: its root element and every rule in it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileXml {
    #[serde(rename = "@kernel")]
    _kernel: String,
    #[serde(rename = "ops-struct", default)]
    ops_structs: Vec<entry_points::OpsStructXml>,
    #[serde(rename = "registration", default)]
    registrations: Vec<entry_points::RegistrationXml>,
    #[serde(rename = "module-hook", default)]
    module_hooks: Vec<entry_points::ModuleHookXml>,
    #[serde(rename = "export-marker", default)]
    export_markers: Vec<entry_points::ExportMarkerXml>,
    #[serde(rename = "volatile-accesses", default)]
    volatile_accesses: Vec<VolatileAccessesXml>,
    #[serde(rename = "program-entry", default)]
    program_entries: Vec<entry_points::ModuleHookXml>,
    #[serde(rename = "internal-callback", default)]
    internal_callbacks: Vec<entry_points::InternalCallbackXml>,
    #[serde(rename = "lock-type", default)]
    lock_types: Vec<locks::LockTypeXml>,
    #[serde(rename = "lock-function", default)]
    lock_functions: Vec<locks::LockFunctionXml>,
    #[serde(rename = "lock-passthrough", default)]
    lock_passthroughs: Vec<locks::LockPassthroughXml>,
    #[serde(rename = "irq-function", default)]
    irq_functions: Vec<locks::IrqFunctionXml>,
    #[serde(rename = "bit-lock-function", default)]
    bit_lock_functions: Vec<locks::BitLockFunctionXml>,
    #[serde(rename = "function", default)]
    functions: Vec<functions::FunctionXml>,
    #[serde(rename = "annotation", default)]
    annotations: Vec<annotations::AnnotationXml>,
    #[serde(rename = "serialised", default)]
    serialisation: Vec<serialisation::SerialisedXml>,
    #[serde(rename = "makes-live", default)]
    makes_live: Vec<MakesLiveXml>,
    #[serde(rename = "object-lifetime", default)]
    lifetimes: Vec<lifetimes::LifetimeXml>,
    #[serde(rename = "makes-nothing-live", default)]
    makes_nothing_live: Vec<MakesNothingLiveXml>,
    #[serde(rename = "work-queueing", default)]
    work_queueing: Vec<workqueues::WorkQueueingXml>,
    #[serde(rename = "work-neutral", default)]
    work_neutral: Vec<workqueues::WorkNeutralXml>,
    #[serde(rename = "ordered-workqueue-allocator", default)]
    ordered_allocators: Vec<workqueues::OrderedAllocatorXml>,
    #[serde(rename = "quiesces", default)]
    quiesces: Vec<quiesce::QuiescesXml>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MakesLiveXml {
    #[serde(rename = "@function")]
    function: String,
    #[serde(rename = "@makes", default)]
    makes: Option<String>,
    #[serde(rename = "@when", default)]
    when: Option<String>,
    #[serde(rename = "@reason")]
    reason: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct VolatileAccessesXml {
    #[serde(rename = "@kind")]
    kind: String,
    #[serde(rename = "@reason")]
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MakesNothingLiveXml {
    #[serde(rename = "@function")]
    function: String,
    #[serde(rename = "@reason")]
    reason: String,
}

/// Which callbacks a call to a `makes-live` function makes live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Makes {
    /// Any callback of the driver (`makes="all"`, the default).
    All,
    /// The callbacks passed in the arguments its `registration` model
    /// names (`makes="args"`); any callback when an argument is not a
    /// function the lowering can name.
    Args,
    /// Every entry point with a registration of one of these kinds
    /// (`makes="kinds:timer"`, kinds separated by `,`).
    Kinds(Vec<EntryKind>),
    /// Every entry point stored in one of these structure fields
    /// (`makes="fields:dev_pm_ops.runtime_suspend,…"`).
    Fields(Vec<String>),
    /// The callbacks reachable from the object the argument at this index
    /// points to (`makes="object:0"`: a `struct pci_driver`, its `dev_pm_ops`,
    /// its attribute groups), when the driver hands that object to nothing
    /// else ([`crate::frontend::registered`]); any callback otherwise.
    Object(usize),
    /// Every entry point stored in a field of one of these structures
    /// (`makes="structs:platform_driver,dev_pm_ops"`).
    Structs(Vec<String>),
}

/// A function that makes callbacks live.
#[derive(Clone, Debug)]
pub struct MakesLive {
    /// Which callbacks.
    pub makes: Makes,
    /// Only on the paths where the call returned 0 (`when="returns-zero"`):
    /// a registration that fails publishes nothing, so its callbacks are
    /// not live after a non-zero return.
    pub on_zero: bool,
    /// Why (the 6.12 mechanism).
    pub reason: String,
}

fn makes(function: &str, text: Option<&str>) -> Result<Makes, String> {
    match text {
        None | Some("all") => Ok(Makes::All),
        Some("args") => Ok(Makes::Args),
        Some(t) if t.starts_with("object:") => t["object:".len()..]
            .trim()
            .parse::<usize>()
            .map(Makes::Object)
            .map_err(|_| format!("makes-live `{function}`: `{t}` is not object:INDEX")),
        Some(t) if t.starts_with("structs:") => {
            let list: Vec<String> = t["structs:".len()..].split(',').map(|r| r.trim().to_string()).collect();
            if list.iter().any(|r| r.is_empty() || r.contains('.')) {
                return Err(format!("makes-live `{function}`: `{t}` is not structs:S,S"));
            }
            Ok(Makes::Structs(list))
        }
        Some(t) => match (t.strip_prefix("kinds:"), t.strip_prefix("fields:")) {
            (Some(list), _) => list
                .split(',')
                .map(|k| EntryKind::parse(k.trim()).ok_or_else(|| format!("makes-live `{function}`: unknown kind `{k}`")))
                .collect::<Result<Vec<_>, _>>()
                .map(Makes::Kinds),
            (_, Some(list)) => list
                .split(',')
                .map(|f| {
                    let f = f.trim();
                    match f.split_once('.') {
                        Some((r, x)) if !r.is_empty() && !x.is_empty() => Ok(f.to_string()),
                        _ => Err(format!("makes-live `{function}`: `{f}` is not STRUCT.FIELD")),
                    }
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Makes::Fields),
            _ => Err(format!("makes-live `{function}`: `makes` must be all, args, kinds:K,K, fields:S.F,S.F, structs:S,S or object:INDEX (got `{t}`)")),
        },
    }
}

/// Inserts `item` under `name`, refusing a name already defined.
fn insert<T>(map: &mut HashMap<String, T>, what: &str, name: String, item: T) -> Result<(), String> {
    if map.contains_key(&name) {
        return Err(format!("{what} `{name}` is defined twice"));
    }
    map.insert(name, item);
    Ok(())
}

impl KernelModels {
    /// The models built into the binary.
    pub fn embedded() -> Result<KernelModels, ModelError> {
        let files: Vec<(PathBuf, String)> = EMBEDDED_MODELS
            .iter()
            .map(|(name, text)| (Path::new("kernel-models").join(name), text.to_string()))
            .collect();
        KernelModels::from_files(&files)
    }

    /// The POSIX models built into the binary (posix-models/), for
    /// `racewatch svcomp`.
    pub fn embedded_posix() -> Result<KernelModels, ModelError> {
        let files: Vec<(PathBuf, String)> = EMBEDDED_POSIX_MODELS
            .iter()
            .map(|(name, text)| (Path::new("posix-models").join(name), text.to_string()))
            .collect();
        KernelModels::from_files(&files)
    }

    /// The models of `dir` when given (`--models`), else the built-in
    /// kernel models.
    pub fn load(dir: Option<&Path>) -> Result<KernelModels, ModelError> {
        match dir {
            Some(dir) => KernelModels::from_dir(dir),
            None => KernelModels::embedded(),
        }
    }

    /// The models in every `*.xml` file below `dir`.
    pub fn from_dir(dir: &Path) -> Result<KernelModels, ModelError> {
        let mut paths = Vec::new();
        collect_xml(dir, &mut paths)?;
        if paths.is_empty() {
            return Err(ModelError { file: dir.to_path_buf(), message: "no .xml model files here".into() });
        }
        let files = paths
            .into_iter()
            .map(|p| {
                std::fs::read_to_string(&p)
                    .map(|t| (p.clone(), t))
                    .map_err(|e| ModelError { file: p, message: e.to_string() })
            })
            .collect::<Result<Vec<_>, _>>()?;
        KernelModels::from_files(&files)
    }

    /// Parses and merges model files; a name defined twice is an error, and
    /// so is a function modelled two ways, and a serialisation rule naming a
    /// structure, field or registration function no entry-point model has.
    pub fn from_files(files: &[(PathBuf, String)]) -> Result<KernelModels, ModelError> {
        let mut models = KernelModels::default();
        // The file each serialisation rule came from, to name it in errors.
        let mut rule_files = Vec::new();
        let mut lifetime_files = Vec::new();
        for (path, text) in files {
            models.add_file(text).map_err(|message| ModelError { file: path.clone(), message })?;
            rule_files.resize(models.serialisation.len(), path);
            lifetime_files.resize(models.lifetimes.len(), path);
        }
        for (rule, path) in models.lifetimes.iter().zip(lifetime_files) {
            lifetimes::check_against(rule, &models.ops_structs).map_err(|message| ModelError { file: path.clone(), message })?;
        }
        if let Some(message) = models.bit_locks_without_effect() {
            let file = files.iter().find(|(_, text)| text.contains("bit-lock-function")).map_or_else(PathBuf::new, |(p, _)| p.clone());
            return Err(ModelError { file, message });
        }
        for (rule, path) in models.serialisation.iter().zip(rule_files) {
            serialisation::check_against(rule, &models.ops_structs, &models.registrations)
                .map_err(|message| ModelError { file: path.clone(), message })?;
            // The lowering records only the calls of unmodelled functions.
            if let Some(f) = rule.unless_called.iter().find(|f| models.has_call_model(f)) {
                let message = format!("serialised `{}`: unless-called `{f}` has a model, so its calls are not recorded", rule.name);
                return Err(ModelError { file: path.clone(), message });
            }
        }
        // `makes="args"` reads the callbacks from the registration model.
        let mut args: Vec<&String> =
            models.makes_live.iter().filter(|(f, m)| m.makes == Makes::Args && !models.registrations.contains_key(*f)).map(|(f, _)| f).collect();
        args.sort();
        if let (Some(f), Some((path, _))) = (args.first(), files.first()) {
            return Err(ModelError { file: path.clone(), message: format!("makes-live `{f}` has makes=\"args\" but no registration model") });
        }
        for f in models.makes_nothing_live.keys() {
            if models.makes_live.contains_key(f) || models.functions.contains_key(f) {
                let path = files.first().map(|(p, _)| p.clone()).unwrap_or_default();
                return Err(ModelError { file: path, message: format!("makes-nothing-live `{f}` is also a makes-live or modelled function") });
            }
        }
        for f in models.quiesces.keys() {
            if models.makes_live.contains_key(f) || models.makes_nothing_live.contains_key(f) {
                let path = files.first().map(|(p, _)| p.clone()).unwrap_or_default();
                return Err(ModelError { file: path, message: format!("quiesces `{f}` is also a makes-live or makes-nothing-live function") });
            }
        }
        Ok(models)
    }

    /// Whether some model describes what a call of `name` does with its
    /// arguments: a call model, a quiescing model or a registration.
    pub fn describes_call(&self, name: &str) -> bool {
        self.has_call_model(name) || self.quiesces.contains_key(name) || self.registrations.contains_key(name)
    }

    /// Whether calls of `name` are lowered by a model (function, lock,
    /// interrupt or liveness model) rather than as unknown calls.
    /// Whether some serialisation rule exempts entry points that reach
    /// `name` (its `unless-reaches`), so the lowering records its uses.
    pub fn is_reach_marker(&self, name: &str) -> bool {
        self.serialisation.iter().any(|r| r.unless_reaches.iter().any(|m| m == name))
    }

    fn has_call_model(&self, name: &str) -> bool {
        self.functions.contains_key(name)
            || self.lock_functions.contains_key(name)
            || self.bit_lock_functions.contains_key(name)
            || self.irq_functions.contains_key(name)
            || self.makes_live.contains_key(name)
    }

    /// Parses one file's text and adds its rules.
    fn add_file(&mut self, text: &str) -> Result<(), String> {
        let xml: FileXml = quick_xml::de::from_str(text).map_err(|e| e.to_string())?;
        for s in xml.ops_structs {
            let s = entry_points::ops_struct(s)?;
            insert(&mut self.ops_structs, "ops-struct", s.name.clone(), s)?;
        }
        for r in xml.registrations {
            let r = entry_points::registration(r)?;
            insert(&mut self.registrations, "registration", r.function.clone(), r)?;
        }
        for h in xml.module_hooks {
            let h = entry_points::module_hook(h)?;
            insert(&mut self.module_hooks, "module-hook", h.function.clone(), h)?;
        }
        for m in xml.export_markers {
            let m = entry_points::export_marker(m)?;
            reason_given("export-marker", &m.reason)?;
            if self.export_markers.iter().any(|o| o.redeclared == m.redeclared) {
                return Err(format!("export-marker: given twice with redeclared=\"{}\"", m.redeclared));
            }
            self.export_markers.push(m);
        }
        for v in xml.volatile_accesses {
            reason_given("volatile-accesses", &v.reason)?;
            match v.kind.as_str() {
                "plain" => self.volatile_plain = true,
                "marked" => self.volatile_plain = false,
                k => return Err(format!("volatile-accesses: kind must be plain or marked, not `{k}`")),
            }
        }
        for h in xml.program_entries {
            let h = entry_points::module_hook(h)?;
            insert(&mut self.program_entries, "program-entry", h.function.clone(), h)?;
        }
        for m in xml.makes_live {
            let makes = makes(&m.function, m.makes.as_deref())?;
            let on_zero = match m.when.as_deref() {
                None | Some("always") => false,
                Some("returns-zero") => true,
                Some(w) => return Err(format!("makes-live `{}`: `when` must be always or returns-zero (got `{w}`)", m.function)),
            };
            insert(&mut self.makes_live, "makes-live", m.function, MakesLive { makes, on_zero, reason: m.reason })?;
        }
        for m in xml.makes_nothing_live {
            insert(&mut self.makes_nothing_live, "makes-nothing-live", m.function, m.reason)?;
        }
        for w in xml.work_queueing {
            let (function, w) = workqueues::work_queueing(w)?;
            insert(&mut self.work_queueing, "work-queueing", function, w)?;
        }
        for w in xml.work_neutral {
            reason_given(&format!("work-neutral `{}`", w.function), &w.reason)?;
            insert(&mut self.work_neutral, "work-neutral", w.function, w.reason)?;
        }
        for a in xml.ordered_allocators {
            let (function, a) = workqueues::ordered_allocator(a)?;
            insert(&mut self.ordered_allocators, "ordered-workqueue-allocator", function, a)?;
        }
        for q in xml.quiesces {
            let (function, q) = quiesce::quiesces(q)?;
            insert(&mut self.quiesces, "quiesces", function, q)?;
        }
        for i in xml.internal_callbacks {
            let (function, reason) = entry_points::internal_callback(i);
            insert(&mut self.internal_callbacks, "internal-callback", function, reason)?;
        }
        for t in xml.lock_types {
            let t = locks::lock_type(t)?;
            insert(&mut self.lock_types, "lock-type", t.name.clone(), t)?;
        }
        for f in xml.lock_functions {
            let f = locks::lock_function(f)?;
            self.not_modelled_yet(&f.name, "lock-function")?;
            insert(&mut self.lock_functions, "lock-function", f.name.clone(), f)?;
        }
        for p in xml.lock_passthroughs {
            let p = locks::lock_passthrough(p)?;
            self.not_modelled_yet(&p.name, "lock-passthrough")?;
            insert(&mut self.lock_passthroughs, "lock-passthrough", p.name.clone(), p)?;
        }
        for i in xml.irq_functions {
            let i = locks::irq_function(i)?;
            self.not_modelled_yet(&i.name, "irq-function")?;
            insert(&mut self.irq_functions, "irq-function", i.name.clone(), i)?;
        }
        for b in xml.bit_lock_functions {
            let b = locks::bit_lock_function(b)?;
            for (other, present) in [("lock-function", self.lock_functions.contains_key(&b.name)), ("irq-function", self.irq_functions.contains_key(&b.name))] {
                if present {
                    return Err(format!("`{}` is modelled as both <{other}> and <bit-lock-function>", b.name));
                }
            }
            insert(&mut self.bit_lock_functions, "bit-lock-function", b.name.clone(), b)?;
        }
        for a in xml.annotations {
            let a = annotations::annotation(a)?;
            insert(&mut self.annotations, "annotation", a.macro_name.clone(), a)?;
        }
        for f in xml.functions {
            let f = functions::function(f)?;
            self.not_modelled_yet(&f.name, "function")?;
            insert(&mut self.functions, "function", f.name.clone(), f)?;
        }
        for r in xml.serialisation {
            let r = serialisation::rule(r)?;
            if self.serialisation.iter().any(|s| s.name == r.name) {
                return Err(format!("serialised `{}` is defined twice", r.name));
            }
            self.serialisation.push(r);
        }
        for r in xml.lifetimes {
            let r = lifetimes::rule(r)?;
            if self.lifetimes.iter().any(|l| l.name == r.name) {
                return Err(format!("object-lifetime `{}` is defined twice", r.name));
            }
            self.lifetimes.push(r);
        }
        Ok(())
    }

    /// A bit-lock function without the function model giving its atomic
    /// effect on its word (its lowering where the bit lock does not apply).
    fn bit_locks_without_effect(&self) -> Option<String> {
        let mut names: Vec<&String> = self.bit_lock_functions.keys().collect();
        names.sort();
        names.into_iter().find_map(|name| {
            let b = &self.bit_lock_functions[name];
            let effect = self.functions.get(name).is_some_and(|f| f.atomics.iter().any(|a| a.arg == b.word_arg));
            (!effect).then(|| format!("bit-lock-function `{name}` needs a <function> model with an atomic effect on argument {}", b.word_arg))
        })
    }

    /// Refuses a second model of another sort for the same function (a
    /// second one of the same sort is caught as defined twice).
    fn not_modelled_yet(&self, name: &str, what: &str) -> Result<(), String> {
        let existing = [
            ("lock-function", self.lock_functions.contains_key(name)),
            ("lock-passthrough", self.lock_passthroughs.contains_key(name)),
            ("irq-function", self.irq_functions.contains_key(name)),
            ("bit-lock-function", self.bit_lock_functions.contains_key(name)),
            ("function", self.functions.contains_key(name)),
        ];
        // A bit-lock function has a function model too: its atomic effect.
        let coexist = |other: &str| other == what || (other == "bit-lock-function" && what == "function");
        match existing.iter().find(|(other, present)| *present && !coexist(other)) {
            Some((other, _)) => Err(format!("`{name}` is modelled as both <{other}> and <{what}>; a function has one model")),
            None => Ok(()),
        }
    }

    /// The kind of entry point that a function stored in `record.field`
    /// becomes, if the structure is modelled.
    pub fn field_kind(&self, record: &str, field: &str) -> Option<EntryKind> {
        self.ops_structs.get(record).and_then(|s| s.kind_of(field))
    }

    /// Whether a model stands for the function of this name, so that its
    /// body (a header's static inline) is not lowered: a lock function, a
    /// lock passthrough, an irq function or a function model.
    pub fn replaces(&self, function: &str) -> bool {
        self.lock_functions.contains_key(function)
            || self.lock_passthroughs.contains_key(function)
            || self.irq_functions.contains_key(function)
            || self.functions.contains_key(function)
    }
}

/// Parses a closed attribute value: `options` pairs each spelling with its
/// value; anything else is an error listing the spellings.
fn choice<T: Copy>(context: &str, attribute: &str, value: &str, options: &[(&str, T)]) -> Result<T, String> {
    options.iter().find(|(spelling, _)| *spelling == value).map(|(_, v)| *v).ok_or_else(|| {
        let spellings: Vec<&str> = options.iter().map(|(s, _)| *s).collect();
        format!("{context}: unknown {attribute} `{value}` (expected one of {})", spellings.join(", "))
    })
}

/// Parses an optional boolean attribute, `true` or `false`; absent: false.
fn flag(context: &str, attribute: &str, value: Option<&str>) -> Result<bool, String> {
    match value {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(format!("{context}: {attribute} must be true or false, not `{other}`")),
    }
}

/// Refuses a blank reason.
fn reason_given(context: &str, reason: &str) -> Result<(), String> {
    if reason.trim().is_empty() {
        return Err(format!("{context}: the reason is empty"));
    }
    Ok(())
}

fn collect_xml(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ModelError> {
    let err = |e: std::io::Error| ModelError { file: dir.to_path_buf(), message: e.to_string() };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).map_err(err)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_xml(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "xml") {
            out.push(p);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(xml: &str) -> Result<KernelModels, ModelError> {
        KernelModels::from_files(&[(PathBuf::from("test.xml"), xml.to_string())])
    }

    #[test]
    fn makes_names_an_object_argument_or_structures() {
        assert_eq!(makes("f", Some("object:1")), Ok(Makes::Object(1)));
        assert_eq!(makes("f", Some("structs:platform_driver, dev_pm_ops")), Ok(Makes::Structs(vec!["platform_driver".into(), "dev_pm_ops".into()])));
        assert!(makes("f", Some("object:x")).is_err());
        assert!(makes("f", Some("structs:dev_pm_ops.resume")).is_err());
        assert!(makes("f", Some("structs:")).is_err());
    }

    #[test]
    fn embedded_models_load_and_know_the_common_structures() {
        let m = KernelModels::embedded().expect("the shipped models are valid");
        assert_eq!(m.field_kind("pci_driver", "probe"), Some(EntryKind::Probe));
        assert_eq!(m.field_kind("usb_driver", "disconnect"), Some(EntryKind::Remove));
        assert_eq!(m.field_kind("file_operations", "read"), Some(EntryKind::Callback));
        assert_eq!(m.field_kind("work_struct", "func"), Some(EntryKind::Work));
        assert_eq!(m.field_kind("device", "parent"), None, "only device.release is a callback");
        let irq = &m.registrations["request_threaded_irq"].arguments;
        assert_eq!(irq, &[ArgumentRule { index: 1, kind: EntryKind::Irq }, ArgumentRule { index: 2, kind: EntryKind::IrqThread }]);
        assert!(m.module_hooks.contains_key("__inittest"));
        for s in m.ops_structs.values() {
            assert!(!s.reason.trim().is_empty(), "{} has no reason", s.name);
        }
    }

    #[test]
    fn the_file_rule_runs_operations_after_open() {
        let m = KernelModels::embedded().expect("the shipped models are valid");
        let files = m.lifetimes.iter().find(|r| r.name == "open-file").expect("the open-file rule");
        assert!(files.after_begin);
        assert_eq!(files.ops_field.as_deref(), Some("f_op"));
    }

    #[test]
    fn embedded_lock_models_match_what_6_12_calls_become() {
        let m = KernelModels::embedded().expect("the shipped models are valid");
        let lock = |name: &str| m.lock_functions.get(name).unwrap_or_else(|| panic!("{name} is not modelled"));
        let mutex_lock = lock("mutex_lock");
        assert_eq!((mutex_lock.op, &mutex_lock.lock, mutex_lock.mode), (LockOp::Acquire, &LockRef::Arg(0), LockMode::Exclusive));
        assert_eq!(lock("mutex_lock_interruptible").success, Some(Success::Zero));
        assert_eq!(lock("mutex_trylock").success, Some(Success::Nonzero));
        let down_trylock = lock("down_trylock");
        assert_eq!((down_trylock.op, down_trylock.success), (LockOp::TryAcquire, Some(Success::Zero)));
        let irqsave = lock("_raw_spin_lock_irqsave");
        assert_eq!((irqsave.op, irqsave.irq), (LockOp::Acquire, Some(IrqOp::Save)));
        assert_eq!(lock("spin_unlock_irqrestore").irq, Some(IrqOp::Restore));
        assert_eq!(lock("rtnl_lock").lock, LockRef::Global("rtnl".into()));
        assert_eq!(lock("down_read").mode, LockMode::Shared);
        assert_eq!(lock("_raw_read_lock").mode, LockMode::Shared);
        assert_eq!(lock("class_mutex_destructor").lock, LockRef::ArgDeref(0));
        assert_eq!(lock("class_mutex_constructor").returns, LockResult::Lock);
        assert_eq!(lock("class_spinlock_irqsave_destructor").lock, LockRef::ArgField(0, "lock".into()));
        assert_eq!(lock("class_spinlock_irqsave_constructor").returns, LockResult::Field("lock".into()));
        assert_eq!(m.lock_passthroughs["spinlock_check"].arg, 0);
        assert_eq!(m.irq_functions["arch_local_irq_save"].op, IrqOp::Save);
        assert_eq!(m.irq_functions["__preempt_count_add"].op, IrqOp::PreemptDisable);
        assert_eq!(m.lock_types["rwlock_t"].kind, LockKind::Rwlock);
        assert!(m.lock_types["rwlock_t"].typedef);
        assert_eq!(m.lock_types["spinlock"].kind, LockKind::Spinlock);
        for name in ["mutex", "spinlock", "raw_spinlock", "rw_semaphore", "semaphore"] {
            assert!(!m.lock_types[name].typedef, "{name} is a structure tag");
        }
        assert!(m.replaces("spin_lock") && m.replaces("spinlock_check") && m.replaces("arch_local_irq_restore"));
        assert!(!m.lock_functions.contains_key("spin_lock_irqsave"), "a macro, not a function: model what it expands to");
    }

    #[test]
    fn embedded_function_models_match_what_6_12_calls_become() {
        let m = KernelModels::embedded().expect("the shipped models are valid");
        let f = |name: &str| m.functions.get(name).unwrap_or_else(|| panic!("{name} is not modelled"));
        for allocator in ["kmalloc_noprof", "kzalloc_noprof", "kmalloc_array_noprof", "devm_kzalloc", "alloc_etherdev_mqs", "vzalloc_noprof"] {
            assert_eq!(f(allocator).returns, ReturnModel::NullOrFresh, "{allocator}");
        }
        for macro_name in ["kmalloc", "kzalloc", "kcalloc", "alloc_etherdev", "test_bit", "__set_bit", "dev_err", "strscpy"] {
            assert!(!m.replaces(macro_name), "{macro_name} is a macro in 6.12: model what it expands to");
        }
        assert_eq!(f("copy_from_user").writes, vec![MemoryEffect { arg: 0, extent: Extent::SizeArg(2), field: None, may: false }]);
        assert!(f("copy_from_user").reads.is_empty());
        assert_eq!(f("copy_to_user").reads, vec![MemoryEffect { arg: 1, extent: Extent::SizeArg(2), field: None, may: false }]);
        assert_eq!(f("memset").returns, ReturnModel::Arg(0));
        let inc = AtomicValue { op: AtomicOp::Inc, returns: AtomicResult::None };
        assert_eq!(f("atomic_inc").atomics, vec![AtomicEffect { arg: 0, access: AtomicAccess::Rmw, extent: Extent::Pointee, value: Some(inc), field: None }]);
        assert_eq!(f("atomic_add").atomics[0].arg, 1, "atomic_add(i, v): the counter is second");
        let value = |name: &str| f(name).atomics[0].value.unwrap_or_else(|| panic!("{name} has no op"));
        assert_eq!(value("atomic_add").op, AtomicOp::Add { value_arg: 0 }, "atomic_add(i, v): the operand is first");
        assert_eq!(value("atomic_set").op, AtomicOp::Store { value_arg: 1 }, "atomic_set(v, i): the operand is second");
        assert_eq!(value("atomic_cmpxchg").op, AtomicOp::Cmpxchg { expected_arg: 1, value_arg: 2 });
        assert_eq!(value("atomic_dec_and_test"), AtomicValue { op: AtomicOp::Dec, returns: AtomicResult::NewIsZero });
        assert_eq!(value("test_and_set_bit"), AtomicValue { op: AtomicOp::Bit { bit_arg: 0, update: BitUpdate::Set }, returns: AtomicResult::OldBit });
        assert_eq!(value("_test_bit").op, AtomicOp::Bit { bit_arg: 0, update: BitUpdate::Keep });
        assert_eq!(f("atomic_or").atomics[0].value, None, "a bitwise operand is not modelled: arbitrary");
        // The 64-bit and long twins of a modelled atomic_ operation have its
        // value semantics.
        for twin in m.functions.values().filter(|g| g.name.starts_with("atomic64_") || g.name.starts_with("atomic_long_")) {
            let base = twin.name.replacen("atomic64_", "atomic_", 1).replacen("atomic_long_", "atomic_", 1);
            if let Some(base) = m.functions.get(&base) {
                assert_eq!(twin.atomics[0].value, base.atomics[0].value, "{} and {}", twin.name, base.name);
            }
        }
        assert_eq!(f("atomic_read").atomics[0].access, AtomicAccess::Read);
        assert_eq!(f("set_bit").atomics[0].extent, Extent::Unbounded);
        let non_atomic = f("___set_bit");
        assert!(non_atomic.atomics.is_empty() && !non_atomic.reads.is_empty() && !non_atomic.writes.is_empty());
        assert_eq!(f("netdev_priv").returns, ReturnModel::Uninterpreted);
        assert_eq!(f("dev_err_probe").returns, ReturnModel::Arg(1));
        for quiet in ["_printk", "_dev_err", "kfree", "msleep", "readl", "request_threaded_irq", "mod_timer", "sysfs_emit"] {
            assert!(f(quiet).has_no_effect(), "{quiet}");
        }
        for f in m.functions.values() {
            assert!(!m.lock_functions.contains_key(&f.name), "{} has two models", f.name);
        }
    }

    #[test]
    fn a_function_has_one_model() {
        let lock = r#"<kernel-model kernel="6.12"><lock-function name="f" op="release" lock-arg="0" reason="r"/></kernel-model>"#;
        let function = r#"<kernel-model kernel="6.12"><function name="f" reason="r"/></kernel-model>"#;
        let e = KernelModels::from_files(&[(PathBuf::from("locks.xml"), lock.into()), (PathBuf::from("functions.xml"), function.into())])
            .unwrap_err();
        assert_eq!(e.file, PathBuf::from("functions.xml"));
        assert!(e.message.contains("`f` is modelled as both <lock-function> and <function>"), "{}", e.message);
        let irq = r#"<kernel-model kernel="6.12"><irq-function name="f" op="disable" reason="r"/><lock-passthrough name="f" arg="0" reason="r"/></kernel-model>"#;
        let e = load(irq).unwrap_err();
        assert!(e.message.contains("`f` is modelled as both <lock-passthrough> and <irq-function>"), "{}", e.message);
        let twice = r#"<kernel-model kernel="6.12"><function name="g" reason="r"/></kernel-model>"#;
        let e = KernelModels::from_files(&[(PathBuf::from("a.xml"), twice.into()), (PathBuf::from("b.xml"), twice.into())])
            .unwrap_err();
        assert_eq!((e.file, e.message.as_str()), (PathBuf::from("b.xml"), "function `g` is defined twice"));
    }

    #[test]
    fn workqueue_models_are_checked() {
        let ok = load(
            r#"<kernel-model kernel="6.12"><work-queueing function="queue_work" workqueue-arg="0" work-arg="1" reason="r"/><ordered-workqueue-allocator function="alloc_workqueue" flags-arg="1" ordered-flags="0x20000" reason="r"/><work-neutral function="cancel_work" reason="r"/></kernel-model>"#,
        )
        .unwrap();
        assert_eq!(ok.ordered_allocators["alloc_workqueue"].ordered_flags, 0x20000);
        assert_eq!(ok.work_queueing["queue_work"].work_arg, 1);
        assert!(ok.work_neutral.contains_key("cancel_work"));
        let e = load(r#"<kernel-model kernel="6.12"><ordered-workqueue-allocator function="a" flags-arg="1" ordered-flags="bits" reason="r"/></kernel-model>"#)
            .unwrap_err();
        assert!(e.message.contains("is not a number"), "{}", e.message);
        let e = load(r#"<kernel-model kernel="6.12"><work-queueing function="q" workqueue-arg="1" work-arg="1" reason="r"/></kernel-model>"#)
            .unwrap_err();
        assert!(e.message.contains("the same argument"), "{}", e.message);
        let e = load(
            r#"<kernel-model kernel="6.12"><serialised name="x" pairs="self" scope="object" same-ordered-workqueue="true" kernel="6.12" reason="r"><select kind="work"/></serialised></kernel-model>"#,
        )
        .unwrap_err();
        assert!(e.message.contains("only for pairs=\"both\""), "{}", e.message);
    }

    #[test]
    fn every_rule_needs_a_reason() {
        let e = load(r#"<kernel-model kernel="6.12"><ops-struct name="x" default-kind="callback"/></kernel-model>"#)
            .unwrap_err();
        assert!(e.message.contains("reason"), "{}", e.message);
    }

    #[test]
    fn unknown_kinds_and_elements_are_rejected() {
        let e = load(r#"<kernel-model kernel="6.12"><ops-struct name="x" default-kind="sometimes" reason="r"/></kernel-model>"#)
            .unwrap_err();
        assert!(e.message.contains("unknown kind `sometimes`"), "{}", e.message);
        let e = load(r#"<kernel-model kernel="6.12"><struct name="x" reason="r"/></kernel-model>"#).unwrap_err();
        assert!(e.message.contains("struct"), "{}", e.message);
        let e = load(r#"<kernel-model kernel="6.12"><registration function="f" reason="r"/></kernel-model>"#).unwrap_err();
        assert!(e.message.contains("no <argument>"), "{}", e.message);
    }

    #[test]
    fn a_name_defined_twice_is_an_error() {
        let one = r#"<kernel-model kernel="6.12"><ops-struct name="x" default-kind="callback" reason="r"/></kernel-model>"#;
        let e = KernelModels::from_files(&[(PathBuf::from("a.xml"), one.into()), (PathBuf::from("b.xml"), one.into())])
            .unwrap_err();
        assert_eq!(e.file, PathBuf::from("b.xml"));
        assert!(e.message.contains("defined twice"), "{}", e.message);
    }

    #[test]
    fn fields_can_override_or_cancel_the_default_kind() {
        let m = load(
            r#"<kernel-model kernel="6.12">
                 <ops-struct name="x" default-kind="callback" reason="r">
                   <field name="start" kind="probe"/>
                   <field name="owner_cb" kind="none" reason="called by the driver itself"/>
                 </ops-struct>
               </kernel-model>"#,
        )
        .unwrap();
        assert_eq!(m.field_kind("x", "start"), Some(EntryKind::Probe));
        assert_eq!(m.field_kind("x", "owner_cb"), None);
        assert_eq!(m.field_kind("x", "other"), Some(EntryKind::Callback));
    }
}
