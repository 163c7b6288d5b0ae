//! Which functions to lower: those reachable from the entry points.
//!
//! A worklist over the translation unit's call graph, starting from every
//! entry point (init and exit included). An edge is any reference to a
//! function with a body in the translation unit: a direct call, and also a
//! function whose address is taken (it may be called through a pointer from
//! here). Functions of kernel headers (static inline) are reached like the
//! driver's own, unless a kernel model replaces them: a modelled function's
//! body is never lowered, so its callees are not reached through it.
//!
//! The result is in a deterministic order (entry points in order, then
//! breadth-first), so procedure ids and the printed program do not depend
//! on hashing.

use crate::frontend::clang::{Cursor, CursorKind};
use std::collections::{HashSet, VecDeque};

/// The functions to lower, as definitions, in a stable order.
///
/// `external` holds the non-static definitions of the other files of a
/// multi-file unit by USR: a function this file only declares resolves to
/// one of them.
pub fn reachable_functions<'t>(
    roots: &[Cursor<'t>],
    is_modelled: impl Fn(&str) -> bool,
    external: &std::collections::HashMap<String, Cursor<'t>>,
) -> Vec<Cursor<'t>> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut order = Vec::new();
    let mut queue: VecDeque<Cursor<'t>> = VecDeque::new();
    for root in roots {
        if let Some(def) = root.definition() {
            if seen.insert(def.usr()) {
                queue.push_back(def);
            }
        }
    }
    while let Some(function) = queue.pop_front() {
        order.push(function);
        let mut callees = Vec::new();
        referenced_functions(function, &mut callees);
        for callee in callees {
            if is_modelled(&callee.spelling()) {
                continue;
            }
            let Some(def) = callee.definition().or_else(|| external.get(&callee.usr()).copied()) else { continue };
            if seen.insert(def.usr()) {
                queue.push_back(def);
            }
        }
    }
    order
}

/// Every function that the body of `c` refers to, in source order.
fn referenced_functions<'t>(c: Cursor<'t>, out: &mut Vec<Cursor<'t>>) {
    c.for_each_child(|child| {
        if child.kind() == CursorKind::DeclRefExpr {
            if let Some(target) = child.referenced().filter(|t| t.kind() == CursorKind::FunctionDecl) {
                out.push(target);
            }
        }
        referenced_functions(child, out);
        true
    });
}
