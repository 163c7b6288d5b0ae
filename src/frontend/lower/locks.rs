//! Lock identification: each lock operand becomes one constant lock.
//!
//! A lock is identified by where it lives, as the original tool did (root
//! object and constant offset):
//!
//! - a global lock object, or one inside a global structure, by name
//!   (`nvram_mutex`, `dev_state.lock`);
//! - a lock inside a structure reached through a pointer, by the
//!   structure's type and the lock's byte offset in it, shown with its
//!   field path (`struct rtl8169_private.wk.mutex`). The pointer may come
//!   from anywhere (a parameter, `container_of`, `netdev_priv`, a helper
//!   wrapper's argument): the type and offset identify the lock. This
//!   assumes that the two entry points of a pair work on the same instance
//!   of the structure (docs/soundness.md);
//! - a kernel-wide pseudo lock (`rtnl`), by name;
//! - the lock a lock-typed parameter points to (`void f(struct mutex *m)`),
//!   relative to that parameter: the function is specialised per call site
//!   with the caller's identity bound;
//! - through functions the models call passthroughs (`spinlock_check(l)`
//!   is `l`), and through guard variables holding the lock a guard
//!   constructor returned.
//!
//! A lock that is the element at a constant index of a global array of
//! locks is named by the array and the index (`m[4]`).
//!
//! A lock in an array element at a computed index, in a list, in a local variable, or behind a
//! pointer held in memory cannot be identified uniquely: it is reported
//! and protects nothing (`lock ?`), which is sound.

use super::context::FnLower;
use super::layout;
use crate::frontend::clang::{Cursor, CursorKind, UnaryOperator};
use crate::ir::{Lock, LockId, LockKind};

/// Where a lock lives.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LockIdentity {
    /// A global lock object, or a lock inside a global structure.
    Global(String),
    /// A lock inside a structure reached through a pointer.
    Field {
        /// `struct rtl8169_private`.
        record: String,
        /// Byte offset of the lock in the structure.
        offset: u64,
        /// `wk.mutex`, for display.
        path: String,
    },
    /// A kernel-wide pseudo lock.
    Pseudo(String),
    /// The lock a lock-typed parameter points to, plus an offset.
    Param {
        /// The parameter's index.
        index: usize,
        /// Byte offset from what the parameter points to.
        offset: u64,
    },
    /// Not identifiable: why.
    Unknown(String),
}

impl LockIdentity {
    /// The identity as a key: equal keys are the same lock.
    pub fn key(&self) -> Option<String> {
        match self {
            LockIdentity::Global(name) => Some(format!("global {name}")),
            LockIdentity::Field { record, offset, .. } => Some(format!("{record} +{offset}")),
            LockIdentity::Pseudo(name) => Some(format!("pseudo {name}")),
            LockIdentity::Param { .. } | LockIdentity::Unknown(_) => None,
        }
    }

    /// The name users read.
    pub fn display(&self) -> String {
        match self {
            LockIdentity::Global(name) | LockIdentity::Pseudo(name) => name.clone(),
            LockIdentity::Field { record, path, .. } => format!("{record}.{path}"),
            LockIdentity::Param { index, offset } => format!("parameter {index} +{offset}"),
            LockIdentity::Unknown(why) => format!("? ({why})"),
        }
    }

    fn plus(self, extra: u64) -> LockIdentity {
        match self {
            LockIdentity::Field { record, offset, path } => LockIdentity::Field { record, offset: offset + extra, path },
            LockIdentity::Param { index, offset } => LockIdentity::Param { index, offset: offset + extra },
            other => other,
        }
    }
}

/// Skips parentheses and casts (implicit or explicit).
fn strip_casts(mut c: Cursor<'_>) -> Cursor<'_> {
    loop {
        let next = match c.kind() {
            CursorKind::ParenExpr | CursorKind::CStyleCastExpr => c.children().last().copied(),
            CursorKind::UnexposedExpr => match c.children().as_slice() {
                [only] => Some(*only),
                _ => None,
            },
            _ => None,
        };
        match next {
            Some(n) => c = n,
            None => return c,
        }
    }
}

impl<'t> FnLower<'_, '_, '_, 't> {
    /// The identity of the lock a pointer expression points to.
    pub fn lock_identity(&mut self, pointer: Cursor<'t>) -> LockIdentity {
        let c = strip_casts(pointer);
        match c.kind() {
            CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::AddrOf => match c.children().first() {
                Some(&object) => self.lock_object_identity(object),
                None => LockIdentity::Unknown("malformed address-of".into()),
            },
            CursorKind::CallExpr => {
                let name = c.referenced().map(|f| f.spelling()).unwrap_or_default();
                let passthrough = self.s.models.lock_passthroughs.get(&name).map(|p| p.arg);
                match passthrough.and_then(|i| c.arguments().get(i).copied()) {
                    Some(arg) => self.lock_identity(arg),
                    None => LockIdentity::Unknown(format!("lock returned by a call to {name}")),
                }
            }
            CursorKind::DeclRefExpr => {
                let Some(decl) = c.referenced() else { return LockIdentity::Unknown("unknown declaration".into()) };
                if let Some((identity, _)) = self.lock_holders.get(&decl.usr()) {
                    return identity.clone();
                }
                if decl.kind() == CursorKind::ParmDecl {
                    let index = self.function.arguments().iter().position(|p| *p == decl).unwrap_or(0);
                    return self.bound_param(index, 0);
                }
                LockIdentity::Unknown(format!("lock pointer held in variable {}", decl.spelling()))
            }
            _ => LockIdentity::Unknown("lock pointer computed at run time".into()),
        }
    }

    fn bound_param(&self, index: usize, offset: u64) -> LockIdentity {
        match self.lock_binding.iter().find(|(i, _)| *i == index) {
            Some((_, identity)) => identity.clone().plus(offset),
            None => LockIdentity::Param { index, offset },
        }
    }

    /// The identity of a lock object designated by an lvalue.
    pub fn lock_object_identity(&mut self, object: Cursor<'t>) -> LockIdentity {
        let mut path: Vec<String> = Vec::new();
        let mut offset = 0u64;
        let mut aliases = std::collections::BTreeSet::new();
        let mut c = strip_casts(object);
        loop {
            match c.kind() {
                CursorKind::MemberRefExpr => {
                    let Some(field) = c.referenced() else { return LockIdentity::Unknown("unknown field".into()) };
                    let Some(&base) = c.children().first() else { return LockIdentity::Unknown("member without base".into()) };
                    let base_ty = base.ty();
                    let record_ty = if layout::is_pointer(base_ty) { layout::pointee(base_ty).unwrap_or(base_ty) } else { base_ty };
                    offset += record_ty.canonical().offset_of(&field.spelling()).unwrap_or(0) / 8;
                    path.insert(0, field.spelling());
                    if let Some(record) = layout::record_decl(record_ty) {
                        aliases.insert(format!("{} +{offset}", layout::record_name(record)));
                    }
                    if layout::is_pointer(base_ty) {
                        return self.pointer_root(base, record_ty, offset, path);
                    }
                    c = strip_casts(base);
                }
                CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::Deref => {
                    let Some(&pointer) = c.children().first() else { return LockIdentity::Unknown("malformed dereference".into()) };
                    let record_ty = layout::pointee(pointer.ty()).unwrap_or(pointer.ty());
                    return self.pointer_root(pointer, record_ty, offset, path);
                }
                // An element at a constant index of an array object is
                // one object, named by the array and the index (`m[4]`);
                // an index computed at run time, or a pointer indexed like
                // an array, may name any element.
                CursorKind::ArraySubscriptExpr => {
                    let (Some(&base), Some(&index)) = (c.children().first(), c.children().get(1)) else {
                        return LockIdentity::Unknown("malformed array element".into());
                    };
                    let index = strip_casts(index);
                    let constant = match (index.kind(), index.evaluate()) {
                        (CursorKind::IntegerLiteral, Some(crate::frontend::clang::EvalValue::Int(k))) => u64::try_from(k).ok(),
                        _ => None,
                    };
                    let array = strip_casts(base);
                    // Only the element of a global array of locks itself
                    // (`&m[4]`, nothing around it): a lock inside a
                    // structure element (`&cache[5].lock`) or an array
                    // inside a structure (`&g.locks[1]`) is also reached
                    // through pointers, where it is named by type and
                    // offset, and one lock must have one name for the
                    // precise phase.
                    let global_array = array.kind() == CursorKind::DeclRefExpr
                        && array.referenced().is_some_and(|d| !self.locals.contains_key(&d.usr()))
                        && path.is_empty();
                    let is_array = global_array && !layout::is_pointer(array.ty()) && array.ty().canonical().element().is_some();
                    let size = c.ty().canonical().size_of().unwrap_or(0);
                    match constant {
                        Some(k) if is_array && size > 0 => {
                            offset += k * size;
                            path.insert(0, format!("[{k}]"));
                            c = array;
                        }
                        _ => return LockIdentity::Unknown("lock in an array element".into()),
                    }
                }
                CursorKind::DeclRefExpr => {
                    let Some(decl) = c.referenced() else { return LockIdentity::Unknown("unknown declaration".into()) };
                    if self.locals.contains_key(&decl.usr()) {
                        return LockIdentity::Unknown(format!("lock in local variable {}", decl.spelling()));
                    }
                    path.insert(0, super::place::global_symbol(decl, &self.s.qualified_statics));
                    let identity = LockIdentity::Global(path.join(".").replace(".[", "["));
                    if let Some(key) = identity.key().filter(|_| !aliases.is_empty()) {
                        self.s.lock_aliases.entry(key).or_default().extend(aliases);
                    }
                    return identity;
                }
                _ => return LockIdentity::Unknown("lock object computed at run time".into()),
            }
        }
    }

    /// A lock at `offset` inside what `pointer` points to.
    fn pointer_root(&mut self, pointer: Cursor<'t>, record_ty: crate::frontend::clang::Type<'t>, offset: u64, path: Vec<String>) -> LockIdentity {
        let base = strip_casts(pointer);
        // The structure is itself a lock type passed as a parameter
        // (`&l->rlock` inside a function taking `spinlock_t *l`).
        if self.lock_kind_of(record_ty).is_some() {
            if base.kind() == CursorKind::DeclRefExpr {
                if let Some(decl) = base.referenced().filter(|d| d.kind() == CursorKind::ParmDecl) {
                    let index = self.function.arguments().iter().position(|p| *p == decl).unwrap_or(0);
                    return self.bound_param(index, offset);
                }
            }
        }
        match layout::record_decl(record_ty) {
            Some(record) => LockIdentity::Field { record: layout::record_name(record), offset, path: path.join(".").replace(".[", "[") },
            None => LockIdentity::Unknown("lock behind a pointer of unknown type".into()),
        }
    }

    /// The kind of lock an object type is, from the models' lock types.
    pub fn lock_kind_of(&self, ty: crate::frontend::clang::Type<'_>) -> Option<LockKind> {
        let spelled = ty.spelling().replace("const ", "").replace("volatile ", "");
        let canonical = layout::type_name(ty);
        let tag = canonical.strip_prefix("struct ").unwrap_or(&canonical).to_string();
        let model = self.s.models.lock_types.get(&spelled).or_else(|| self.s.models.lock_types.get(&tag))?;
        Some(match model.kind {
            crate::models::LockKind::Mutex => LockKind::Mutex,
            crate::models::LockKind::Spinlock => LockKind::Spinlock,
            crate::models::LockKind::Rwlock => LockKind::RwLock,
            crate::models::LockKind::RwSemaphore => LockKind::RwSemaphore,
            crate::models::LockKind::Semaphore => LockKind::Semaphore,
        })
    }

    /// The IR lock of an identity, declared on first use.
    pub fn lock_id(&mut self, identity: &LockIdentity, kind: LockKind) -> Option<LockId> {
        let key = identity.key()?;
        let id = match self.s.locks.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.b.program().locks.push(Lock { name: identity.display(), kind });
                self.s.locks.insert(key.clone(), id);
                self.s.stats.locks += 1;
                id
            }
        };
        let aliases = self.s.lock_aliases.get(&key).cloned().unwrap_or_default();
        let keys = self.b.program().lock_keys.entry(id).or_default();
        keys.insert(key);
        keys.extend(aliases);
        Some(id)
    }
}
