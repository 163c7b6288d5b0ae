//! The kernel function models: what a kernel function the driver calls does
//! to driver memory and what it returns, as read from
//! `kernel-models/functions/*.xml`.
//!
//! The schema, by example:
//!
//! ```xml
//! <kernel-model kernel="6.12">
//!   <function name="kmalloc_noprof" reason="…"><returns kind="null-or-fresh"/></function>
//!   <function name="netdev_priv" reason="…"><returns kind="uninterpreted"/></function>
//!   <function name="copy_from_user" reason="…"><writes arg="0" size-arg="2"/></function>
//!   <function name="memcpy" reason="…">
//!     <writes arg="0" size-arg="2"/><reads arg="1" size-arg="2"/><returns kind="arg" arg="0"/>
//!   </function>
//!   <function name="strlen" reason="…"><reads arg="0" extent="unbounded"/></function>
//!   <function name="atomic_inc" reason="…"><atomic arg="0" access="rmw"/></function>
//!   <function name="set_bit" reason="…"><atomic arg="1" access="rmw" extent="unbounded"/></function>
//!   <function name="_printk" reason="…"/>
//! </kernel-model>
//! ```
//!
//! A function model replaces the function: the lowering does not lower its
//! body (static inline or not) but applies the model. Everything a model
//! does not list, the function does not do to driver memory.
//!
//! **Accesses.** `<reads arg="N"/>` and `<writes arg="N"/>`: the function
//! reads or writes, non-atomically, memory that argument N points to;
//! `<atomic arg="N" access="read|write|rmw"/>`: it accesses it atomically,
//! which never races with another atomic access and gives no lock
//! protection. The extent of an access:
//! - by default, one object of the argument's pointee type (`atomic_t`,
//!   `int *` result of `kstrtoint`);
//! - `size-arg="M"`: the number of bytes argument M gives, from the pointer
//!   (`memcpy`); not on `<atomic>`;
//! - `extent="unbounded"`: an unknown number of bytes from the pointer on,
//!   within the object it points into (strings; bitmaps, where the bit
//!   number chooses the word).
//!
//! **Result.** `<returns kind="…"/>`, at most one; without it, `havoc`:
//! - `havoc`: any value;
//! - `any-of-type`: any value of the call's C type, and every such value
//!   is possible (`__VERIFIER_nondet_int`): the precise phase of
//!   `racewatch svcomp` may choose any of them for a witness;
//! - `fresh`: a non-NULL address distinct from all live memory;
//! - `null-or-fresh`: NULL or such an address (allocators, which may fail);
//! - `uninterpreted`: a function of the arguments: equal arguments give
//!   equal results (`netdev_priv`); nothing is assumed about results of
//!   different arguments or functions, which may alias;
//! - `arg` with `arg="N"`: argument N itself (`memset`);
//! - `never`: the function does not return; the path ends at the call
//!   (`abort`, `pthread_exit`).
//!
//! **Escape.** `keeps="none"` or `keeps="0 2"`: the pointer arguments the
//! function may keep after it returns: a pointer derived from the argument
//! outlives the call (stored in driver or kernel memory, written through
//! another argument as `simple_strtoul`'s `endp`, returned as `strstr`'s
//! result, handed to another context), other than the result of `returns
//! kind="arg"`, which the lowering follows itself. Without the attribute
//! every argument may be kept, the conservative default. `allocates="true"`:
//! the result, when it is an address, is a new object that no one else can
//! reach yet (implied by `fresh` and `null-or-fresh`; `allocates="false"`
//! denies it, for `krealloc`, whose result may be the old block). Both feed
//! the per-call private memory analysis (src/analyses/private.rs); an
//! argument not kept also leaves the regions of the storage it points to
//! apart (src/frontend/lower/regions.rs).
//!
//! `keeps-last="true"`: the function makes every access its model lists
//! before it keeps an argument (`submit_bio` prepares the bio, then hands
//! it to the block layer): the kept values are recorded after the accesses,
//! so that accesses to an object not published before the call stay
//! private, as the driver's own accesses before the call do.
//!
//! **Calls back.** `calls-back="true"`: the function calls driver code
//! through function pointers it is given (`mii_check_media` calls the
//! driver's `mdio_read` through `struct mii_if_info`). Its model gives its
//! own accesses; the calls back are not followed, so the call stays an
//! `approx {external-call}` that is counted and warned about, and the
//! function is listed among the external functions (which, for instance,
//! keeps SV-COMP mode from answering `true`).
//!
//! **Values of atomics.** An `<atomic>` may also say what it stores and
//! what the call returns (`op`, `returns` and operand attributes,
//! [`super::atomic_values`]); the call's result is then that `returns`, and
//! `<returns>` is not allowed. At most one `<atomic>` of a function has an
//! `op`.

use super::atomic_values::{self, AtomicValue, WrittenValue};
use super::{choice, reason_given};
use serde::Deserialize;

/// How much memory an access covers, from the pointer in its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extent {
    /// One object of the argument's pointee type.
    Pointee,
    /// The number of bytes the given argument holds.
    SizeArg(usize),
    /// An unknown number of bytes, to the end of the object pointed into.
    Unbounded,
}

/// A non-atomic read or write through a pointer argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemoryEffect {
    /// The pointer argument (0-based).
    pub arg: usize,
    /// How much it covers.
    pub extent: Extent,
    /// Only this field of the pointed-to record (`field="in"`), or this
    /// nested field (`field="buf.tail"`: member `tail` of the record in
    /// member `buf`): the function touches that field and no other.
    pub field: Option<String>,
    /// A write the function makes only on some paths (`may="true"`, such
    /// as `mii_check_media`'s store of `full_duplex` only when the duplex
    /// changed): checked by the lockset phase, never the ground of a
    /// confirmed race.
    pub may: bool,
}

/// The kind of an atomic access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicAccess {
    /// An atomic load.
    Read,
    /// An atomic store.
    Write,
    /// An atomic read-modify-write.
    Rmw,
}

const ATOMIC_ACCESSES: &[(&str, AtomicAccess)] =
    &[("read", AtomicAccess::Read), ("write", AtomicAccess::Write), ("rmw", AtomicAccess::Rmw)];

/// An atomic access through a pointer argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AtomicEffect {
    /// The pointer argument (0-based).
    pub arg: usize,
    /// Load, store or read-modify-write.
    pub access: AtomicAccess,
    /// How much it covers (`Pointee` or `Unbounded`).
    pub extent: Extent,
    /// What it stores and what the call returns, when the model says.
    pub value: Option<AtomicValue>,
    /// Only this (nested) field of the pointed-to record, as for
    /// [`MemoryEffect::field`]; never with a value operation.
    pub field: Option<String>,
}

/// What a modelled function returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnModel {
    /// Any value.
    Havoc,
    /// Any value of the call's C type, each of which the function may
    /// return (SV-COMP's `__VERIFIER_nondet_*`).
    AnyOfType,
    /// A non-NULL address distinct from all live memory.
    Fresh,
    /// NULL, or an address distinct from all live memory.
    NullOrFresh,
    /// An address distinct from all live memory, or an error value
    /// (`ERR_PTR`), which is no object.
    ErrorOrFresh,
    /// A function of the arguments: equal arguments, equal results.
    Uninterpreted,
    /// The given argument itself.
    Arg(usize),
    /// What the function's atomic access with an `op` returns
    /// ([`AtomicEffect::value`]).
    Atomic,
    /// The function never returns (`abort`, `exit`, `pthread_exit`,
    /// `__assert_fail`): the path ends at the call.
    Never,
}

/// What a kernel function does to driver memory.
#[derive(Clone, Debug)]
pub struct FunctionModel {
    /// The function the driver's call resolves to, after macro expansion.
    pub name: String,
    /// Non-atomic reads through pointer arguments.
    pub reads: Vec<MemoryEffect>,
    /// Non-atomic writes through pointer arguments.
    pub writes: Vec<MemoryEffect>,
    /// Atomic accesses through pointer arguments.
    pub atomics: Vec<AtomicEffect>,
    /// Its result.
    pub returns: ReturnModel,
    /// The arguments it may keep after returning; `None`: every argument.
    /// Keeping an argument means that a pointer derived from it outlives
    /// the call anywhere but in the result of `returns kind="arg"`: stored
    /// in driver or kernel memory, written through another argument,
    /// returned, or handed to another context. An argument not kept
    /// reaches memory only through the model's own accesses, which both
    /// the escape analysis (src/analyses/private.rs) and the regions
    /// (src/frontend/lower/regions.rs) rely on.
    pub keeps: Option<Vec<usize>>,
    /// Whether its result, when an address, is a new object no one else
    /// can reach yet.
    pub allocates: bool,
    /// Whether it calls driver code through function pointers it is
    /// given (`calls-back="true"`), which the lowering does not follow:
    /// the call stays a counted `approx {external-call}`.
    pub calls_back: bool,
    /// Whether the function makes all its modelled accesses before it
    /// keeps any argument (`keeps-last="true"`: it hands the object on as
    /// its last step, `submit_bio`): the lowering records the kept values
    /// after the accesses, so that those to an object not yet published
    /// stay private (src/analyses/private.rs).
    pub keeps_last: bool,
    /// What the function does to driver memory.
    pub reason: String,
}

impl FunctionModel {
    /// Whether the function may keep argument `arg` after it returns.
    pub fn may_keep(&self, arg: usize) -> bool {
        self.keeps.as_ref().is_none_or(|k| k.contains(&arg))
    }

    /// Whether the function touches no driver memory at all.
    pub fn has_no_effect(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty() && self.atomics.is_empty()
    }
}

/// `<function>` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FunctionXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@reason")]
    reason: String,
    #[serde(rename = "@keeps")]
    keeps: Option<String>,
    #[serde(rename = "@allocates")]
    allocates: Option<String>,
    #[serde(rename = "@calls-back")]
    calls_back: Option<String>,
    #[serde(rename = "@keeps-last")]
    keeps_last: Option<String>,
    #[serde(rename = "reads", default)]
    reads: Vec<EffectXml>,
    #[serde(rename = "writes", default)]
    writes: Vec<EffectXml>,
    #[serde(rename = "atomic", default)]
    atomics: Vec<AtomicXml>,
    #[serde(rename = "returns")]
    returns: Option<ReturnsXml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EffectXml {
    #[serde(rename = "@arg")]
    arg: usize,
    #[serde(rename = "@size-arg")]
    size_arg: Option<usize>,
    #[serde(rename = "@extent")]
    extent: Option<String>,
    #[serde(rename = "@field")]
    field: Option<String>,
    #[serde(rename = "@may")]
    may: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AtomicXml {
    #[serde(rename = "@arg")]
    arg: usize,
    #[serde(rename = "@access")]
    access: String,
    #[serde(rename = "@extent")]
    extent: Option<String>,
    #[serde(rename = "@op")]
    op: Option<String>,
    #[serde(rename = "@returns")]
    returns: Option<String>,
    #[serde(rename = "@value-arg")]
    value_arg: Option<usize>,
    #[serde(rename = "@expected-arg")]
    expected_arg: Option<usize>,
    #[serde(rename = "@bit-arg")]
    bit_arg: Option<usize>,
    #[serde(rename = "@field")]
    field: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReturnsXml {
    #[serde(rename = "@kind")]
    kind: String,
    #[serde(rename = "@arg")]
    arg: Option<usize>,
}

/// The written extents; a size argument is its own attribute.
const EXTENTS: &[(&str, Extent)] = &[("pointee", Extent::Pointee), ("unbounded", Extent::Unbounded)];

#[derive(Clone, Copy)]
enum ReturnKind {
    Havoc,
    AnyOfType,
    Fresh,
    NullOrFresh,
    ErrorOrFresh,
    Uninterpreted,
    Arg,
    Never,
}

const RETURN_KINDS: &[(&str, ReturnKind)] = &[
    ("havoc", ReturnKind::Havoc),
    ("fresh", ReturnKind::Fresh),
    ("null-or-fresh", ReturnKind::NullOrFresh),
    ("error-or-fresh", ReturnKind::ErrorOrFresh),
    ("uninterpreted", ReturnKind::Uninterpreted),
    ("arg", ReturnKind::Arg),
    ("never", ReturnKind::Never),
    ("any-of-type", ReturnKind::AnyOfType),
];

fn extent(context: &str, arg: usize, size_arg: Option<usize>, written: Option<&str>) -> Result<Extent, String> {
    let written = written.map(|e| choice(context, "extent", e, EXTENTS)).transpose()?;
    match (size_arg, written) {
        (Some(_), Some(_)) => Err(format!("{context}: size-arg and extent exclude each other")),
        (Some(size), None) if size == arg => {
            Err(format!("{context}: size-arg {size} is the pointer argument itself"))
        }
        (Some(size), None) => Ok(Extent::SizeArg(size)),
        (None, Some(e)) => Ok(e),
        (None, None) => Ok(Extent::Pointee),
    }
}

/// Checks an effect's `field`: one field name, or a dotted path of them.
fn field_path(context: &str, field: Option<&str>) -> Result<(), String> {
    match field {
        Some(f) if f.split('.').any(str::is_empty) => Err(format!("{context}: field `{f}` is not a field name or a dotted path of field names")),
        _ => Ok(()),
    }
}

fn memory_effect(context: &str, what: &str, e: &EffectXml) -> Result<MemoryEffect, String> {
    let context = format!("{context} <{what} arg=\"{}\">", e.arg);
    let extent = extent(&context, e.arg, e.size_arg, e.extent.as_deref())?;
    field_path(&context, e.field.as_deref())?;
    match (&e.field, extent) {
        (Some(_), Extent::SizeArg(_) | Extent::Unbounded) => Err(format!("{context}: field excludes size-arg and extent")),
        _ => {
            let may = match (e.may.as_deref(), what) {
                (None | Some("false"), _) => false,
                (Some("true"), "writes") => true,
                (Some("true"), _) => return Err(format!("{context}: may is only for <writes>")),
                (Some(other), _) => return Err(format!("{context}: may must be true or false, not `{other}`")),
            };
            Ok(MemoryEffect { arg: e.arg, extent, field: e.field.clone(), may })
        }
    }
}

/// Checks and converts one `<function>`.
pub(super) fn function(f: FunctionXml) -> Result<FunctionModel, String> {
    let context = format!("function `{}`", f.name);
    reason_given(&context, &f.reason)?;
    let reads = f.reads.iter().map(|e| memory_effect(&context, "reads", e)).collect::<Result<Vec<_>, _>>()?;
    let writes = f.writes.iter().map(|e| memory_effect(&context, "writes", e)).collect::<Result<Vec<_>, _>>()?;
    let atomics = f
        .atomics
        .iter()
        .map(|a| {
            let context = format!("{context} <atomic arg=\"{}\">", a.arg);
            let access = choice(&context, "access", &a.access, ATOMIC_ACCESSES)?;
            let extent = extent(&context, a.arg, None, a.extent.as_deref())?;
            let written = WrittenValue {
                op: a.op.as_deref(),
                returns: a.returns.as_deref(),
                value_arg: a.value_arg,
                expected_arg: a.expected_arg,
                bit_arg: a.bit_arg,
            };
            let value = atomic_values::atomic_value(&context, a.arg, access, &written)?;
            field_path(&context, a.field.as_deref())?;
            match (&a.field, extent, &value) {
                (Some(_), Extent::Unbounded, _) => Err(format!("{context}: field excludes extent")),
                (Some(_), _, Some(_)) => Err(format!("{context}: field excludes a value operation (op)")),
                _ => Ok(AtomicEffect { arg: a.arg, access, extent, value, field: a.field.clone() }),
            }
        })
        .collect::<Result<Vec<_>, String>>()?;
    let with_values = atomics.iter().filter(|a| a.value.is_some()).count();
    if with_values > 1 {
        return Err(format!("{context}: {with_values} <atomic> elements have an op; at most one may"));
    }
    let returns = match f.returns {
        None if with_values == 1 => ReturnModel::Atomic,
        Some(_) if with_values == 1 => {
            return Err(format!("{context}: <returns> and an <atomic> with op exclude each other (the atomic's returns is the result)"));
        }
        None => ReturnModel::Havoc,
        Some(r) => {
            let context = format!("{context} <returns>");
            match (choice(&context, "kind", &r.kind, RETURN_KINDS)?, r.arg) {
                (ReturnKind::Arg, Some(arg)) => ReturnModel::Arg(arg),
                (ReturnKind::Arg, None) => return Err(format!("{context}: kind=\"arg\" needs arg")),
                (_, Some(_)) => return Err(format!("{context}: arg is only for kind=\"arg\"")),
                (ReturnKind::Havoc, None) => ReturnModel::Havoc,
                (ReturnKind::AnyOfType, None) => ReturnModel::AnyOfType,
                (ReturnKind::Fresh, None) => ReturnModel::Fresh,
                (ReturnKind::NullOrFresh, None) => ReturnModel::NullOrFresh,
                (ReturnKind::ErrorOrFresh, None) => ReturnModel::ErrorOrFresh,
                (ReturnKind::Uninterpreted, None) => ReturnModel::Uninterpreted,
                (ReturnKind::Never, None) => ReturnModel::Never,
            }
        }
    };
    let keeps = match f.keeps.as_deref().map(str::trim) {
        None => None,
        Some("none") => Some(Vec::new()),
        Some(list) => Some(
            list.split_whitespace()
                .map(|w| w.parse::<usize>().map_err(|_| format!("{context}: keeps must be `none` or argument indexes, not `{list}`")))
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    if keeps.as_ref().is_some_and(|k| k.is_empty()) && f.keeps.as_deref().map(str::trim) != Some("none") {
        return Err(format!("{context}: keeps is empty (write `none`)"));
    }
    let fresh = matches!(returns, ReturnModel::Fresh | ReturnModel::NullOrFresh);
    let allocates = match f.allocates.as_deref() {
        None => fresh,
        Some("true") => true,
        Some("false") => false,
        Some(other) => return Err(format!("{context}: allocates must be true or false, not `{other}`")),
    };
    let calls_back = match f.calls_back.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => return Err(format!("{context}: calls-back must be true or false, not `{other}`")),
    };
    let keeps_last = match f.keeps_last.as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => return Err(format!("{context}: keeps-last must be true or false, not `{other}`")),
    };
    Ok(FunctionModel { name: f.name, reads, writes, atomics, returns, keeps, allocates, calls_back, keeps_last, reason: f.reason })
}

#[cfg(test)]
mod tests {
    use super::super::{KernelModels, ModelError};
    use super::*;
    use std::path::PathBuf;

    fn load(rules: &str) -> Result<KernelModels, ModelError> {
        let xml = format!(r#"<kernel-model kernel="6.12">{rules}</kernel-model>"#);
        KernelModels::from_files(&[(PathBuf::from("functions.xml"), xml)])
    }

    fn rejected(rules: &str, expected: &str) {
        let e = load(rules).expect_err(rules);
        assert!(e.message.contains(expected), "expected `{expected}` in: {}", e.message);
    }

    #[test]
    fn any_of_type_results() {
        let m = load(r#"<function name="__VERIFIER_nondet_int" keeps="none" reason="r"><returns kind="any-of-type"/></function>"#).unwrap();
        assert_eq!(m.functions["__VERIFIER_nondet_int"].returns, ReturnModel::AnyOfType);
        assert!(load(r#"<function name="f" reason="r"><returns kind="any-of-type" arg="0"/></function>"#).is_err(), "no arg for any-of-type");
    }

    #[test]
    fn effects_in_any_order_and_defaults() {
        let m = load(
            r#"<function name="memcpy" reason="r">
                 <writes arg="0" size-arg="2"/><reads arg="1" size-arg="2"/><returns kind="arg" arg="0"/>
               </function>
               <function name="strcat" reason="r">
                 <reads arg="1" extent="unbounded"/><writes arg="0" extent="unbounded"/><reads arg="0" extent="unbounded"/>
               </function>
               <function name="atomic_add" reason="r"><atomic arg="1" access="rmw"/></function>
               <function name="_printk" reason="r"/>"#,
        )
        .unwrap();
        let memcpy = &m.functions["memcpy"];
        assert_eq!(memcpy.writes, vec![MemoryEffect { arg: 0, extent: Extent::SizeArg(2), field: None, may: false }]);
        assert_eq!(memcpy.reads, vec![MemoryEffect { arg: 1, extent: Extent::SizeArg(2), field: None, may: false }]);
        assert_eq!(memcpy.returns, ReturnModel::Arg(0));
        assert_eq!(m.functions["strcat"].reads.len(), 2);
        let add = &m.functions["atomic_add"];
        assert_eq!(add.atomics, vec![AtomicEffect { arg: 1, access: AtomicAccess::Rmw, extent: Extent::Pointee, value: None, field: None }]);
        assert_eq!(add.returns, ReturnModel::Havoc);
        assert!(m.functions["_printk"].has_no_effect());
        assert!(m.functions["memcpy"].may_keep(1), "every argument may be kept by default");
    }

    #[test]
    fn field_paths_on_memory_and_atomic_effects() {
        let m = load(
            r#"<function name="push" reason="r"><reads arg="0" field="buf"/><writes arg="0" field="buf.tail" may="true"/></function>
               <function name="anchor" reason="r"><atomic arg="0" field="anchor_list" access="rmw"/></function>"#,
        )
        .unwrap();
        assert_eq!(m.functions["push"].writes, vec![MemoryEffect { arg: 0, extent: Extent::Pointee, field: Some("buf.tail".into()), may: true }]);
        assert_eq!(m.functions["anchor"].atomics[0].field.as_deref(), Some("anchor_list"));
        rejected(r#"<function name="f" reason="r"><writes arg="0" field="buf..tail"/></function>"#, "dotted path");
        rejected(r#"<function name="f" reason="r"><atomic arg="0" field="" access="read"/></function>"#, "dotted path");
        rejected(r#"<function name="f" reason="r"><atomic arg="0" field="a" access="read" extent="unbounded"/></function>"#, "field excludes extent");
        rejected(
            r#"<function name="f" reason="r"><atomic arg="0" field="a" access="rmw" op="add" value-arg="1" returns="new"/></function>"#,
            "field excludes a value operation",
        );
    }

    #[test]
    fn keeps_and_allocates() {
        let m = load(
            r#"<function name="memcpy" reason="r" keeps="none"/>
               <function name="list_add" reason="r" keeps="0"/>
               <function name="kmalloc" reason="r"><returns kind="null-or-fresh"/></function>
               <function name="krealloc" reason="r" allocates="false"><returns kind="null-or-fresh"/></function>
               <function name="memdup_user" reason="r" allocates="true"/>
               <function name="submit_bio" reason="r" keeps-last="true"/>"#,
        )
        .unwrap();
        assert!(m.functions["submit_bio"].keeps_last && !m.functions["memcpy"].keeps_last);
        rejected(r#"<function name="f" reason="r" keeps-last="yes"/>"#, "keeps-last must be");
        assert!(!m.functions["memcpy"].may_keep(0));
        assert!(m.functions["list_add"].may_keep(0) && !m.functions["list_add"].may_keep(1));
        assert!(m.functions["kmalloc"].allocates && m.functions["memdup_user"].allocates);
        assert!(!m.functions["krealloc"].allocates && !m.functions["memcpy"].allocates);
        rejected(r#"<function name="f" reason="r" keeps="all"/>"#, "keeps must be");
        rejected(r#"<function name="f" reason="r" keeps=""/>"#, "keeps is empty");
        rejected(r#"<function name="f" reason="r" allocates="yes"/>"#, "allocates must be");
    }

    #[test]
    fn returns_is_checked() {
        rejected(r#"<function name="f" reason="r"><returns kind="arg"/></function>"#, "kind=\"arg\" needs arg");
        rejected(r#"<function name="f" reason="r"><returns kind="fresh" arg="0"/></function>"#, "arg is only for kind=\"arg\"");
        rejected(
            r#"<function name="f" reason="r"><returns kind="new"/></function>"#,
            "function `f` <returns>: unknown kind `new` (expected one of havoc, fresh,",
        );
        rejected(
            r#"<function name="f" reason="r"><returns kind="fresh"/><returns kind="havoc"/></function>"#,
            "returns",
        );
    }

    #[test]
    fn accesses_are_checked() {
        rejected(
            r#"<function name="f" reason="r"><writes arg="0" size-arg="2" extent="unbounded"/></function>"#,
            "function `f` <writes arg=\"0\">: size-arg and extent exclude each other",
        );
        rejected(r#"<function name="f" reason="r"><reads arg="1" size-arg="1"/></function>"#, "is the pointer argument itself");
        rejected(r#"<function name="f" reason="r"><reads arg="0" extent="all"/></function>"#, "unknown extent `all`");
        rejected(r#"<function name="f" reason="r"><atomic arg="0" access="inc"/></function>"#, "unknown access `inc`");
        rejected(r#"<function name="f" reason="r"><atomic arg="0" access="rmw" size-arg="1"/></function>"#, "size-arg");
        rejected(r#"<function name="f" reason="r"><frees arg="0"/></function>"#, "frees");
        rejected(r#"<function name="f"/>"#, "reason");
    }
}
