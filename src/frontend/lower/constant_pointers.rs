//! Calls through a function-pointer variable whose every value is known:
//! a global, a local or a parameter of function-pointer type.
//!
//! # Algorithm
//!
//! Flow-insensitively, each such variable V gets the set of functions it
//! may hold: the functions named by its initializer and by every value
//! assigned to it (`V = f`, `V = &f`, `V = c ? f : g`, `V = W` for another
//! such variable W, a null pointer constant adding none); a parameter gets
//! the values every direct call passes at its position. The sets are
//! computed to a fixpoint. V is *unknown* when any value stored is anything
//! else (a call's result, a field, an integer), when its address is taken
//! (`&V`: a write through the pointer would not be seen), or when code
//! outside the translation unit could write it: a global of external
//! linkage in a kernel module, or the parameter of a function that is not
//! static or that is used other than as a direct callee (called through a
//! pointer, by the kernel). A call through V then calls one of the
//! functions of its set ([`ConstantPointers::targets`]), and those
//! functions are lowered too.
//!
//! # Soundness
//!
//! Every write of V is a store through its name (its address never
//! escapes) in the translation unit, or for a whole program (models with a
//! `<program-entry>`, such as an SV-COMP task) anywhere, since every file
//! is read; so V holds a value of its set or null in every execution (a
//! write through a stray pointer is undefined behaviour, outside the race
//! property, and so is a call through an uninitialised local). The sets
//! are unions over all program points, so the resolution over-approximates
//! the callee.

use crate::frontend::clang::{BinaryOperator, Cursor, CursorKind, EvalValue, TranslationUnit, UnaryOperator};
use std::collections::{HashMap, HashSet};

/// The resolved function-pointer variables: variable USR to the USRs of
/// the functions it may hold.
#[derive(Clone, Debug, Default)]
pub struct ConstantPointers {
    targets: HashMap<String, Vec<String>>,
}

/// What one walk of the translation units collects.
#[derive(Default)]
struct Facts<'t> {
    /// The values stored into each variable.
    sources: HashMap<String, Vec<Cursor<'t>>>,
    /// Variables whose values are not all seen.
    unknown: HashSet<String>,
    /// Function definitions, for their parameters.
    definitions: Vec<Cursor<'t>>,
    /// Per function, its uses and the uses that are a direct call's callee.
    uses: HashMap<String, (usize, usize)>,
    /// Per function, the arguments of each direct call.
    calls: HashMap<String, Vec<Vec<Cursor<'t>>>>,
}

impl ConstantPointers {
    /// Resolves the function-pointer variables of the translation units;
    /// `whole_program` when every file of the program is among them.
    pub fn analyse<'t>(tus: &[&'t TranslationUnit<'t>], whole_program: bool) -> (ConstantPointers, Vec<Cursor<'t>>) {
        let mut facts = Facts::default();
        for tu in tus {
            walk(tu.root(), whole_program, &mut facts);
        }
        // Parameters: the arguments of every direct call.
        for f in std::mem::take(&mut facts.definitions) {
            let usr = f.usr();
            let (all, callee) = facts.uses.get(&usr).copied().unwrap_or((0, 0));
            let closed = (whole_program || f.is_static_storage()) && all == callee && !usr.is_empty();
            let sites = facts.calls.get(&usr).cloned().unwrap_or_default();
            for (i, p) in f.arguments().iter().enumerate() {
                let param = p.usr();
                if param.is_empty() || !p.ty().is_function_pointer() {
                    continue;
                }
                if !closed || sites.iter().any(|args| args.len() <= i) {
                    facts.unknown.insert(param);
                    continue;
                }
                let list = facts.sources.entry(param).or_default();
                list.extend(sites.iter().map(|args| args[i]));
            }
        }
        // The fixpoint of the value sets.
        let mut sets: HashMap<String, Vec<Cursor<'t>>> = HashMap::new();
        let mut unknown = facts.unknown;
        loop {
            let mut changed = false;
            for (var, sources) in &facts.sources {
                if unknown.contains(var) {
                    continue;
                }
                let mut set = sets.get(var).cloned().unwrap_or_default();
                let mut known = true;
                for s in sources {
                    known &= values(*s, &sets, &unknown, &facts.sources, &mut set);
                }
                if !known {
                    unknown.insert(var.clone());
                    changed = true;
                } else if set.len() != sets.get(var).map_or(0, Vec::len) {
                    sets.insert(var.clone(), set);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut out = ConstantPointers::default();
        let mut functions = Vec::new();
        for (var, set) in sets {
            if unknown.contains(&var) || set.is_empty() {
                continue;
            }
            let mut usrs: Vec<String> = set.iter().map(Cursor::usr).collect();
            usrs.sort();
            usrs.dedup();
            out.targets.insert(var, usrs);
            functions.extend(set.into_iter().filter(|d| d.is_definition()));
        }
        functions.sort_by_key(|c| (c.usr(), c.location().offset));
        functions.dedup_by_key(|c| c.usr());
        (out, functions)
    }

    /// The functions (USRs) a call whose callee expression is `callee` may
    /// call, when the callee reads a resolved function-pointer variable.
    pub fn targets(&self, callee: Cursor<'_>) -> Option<&[String]> {
        let var = callee_variable(callee)?;
        self.targets.get(&var.usr()).map(Vec::as_slice)
    }
}

/// Adds to `set` the functions (definitions when known) a stored value may
/// be; false when it may be anything else.
fn values<'t>(
    c: Cursor<'t>,
    sets: &HashMap<String, Vec<Cursor<'t>>>,
    unknown: &HashSet<String>,
    tracked: &HashMap<String, Vec<Cursor<'t>>>,
    set: &mut Vec<Cursor<'t>>,
) -> bool {
    match c.kind() {
        CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr => {
            c.children().last().is_some_and(|inner| values(*inner, sets, unknown, tracked, set))
        }
        CursorKind::UnaryOperator if matches!(c.unary_operator(), UnaryOperator::AddrOf | UnaryOperator::Deref) => {
            c.children().last().is_some_and(|inner| values(*inner, sets, unknown, tracked, set))
        }
        CursorKind::ConditionalOperator => {
            let children = c.children();
            children.len() == 3
                && values(children[1], sets, unknown, tracked, set)
                && values(children[2], sets, unknown, tracked, set)
        }
        CursorKind::IntegerLiteral => matches!(c.evaluate(), Some(EvalValue::Int(0) | EvalValue::UnsignedInt(0))),
        CursorKind::DeclRefExpr => {
            let Some(r) = c.referenced() else { return false };
            match r.kind() {
                CursorKind::FunctionDecl => {
                    let f = r.definition().unwrap_or(r);
                    if !set.iter().any(|g| g.usr() == f.usr()) {
                        set.push(f);
                    }
                    true
                }
                CursorKind::VarDecl | CursorKind::ParmDecl => {
                    let usr = r.usr();
                    if unknown.contains(&usr) || !tracked.contains_key(&usr) {
                        return false;
                    }
                    for f in sets.get(&usr).into_iter().flatten() {
                        if !set.iter().any(|g| g.usr() == f.usr()) {
                            set.push(*f);
                        }
                    }
                    true
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether a variable of function-pointer type is one whose writes are all
/// in the translation unit: a static or local variable (a global of
/// external linkage only in a whole program).
fn is_tracked_var(v: Cursor<'_>, whole_program: bool) -> bool {
    let global = v.semantic_parent().is_none_or(|p| p.kind() == CursorKind::TranslationUnit);
    !global || whole_program || v.is_static_storage()
}

/// Collects the facts of one subtree.
fn walk<'t>(c: Cursor<'t>, whole_program: bool, facts: &mut Facts<'t>) {
    match c.kind() {
        CursorKind::FunctionDecl if c.is_definition() => facts.definitions.push(c),
        CursorKind::VarDecl if c.ty().is_function_pointer() => {
            let usr = c.usr();
            if usr.is_empty() || !is_tracked_var(c, whole_program) {
                facts.unknown.insert(usr);
            } else {
                let list = facts.sources.entry(usr).or_default();
                list.extend(c.var_initializer());
            }
        }
        CursorKind::BinaryOperator if c.binary_operator() == BinaryOperator::Assign => {
            let children = c.children();
            if let [lhs, rhs] = children.as_slice() {
                if let Some(v) = callee_variable(*lhs).filter(|v| v.ty().is_function_pointer()) {
                    facts.sources.entry(v.usr()).or_default().push(*rhs);
                }
            }
        }
        CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::AddrOf => {
            if let Some(v) = c.children().last().and_then(|inner| callee_variable(*inner)) {
                facts.unknown.insert(v.usr());
            }
        }
        CursorKind::DeclRefExpr => {
            if let Some(f) = c.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl) {
                facts.uses.entry(f.usr()).or_default().0 += 1;
            }
        }
        CursorKind::CallExpr => {
            if let Some(f) = c.children().first().and_then(|callee| callee_function(*callee)) {
                facts.uses.entry(f.usr()).or_default().1 += 1;
                facts.calls.entry(f.usr()).or_default().push(c.arguments());
            }
        }
        _ => {}
    }
    c.for_each_child(|child| {
        walk(child, whole_program, facts);
        true
    });
}

/// The variable a callee expression reads: `V`, `(V)`, `*V`, `(*V)`.
fn callee_variable(c: Cursor<'_>) -> Option<Cursor<'_>> {
    match c.kind() {
        CursorKind::ParenExpr | CursorKind::UnexposedExpr => callee_variable(*c.children().last()?),
        CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::Deref => callee_variable(*c.children().last()?),
        CursorKind::DeclRefExpr => c.referenced().filter(|v| matches!(v.kind(), CursorKind::VarDecl | CursorKind::ParmDecl)),
        _ => None,
    }
}

/// The function a callee expression names directly: `F`, `(F)`.
fn callee_function(c: Cursor<'_>) -> Option<Cursor<'_>> {
    match c.kind() {
        CursorKind::ParenExpr | CursorKind::UnexposedExpr => callee_function(*c.children().last()?),
        CursorKind::DeclRefExpr => c.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl),
        _ => None,
    }
}
