//! The callbacks a registered object holds: what registering a driver
//! structure can make live.
//!
//! # Algorithm
//!
//! Registering a driver (`__pci_register_driver(&drv, …)`,
//! `__platform_driver_register`, `usb_register_driver`, …) or a device
//! node (`misc_register(&misc)`) hands the kernel one object of the
//! driver, and the kernel calls the driver back only through function
//! pointers it finds in memory reachable from that object: the driver's
//! `probe` and `remove`, its `driver.pm` operations, its attribute groups'
//! `show` and `store`, a miscdevice's `fops`. A liveness model with
//! `makes="object:N"` (kernel-models/entry-points/liveness.xml) makes live
//! the callbacks reachable from argument N, instead of every callback of
//! the file. What those callbacks register in turn (a probe requesting an
//! IRQ) is added by the liveness closure of the lockset instrumentation
//! and of the precise phase, as for any registration.
//!
//! The callbacks reachable from a global object are the functions its
//! initialiser names, and those of every global whose address the
//! initialiser takes, transitively. That set is exact only when the
//! driver's code cannot change those objects, so an object is *sealed*
//! when:
//!
//! 1. every object reached has internal linkage (`static`) or a `const`
//!    type, so no other file writes it; and
//! 2. the file's functions name each reached object only as a direct
//!    argument (`&drv`, `drv`) of calls whose model either registers or
//!    quiesces callbacks (`makes-live`, `registration`, `quiesces`), or
//!    does not write through that argument (`platform_driver_unregister`);
//!    never in an assignment, a member access, an address stored in a
//!    variable, or an argument of a call without model; and
//! 3. no initialiser of an object that is not sealed takes its address
//!    (code could write through that pointer).
//!
//! For an argument that is not the address of a sealed global object the
//! call makes every callback live, as before.
//!
//! # Soundness
//!
//! The kernel cannot name a driver's static function: the only driver
//! functions it can call after the registration are those whose
//! addresses are stored in the memory it was given or that is reachable
//! from it. For a sealed object that memory is fixed by the initialisers.
//! Assumed (docs/soundness.md): the driver does not write callbacks into a
//! registered structure through a pointer the kernel hands back to it
//! (`to_pci_driver(dev->driver)->remove = f`), and a modelled call does not
//! copy callbacks into an argument its model says it does not write.

use super::clang::{Cursor, CursorKind, TranslationUnit, UnaryOperator};
use crate::models::KernelModels;
use std::collections::{BTreeSet, HashSet};

/// The global objects of one file whose contents only their initialisers
/// set, as far as callbacks go.
#[derive(Clone, Debug, Default)]
pub struct RegisteredObjects {
    /// USRs of the globals the file's code may write or hands elsewhere.
    exposed: HashSet<String>,
}

impl RegisteredObjects {
    /// Walks the code of the main sources of a unit's files (one file, or
    /// every file of a module) to find the exposed globals.
    pub fn analyse<'t>(tus: &[&'t TranslationUnit<'t>], models: &KernelModels) -> RegisteredObjects {
        let mut exposed = HashSet::new();
        let mut globals = Vec::new();
        for tu in tus {
            let Some(main_id) = tu.main_file_id() else { continue };
            tu.root().for_each_child(|top| {
                match top.kind() {
                    CursorKind::FunctionDecl if top.is_definition() && top.is_expanded_in(main_id) => {
                        for child in top.children() {
                            visit(child, models, &mut exposed);
                        }
                    }
                    CursorKind::VarDecl => globals.push(top),
                    _ => {}
                }
                true
            });
        }
        // An object whose address an exposed object's initialiser holds is
        // exposed too: code may write through that pointer.
        let held: std::collections::HashMap<String, Vec<String>> = globals
            .iter()
            .filter_map(|g| {
                let init = g.var_initializer()?;
                let mut vars = Vec::new();
                references(init, &mut Vec::new(), &mut vars);
                Some((g.usr(), vars.iter().map(|v| v.usr()).collect()))
            })
            .collect();
        let mut todo: Vec<String> = exposed.iter().cloned().collect();
        while let Some(usr) = todo.pop() {
            if let Some(vars) = held.get(&usr) {
                todo.extend(vars.iter().filter(|v| exposed.insert((*v).clone())).cloned());
            }
        }
        RegisteredObjects { exposed }
    }

    /// The functions reachable from the object `argument` points to, when
    /// it is the address of a sealed global object; `None` otherwise.
    pub fn callbacks(&self, argument: Cursor<'_>) -> Option<Vec<String>> {
        let root = global_object(argument)?;
        let mut seen = BTreeSet::new();
        let mut stack = vec![root];
        let mut functions = BTreeSet::new();
        while let Some(var) = stack.pop() {
            let var = var.definition().unwrap_or(var);
            if !seen.insert(var.usr()) {
                continue;
            }
            if self.exposed.contains(&var.usr()) || !(var.is_static_storage() || var.ty().is_const()) {
                return None;
            }
            let Some(init) = var.var_initializer() else { continue };
            let mut fs = Vec::new();
            let mut vars = Vec::new();
            references(init, &mut fs, &mut vars);
            functions.extend(fs);
            stack.extend(vars);
        }
        Some(functions.into_iter().collect())
    }
}

/// The global variable `c` names or takes the address of (through
/// parentheses and casts), if any.
fn global_object<'t>(c: Cursor<'t>) -> Option<Cursor<'t>> {
    match c.kind() {
        CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr => global_object(*c.children().last()?),
        CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::AddrOf => global_object(*c.children().last()?),
        CursorKind::DeclRefExpr => c.referenced().filter(|v| is_global(*v)),
        _ => None,
    }
}

/// A variable with static storage duration: at file scope, or a `static`
/// local.
fn is_global(v: Cursor<'_>) -> bool {
    v.kind() == CursorKind::VarDecl
        && (v.is_static_storage()
            || v.is_extern_storage()
            || v.semantic_parent().is_some_and(|p| p.kind() == CursorKind::TranslationUnit))
}

/// The functions and the global variables an initialiser names.
pub(crate) fn references<'t>(c: Cursor<'t>, functions: &mut Vec<String>, vars: &mut Vec<Cursor<'t>>) {
    if c.kind() == CursorKind::DeclRefExpr {
        if let Some(r) = c.referenced() {
            match r.kind() {
                CursorKind::FunctionDecl => functions.push(r.spelling()),
                CursorKind::VarDecl if is_global(r) => vars.push(r),
                _ => {}
            }
        }
    }
    c.for_each_child(|child| {
        references(child, functions, vars);
        true
    });
}

/// Whether an argument of a call to `name` at `index` leaves the object
/// it points to as its initialiser made it.
fn keeps_contents(models: &KernelModels, name: &str, index: usize) -> bool {
    if models.makes_live.contains_key(name) || models.registrations.contains_key(name) || models.quiesces.contains_key(name) {
        return true;
    }
    models.functions.get(name).is_some_and(|f| {
        !f.writes.iter().any(|w| w.arg == index)
            && !f.atomics.iter().any(|a| a.arg == index && a.access != crate::models::AtomicAccess::Read)
    })
}

/// Records in `exposed` every global `c` names outside a direct argument
/// of a call that keeps its contents.
fn visit(c: Cursor<'_>, models: &KernelModels, exposed: &mut HashSet<String>) {
    match c.kind() {
        CursorKind::CallExpr => {
            let callee = c.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl).map(|f| f.spelling());
            for (i, argument) in c.arguments().into_iter().enumerate() {
                let sealed_use = callee.as_deref().is_some_and(|name| keeps_contents(models, name, i));
                if sealed_use && global_object(argument).is_some() {
                    continue;
                }
                visit(argument, models, exposed);
            }
            // The callee expression of an indirect call may name globals.
            if callee.is_none() {
                if let Some(&f) = c.children().first() {
                    visit(f, models, exposed);
                }
            }
            return;
        }
        CursorKind::DeclRefExpr => {
            if let Some(v) = c.referenced().filter(|v| is_global(*v)) {
                exposed.insert(v.definition().unwrap_or(v).usr());
            }
        }
        _ => {}
    }
    c.for_each_child(|child| {
        visit(child, models, exposed);
        true
    });
}
