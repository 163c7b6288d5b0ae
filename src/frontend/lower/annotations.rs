//! The kernel's own annotations: `lockdep_assert_held(&l)`, sparse's
//! `__must_hold(l)`, KCSAN's `ASSERT_EXCLUSIVE_WRITER(x)` and
//! `ASSERT_EXCLUSIVE_ACCESS(x)` (`kernel-models/locks/annotations.xml`).
//!
//! # Algorithm
//!
//! Without lockdep, sparse or KCSAN these macros leave little or nothing
//! in the AST (`do { (void)(l); } while (0)`, nothing, an empty inline
//! call), so they are recognised by the macro that wrote the code:
//!
//! - a statement written by a macro is an annotation when the identifier at
//!   its expansion location (the outermost macro used) or the macro whose
//!   definition holds its spelling (the innermost one, for a driver macro
//!   wrapping `lockdep_assert_held`) is a modelled annotation. The macro's
//!   argument is the first maximal sub-expression whose spelling lies in
//!   the invocation's text (`l` in `(void)(l)`), found by scanning the
//!   invocation's balanced parentheses;
//! - a function definition carries `__must_hold(l)` when its text between
//!   the start of the definition and its body names the macro; the argument
//!   text (`&priv->lock`, `priv->lock`, `lock`, `&global_lock`) is resolved
//!   to a lock the way [`super::locks`] identifies lock operands: the last
//!   pointer hop's structure type and the offset behind it, a global by
//!   name, or a lock-typed parameter.
//!
//! An assertion of a held lock becomes `held L "macro"` at its place
//! (`__must_hold` at the function's entry), unchecked: the annotation
//! check ([`crate::analyses::annotations`]) decides later whether it may be
//! assumed. An exclusive-writer assertion is a plain read of the object
//! (a read races with exactly the concurrent writes), an exclusive-access
//! assertion a plain write, so the race checks report a violation as a
//! race with the assertion.
//!
//! # Soundness
//!
//! An annotation that is not recognised (an unidentifiable lock, a macro
//! the models do not list) adds nothing: the program is what it was
//! without it. A recognised assertion is only assumed once checked, and
//! the exclusive-access assertions add accesses, which can only add
//! reports.

use super::context::FnLower;
use super::layout;
use super::locks::LockIdentity;
use crate::frontend::clang::{Cursor, CursorKind};
use crate::ir::{AccessKind, Command, Expr, LockKind, LockMode};
use crate::models::{Annotation, AnnotationKind, Extent};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

impl<'t> FnLower<'_, '_, '_, 't> {
    /// Lowers `c` as an annotation when a modelled annotation macro wrote
    /// it; whether it did.
    pub(super) fn annotation_statement(&mut self, c: Cursor<'t>) -> bool {
        if self.s.models.annotations.is_empty() || !c.is_from_macro() {
            return false;
        }
        let Some(annotation) = self.statement_annotation(c) else { return false };
        match annotation.kind {
            AnnotationKind::AssertHeld => self.assert_held(c, &annotation),
            AnnotationKind::AssertExclusiveWriter | AnnotationKind::AssertExclusiveAccess => self.assert_exclusive(c, &annotation),
            AnnotationKind::MustHold | AnnotationKind::Acquires | AnnotationKind::Releases => false,
        }
    }

    /// Records in the procedure being lowered the `unless-reaches`
    /// markers of a call: the function `name` it calls, and the macro
    /// at the start of its expansion when a macro wrote it
    /// (`wait_event_freezable` for the waits it expands to).
    pub(super) fn note_reach_markers(&mut self, c: Cursor<'t>, name: Option<&str>) {
        if !self.s.models.serialisation.iter().any(|r| !r.unless_reaches.is_empty()) {
            return;
        }
        let mut found: Vec<String> = name.filter(|n| self.s.models.is_reach_marker(n)).map(String::from).into_iter().collect();
        if c.is_from_macro() {
            let start = c.extent().0;
            if let Some(file) = &start.file {
                let text = text_of(&mut self.s.texts, file);
                found.extend(identifier_at(text, start.offset as usize).filter(|n| self.s.models.is_reach_marker(n)));
            }
        }
        if !found.is_empty() {
            self.s.reach_markers.entry(self.b.id()).or_default().extend(found);
        }
    }

    /// The statement annotation that wrote `c`, if any.
    fn statement_annotation(&mut self, c: Cursor<'t>) -> Option<Annotation> {
        let start = c.extent().0;
        if let Some(file) = &start.file {
            let text = text_of(&mut self.s.texts, file);
            if let Some(a) = identifier_at(text, start.offset as usize).and_then(|n| self.s.models.annotations.get(&n)) {
                return Some(a.clone());
            }
        }
        let spelled = c.spelling_location();
        let file = spelled.file.as_ref()?;
        let name = defining_macro(text_of(&mut self.s.texts, file), spelled.offset as usize)?;
        self.s.models.annotations.get(&name).cloned()
    }

    /// `lockdep_assert_held(&l)`: `held L` here.
    fn assert_held(&mut self, c: Cursor<'t>, annotation: &Annotation) -> bool {
        let identity = match &annotation.global_lock {
            Some(name) => Some((LockIdentity::Pseudo(name.clone()), LockKind::Pseudo)),
            None => self.macro_argument(c, annotation.arg).and_then(|arg| {
                let kind = layout::pointee(arg.ty()).and_then(|t| self.lock_kind_of(t))?;
                Some((self.lock_identity(arg), kind))
            }),
        };
        let Some((identity, kind)) = identity else { return false };
        self.push_held(&identity, kind, annotation, c)
    }

    fn push_held(&mut self, identity: &LockIdentity, kind: LockKind, annotation: &Annotation, at: Cursor<'t>) -> bool {
        let Some(lock) = self.lock_id(identity, kind) else { return false };
        let mode = match annotation.mode {
            None => None,
            Some(crate::models::LockMode::Exclusive) => Some(LockMode::Exclusive),
            // A shared hold of a lock without a shared mode is a hold.
            Some(crate::models::LockMode::Shared) => kind.has_shared_mode().then_some(LockMode::Shared),
        };
        let span = Some(self.span(at));
        self.s.stats.lock_annotations += 1;
        self.b.push(Command::HeldAnnotation { lock, mode, annotation: annotation.macro_name.clone(), trusted: false, span });
        true
    }

    /// `ASSERT_EXCLUSIVE_WRITER(x)` reads `x`, `ASSERT_EXCLUSIVE_ACCESS(x)`
    /// writes it, over `sizeof(x)` bytes: the call the macro expands to
    /// (`__kcsan_check_access(&(x), sizeof(x), …)`) gives both.
    fn assert_exclusive(&mut self, c: Cursor<'t>, annotation: &Annotation) -> bool {
        let Some(call) = first_of_kind(c, CursorKind::CallExpr) else { return false };
        let args = call.arguments();
        if args.len() < 2 {
            return false;
        }
        // The object's address does not escape: the assertion keeps no
        // pointer, so the object keeps its own region.
        let values: Vec<Expr> = args.iter().map(|a| self.unescaped_argument(*a).unwrap_or_else(|| self.value(*a))).collect();
        let write = annotation.kind == AnnotationKind::AssertExclusiveAccess;
        let span = self.span(c);
        self.s.stats.lock_annotations += 1;
        self.memory_effect(&annotation.macro_name, &args, &values, 0, Extent::SizeArg(1), None, &[], write, AccessKind::Plain, Some(span.clone()));
        // The race names the assertion as written: `ASSERT_EXCLUSIVE_ACCESS(dev->len)`.
        let start = c.extent().0;
        if let Some(file) = &start.file {
            let text = text_of(&mut self.s.texts, file);
            if let Some((open, close)) = invocation_parens(text, start.offset as usize) {
                let written = format!("{}({})", annotation.macro_name, String::from_utf8_lossy(&text[open + 1..close]).trim());
                for (key, name) in self.b.program().access_names.iter_mut() {
                    if key.0 == span {
                        *name = written.clone();
                    }
                }
            }
        }
        true
    }

    /// `__must_hold(l)` in the function's definition: `held L` at entry.
    pub(super) fn entry_annotations(&mut self) {
        if !self.s.models.annotations.values().any(|a| a.kind == AnnotationKind::MustHold) {
            return;
        }
        let function = self.function;
        let Some(body) = function.children().into_iter().rfind(|c| c.kind() == CursorKind::CompoundStmt) else { return };
        let (start, body_start) = (function.extent().0, body.extent().0);
        let Some(file) = start.file.clone().filter(|f| body_start.file.as_ref() == Some(f)) else { return };
        let text = text_of(&mut self.s.texts, &file);
        let Some(header) = text.get(start.offset as usize..body_start.offset as usize) else { return };
        let header = String::from_utf8_lossy(header).into_owned();
        for (name, argument) in invocations(&header) {
            let Some(annotation) = self.s.models.annotations.get(&name).filter(|a| a.kind == AnnotationKind::MustHold).cloned() else {
                continue;
            };
            let resolved = match &annotation.global_lock {
                Some(lock) => Some((LockIdentity::Pseudo(lock.clone()), LockKind::Pseudo)),
                None => self.lock_from_text(&argument),
            };
            if let Some((identity, kind)) = resolved.filter(|(i, _)| !matches!(i, LockIdentity::Unknown(_))) {
                self.push_held(&identity, kind, &annotation, function);
            }
        }
    }

    /// A lock written as text in the function's header: `&p->a.lock`,
    /// `p->lock`, `lock` (a lock-typed parameter), `&global.lock`.
    fn lock_from_text(&mut self, text: &str) -> Option<(LockIdentity, LockKind)> {
        let text = text.trim().trim_start_matches('&').trim();
        let text = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(text).trim();
        let (root, steps) = parse_path(text)?;
        let params = self.function.arguments();
        if let Some(index) = params.iter().position(|p| p.spelling() == root) {
            let mut ty = params[index].ty();
            if steps.is_empty() {
                // `__must_hold(lock)` for `spinlock_t *lock`.
                let kind = layout::pointee(ty).and_then(|t| self.lock_kind_of(t))?;
                return Some((LockIdentity::Param { index, offset: 0 }, kind)).map(|(i, k)| (self.bind(i), k));
            }
            // Walk the fields; the identity is the last pointer hop's
            // structure and the offset behind it.
            let mut record = None;
            let (mut offset, mut path) = (0u64, Vec::new());
            for (arrow, field) in &steps {
                if *arrow {
                    ty = layout::pointee(ty)?;
                    record = Some(ty);
                    offset = 0;
                    path.clear();
                }
                offset += ty.canonical().offset_of(field)? / 8;
                path.push(field.clone());
                ty = field_type(ty, field)?;
            }
            let kind = self.lock_kind_of(ty)?;
            let record = layout::record_decl(record?)?;
            return Some((LockIdentity::Field { record: layout::record_name(record), offset, path: path.join(".") }, kind));
        }
        // A global lock, or a lock inside a global structure.
        if steps.iter().any(|(arrow, _)| *arrow) {
            return None;
        }
        let decl = global_named(self.function, &root)?;
        let mut ty = decl.ty();
        for (_, field) in &steps {
            ty = field_type(ty, field)?;
        }
        let kind = self.lock_kind_of(ty)?;
        let mut path = vec![super::place::global_symbol(decl, &self.s.qualified_statics)];
        path.extend(steps.into_iter().map(|(_, f)| f));
        Some((LockIdentity::Global(path.join(".")), kind))
    }

    fn bind(&self, identity: LockIdentity) -> LockIdentity {
        match identity {
            LockIdentity::Param { index, offset } => match self.lock_binding.iter().find(|(i, _)| *i == index) {
                Some((_, bound)) if offset == 0 => bound.clone(),
                _ => LockIdentity::Param { index, offset },
            },
            other => other,
        }
    }

    /// The `index`-th macro argument of the invocation that wrote `c`: the
    /// `index`-th maximal sub-expression spelled inside the invocation's
    /// parentheses.
    fn macro_argument(&mut self, c: Cursor<'t>, index: usize) -> Option<Cursor<'t>> {
        let start = c.extent().0;
        let file = start.file.clone()?;
        let (open, close) = invocation_parens(text_of(&mut self.s.texts, &file), start.offset as usize)?;
        let inside = |x: Cursor<'_>| {
            let s = x.spelling_location();
            s.file.as_ref() == Some(&file) && (s.offset as usize) > open && (s.offset as usize) < close
        };
        let mut found = Vec::new();
        collect_arguments(c, &inside, &mut found);
        found.get(index).copied()
    }
}

fn text_of<'a>(texts: &'a mut HashMap<PathBuf, Vec<u8>>, file: &Path) -> &'a [u8] {
    texts.entry(file.to_path_buf()).or_insert_with(|| std::fs::read(file).unwrap_or_default())
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The identifier starting at `offset`.
fn identifier_at(text: &[u8], offset: usize) -> Option<String> {
    let rest = text.get(offset..)?;
    let len = rest.iter().take_while(|b| is_ident(**b)).count();
    (len > 0).then(|| String::from_utf8_lossy(&rest[..len]).into_owned())
}

/// The macro whose `#define` holds `offset`, following backslash line
/// continuations up to the directive.
fn defining_macro(text: &[u8], offset: usize) -> Option<String> {
    let line_start = |at: usize| text[..at].iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
    let mut start = line_start(offset.min(text.len()));
    while start >= 2 && text[start - 2] == b'\\' {
        start = line_start(start - 1);
    }
    let line = String::from_utf8_lossy(&text[start..]);
    let rest = line.trim_start().strip_prefix('#')?.trim_start().strip_prefix("define")?;
    let name: String = rest.trim_start().bytes().take_while(|b| is_ident(*b)).map(char::from).collect();
    (!name.is_empty()).then_some(name)
}

/// The byte offsets of the parentheses of the invocation whose macro name
/// starts at `offset`.
fn invocation_parens(text: &[u8], offset: usize) -> Option<(usize, usize)> {
    let mut i = offset + text.get(offset..)?.iter().take_while(|b| is_ident(**b)).count();
    while text.get(i)?.is_ascii_whitespace() {
        i += 1;
    }
    if text[i] != b'(' {
        return None;
    }
    let open = i;
    let mut depth = 0usize;
    for (j, b) in text.iter().enumerate().skip(open) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some((open, j));
                }
            }
            _ => {}
        }
    }
    None
}

/// `NAME(arguments)` invocations in a piece of text, in order.
fn invocations(text: &str) -> Vec<(String, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if is_ident(bytes[i]) && (i == 0 || !is_ident(bytes[i - 1])) {
            let name_len = bytes[i..].iter().take_while(|b| is_ident(**b)).count();
            if let Some((open, close)) = invocation_parens(bytes, i) {
                out.push((text[i..i + name_len].to_string(), text[open + 1..close].to_string()));
                i = close + 1;
                continue;
            }
            i += name_len;
        } else {
            i += 1;
        }
    }
    out
}

/// `root(->|.)field…` as the root and the steps (whether through `->`).
fn parse_path(text: &str) -> Option<(String, Vec<(bool, String)>)> {
    let ident = |s: &str| -> Option<(String, usize)> {
        let n = s.bytes().take_while(|b| is_ident(*b)).count();
        (n > 0 && !s.as_bytes()[0].is_ascii_digit()).then(|| (s[..n].to_string(), n))
    };
    let (root, n) = ident(text)?;
    let mut rest = text[n..].trim_start();
    let mut steps = Vec::new();
    while !rest.is_empty() {
        let (arrow, after) = if let Some(r) = rest.strip_prefix("->") {
            (true, r)
        } else if let Some(r) = rest.strip_prefix('.') {
            (false, r)
        } else {
            return None;
        };
        let after = after.trim_start();
        let (field, n) = ident(after)?;
        steps.push((arrow, field));
        rest = after[n..].trim_start();
    }
    Some((root, steps))
}

/// The type of field `name` of record type `ty`.
fn field_type<'t>(ty: crate::frontend::clang::Type<'t>, name: &str) -> Option<crate::frontend::clang::Type<'t>> {
    let record = layout::record_decl(ty)?;
    record.children().into_iter().find(|f| f.kind() == CursorKind::FieldDecl && f.spelling() == name).map(|f| f.ty())
}

/// The file-scope variable `name` of the translation unit `function` is in.
fn global_named<'t>(function: Cursor<'t>, name: &str) -> Option<Cursor<'t>> {
    let mut unit = function;
    while let Some(parent) = unit.semantic_parent() {
        unit = parent;
    }
    unit.children().into_iter().rev().find(|c| c.kind() == CursorKind::VarDecl && c.spelling() == name)
}

/// The first cursor of `kind` in `c`, preorder.
fn first_of_kind(c: Cursor<'_>, kind: CursorKind) -> Option<Cursor<'_>> {
    if c.kind() == kind {
        return Some(c);
    }
    c.children().into_iter().find_map(|child| first_of_kind(child, kind))
}

/// The maximal sub-expressions of `c` that `inside` accepts, preorder.
fn collect_arguments<'t>(c: Cursor<'t>, inside: &dyn Fn(Cursor<'_>) -> bool, out: &mut Vec<Cursor<'t>>) {
    for child in c.children() {
        if inside(child) {
            out.push(child);
        } else {
            collect_arguments(child, inside, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defining_macro_follows_continuations() {
        let text = b"#define ASSERT_X(var) \\\n\t__check(&(var), sizeof(var))\nint x;";
        let at = text.iter().position(|b| *b == b'_').unwrap();
        assert_eq!(defining_macro(text, at).as_deref(), Some("ASSERT_X"));
        assert_eq!(defining_macro(text, text.len() - 2), None);
    }

    #[test]
    fn header_invocations_and_paths() {
        let found = invocations("static void f(struct p *p) __must_hold(&p->a.lock) __releases(x)");
        assert!(found.contains(&("__must_hold".to_string(), "&p->a.lock".to_string())));
        assert_eq!(parse_path("p->a.lock"), Some(("p".into(), vec![(true, "a".into()), (false, "lock".into())])));
        assert_eq!(parse_path("p[0].lock"), None);
    }
}
