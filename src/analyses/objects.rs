//! Distinct kernel objects: which parameters of the two entry points of a
//! pair the kernel guarantees to point to different objects.
//!
//! # Algorithm
//!
//! Each entry point lists the kernel objects it receives whose lifetime
//! the kernel orders (`EntryPointInfo::objects`, from the models'
//! object-lifetime rules). For a pair (A, B) and a rule both match, when A
//! or B is the object's `begin` or `end` callback (an `open` or a
//! `release` of a file), the two calls cannot be on the same object at the
//! same time: the kernel runs the begin callback on a new object before it
//! lets any other callback reach it, and the end callback after every
//! other call on it has returned. So the pair's two objects are distinct,
//! and accesses one entry point makes through its object never touch the
//! other's. Two `during` calls (two reads of one open file) get nothing.
//!
//! # Soundness
//!
//! The constraint removes only interleavings in which the two calls share
//! the object, which the rule's kernel mechanism excludes
//! (kernel-models/lifetimes/, docs/soundness.md). Both phases encode it the
//! same way ([`separated`]): the two addresses lie further apart than any
//! object's size, so an address computed from one object (its fields,
//! elements of its arrays) cannot equal one computed from the other. Memory
//! the object points to (`file->private_data`) is not constrained: two
//! files may share it.

use crate::ir::{Command, EntryPointInfo, Expr, Program};
use crate::models::Stage;

/// Two addresses at least this far apart belong to different objects: no
/// kernel object is this large (the address space of x86-64 is 2^47).
pub const OBJECT_GAP: i128 = 1 << 48;

/// A pair of parameters that point to distinct objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distinct {
    /// The rule that says so.
    pub rule: String,
    /// The parameter of the pair's first entry point.
    pub first: usize,
    /// The parameter of the second.
    pub second: usize,
}

/// The parameters of entry points `a` and `b` (indices into the program's
/// entry points) that the kernel guarantees to point to distinct objects.
pub fn distinct_params(program: &Program, a: usize, b: usize) -> Vec<Distinct> {
    let entries: Vec<_> = program.entry_points.values().collect();
    let (Some(ea), Some(eb)) = (entries.get(a), entries.get(b)) else { return Vec::new() };
    let mut out = Vec::new();
    for oa in &ea.objects {
        for ob in eb.objects.iter().filter(|o| o.rule == oa.rule) {
            if oa.stage != Stage::During || ob.stage != Stage::During {
                out.push(Distinct { rule: oa.rule.clone(), first: oa.param, second: ob.param });
            }
        }
    }
    out
}

/// `x` and `y` are addresses of different objects.
pub fn separated(x: Expr, y: Expr) -> Expr {
    let gap = Expr::int(OBJECT_GAP);
    Expr::or(Expr::le(Expr::add(x.clone(), gap.clone()), y.clone()), Expr::le(Expr::add(y, gap), x))
}

/// The begin callback of an entry point's object (a file's `open` for its
/// `read`): the precise phase runs it first, to success, in the entry
/// point's thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeginCallback {
    /// The begin callback's entry point, by the index pairs use.
    pub entry: usize,
    /// Its parameter receiving the object.
    pub param: usize,
    /// The parameter of the prefixed entry point holding the object.
    pub own: usize,
    /// The lifetime rule.
    pub rule: String,
}

/// The begin callback of the object entry point `i` (an index into
/// `entries`) receives, if it is known: the entry point receives an object
/// of an `after-begin` lifetime rule at a stage other than begin, every
/// registration names the variable holding its structure, every one of
/// those variables holds the same single begin callback of the driver, of
/// the same rule, and the driver never stores to the object's field naming
/// its operations (`ops-field`, `file->f_op` by `replace_fops`).
pub fn begin_of(program: &Program, entries: &[&EntryPointInfo], i: usize) -> Option<BeginCallback> {
    let e = entries.get(i)?;
    for o in e
        .objects
        .iter()
        .filter(|o| o.after_begin && o.stage != Stage::Begin && !o.holders.is_empty())
    {
        if o.ops_field
            .as_deref()
            .is_some_and(|f| ops_replaced(program, f))
        {
            continue;
        }
        let mut found: Option<(usize, usize)> = None;
        let mut agree = true;
        for h in &o.holders {
            let begins: Vec<(usize, usize)> = entries
                .iter()
                .enumerate()
                .flat_map(|(j, b)| {
                    b.objects
                        .iter()
                        .filter(|p| {
                            p.rule == o.rule && p.stage == Stage::Begin && p.holders.contains(h)
                        })
                        .map(move |p| (j, p.param))
                })
                .collect();
            match (begins.as_slice(), found) {
                ([one], None) => found = Some(*one),
                ([one], Some(f)) if *one == f => {}
                _ => agree = false,
            }
        }
        if let (true, Some((entry, param))) = (agree, found) {
            return Some(BeginCallback {
                entry,
                param,
                own: o.param,
                rule: o.rule.clone(),
            });
        }
    }
    None
}

/// Whether the driver stores to `field` (`struct file.f_op`), through
/// which the rule's object names its operations.
fn ops_replaced(program: &Program, field: &str) -> bool {
    program.procedures.iter().any(|(_, p)| {
        p.blocks.iter().any(|(_, b)| {
            b.commands.iter().any(|c| match c {
                Command::Store { region, .. } => program.regions[*region]
                    .name
                    .split(" | ")
                    .any(|n| n == field),
                _ => false,
            })
        })
    })
}
