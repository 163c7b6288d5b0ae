//! Callbacks that only their registrations can make live: the entry
//! points an unknown call cannot start.
//!
//! # Algorithm
//!
//! A call with neither body nor model may register any driver callback
//! whose address it can reach (`live assumed` in the IR), which is why the
//! lowering lets it make every callback live. An entry point is *sealed*
//! when nothing but the calls the models describe can reach its address:
//!
//! 1. every registration found for it is a call whose liveness model
//!    makes live the callbacks passed as its arguments (`makes="args"` in
//!    kernel-models/entry-points/liveness.xml: `request_irq` and the other
//!    IRQ requests), so each new run of the callback needs a call that
//!    passes the function itself; and
//! 2. the file uses the function's address only as an argument of calls
//!    that have a model (registrations, quiescing calls, function models:
//!    `free_irq(irq, handler)` passes it as the cookie), never stores it
//!    (an initialiser, an assignment), returns it, or passes it to a call
//!    without model or to a function of the driver.
//!
//! A walk over the file's own code finds every reference to a function
//! that is not the callee of a direct call, and whether it stands inside
//! an argument of a modelled call.
//!
//! # Soundness
//!
//! An unknown kernel function cannot name a driver's static function; it
//! can only call or register a function pointer it is given or finds in
//! memory. The IRQ core installs a handler only in `__setup_irq`
//! (kernel/irq/manage.c), reached from the request functions, which take
//! the handler as an argument, and it runs only installed actions
//! (`__handle_irq_event_percpu`, kernel/irq/handle.c). So an unknown call
//! that receives no sealed callback's address cannot make it live.
//! Assumed (docs/soundness.md): a modelled function does not register a
//! callback its model does not say it registers.

use super::clang::{Cursor, CursorKind, TranslationUnit};
use super::entry_points::{EntryPoint, Via};
use crate::models::{KernelModels, Makes};
use std::collections::{BTreeSet, HashSet};

/// The sealed entry points of a file, by function name.
pub fn sealed<'t>(tu: &'t TranslationUnit<'t>, models: &KernelModels, entry_points: &[EntryPoint]) -> BTreeSet<String> {
    let candidates: BTreeSet<String> = entry_points
        .iter()
        .filter(|e| {
            e.origins.iter().all(|o| match &o.via {
                Via::Call { function, .. } => models.makes_live.get(function).is_some_and(|m| m.makes == Makes::Args),
                _ => false,
            })
        })
        .map(|e| e.function.clone())
        .collect();
    if candidates.is_empty() {
        return candidates;
    }
    let Some(main_id) = tu.main_file_id() else { return BTreeSet::new() };
    let mut exposed = HashSet::new();
    tu.root().for_each_child(|top| {
        if top.is_expanded_in(main_id) {
            visit(top, models, false, &mut exposed);
        }
        true
    });
    candidates.into_iter().filter(|f| !exposed.contains(f)).collect()
}

/// Records in `exposed` every function whose address `c` uses outside an
/// argument of a modelled call (`in_modelled`: `c` is inside one).
fn visit(c: Cursor<'_>, models: &KernelModels, in_modelled: bool, exposed: &mut HashSet<String>) {
    match c.kind() {
        CursorKind::CallExpr => {
            if let Some(callee) = c.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl) {
                // A direct call: the callee's name is not an address use;
                // the arguments are uses inside this call.
                let modelled = models.describes_call(&callee.spelling());
                for argument in c.arguments() {
                    visit(argument, models, modelled, exposed);
                }
                return;
            }
            // A call through a pointer: its arguments reach code nobody
            // knows.
            for child in c.children() {
                visit(child, models, false, exposed);
            }
            return;
        }
        CursorKind::DeclRefExpr => {
            if let Some(f) = c.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl) {
                if !in_modelled {
                    exposed.insert(f.spelling());
                }
            }
        }
        _ => {}
    }
    c.for_each_child(|child| {
        visit(child, models, in_modelled, exposed);
        true
    });
}
