//! Calls through a global function-pointer variable that never changes,
//! in a whole program (models with a `<program-entry>`: a C program whose
//! `main` the runtime calls, such as an SV-COMP task).
//!
//! # Algorithm
//!
//! A global variable V of function-pointer type is *constant* when its
//! definition's initializer names functions only (`f`, `&f`, either arm of
//! a conditional: [`crate::frontend::entry_points::function_refs`]) and
//! every use of V in the translation unit is the callee of a call (`V()`,
//! `(*V)()`): nothing assigns V, takes its address or copies it. A call
//! through V then calls one of the initializer's functions
//! ([`ConstantPointers::targets`]), and those functions are lowered too.
//!
//! # Soundness
//!
//! Only a whole program is read this way: every function that could write
//! V is in the translation unit, and none of its uses writes it or lets a
//! pointer to it escape, so V holds its initial value in every execution
//! (a write through a stray pointer is undefined behaviour, outside the
//! race property). The same holds of a parameter: every call of F is in
//! the program and seen, so P holds one of the designators passed there. Kernel modules are not whole programs (another file of
//! the kernel may write a non-static global): the rule is off for them, and
//! their results do not change.

use crate::frontend::clang::{Cursor, CursorKind, TranslationUnit};
use std::collections::HashMap;

/// The constant function-pointer globals: variable USR to the USRs of the
/// functions its initializer names.
#[derive(Clone, Debug, Default)]
pub struct ConstantPointers {
    targets: HashMap<String, Vec<String>>,
}

impl ConstantPointers {
    /// Finds the constant function-pointer globals of a whole program.
    pub fn analyse<'t>(tus: &[&'t TranslationUnit<'t>]) -> (ConstantPointers, Vec<Cursor<'t>>) {
        let mut candidates: HashMap<String, Vec<Cursor<'t>>> = HashMap::new();
        for tu in tus {
            tu.root().for_each_child(|top| {
                if top.kind() == CursorKind::VarDecl && top.ty().is_function_pointer() {
                    if let Some(init) = top.var_initializer() {
                        let refs = crate::frontend::entry_points::function_refs(init);
                        if !refs.is_empty() && only_functions(init) {
                            candidates.insert(top.usr(), refs);
                        }
                    }
                }
                true
            });
        }
        parameter_candidates(tus, &mut candidates);
        if candidates.is_empty() {
            return (ConstantPointers::default(), Vec::new());
        }
        // Uses of each candidate, and those that are a call's callee.
        let mut uses: HashMap<String, (usize, usize)> = HashMap::new();
        for tu in tus {
            count(tu.root(), &candidates, &mut uses);
        }
        let mut out = ConstantPointers::default();
        let mut functions = Vec::new();
        for (usr, refs) in candidates {
            let (all, callee) = uses.get(&usr).copied().unwrap_or((0, 0));
            if all != callee {
                continue;
            }
            let defined: Vec<Cursor<'t>> = refs.iter().map(|f| f.definition().unwrap_or(*f)).collect();
            out.targets.insert(usr, defined.iter().map(Cursor::usr).collect());
            functions.extend(defined.into_iter().filter(|d| d.definition().is_some()));
        }
        (out, functions)
    }

    /// The functions (USRs) a call whose callee expression is `callee` may
    /// call, when the callee reads a constant function-pointer global.
    pub fn targets(&self, callee: Cursor<'_>) -> Option<&[String]> {
        let var = callee_variable(callee)?;
        self.targets.get(&var.usr()).map(Vec::as_slice)
    }
}

/// Whether an initializer is only function designators (through casts,
/// parentheses, `&` and conditionals).
fn only_functions(c: Cursor<'_>) -> bool {
    match c.kind() {
        CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr | CursorKind::UnaryOperator => {
            c.children().last().is_some_and(|inner| only_functions(*inner))
        }
        CursorKind::DeclRefExpr => c.referenced().is_some_and(|f| f.kind() == CursorKind::FunctionDecl),
        CursorKind::ConditionalOperator => {
            let children = c.children();
            children.len() == 3 && only_functions(children[1]) && only_functions(children[2])
        }
        _ => false,
    }
}

/// The variable a callee expression reads: `V`, `(V)`, `*V`, `(*V)`.
fn callee_variable(c: Cursor<'_>) -> Option<Cursor<'_>> {
    match c.kind() {
        CursorKind::ParenExpr | CursorKind::UnexposedExpr => callee_variable(*c.children().last()?),
        CursorKind::UnaryOperator if c.unary_operator() == crate::frontend::clang::UnaryOperator::Deref => {
            callee_variable(*c.children().last()?)
        }
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

/// What the direct calls of one function pass: per call, per argument,
/// the functions named when the argument is function designators only.
type PassedFunctions<'t> = Vec<Vec<Option<Vec<Cursor<'t>>>>>;

/// Adds to `candidates` the function-pointer parameters of functions that
/// are only ever called directly and are passed function designators only
/// at that position by every call (the uses of the parameters themselves
/// are checked by the caller, like a global's).
fn parameter_candidates<'t>(tus: &[&'t TranslationUnit<'t>], candidates: &mut HashMap<String, Vec<Cursor<'t>>>) {
    let mut calls: HashMap<String, PassedFunctions<'t>> = HashMap::new();
    let mut uses: HashMap<String, (usize, usize)> = HashMap::new();
    let mut definitions: Vec<Cursor<'t>> = Vec::new();
    for tu in tus {
        tu.root().for_each_child(|top| {
            if top.kind() == CursorKind::FunctionDecl && top.is_definition() {
                definitions.push(top);
            }
            true
        });
        direct_calls(tu.root(), &mut calls, &mut uses);
    }
    for f in definitions {
        let usr = f.usr();
        let (all, callee) = uses.get(&usr).copied().unwrap_or((0, 0));
        if usr.is_empty() || all == 0 || all != callee {
            continue;
        }
        let Some(sites) = calls.get(&usr) else { continue };
        for (i, p) in f.arguments().iter().enumerate() {
            let param_usr = p.usr();
            if param_usr.is_empty() || !p.ty().is_function_pointer() {
                continue;
            }
            let mut refs: Vec<Cursor<'t>> = Vec::new();
            let mut constant = true;
            for site in sites {
                match site.get(i) {
                    Some(Some(named)) if !named.is_empty() => {
                        for n in named {
                            if !refs.contains(n) {
                                refs.push(*n);
                            }
                        }
                    }
                    _ => constant = false,
                }
            }
            if constant && !refs.is_empty() {
                candidates.insert(param_usr, refs);
            }
        }
    }
}

/// Records every direct call's function-designator arguments, and counts
/// each function's uses and the uses that are a call's callee.
fn direct_calls<'t>(c: Cursor<'t>, calls: &mut HashMap<String, PassedFunctions<'t>>, uses: &mut HashMap<String, (usize, usize)>) {
    match c.kind() {
        CursorKind::DeclRefExpr => {
            if let Some(f) = c.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl) {
                uses.entry(f.usr()).or_default().0 += 1;
            }
        }
        CursorKind::CallExpr => {
            if let Some(f) = c.children().first().and_then(|callee| callee_function(*callee)) {
                uses.entry(f.usr()).or_default().1 += 1;
                let passed = c
                    .arguments()
                    .iter()
                    .map(|a| only_functions(*a).then(|| crate::frontend::entry_points::function_refs(*a)))
                    .collect();
                calls.entry(f.usr()).or_default().push(passed);
            }
        }
        _ => {}
    }
    c.for_each_child(|child| {
        direct_calls(child, calls, uses);
        true
    });
}

/// Counts, for each candidate, its uses and the uses that are a call's
/// callee.
fn count(c: Cursor<'_>, candidates: &HashMap<String, Vec<Cursor<'_>>>, uses: &mut HashMap<String, (usize, usize)>) {
    match c.kind() {
        CursorKind::DeclRefExpr => {
            if let Some(v) = c.referenced() {
                let usr = v.usr();
                if candidates.contains_key(&usr) {
                    uses.entry(usr).or_default().0 += 1;
                }
            }
        }
        CursorKind::CallExpr => {
            if let Some(v) = c.children().first().and_then(|callee| callee_variable(*callee)) {
                let usr = v.usr();
                if candidates.contains_key(&usr) {
                    uses.entry(usr).or_default().1 += 1;
                }
            }
        }
        _ => {}
    }
    c.for_each_child(|child| {
        count(child, candidates, uses);
        true
    });
}
