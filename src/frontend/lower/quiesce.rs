//! The callbacks a quiescing call names (kernel-models/entry-points/
//! quiescing.xml): for `kinds:K,K`, the entry points of each kind bound
//! to the object the call's first argument names (`&dev->recv_work`, the
//! structure field holding the object, as in `INIT_WORK(&dev->recv_work,
//! f)` or `timer_setup(&dev->timer, f, 0)`), else the entry point of each
//! kind that has exactly one registration of that kind in the file (the
//! call names one
//! timer, work item, tasklet, NAPI context or line, which the lowering
//! does not identify; with two registrations of a kind the call may name
//! either, so it names neither); for `structs:S,S`, every entry point all
//! of whose registrations are fields of those structures; for
//! `member:M/S.F`, the entry point stored in field F of the structure
//! variable V that member M of the call's argument points to, read from
//! the static initializer of the global the argument names
//! (`misc_deregister(&dev)`, `static struct miscdevice dev = { .fops =
//! &fops }`), provided V's address is taken nowhere else in its file (so
//! nothing else, such as `cdev_init(&c, &fops)`, calls that callback) and
//! the entry point is registered only there; for `handle`
//! (`pthread_join(t, r)`), the one function that the registrations
//! writing their handle to `&t` start, when every use of the variable `t`
//! is such a registration's first argument or such a wait's
//! ([`handle_target`]); for `registered-by:F`, the entry point that the
//! file's one call of F registers, outside loops, when that is its only
//! registration (`unregister_blkdev` names `__register_blkdev`'s probe);
//! for `queued-on` (`destroy_workqueue(dev->wq)`), the work entry points
//! whose every registration is a work item that every queueing puts on
//! that workqueue, never with a delay ([`crate::frontend::workqueues`]).
//! Which of them
//! the call surely stops is decided after lowering
//! ([`crate::analyses::quiesce`]).

use super::context::Shared;
use crate::frontend::clang::{Cursor, CursorKind, UnaryOperator};
use crate::frontend::entry_points::{EntryPoint, Via};
use crate::models::{EntryKind, Quiesced};

/// One registration of an entry point: its kind, the structure whose field
/// holds the function (if any) and the variable holding that structure.
#[derive(Clone, Debug)]
pub struct OriginInfo {
    kind: EntryKind,
    record: Option<String>,
    holder: Option<String>,
    object: Option<String>,
    /// `record.field` when the function is stored in a structure field.
    field: Option<String>,
    /// The registration function, when a call registers it.
    call: Option<String>,
    /// Whether the registration stands inside a loop.
    repeated: bool,
}

/// The entry points stored in one of `fields` (`record.field`).
pub(super) fn stored_in(shared: &Shared<'_>, fields: &[String]) -> Vec<String> {
    shared
        .entry_records
        .iter()
        .filter(|(_, os)| os.iter().any(|o| o.field.as_ref().is_some_and(|f| fields.contains(f))))
        .map(|(f, _)| f.clone())
        .collect()
}

/// The entry points with a registration in a field of one of `records`
/// (what a call that makes those structures' callbacks live names).
pub(super) fn registered_in(shared: &Shared<'_>, records: &[String]) -> Vec<String> {
    shared
        .entry_records
        .iter()
        .filter(|(_, os)| os.iter().any(|o| o.record.as_ref().is_some_and(|r| records.contains(r))))
        .map(|(f, _)| f.clone())
        .collect()
}

/// Each entry point's function with its registrations.
pub(super) fn entry_records(entries: &[EntryPoint]) -> Vec<(String, Vec<OriginInfo>)> {
    entries
        .iter()
        .map(|ep| {
            let records = ep
                .origins
                .iter()
                .map(|o| OriginInfo {
                    kind: o.kind,
                    record: match &o.via {
                        Via::Field { record, .. } => Some(record.clone()),
                        _ => None,
                    },
                    holder: o.holder.clone(),
                    object: o.object.clone(),
                    field: match &o.via {
                        Via::Field { record, field } => Some(format!("{record}.{field}")),
                        _ => None,
                    },
                    call: match &o.via {
                        Via::Call { function, .. } => Some(function.clone()),
                        _ => None,
                    },
                    repeated: o.repeated,
                })
                .collect();
            (ep.function.clone(), records)
        })
        .collect()
}

/// The global variable `&V` names, if the argument is that.
fn global_address(c: Cursor<'_>) -> Option<String> {
    global_var(c).map(|v| v.spelling())
}

/// The entry points (C function names) a call with this model names.
pub(super) fn targets(shared: &Shared<'_>, quiesced: &Quiesced, args: &[Cursor<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    match quiesced {
        Quiesced::Kinds(kinds) => {
            let named = args.first().and_then(|a| global_address(*a));
            let object = args.first().and_then(|a| crate::frontend::entry_points::object_key(*a));
            for kind in kinds {
                // The registrations bound to the object the call names
                // (`cancel_work_sync(&dev->recv_work)` and
                // `INIT_WORK(&dev->recv_work, f)`, `usb_kill_urb(dev->urb)`
                // and `usb_fill_int_urb(dev->urb, …, f, …)`). A function
                // also registered on another object (one completion for
                // two URBs) may still run from that one: it is stopped only
                // when every registration of it is bound to this object.
                if let Some(o) = &object {
                    let on = |r: &OriginInfo| r.kind == *kind && r.object.as_deref() == Some(o.as_str());
                    let bound: Vec<&(String, Vec<OriginInfo>)> =
                        shared.entry_records.iter().filter(|(_, os)| os.iter().any(on)).collect();
                    if !bound.is_empty() {
                        out.extend(bound.into_iter().filter(|(_, os)| os.iter().all(on)).map(|(f, _)| f.clone()));
                        continue;
                    }
                }
                if let Some(v) = &named {
                    let held: Vec<&String> = shared
                        .entry_records
                        .iter()
                        .filter(|(_, os)| os.iter().any(|o| o.kind == *kind && o.holder.as_deref() == Some(v.as_str())))
                        .map(|(f, _)| f)
                        .collect();
                    if let [f] = held.as_slice() {
                        out.push((*f).clone());
                        continue;
                    }
                }
                // The file's only registration of the kind names the
                // object, unless it stands in a loop (a timer per drive:
                // the call stops one of them).
                let with: Vec<(&String, usize)> = shared
                    .entry_kinds
                    .iter()
                    .map(|(f, ks)| (f, ks.iter().filter(|k| *k == kind).count()))
                    .filter(|(_, n)| *n > 0)
                    .collect();
                if let [(f, 1)] = with.as_slice() {
                    let repeated = shared.entry_records.iter().filter(|(g, _)| g == *f).flat_map(|(_, os)| os).any(|o| o.kind == *kind && o.repeated);
                    if !repeated {
                        out.push((*f).clone());
                    }
                }
            }
        }
        Quiesced::RegisteredBy(function) => {
            // The file's one registration by that function, outside loops,
            // and the only registration of its entry point.
            let by: Vec<(&String, &OriginInfo)> =
                shared.entry_records.iter().flat_map(|(f, os)| os.iter().map(move |o| (f, o))).filter(|(_, o)| o.call.as_deref() == Some(function.as_str())).collect();
            if let [(f, o)] = by.as_slice() {
                let only = shared.entry_records.iter().filter(|(g, _)| g == *f).all(|(_, os)| os.len() == 1);
                if !o.repeated && only {
                    out.push((*f).clone());
                }
            }
        }
        Quiesced::Unresolved => {}
        Quiesced::QueuedOn => {
            // The entry points all of whose registrations are work items
            // queued on this workqueue only, never with a delay.
            if let Some(queue) = args.first().and_then(|a| crate::frontend::workqueues::queue_key(*a)) {
                for (f, records) in &shared.entry_records {
                    let on = |o: &OriginInfo| {
                        o.kind == EntryKind::Work
                            && o.object.as_ref().or(o.holder.as_ref()).and_then(|w| shared.undelayed_work.get(w)) == Some(&queue)
                    };
                    if !records.is_empty() && records.iter().all(on) {
                        out.push(f.clone());
                    }
                }
            }
        }
        Quiesced::Handle => {
            if let Some(f) = args.first().and_then(|a| handle_target(shared, *a)) {
                out.push(f);
            }
        }
        Quiesced::Member { member, field } => {
            if let Some(holder) = args.first().and_then(|a| member_target(*a, member)) {
                for (f, records) in &shared.entry_records {
                    let only_there = !records.is_empty()
                        && records.iter().all(|o| o.field.as_deref() == Some(field.as_str()) && o.holder.as_deref() == Some(holder.as_str()));
                    if only_there {
                        out.push(f.clone());
                    }
                }
            }
        }
        Quiesced::Structs(structs) => {
            for (f, records) in &shared.entry_records {
                let all = !records.is_empty() && records.iter().all(|o| o.record.as_ref().is_some_and(|r| structs.contains(r)));
                if all {
                    out.push(f.clone());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The global variable whose address member `member` of the global the
/// argument names (`&dev`) holds in that global's static initializer
/// (`.fops = &fops`: `fops`), if that is the only place in its file that
/// takes the variable's address.
fn member_target(arg: Cursor<'_>, member: &str) -> Option<String> {
    let global = global_var(arg)?;
    let init = global.definition().unwrap_or(global).var_initializer()?;
    if init.kind() != CursorKind::InitListExpr {
        return None;
    }
    let value = init.children().into_iter().find_map(|element| {
        let field = crate::frontend::entry_points::designated_field(element)?;
        (field.spelling() == member).then(|| element.children().last().copied()).flatten()
    })?;
    let target = global_var(value)?;
    let root = global.semantic_parent()?;
    let file = target.location().file;
    let usr = target.usr();
    // Every use of the variable in its own file (a `static` variable is
    // used nowhere else): only the initializer's may take it.
    let mut uses = 0usize;
    root.for_each_child(|top| {
        if top.location().file == file {
            count_uses(top, &usr, &mut uses);
        }
        true
    });
    (uses == 1 && target.is_static_storage()).then(|| target.spelling())
}

/// The global variable a `&V` expression names (through parentheses and
/// casts).
fn global_var<'t>(c: Cursor<'t>) -> Option<Cursor<'t>> {
    match c.kind() {
        CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr => global_var(*c.children().last()?),
        CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::AddrOf => {
            let inner = *c.children().last()?;
            let inner = if matches!(inner.kind(), CursorKind::ParenExpr | CursorKind::UnexposedExpr) { *inner.children().last()? } else { inner };
            if inner.kind() != CursorKind::DeclRefExpr {
                return None;
            }
            let v = inner.referenced()?;
            let global = v.kind() == CursorKind::VarDecl && v.semantic_parent().is_some_and(|p| p.kind() == CursorKind::TranslationUnit);
            global.then_some(v)
        }
        _ => None,
    }
}

/// Counts the references to the declaration with this USR under `c`.
fn count_uses(c: Cursor<'_>, usr: &str, uses: &mut usize) {
    if c.kind() == CursorKind::DeclRefExpr && c.referenced().is_some_and(|d| d.usr() == usr) {
        *uses += 1;
    }
    c.for_each_child(|child| {
        count_uses(child, usr, uses);
        true
    });
}

/// Skips parentheses, casts and implicit conversions.
fn strip(mut c: Cursor<'_>) -> Cursor<'_> {
    while matches!(c.kind(), CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr) {
        match c.children().last() {
            Some(inner) => c = *inner,
            None => break,
        }
    }
    c
}

/// The variable a `t` expression names (through parentheses and casts).
fn named_variable<'t>(c: Cursor<'t>) -> Option<Cursor<'t>> {
    let c = strip(c);
    if c.kind() != CursorKind::DeclRefExpr {
        return None;
    }
    c.referenced().filter(|v| v.kind() == CursorKind::VarDecl)
}

/// The variable a `&t` expression takes the address of.
fn addressed_variable<'t>(c: Cursor<'t>) -> Option<Cursor<'t>> {
    let c = strip(c);
    if c.kind() != CursorKind::UnaryOperator || c.unary_operator() != UnaryOperator::AddrOf {
        return None;
    }
    named_variable(*c.children().last()?)
}

/// For a wait whose first argument is the handle variable `t`
/// (`pthread_join(t, r)`): the one function started by every
/// registration call whose first argument is `&t` (`pthread_create(&t,
/// attr, f, arg)`), provided every use of `t` in its scope (the function
/// declaring it, or the whole translation unit for a global) is the first
/// argument of such a registration or of a `handle` wait, so that only
/// those registrations write it and nothing copies or takes its address
/// elsewhere. `None` when a registration's function is not resolved or
/// the registrations start different functions.
fn handle_target(shared: &Shared<'_>, arg: Cursor<'_>) -> Option<String> {
    let var = named_variable(arg)?;
    let usr = var.usr();
    let mut scope = var.semantic_parent()?;
    if scope.kind() != CursorKind::FunctionDecl {
        // A global: every function of the translation unit may use it.
        while let Some(p) = scope.semantic_parent() {
            scope = p;
        }
    }
    let mut uses = 0usize;
    count_uses(scope, &usr, &mut uses);
    let mut known = 0usize;
    let mut functions = std::collections::BTreeSet::new();
    let mut unresolved = false;
    let is_var = |c: Option<Cursor<'_>>| c.is_some_and(|v| v.usr() == usr);
    visit_calls(scope, &mut |call| {
        let Some(name) = call.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl).map(|f| f.spelling()) else { return };
        let arguments = call.arguments();
        if let Some(registration) = shared.models.registrations.get(&name) {
            if is_var(arguments.first().and_then(|a| addressed_variable(*a))) {
                known += 1;
                for rule in &registration.arguments {
                    let refs = arguments.get(rule.index).map(|a| crate::frontend::entry_points::function_refs(*a)).unwrap_or_default();
                    if refs.is_empty() {
                        unresolved = true;
                    }
                    functions.extend(refs.into_iter().map(|f| f.spelling()));
                }
            }
        } else if shared.models.quiesces.get(&name).is_some_and(|q| q.quiesces == Quiesced::Handle)
            && is_var(arguments.first().and_then(|a| named_variable(*a)))
        {
            known += 1;
        }
    });
    if unresolved || uses != known || functions.len() != 1 {
        return None;
    }
    functions.into_iter().next()
}

/// Calls `f` on every call expression under `c`.
fn visit_calls<'t>(c: Cursor<'t>, f: &mut dyn FnMut(Cursor<'t>)) {
    if c.kind() == CursorKind::CallExpr {
        f(c);
    }
    c.for_each_child(|child| {
        visit_calls(child, f);
        true
    });
}
