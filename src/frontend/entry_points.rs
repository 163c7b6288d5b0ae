//! Entry-point extraction: every function of a driver that the kernel may
//! call, and how the driver registered it.
//!
//! # Algorithm
//!
//! One walk over the cursors of the main file (top-level declarations whose
//! expansion location lies elsewhere, i.e. the 250k-odd cursors of kernel
//! headers, are skipped without descending). Three shapes register a
//! callback, each matched against the kernel models (`kernel-models/`):
//!
//! 1. **An initializer list of a modelled structure**, wherever it stands: a
//!    global, a static or automatic local, a compound literal, an element of
//!    an array of structures. Designated initializers are mapped through the
//!    `MemberRef` that names the field (the last one, for `.a.b = f`),
//!    positional ones by index through the record's field list; a positional
//!    initializer after a designated one continues from that field, as in C.
//!    Nested braces (`.driver = { .pm = &x }`) are initializer lists of their
//!    own, met by the same walk, typed with the nested record. libclang shows
//!    the syntactic form of the list, so what is matched is what was written,
//!    macros (`DEFINE_SIMPLE_DEV_PM_OPS`, `DEVICE_ATTR_RW`, `__WORK_INITIALIZER`)
//!    included.
//! 2. **An assignment to a field** of a modelled structure at run time
//!    (`fops.read = f;`, and `(_work)->func = (_func)` inside `INIT_WORK`).
//! 3. **A call to a registration function** (`request_irq`, the
//!    `init_timer_key` that `timer_setup` expands to, `netif_napi_add`), the
//!    callback taken from the modelled argument.
//!
//! Module hooks are the functions that `module_init`/`module_exit` generate
//! (`__inittest` returns the init function when `MODULE` is defined).
//!
//! Functions defined outside the main file (static and inline functions of
//! headers) that the driver calls are walked too, transitively up to
//! [`HEADER_CALL_DEPTH`] calls away: some drivers register callbacks through
//! arch helpers (`fd_request_irq()` in `<asm/floppy.h>` calls `request_irq`
//! with the floppy driver's handler). A function such a walk finds is an
//! entry point when this file defines it, an external callback otherwise;
//! kernel functions that kernel macros register on the driver's behalf
//! (`delayed_work_timer_fn`) are dropped, as the models' internal callbacks.
//!
//! In each case the functions are the `DeclRefExpr`s to functions inside the
//! value, not inside a call (a call's result is not the function) and only
//! in the taken branch of a conditional whose condition clang can evaluate
//! (`pm_sleep_ptr(f)` is `IS_ENABLED(CONFIG_PM_SLEEP) ? f : NULL`).
//!
//! The field's structure is the innermost *named* record declaring it, so a
//! field inside an anonymous union (`platform_driver.remove`) is found under
//! its enclosing structure's name.
//!
//! # Soundness
//!
//! A function registered in a way the models do not describe is missed: an
//! under-approximation (docs/soundness.md, "entry points"). To make that
//! visible, a function of this file stored in a function-pointer field of a
//! structure that is declared outside the driver's directory (a kernel
//! structure) but not modelled is reported as an `unmodelled-ops` warning.
//! Structures declared in the driver's own directory are driver-internal
//! tables that the kernel never sees.

use crate::diagnostics::{Diagnostic, Level, Span};
use crate::frontend::clang::{BinaryOperator, Cursor, CursorKind, EvalValue, FileId, TranslationUnit, UnaryOperator};
use crate::models::{EntryKind, KernelModels, Role};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// How a function was registered.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Via {
    /// Stored in `record.field` of a modelled structure.
    Field {
        /// The innermost named structure declaring the field.
        record: String,
        /// The field.
        field: String,
    },
    /// Passed to a registration call; `written` is the name at the call
    /// site (the macro's name when a macro expanded to the call).
    Call {
        /// The registration function.
        function: String,
        /// What the driver wrote.
        written: String,
    },
    /// Named by a module hook (`module_init`).
    ModuleHook {
        /// The macro's name.
        shown_as: String,
    },
}

impl std::fmt::Display for Via {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Via::Field { record, field } => write!(f, "{record}.{field}"),
            Via::Call { written, .. } => f.write_str(written),
            Via::ModuleHook { shown_as } => f.write_str(shown_as),
        }
    }
}

/// One registration of a function.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    /// The kind of entry point this registration makes.
    pub kind: EntryKind,
    /// How it was registered.
    pub via: Via,
    /// The variable holding the structure, when there is one
    /// (`nvram_misc_fops`).
    pub holder: Option<String>,
    /// The object the registration binds the function to, as the field of
    /// the structure that holds it (`nfcsim.send_work` for
    /// `INIT_DELAYED_WORK(&dev->send_work, f)`), when the registration
    /// names it that way ([`object_key`]).
    pub object: Option<String>,
    /// Where the registration is written.
    pub span: Span,
    /// Whether the registration may run several times, for several kernel
    /// objects: it stands inside a loop, or in a function of this file
    /// called (transitively) from inside a loop. `max-registrations` counts
    /// such a registration as many.
    pub repeated: bool,
}

/// A function of the driver that the kernel may call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// The function's name.
    pub function: String,
    /// Its definition.
    pub span: Span,
    /// Every registration found, sorted, at least one.
    pub origins: Vec<Origin>,
}

impl EntryPoint {
    /// The kind that governs: the first of its origins' kinds in
    /// [`EntryKind::ALL`] order.
    pub fn kind(&self) -> EntryKind {
        self.origins.iter().map(|o| o.kind).min().expect("an entry point has an origin")
    }

    /// Exit when every registration is an exit one: a function registered
    /// both as `remove` and as a live callback may run while the driver is
    /// live, so it is not treated as exit.
    pub fn role(&self) -> Role {
        let roles: Vec<Role> = self.origins.iter().map(|o| o.kind.role()).collect();
        if roles.iter().all(|r| *r == Role::Exit) {
            Role::Exit
        } else if roles.contains(&Role::Init) {
            Role::Init
        } else {
            Role::Live
        }
    }
}

/// A kernel function (defined outside this file) registered as a callback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalCallback {
    /// The function's name.
    pub function: String,
    /// How it was registered.
    pub origin: Origin,
}

/// Everything the extraction found in one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DriverEntryPoints {
    /// Entry points in order of definition.
    pub entry_points: Vec<EntryPoint>,
    /// Kernel functions registered as callbacks, in order of registration.
    pub externals: Vec<ExternalCallback>,
    /// Index into `entry_points` of the init entry point: the bus probe when
    /// there is exactly one, else the module init function.
    pub init: Option<usize>,
    /// Warnings about registrations the models may have missed.
    pub warnings: Vec<Diagnostic>,
    /// Kernel structures holding driver functions that no model
    /// describes, by record name: their callbacks are not entry points,
    /// so every verdict of the file excludes them.
    pub unmodelled: Vec<UnmodelledOps>,
    /// Registration calls with an argument the models name as a callback
    /// that refers to no function by name (a function-pointer variable):
    /// the function it registers is not an entry point. Not printed;
    /// `racewatch svcomp` answers `unknown` when there is one.
    pub unresolved_registrations: Vec<String>,
    /// Every registration call found: the function registered, the
    /// function whose body makes the call, and whether the call may run
    /// more than once per run of that body (inside a loop, or in a body
    /// with a goto). Not printed; `racewatch svcomp` uses it to find the
    /// threads that are started once.
    pub registration_sites: Vec<RegistrationSite>,
    /// The entry points only their registrations can make live
    /// ([`super::sealed`]): an unknown call does not start them.
    pub sealed: std::collections::BTreeSet<String>,
    /// Functions of the file called directly (by name) anywhere.
    pub called_directly: std::collections::BTreeSet<String>,
    /// Work items queued on one ordered workqueue and nowhere else, with
    /// that queue ([`super::workqueues`]), named as [`Origin`] names a
    /// work item (`object`, else `holder`).
    pub ordered_work: BTreeMap<String, String>,
    /// Work items queued, never with a delay, on one workqueue the driver
    /// allocates and nowhere else, with that queue: what
    /// `destroy_workqueue` of that queue stops (`quiesces="queued-on"`).
    pub undelayed_work: BTreeMap<String, String>,
    /// The `dev_pm_ops` variables (as [`Origin::holder`] names them) that
    /// only a `struct pci_driver` of the file refers to ([`super::pm_ops`];
    /// for a module, src/frontend/compose.rs `merged_pci_pm_ops`),
    /// for the rules with `pm-ops-bus="pci"`.
    pub pci_pm_ops: std::collections::BTreeSet<String>,
}

/// One registration call (see [`DriverEntryPoints::registration_sites`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistrationSite {
    /// The function registered.
    pub function: String,
    /// The function making the call (`None` outside any function body).
    pub registrar: Option<String>,
    /// The call may run several times per run of the registrar.
    pub repeated: bool,
}

/// A kernel structure no model describes that holds functions of the
/// driver (the `unmodelled-ops` warning, as data).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UnmodelledOps {
    /// The structure's name (`virtqueue_info`).
    pub record: String,
    /// The function-pointer fields the driver stores its functions in.
    pub fields: Vec<String>,
    /// The first initialiser or assignment storing one, in the driver.
    pub span: Span,
}

impl UnmodelledOps {
    /// The `unmodelled-ops` warning.
    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic {
            level: Level::Warning,
            check: "unmodelled-ops",
            message: format!(
                "driver functions stored in `struct {}` ({}), which kernel-models/ does not describe: \
                 they are not treated as entry points",
                self.record,
                self.fields.join(", ")
            ),
            span: Some(self.span.clone()),
            notes: vec![("add the structure to kernel-models/entry-points/ if the kernel calls these".into(), None)],
        }
    }
}

impl DriverEntryPoints {
    /// The init entry point, if any.
    pub fn init_entry_point(&self) -> Option<&EntryPoint> {
        self.init.map(|i| &self.entry_points[i])
    }
}

/// How many calls away from the driver's own code header functions are
/// walked for registrations.
pub const HEADER_CALL_DEPTH: u32 = 3;

/// Extracts the entry points of a parsed file.
pub fn extract_entry_points<'t>(tu: &'t TranslationUnit<'t>, models: &KernelModels) -> DriverEntryPoints {
    let main_file: Arc<Path> = Arc::from(tu.main_file());
    let Some(main_id) = tu.main_file_id() else { return DriverEntryPoints::default() };
    let mut walk = Walk {
        main_id,
        models,
        main_file: main_file.clone(),
        driver_dir: tu.main_file().parent().map(|d| d.to_path_buf()).unwrap_or_default(),
        tu,
        texts: HashMap::new(),
        found: Vec::new(),
        unmodelled: BTreeMap::new(),
        depth: 0,
        callees: Vec::new(),
        walked: HashSet::new(),
        loop_depth: 0,
        called_in_loop: HashSet::new(),
        calls: HashMap::new(),
        unresolved: Vec::new(),
        sites: Vec::new(),
        called: Default::default(),
        function: None,
    };
    // Exported functions: `EXPORT_SYMBOL(f)` leaves a redeclaration of
    // `f`, a static variable holding `&f` and a file-scope `asm` (libclang's
    // `UnexposedDecl`, whose string it does not show), all at the same
    // expansion location. `module_init` leaves the same shape (its variable
    // holds `&init_module` and a stray `;` is an empty declaration), but
    // `init_module` is an alias, never defined in the file, so only
    // functions this file defines count. In a file built into the image
    // (no `MODULE`), every initcall leaves the variable and the `asm`
    // without the redeclaration (kernel-models/entry-points/module.xml).
    // Another macro of either shape would make its function an entry point
    // too: more entry points, never fewer.
    let mut marked: Vec<(Cursor<'t>, Cursor<'t>, bool)> = Vec::new();
    let mut previous: Option<(Cursor<'t>, (u32, u32), bool)> = None;
    let mut declared_at: Option<(u32, u32)> = None;
    tu.root().for_each_child(|top| {
        if top.is_expanded_in(main_id) {
            let at = (top.location().line, top.location().column);
            if top.kind() == CursorKind::UnexposedDecl {
                if let Some((var, _, redeclared)) = previous.filter(|(_, var_at, _)| *var_at == at) {
                    let init = var.var_initializer().map(function_refs).unwrap_or_default();
                    marked.extend(init.into_iter().map(|f| (f, top, redeclared)));
                }
            }
            let static_var = top.kind() == CursorKind::VarDecl && top.is_static_storage();
            previous = static_var.then_some((top, at, declared_at == Some(at)));
            let redeclaration = matches!(top.kind(), CursorKind::FunctionDecl | CursorKind::VarDecl) && !static_var;
            declared_at = redeclaration.then_some(at);
            walk.visit(top, None);
        }
        true
    });
    // An initcall shape counts only in a file without `module_init`'s
    // module hook (then the file was parsed as built-in code); several
    // initcalls run one after another at levels the shape does not show,
    // so they become plain callbacks, paired with everything.
    let has_module_hook = walk.found.iter().any(|f| matches!(f.origin.via, Via::ModuleHook { .. }) && f.origin.kind == EntryKind::ModuleInit);
    let defined_here = |f: &Cursor<'t>| f.definition().is_some_and(|d| d.is_expanded_in(main_id));
    let initcalls = marked.iter().filter(|(f, _, r)| !r && defined_here(f)).count();
    for (function, at, redeclared) in marked {
        let Some(m) = models.export_markers.iter().find(|m| m.redeclared == redeclared) else { continue };
        if !defined_here(&function) || (!redeclared && has_module_hook) {
            continue;
        }
        let kind = if m.kind == EntryKind::Initcall && initcalls > 1 { EntryKind::Callback } else { m.kind };
        // The macro written (`fs_initcall`, `EXPORT_SYMBOL_GPL`), else the
        // marker's name.
        let shown_as = walk.identifier_at(at).unwrap_or_else(|| m.shown_as.clone());
        let origin = Origin { kind, via: Via::ModuleHook { shown_as }, holder: None, object: None, span: walk.span(at), repeated: false };
        walk.found.push(Found { function, origin, enclosing: None });
    }
    // Header functions the driver calls, breadth-first by call distance.
    let mut frontier = std::mem::take(&mut walk.callees);
    for depth in 1..=HEADER_CALL_DEPTH {
        walk.depth = depth;
        for function in std::mem::take(&mut frontier) {
            walk.visit(function, None);
        }
        frontier = std::mem::take(&mut walk.callees);
    }
    let mut found = walk.finish();
    found.sealed = super::sealed::sealed(tu, models, &found.entry_points);
    let queues = super::workqueues::work_queues(tu, models);
    found.ordered_work = queues.ordered;
    found.undelayed_work = queues.undelayed;
    found.pci_pm_ops = super::pm_ops::pci_pm_ops(tu);
    found
}

/// A registration found, before entry points are grouped by function.
struct Found<'t> {
    function: Cursor<'t>,
    origin: Origin,
    /// The function the registration is written in.
    enclosing: Option<String>,
}

struct Walk<'m, 't> {
    models: &'m KernelModels,
    main_id: FileId<'t>,
    main_file: Arc<Path>,
    driver_dir: std::path::PathBuf,
    tu: &'t TranslationUnit<'t>,
    /// Texts of the files registrations were found in, read once each.
    texts: HashMap<std::path::PathBuf, &'t [u8]>,
    found: Vec<Found<'t>>,
    /// Unmodelled kernel structures: record name to (first span, fields).
    unmodelled: BTreeMap<String, (Span, Vec<String>)>,
    /// Call distance of the code being walked from the driver's own code.
    depth: u32,
    /// Definitions outside the main file called by the code being walked.
    callees: Vec<Cursor<'t>>,
    /// Definitions outside the main file already queued.
    walked: HashSet<Cursor<'t>>,
    /// How many loops enclose the code being walked, in its function.
    loop_depth: u32,
    /// Functions called from inside a loop, by name.
    called_in_loop: HashSet<String>,
    /// Every call: caller to callees, by name.
    calls: HashMap<String, HashSet<String>>,
    /// Registrations whose callback argument names no function.
    unresolved: Vec<String>,
    /// The registration calls found.
    sites: Vec<RegistrationSite>,
    /// Functions called by name.
    called: std::collections::BTreeSet<String>,
    /// The function whose body is being walked, and whether it has a goto.
    function: Option<(String, bool)>,
}

impl<'t> Walk<'_, 't> {
    /// The function whose body is being walked.
    fn current(&self) -> Option<String> {
        self.function.as_ref().map(|(f, _)| f.clone())
    }

    /// Visits `c` and its descendants; `holder` is the innermost variable
    /// being declared.
    fn visit(&mut self, c: Cursor<'t>, holder: Option<&str>) {
        let mut own_holder = None;
        match c.kind() {
            CursorKind::VarDecl => own_holder = Some(c.spelling()),
            CursorKind::InitListExpr => self.init_list(c, holder),
            CursorKind::BinaryOperator if c.binary_operator() == BinaryOperator::Assign => self.assignment(c),
            CursorKind::CallExpr => self.call(c),
            CursorKind::FunctionDecl if c.is_definition() => self.module_hook(c),
            _ => {}
        }
        let holder = own_holder.as_deref().or(holder);
        // A loop body may run several times; a function starts outside
        // any loop.
        let saved = (self.loop_depth, self.function.clone());
        match c.kind() {
            // `do { ... } while (0)`, the body of most statement macros
            // (`INIT_WORK`), runs once.
            CursorKind::DoStmt if c.children().last().and_then(|cond| cond.evaluate()) == Some(EvalValue::Int(0)) => {}
            CursorKind::ForStmt | CursorKind::WhileStmt | CursorKind::DoStmt => self.loop_depth += 1,
            CursorKind::FunctionDecl if c.is_definition() => {
                self.loop_depth = 0;
                let mut gotos = Vec::new();
                collect_kind(c, CursorKind::GotoStmt, &mut gotos);
                collect_kind(c, CursorKind::IndirectGotoStmt, &mut gotos);
                self.function = Some((c.spelling(), !gotos.is_empty()));
            }
            _ => {}
        }
        c.for_each_child(|child| {
            self.visit(child, holder);
            true
        });
        (self.loop_depth, self.function) = saved;
    }

    fn span(&self, c: Cursor<'_>) -> Span {
        let loc = c.location();
        let file = match loc.file {
            Some(f) if f.as_path() == &*self.main_file => self.main_file.clone(),
            Some(f) => Arc::from(f.as_path()),
            None => self.main_file.clone(),
        };
        Span { file, line: loc.line, column: loc.column }
    }

    fn init_list(&mut self, list: Cursor<'t>, holder: Option<&str>) {
        let ty = list.ty().canonical();
        let Some(record) = ty.declaration() else { return };
        if !matches!(record.kind(), CursorKind::StructDecl | CursorKind::UnionDecl) {
            return;
        }
        let fields = ty.fields();
        let mut next = 0usize;
        for element in list.children() {
            let (field, value) = match designated_field(element) {
                Some(field) => {
                    next = fields.iter().position(|f| *f == field).map_or(fields.len(), |i| i + 1);
                    (Some(field), element.children().last().copied().unwrap_or(element))
                }
                None => {
                    let field = fields.get(next).copied();
                    next += 1;
                    (field, element)
                }
            };
            if let Some(field) = field {
                self.field_store(field, value, holder, None);
            }
        }
    }

    fn assignment(&mut self, assign: Cursor<'t>) {
        let children = assign.children();
        let [lhs, rhs] = children.as_slice() else { return };
        let lhs = strip(*lhs);
        if lhs.kind() != CursorKind::MemberRefExpr {
            return;
        }
        if let Some(field) = lhs.referenced().filter(|f| f.kind() == CursorKind::FieldDecl) {
            // `(&dev->send_work)->func = f`: the object is what the member
            // is taken of.
            let object = lhs.children().first().and_then(|base| object_key(*base));
            self.field_store(field, *rhs, None, object);
        }
    }

    /// A value stored in a field: an entry point when the field is a
    /// function pointer of a modelled structure.
    fn field_store(&mut self, field: Cursor<'t>, value: Cursor<'t>, holder: Option<&str>, object: Option<String>) {
        if !field.ty().is_function_pointer() {
            return;
        }
        let functions = function_refs(value);
        if functions.is_empty() {
            return;
        }
        let Some(record) = named_record(field) else { return };
        let record_name = record.spelling();
        let field_name = field.spelling();
        let span = self.span(value);
        match self.models.ops_structs.get(&record_name) {
            Some(model) => {
                let Some(kind) = model.kind_of(&field_name) else { return };
                for function in functions {
                    let via = Via::Field { record: record_name.clone(), field: field_name.clone() };
                    let origin = Origin {
                        kind,
                        via,
                        holder: holder.map(String::from),
                        object: object.clone(),
                        span: span.clone(),
                        repeated: self.loop_depth > 0,
                    };
                    self.found.push(Found { function, origin, enclosing: self.current() });
                }
            }
            None => {
                let declared_in_driver = record
                    .location()
                    .file
                    .is_none_or(|f| f.parent().is_some_and(|d| d == self.driver_dir));
                let defines_driver_function =
                    functions.iter().any(|f| f.definition().is_some_and(|d| d.is_expanded_in(self.main_id)));
                if !declared_in_driver && defines_driver_function {
                    let entry = self.unmodelled.entry(record_name).or_insert_with(|| (span, Vec::new()));
                    if !entry.1.contains(&field_name) {
                        entry.1.push(field_name);
                    }
                }
            }
        }
    }

    fn call(&mut self, call: Cursor<'t>) {
        let Some(callee) = call.referenced().filter(|c| c.kind() == CursorKind::FunctionDecl) else { return };
        self.called.insert(callee.spelling());
        if self.depth < HEADER_CALL_DEPTH {
            if let Some(def) = callee.definition().filter(|d| !d.is_expanded_in(self.main_id)) {
                if self.walked.insert(def) {
                    self.callees.push(def);
                }
            }
        }
        let name = callee.spelling();
        if self.loop_depth > 0 {
            self.called_in_loop.insert(name.clone());
        }
        if let Some(caller) = self.current() {
            self.calls.entry(caller).or_default().insert(name.clone());
        }
        let Some(registration) = self.models.registrations.get(&name) else { return };
        let arguments = call.arguments();
        let span = self.span(call);
        let written = self.identifier_at(call).unwrap_or_else(|| name.clone());
        // `timer_setup(&dev->timer, f, 0)`: a first argument that is the
        // address of a member names the object; so does a member holding a
        // pointer to it (`usb_fill_int_urb(dev->urb, …, f, …)`: the URB
        // `dev->urb` points to).
        let object = arguments.first().filter(|a| is_address_of(**a) || is_pointer_member(**a)).and_then(|a| object_key(*a));
        for rule in &registration.arguments {
            let Some(argument) = arguments.get(rule.index) else { continue };
            let refs = function_refs(*argument);
            if refs.is_empty() && super::lower::expr::constant(*argument) != Some(0) {
                self.unresolved.push(format!("{name} at {}:{}", span.line, span.column));
            }
            for function in &refs {
                self.sites.push(RegistrationSite {
                    function: function.spelling(),
                    registrar: self.function.as_ref().map(|(f, _)| f.clone()),
                    repeated: self.loop_depth > 0 || self.function.as_ref().is_none_or(|(_, goto)| *goto),
                });
            }
            for function in refs {
                let via = Via::Call { function: name.clone(), written: written.clone() };
                let origin = Origin { kind: rule.kind, via, holder: None, object: object.clone(), span: span.clone(), repeated: self.loop_depth > 0 };
                self.found.push(Found { function, origin, enclosing: self.current() });
            }
        }
    }

    fn module_hook(&mut self, function: Cursor<'t>) {
        if let Some(entry) = self.models.program_entries.get(&function.spelling()) {
            let via = Via::ModuleHook { shown_as: entry.shown_as.clone() };
            let origin = Origin { kind: entry.kind, via, holder: None, object: None, span: self.span(function), repeated: false };
            self.found.push(Found { function, origin, enclosing: None });
        }
        let Some(hook) = self.models.module_hooks.get(&function.spelling()) else { return };
        let span = self.span(function);
        let mut returns = Vec::new();
        collect_kind(function, CursorKind::ReturnStmt, &mut returns);
        for ret in returns {
            for f in function_refs(ret) {
                let via = Via::ModuleHook { shown_as: hook.shown_as.clone() };
                let origin = Origin { kind: hook.kind, via, holder: None, object: None, span: span.clone(), repeated: false };
                self.found.push(Found { function: f, origin, enclosing: None });
            }
        }
    }

    /// The identifier written at the expansion location of `c`: the
    /// macro's name when `c` came from a macro.
    fn identifier_at(&mut self, c: Cursor<'_>) -> Option<String> {
        let start = c.extent().0;
        let file = start.file?;
        let tu = self.tu;
        let text = *self.texts.entry(file.clone()).or_insert_with(|| tu.file_text(&file).unwrap_or_default());
        let rest = text.get(start.offset as usize..)?;
        let len = rest.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
        (len > 0).then(|| String::from_utf8_lossy(&rest[..len]).into_owned())
    }

    fn finish(mut self) -> DriverEntryPoints {
        let mut by_function: HashMap<String, (Span, Vec<Origin>)> = HashMap::new();
        let mut externals = Vec::new();
        let found = std::mem::take(&mut self.found);
        // Functions that may run several times per call of their caller:
        // called from a loop, or from such a function.
        let mut repeated: HashSet<String> = std::mem::take(&mut self.called_in_loop);
        let mut todo: Vec<String> = repeated.iter().cloned().collect();
        while let Some(f) = todo.pop() {
            for callee in self.calls.get(&f).into_iter().flatten() {
                if repeated.insert(callee.clone()) {
                    todo.push(callee.clone());
                }
            }
        }
        for Found { function, mut origin, enclosing } in found {
            origin.repeated |= enclosing.is_some_and(|f| repeated.contains(&f));
            let name = function.spelling();
            match function.definition().filter(|d| d.is_expanded_in(self.main_id)) {
                Some(def) => {
                    let span = self.span(def);
                    let entry = by_function.entry(name).or_insert_with(|| (span, Vec::new()));
                    if !entry.1.contains(&origin) {
                        entry.1.push(origin);
                    }
                }
                None if self.models.internal_callbacks.contains_key(&name) => {}
                None => {
                    let external = ExternalCallback { function: name, origin };
                    if !externals.contains(&external) {
                        externals.push(external);
                    }
                }
            }
        }
        let mut entry_points: Vec<EntryPoint> = by_function
            .into_iter()
            .map(|(function, (span, mut origins))| {
                origins.sort();
                EntryPoint { function, span, origins }
            })
            .collect();
        entry_points.sort_by(|a, b| (&a.span, &a.function).cmp(&(&b.span, &b.function)));
        externals.sort_by(|a, b| (&a.origin.span, &a.function).cmp(&(&b.origin.span, &b.function)));
        let probes: Vec<usize> =
            (0..entry_points.len()).filter(|&i| entry_points[i].origins.iter().any(|o| o.kind == EntryKind::Probe)).collect();
        let init = if probes.len() == 1 {
            Some(probes[0])
        } else {
            entry_points.iter().position(|e| e.origins.iter().any(|o| matches!(o.kind, EntryKind::ModuleInit | EntryKind::Initcall)))
        };
        let unmodelled: Vec<UnmodelledOps> = std::mem::take(&mut self.unmodelled)
            .into_iter()
            .map(|(record, (span, fields))| UnmodelledOps { record, fields, span })
            .collect();
        let warnings = unmodelled.iter().map(UnmodelledOps::diagnostic).collect();
        DriverEntryPoints {
            entry_points,
            externals,
            init,
            warnings,
            unmodelled,
            unresolved_registrations: std::mem::take(&mut self.unresolved),
            registration_sites: std::mem::take(&mut self.sites),
            called_directly: std::mem::take(&mut self.called),
            sealed: Default::default(),
            ordered_work: BTreeMap::new(),
            undelayed_work: BTreeMap::new(),
            pci_pm_ops: Default::default(),
        }
    }
}

/// For a designated initializer (`.field = value`, libclang's
/// `UnexposedExpr` whose children start with `MemberRef`s), the field it
/// designates: the last `MemberRef`, for `.a.b = value`.
pub(crate) fn designated_field<'t>(element: Cursor<'t>) -> Option<Cursor<'t>> {
    if element.kind() != CursorKind::UnexposedExpr {
        return None;
    }
    let children = element.children();
    if children.first().is_none_or(|c| c.kind() != CursorKind::MemberRef) {
        return None;
    }
    children.iter().take_while(|c| c.kind() == CursorKind::MemberRef).last().and_then(|m| m.referenced())
}

/// The innermost named record that declares `field`.
fn named_record<'t>(field: Cursor<'t>) -> Option<Cursor<'t>> {
    let mut record = field.semantic_parent()?;
    while record.is_anonymous() || record.spelling().is_empty() {
        record = record.semantic_parent()?;
    }
    matches!(record.kind(), CursorKind::StructDecl | CursorKind::UnionDecl).then_some(record)
}

/// The object an expression denotes or points to, as the structure field
/// that holds it: for `&dev->send_work`, `(&(&dev->w)->work)` or
/// `&priv.timer`, the member taken directly of the base variable or
/// pointer (`nfcsim.send_work`, `priv.w`, `priv_t.timer`, named by the
/// innermost named record declaring it); `None` when no member is taken.
/// Two expressions with the same key name the same object under the
/// one-instance assumption (locks are identified the same way).
pub(crate) fn object_key(c: Cursor<'_>) -> Option<String> {
    let mut c = strip(c);
    if c.kind() == CursorKind::UnaryOperator && c.unary_operator() == UnaryOperator::AddrOf {
        c = strip(*c.children().last()?);
    }
    let mut innermost = None;
    while c.kind() == CursorKind::MemberRefExpr {
        let field = c.referenced().filter(|f| f.kind() == CursorKind::FieldDecl)?;
        innermost = Some(format!("{}.{}", named_record(field)?.spelling(), field.spelling()));
        let Some(base) = c.children().first().copied() else { break };
        c = strip(base);
        if c.kind() == CursorKind::UnaryOperator && c.unary_operator() == UnaryOperator::AddrOf {
            c = strip(*c.children().last()?);
        }
    }
    innermost
}

/// Whether an argument reads a structure member of pointer type
/// (`dev->urb`).
pub(crate) fn is_pointer_member(c: Cursor<'_>) -> bool {
    let c = strip(c);
    c.kind() == CursorKind::MemberRefExpr && c.ty().canonical().kind() == super::clang::TypeKind::Pointer
}

/// Whether an argument takes an address (`&x->f`).
pub(crate) fn is_address_of(c: Cursor<'_>) -> bool {
    let c = strip(c);
    c.kind() == CursorKind::UnaryOperator && c.unary_operator() == UnaryOperator::AddrOf
}

/// Skips parentheses, casts and implicit conversions.
pub(crate) fn strip(mut c: Cursor<'_>) -> Cursor<'_> {
    while matches!(c.kind(), CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr) {
        match c.children().last() {
            Some(inner) => c = *inner,
            None => break,
        }
    }
    c
}

/// The functions a value expression may evaluate to.
pub(crate) fn function_refs<'t>(value: Cursor<'t>) -> Vec<Cursor<'t>> {
    let mut out = Vec::new();
    collect_function_refs(value, &mut out);
    out
}

fn collect_function_refs<'t>(c: Cursor<'t>, out: &mut Vec<Cursor<'t>>) {
    match c.kind() {
        CursorKind::DeclRefExpr => {
            if let Some(target) = c.referenced().filter(|t| t.kind() == CursorKind::FunctionDecl) {
                if !out.contains(&target) {
                    out.push(target);
                }
            }
        }
        // A call's value is its result, not a function of the driver's.
        CursorKind::CallExpr => {}
        // `sizeof(f)` and friends do not store anything.
        CursorKind::UnaryExpr => {}
        CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::Deref => {
            c.for_each_child(|child| {
                collect_function_refs(child, out);
                true
            });
        }
        CursorKind::ConditionalOperator => {
            let children = c.children();
            let taken = children.first().and_then(|cond| cond.evaluate()).map(|v| match v {
                EvalValue::Int(i) => i != 0,
                EvalValue::UnsignedInt(u) => u != 0,
                EvalValue::Float(f) => f != 0.0,
                EvalValue::Str(_) => true,
            });
            match (taken, children.as_slice()) {
                (Some(true), [_, then, _]) => collect_function_refs(*then, out),
                (Some(false), [_, _, otherwise]) => collect_function_refs(*otherwise, out),
                _ => {
                    for child in children.iter().skip(1) {
                        collect_function_refs(*child, out);
                    }
                }
            }
        }
        _ => c.for_each_child(|child| {
            collect_function_refs(child, out);
            true
        }),
    }
}

fn collect_kind<'t>(c: Cursor<'t>, kind: CursorKind, out: &mut Vec<Cursor<'t>>) {
    c.for_each_child(|child| {
        if child.kind() == kind {
            out.push(child);
        }
        collect_kind(child, kind, out);
        true
    });
}
