//! Lowering: from the clang AST of a driver to the IR.
//!
//! # What is lowered
//!
//! Every function reachable from the entry points ([`reach`]), the
//! driver's own and the kernel headers' static inline functions alike,
//! unless a kernel model replaces it (lock functions, allocators, user
//! copies, …: kernel-models/). Each becomes one procedure; every procedure
//! is declared before any body is lowered, so calls (recursive ones too)
//! name their callee directly.
//!
//! # How
//!
//! C values are mathematical integers (pointers are byte addresses);
//! conditions become booleans. Scalars whose address is never taken become
//! IR variables; everything else is memory, split into regions by
//! [`regions`]. Expressions ([`expr`]) emit a load for every read of memory
//! and a store for every write, in C's evaluation order for the sequenced
//! operators, each with its source span; statements ([`stmt`]) become basic
//! blocks; calls ([`calls`]) go to procedures, to kernel models (with the
//! exact values of atomic operations, [`atomics`]), or, for a function
//! without body or model, to an explicit over-approximation.
//!
//! # Nothing silently dropped
//!
//! Every construct the lowering cannot express exactly becomes an
//! `approx` command with a warning naming it and its span, counted in
//! [`LoweringStats`]; one that could hide a race marks the verdicts it
//! affects unknown (`ApproxKind::affects_soundness`). The matches over C
//! syntax have no catch-all arm: a construct libclang adds fails to compile
//! until handled. docs/soundness.md lists every approximation.

mod annotations;
mod atomics;
mod bitlocks;
mod owned_bits;
mod calls;
mod constant_pointers;
mod context;
mod const_callees;
mod effects;
mod external;
mod field_targets;
mod fresh_callees;
pub(crate) mod expr;
mod layout;
mod locks;
mod names;
mod place;
mod quiesce;
pub mod reach;
pub mod regions;
mod stats;
mod stmt;

pub use stats::LoweringStats;

use crate::diagnostics::{Diagnostic, Span};
use crate::frontend::clang::{Cursor, CursorKind, FileId, TranslationUnit};
use crate::frontend::entry_points::DriverEntryPoints;
use crate::ir::{EntryPointInfo, FuncId, ProcId, Program, RegionId, Sort, UninterpretedFn};
use crate::models::KernelModels;
use context::Shared;
use regions::RegionKey;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// The lowered program and what the lowering has to say about it.
#[derive(Debug)]
pub struct Lowered {
    /// The program: one procedure per reachable function, regions unified.
    pub program: Program,
    /// Warnings about approximations, each with its span.
    pub warnings: Vec<Diagnostic>,
    /// Counts per construct and per approximation kind.
    pub stats: LoweringStats,
    /// The final region of every region key met, for tests and reports.
    pub regions: BTreeMap<RegionKey, RegionId>,
    /// The accesses made `.private` (memory private to the running call).
    pub private: crate::analyses::private::PrivateReport,
    /// Every merge that joined two region classes, with its reason and the
    /// place that asked for it (`racewatch ivl --stats -v`).
    pub merges: Vec<regions::MergeRecord>,
}

/// Which functions to start lowering from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Roots {
    /// The driver's entry points (what the verifier needs).
    EntryPoints,
    /// Every function defined in the file (`racewatch ivl --all`, tests).
    AllDefined,
}

/// Lowers every function reachable from the driver's entry points.
pub fn lower_driver<'t>(
    tu: &'t TranslationUnit<'t>,
    models: &KernelModels,
    entry_points: &DriverEntryPoints,
) -> Lowered {
    lower_from(tu, models, entry_points, Roots::EntryPoints)
}

/// Lowers every function reachable from the given roots.
pub fn lower_from<'t>(
    tu: &'t TranslationUnit<'t>,
    models: &KernelModels,
    entry_points: &DriverEntryPoints,
    roots: Roots,
) -> Lowered {
    let definitions = main_file_functions(tu, tu.main_file_id());
    lower_unit(&[tu], &definitions, &HashMap::new(), models, entry_points, roots)
}

/// Lowers every function reachable from the given roots in the files of
/// one unit (a module of several files, [`crate::frontend::compose`]):
/// `definitions` are the unit's functions by their name in the unit (the
/// entry points' names), `external` its non-static definitions by USR, to
/// which a call from a file that only declares them resolves. A static
/// variable whose name two files define is named with its file
/// (`count@a.c`).
pub fn lower_unit<'t>(
    tus: &[&'t TranslationUnit<'t>],
    definitions: &HashMap<String, Cursor<'t>>,
    external: &HashMap<String, Cursor<'t>>,
    models: &KernelModels,
    entry_points: &DriverEntryPoints,
    roots: Roots,
) -> Lowered {
    let main_file: Arc<Path> = Arc::from(tus.first().map_or(Path::new(""), |tu| tu.main_file()));
    let roots: Vec<Cursor<'t>> = match roots {
        Roots::EntryPoints => {
            entry_points.entry_points.iter().filter_map(|ep| definitions.get(&ep.function).copied()).collect()
        }
        Roots::AllDefined => {
            let mut all: Vec<Cursor<'t>> = definitions.values().copied().collect();
            all.sort_by_key(|c| c.location().offset);
            all
        }
    };
    let mut program = Program::new();
    let mut shared = Shared::new(models, main_file);
    shared.qualified_statics = place::colliding_statics(tus);
    shared.initializer_addressed = place::initializer_addressed(tus);
    shared.entry_kinds =
        entry_points.entry_points.iter().map(|ep| (ep.function.clone(), ep.origins.iter().map(|o| o.kind).collect())).collect();
    shared.entry_records = quiesce::entry_records(&entry_points.entry_points);
    shared.undelayed_work = entry_points.undelayed_work.clone();
    shared.armed_only = armed_only(models, &entry_points.entry_points);
    shared.sealed = entry_points.sealed.clone();
    if !entry_points.sealed.is_empty() || !shared.armed_only.is_empty() {
        shared.assumed_targets = Some(
            entry_points
                .entry_points
                .iter()
                .map(|e| &e.function)
                .filter(|f| !entry_points.sealed.contains(*f) && !shared.armed_only.contains_key(*f))
                .cloned()
                .collect(),
        );
    }
    for tu in tus {
        let Some(main_id) = tu.main_file_id() else { continue };
        for (key, targets) in field_targets::collect_field_targets(tu.root(), main_id) {
            let list = shared.field_targets.entry(key).or_default();
            for t in targets {
                if !list.contains(&t) {
                    list.push(t);
                }
            }
        }
    }
    shared.registered = crate::frontend::registered::RegisteredObjects::analyse(tus, models);
    // Functions stored in a structure field (a driver-internal ops table)
    // may be called through it from anywhere: lower them too, so that such
    // calls resolve to their bodies.
    let stored: std::collections::HashSet<&String> = shared.field_targets.values().flatten().collect();
    let mut roots = roots;
    // Function-pointer variables whose every value is known: their
    // functions are lowered, for the calls through them.
    let (constant, functions) = constant_pointers::ConstantPointers::analyse(tus, !models.program_entries.is_empty());
    shared.constant_pointers = constant;
    roots.extend(functions);
    let mut extra: Vec<Cursor<'t>> = definitions.values().filter(|d| stored.contains(&d.usr())).copied().collect();
    extra.sort_by_key(|c| c.location().offset);
    roots.extend(extra);
    let functions = reach::reachable_functions(&roots, |name| models.replaces(name), external);
    for f in &functions {
        let id = calls::declare_procedure(&mut program, &mut shared, *f);
        shared.procedures.insert(f.usr(), id);
    }
    for ep in &entry_points.entry_points {
        let Some(def) = definitions.get(&ep.function) else { continue };
        let Some(&procedure) = shared.procedures.get(&def.usr()) else { continue };
        let params = program.procedures[procedure].params.len();
        let objects = object_params(models, ep).into_iter().filter(|o| o.param < params).collect();
        program.entry_points.push(EntryPointInfo {
            name: ep.function.clone(),
            procedure,
            kind: ep.kind(),
            span: ep.span.clone(),
            objects,
            held_by_object: Vec::new(),
        });
    }
    for f in &functions {
        let id = shared.procedures[&f.usr()];
        context::lower_function(&mut program, &mut shared, *f, id);
    }
    // Specialisations for the locks callers pass, which may ask for more.
    let by_usr: HashMap<String, Cursor<'t>> = functions.iter().map(|f| (f.usr(), *f)).collect();
    while let Some((usr, id, binding)) = shared.pending.pop() {
        if let Some(f) = by_usr.get(&usr) {
            context::lower_function_with(&mut program, &mut shared, *f, id, binding);
        }
    }
    let Shared { regions, mut warnings, mut stats, bit_locks, mut privacy, reach_markers, .. } = shared;
    program.reach_markers = reach_markers;
    let (regions, merges) = regions.finish(&mut program);
    bitlocks::settle(&mut program, &bit_locks, &mut warnings, &mut stats);
    // After the bit locks are settled (their sites are recorded commands),
    // before the private analysis (which copies callees of its own).
    let contexts = const_callees::specialise(&mut program, &mut privacy);
    stats.constant_contexts = contexts.constrained;
    stats.constant_copies = contexts.copies;
    let private = mark_private(&mut program, &mut privacy, models, entry_points);
    // The addresses inside an object, for the precise phase's separation.
    program.inside = privacy.within.iter().cloned().collect();
    // The kernel functions' results (uninterpreted), for the precise
    // phase's replay.
    program.kernel_functions = program
        .functions
        .iter()
        .filter(|(_, f)| models.functions.get(&f.name).is_some_and(|m| m.returns == crate::models::ReturnModel::Uninterpreted))
        .map(|(id, _)| id)
        .collect();
    // Which entry points may run at the same time (the pairs of the
    // lockset phase: kept by the serialisation rules, not both holding
    // one pseudo lock), for what can re-arm a quiesced callback.
    let used = |f: &String| stats.external_functions.contains(f) || entry_points.externals.iter().any(|x| &x.function == f);
    let exempt = crate::analyses::pairs::exemptions(entry_points, &models.serialisation, &program, &used);
    let together = crate::analyses::pairs::concurrent_names(entry_points, models, &used, &exempt);
    let names: Vec<String> = program.entry_points.values().map(|e| e.name.clone()).collect();
    crate::analyses::quiesce::resolve_with(&mut program, &|a, b| together.contains(&(names[a].clone(), names[b].clone())));
    crate::ir::debug_validate(&program);
    Lowered { program, warnings, stats, regions, private, merges }
}

/// Runs the per-call private memory analysis and marks its accesses
/// `.private` (src/analyses/private.rs). A parameter is per-call private
/// only if every registration of its function says so.
fn mark_private(
    program: &mut Program,
    facts: &mut crate::analyses::private::Facts,
    models: &KernelModels,
    entry_points: &DriverEntryPoints,
) -> crate::analyses::private::PrivateReport {
    use crate::analyses::private::{PrivateParam, analyse, apply};
    use crate::frontend::entry_points::Via;
    let mut params = Vec::new();
    for info in program.entry_points.values() {
        let Some(ep) = entry_points.entry_points.iter().find(|e| e.function == info.name) else { continue };
        let mut common: Option<Vec<(usize, String)>> = None;
        for origin in &ep.origins {
            let here: Vec<(usize, String)> = match &origin.via {
                Via::Field { record, field } => models
                    .ops_structs
                    .get(record)
                    .map(|s| s.private_args_of(field).iter().map(|a| (a.index, format!("{record}.{field} argument {}", a.index))).collect())
                    .unwrap_or_default(),
                Via::Call { .. } | Via::ModuleHook { .. } => Vec::new(),
            };
            common = Some(match common {
                None => here,
                Some(c) => c.into_iter().filter(|(i, _)| here.iter().any(|(j, _)| j == i)).collect(),
            });
        }
        for (index, label) in common.unwrap_or_default() {
            params.push(PrivateParam { procedure: info.procedure, index, label });
        }
    }
    // Uninterpreted functions that stand for kernel functions' results.
    let opaque = program
        .functions
        .iter()
        .filter(|(_, f)| models.functions.get(&f.name).is_some_and(|m| m.returns == crate::models::ReturnModel::Uninterpreted))
        .map(|(id, _)| id)
        .collect();
    let entries: Vec<ProcId> = program.entry_points.values().map(|e| e.procedure).collect();
    let seeds = fresh_callees::specialise(program, facts, &opaque, &entries, &params);
    let found = analyse(program, facts, opaque, &entries, &params, &seeds);
    apply(program, &found);
    found.report
}

/// The kernel objects whose lifetime rules an entry point matches: a rule
/// counts only if every registration of the entry point is a callback of
/// the rule with the same parameter and stage (a function registered both
/// as `open` and as a work function also runs outside the file's life).
fn object_params(models: &KernelModels, ep: &crate::frontend::entry_points::EntryPoint) -> Vec<crate::ir::ObjectParam> {
    use crate::frontend::entry_points::Via;
    let mut out = Vec::new();
    for rule in &models.lifetimes {
        let found: Vec<Option<(usize, crate::models::Stage)>> = ep
            .origins
            .iter()
            .map(|o| match &o.via {
                Via::Field { record, field } => rule.callback(record, field).map(|c| (c.param, c.stage)),
                _ => None,
            })
            .collect();
        let Some(Some(first)) = found.first().copied() else { continue };
        if found.iter().all(|f| *f == Some(first)) {
            let holders = if ep.origins.iter().all(|o| o.holder.is_some()) {
                ep.origins.iter().filter_map(|o| o.holder.clone()).collect()
            } else {
                Vec::new()
            };
            out.push(crate::ir::ObjectParam {
                rule: rule.name.clone(),
                param: first.0,
                stage: first.1,
                quiet_at_begin: rule.quiet_at_begin,
                after_begin: rule.after_begin,
                holders,
                ops_field: rule.ops_field.as_ref().map(|f| format!("{}.{f}", rule.object)),
            });
        }
    }
    out
}

/// The functions defined in the main file, by name.
fn main_file_functions<'t>(tu: &'t TranslationUnit<'t>, main_id: Option<FileId<'t>>) -> HashMap<String, Cursor<'t>> {
    let mut out = HashMap::new();
    let Some(main_id) = main_id else { return out };
    tu.root().for_each_child(|c| {
        if c.kind() == CursorKind::FunctionDecl && c.is_definition() && c.is_expanded_in(main_id) {
            out.insert(c.spelling(), c);
        }
        true
    });
    out
}

/// An uninterpreted function of the program, declared on first use.
fn function(program: &mut Program, cache: &mut HashMap<String, FuncId>, name: &str, arity: usize) -> FuncId {
    if let Some(&f) = cache.get(name) {
        return f;
    }
    let f = program.functions.push(UninterpretedFn { name: name.to_string(), params: vec![Sort::Int; arity], result: Sort::Int });
    cache.insert(name.to_string(), f);
    f
}

/// The span of a cursor, sharing the main file's path.
fn span_of(main_file: &Arc<Path>, c: Cursor<'_>) -> Span {
    let loc = c.location();
    let file = match loc.file {
        Some(f) if f.as_path() == &**main_file => main_file.clone(),
        Some(f) => Arc::from(f.as_path()),
        None => main_file.clone(),
    };
    Span { file, line: loc.line, column: loc.column }
}

/// The procedure id of every lowered function, by USR.
pub type ProcedureMap = HashMap<String, ProcId>;

/// The entry points whose every registration is a call whose model says
/// which functions alone arm the callback (`armed-by`), with the union of
/// those functions. A call without model cannot arm them: netif_napi_add
/// leaves the NAPI context with its SCHED bit set, and only napi_enable
/// clears it (net/core/dev.c).
fn armed_only(models: &KernelModels, entries: &[crate::frontend::entry_points::EntryPoint]) -> std::collections::HashMap<String, Vec<String>> {
    use crate::frontend::entry_points::Via;
    let mut out = std::collections::HashMap::new();
    for e in entries {
        let mut by: Vec<String> = Vec::new();
        let all = !e.origins.is_empty()
            && e.origins.iter().all(|o| match &o.via {
                Via::Call { function, .. } => models.registrations.get(function).is_some_and(|r| {
                    by.extend(r.armed_by.iter().cloned());
                    !r.armed_by.is_empty()
                }),
                _ => false,
            });
        if all {
            by.sort();
            by.dedup();
            out.insert(e.function.clone(), by);
        }
    }
    out
}
