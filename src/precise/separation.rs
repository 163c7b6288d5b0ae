//! Memory separation in the precise phase: distinct objects never overlap,
//! and an object's fields lie inside it.
//!
//! # Algorithm
//!
//! The lowering gives every object's address as an integer with nothing
//! keeping two objects apart: an allocator's result is `havoc r; assume r
//! = 0 ∨ r > 0`, a local in memory is `havoc a; assume a > 0` on entry to
//! its function, and a global's address is an uninterpreted constant
//! `addr_NAME()`. Left so, a model may place two threads' copies of one
//! local, or two allocations, or two globals at one address (or at
//! addresses a field offset apart), and "confirm" a race between accesses
//! to different objects. Here every object gets an address no other
//! object shares, by a bump allocator over the integers:
//!
//! - the n-th allocation made in the expansion of a pair (an allocator's
//!   result, [`crate::ir::Address`]) is at `HEAP + n · STRIDE`, and the
//!   n-th local's frame (every call of a function and each of the two
//!   threads creates its own) at `LOCALS + n · STRIDE`, where `STRIDE` (2^40 bytes) exceeds any object a
//!   kernel allocator returns or a stack holds, so its fields
//!   (`base + offset`, offset below its size) lie inside it and apart
//!   from every other object's; an allocator that may fail returns
//!   either that address or NULL, by a fresh choice;
//! - the globals are laid out one after the other from `GLOBALS`, each
//!   at an address aligned to 64 bytes and past the previous one's size,
//!   so distinct globals never overlap; a global of unknown size gets no
//!   fixed address (and so no separation);
//! - an address at an unknown offset from another (a model's ranged
//!   effect on what an argument points to, an array's elements:
//!   [`crate::ir::Program::inside`]) lies inside the object that address
//!   points into, below the end of its stride, or below `HEAP` for an
//!   object made before the pair: a ranged access through one thread's
//!   local never reaches the other thread's frame;
//! - the pointer arguments the kernel passes to the pair's entry points
//!   point to objects that existed before the pair's threads started:
//!   below `HEAP`, or into an object init created when init ran alone
//!   first (probe's private structure, handed to a callback through the
//!   object it registered); never into an object one of the two threads
//!   creates (nor into one of init's locals, whose calls have returned:
//!   the replay rejects such a witness).
//!
//! - the functions' addresses (`fn_NAME()`, the value of a function
//!   designator) are laid out one after the other from `FUNCTIONS`, 64
//!   bytes apart, below the globals: distinct, and never NULL, so that a
//!   call through a function pointer takes the branch of the function the
//!   pointer holds and no other (src/frontend/lower/calls.rs assumes the
//!   pointer equals the target's address in each branch).
//!
//! `HEAP` is 2^64, above every value of a C pointer, so no integer a
//! driver computes from its arguments reaches it except through an
//! object's address.
//!
//! # Soundness
//!
//! The kernel's allocators (mm/slub.c `kmalloc`, mm/vmalloc.c) return
//! memory no live object uses; each call of a function gets its own stack
//! frame (and each thread its own stack); the linker places distinct
//! globals at distinct addresses. Fixing where objects are changes no
//! execution except through comparisons of addresses with arbitrary
//! values (an uninterpreted initial memory or a havocked result), which
//! could already take any value: the set of executions only loses those
//! where two distinct objects overlap, which no kernel execution has. So
//! a `confirmed` witness gains a fact the kernel guarantees, and a
//! `not-found` stays "within the bounds". Concrete addresses also make
//! most address comparisons in the read chains constant, which shortens
//! them. A value read from initial memory could still equal an address
//! the pair allocates; the witness replay ([`super::replay`]) rejects a
//! witness that uses one.

use crate::ir::{Address, Expr, Program};
use crate::solver::{TermBank, TermId};

/// Where the objects created during the pair start: above every C
/// pointer value.
pub const HEAP: i128 = 1 << 64;
/// The distance between two objects created during the pair.
pub const STRIDE: i128 = 1 << 40;
/// Where the locals' frames created during the pair start: above every
/// allocation (2^20 of them fit below), so that "an address in an
/// allocation init made" is one comparison.
pub const LOCALS: i128 = HEAP + (1 << 60);
/// Where the globals are laid out.
pub const GLOBALS: i128 = 1 << 56;
/// Where the functions' addresses are laid out: below the globals, above
/// the first page.
pub const FUNCTIONS: i128 = 1 << 52;
/// The end of the first page: an access below it is a NULL dereference.
pub const NULL_PAGE: i128 = 4096;

/// The bump allocator of one pair's expansion.
#[derive(Default)]
pub struct Bump {
    next: i128,
    next_local: i128,
    /// Each object made so far, by its base: what it is in C, for
    /// witnesses ([`describe`]).
    pub names: Vec<(i128, String)>,
    /// How many objects each site (its unnumbered name) made so far.
    per_site: std::collections::HashMap<String, usize>,
}

impl Bump {
    /// Where the allocations made so far end: every allocation lies
    /// below, every local's frame above ([`LOCALS`]).
    pub fn end(&self) -> i128 {
        HEAP + self.next * STRIDE
    }

    /// The address of the next local's frame: apart from the
    /// allocations, above [`LOCALS`].
    pub fn local(&mut self) -> i128 {
        let a = LOCALS + self.next_local * STRIDE;
        self.next_local += 1;
        a
    }

    /// The address of the next new object.
    pub fn next(&mut self) -> i128 {
        let a = HEAP + self.next * STRIDE;
        self.next += 1;
        a
    }

    /// Records what the object at `base` is in C; the second and later
    /// objects of one site (a loop's allocations, a function's frames)
    /// are numbered.
    pub fn name(&mut self, base: i128, what: &str, site: &str) {
        let made = self.per_site.entry(format!("{what} {site}")).or_default();
        *made += 1;
        let name = if *made == 1 { format!("{what} {site}") } else { format!("{what} #{made} {site}") };
        self.names.push((base, name));
    }
}

/// What a havocked variable receives: the object kind, if it is an
/// object's address.
pub fn object(program: &Program, v: crate::ir::VarId) -> Option<Address> {
    program.addresses.get(&v).copied()
}

/// The facts fixing every global of known size at its own address, laid
/// out from [`GLOBALS`] in the order of their address functions.
pub fn globals(t: &mut TermBank, program: &Program) -> Vec<TermId> {
    let mut at = GLOBALS;
    let mut facts = Vec::new();
    for (&f, &size) in &program.global_sizes {
        let address = crate::verify::solving::translate_with(t, program, &mut |_| unreachable!(), &Expr::Apply(f, Vec::new()));
        let value = t.int(at);
        facts.push(t.eq(address, value));
        at += align(i128::from(size));
    }
    facts
}

/// The facts fixing every function's address apart
/// ([`function_layout`]).
pub fn functions(t: &mut TermBank, program: &Program) -> Vec<TermId> {
    let mut facts = Vec::new();
    for (f, at) in function_layout(program) {
        let address = crate::verify::solving::translate_with(t, program, &mut |_| unreachable!(), &Expr::Apply(f, Vec::new()));
        let value = t.int(at);
        facts.push(t.eq(address, value));
    }
    facts
}

/// The address of each function ([`Program::function_addresses`]): from
/// [`FUNCTIONS`], 64 bytes apart, in the order of their address functions;
/// only the functions whose address a command evaluates or a global starts
/// with (the others change no execution, and facts about them would only
/// change the solver's models).
pub fn function_layout(program: &Program) -> Vec<(crate::ir::FuncId, i128)> {
    let mut used: std::collections::BTreeSet<crate::ir::FuncId> = program.global_functions.values().copied().collect();
    for (_, p) in program.procedures.iter() {
        for (_, b) in p.blocks.iter() {
            for e in b.commands.iter().flat_map(|c| c.expressions()) {
                e.walk(&mut |sub| {
                    if let Expr::Apply(f, args) = sub {
                        if args.is_empty() && program.function_addresses.contains(f) {
                            used.insert(*f);
                        }
                    }
                });
            }
        }
    }
    program
        .function_addresses
        .iter()
        .enumerate()
        .filter(|(_, f)| used.contains(f))
        .map(|(i, &f)| (f, FUNCTIONS + 64 * i as i128))
        .collect()
}

/// The addresses of the globals, as [`globals`] lays them out: each
/// global's base and size.
pub fn global_layout(program: &Program) -> Vec<(i128, i128)> {
    let mut at = GLOBALS;
    let mut out = Vec::new();
    for &size in program.global_sizes.values() {
        out.push((at, i128::from(size)));
        at += align(i128::from(size));
    }
    out
}

/// The addresses and sizes of the read-only globals
/// ([`crate::ir::Program::read_only`]), as [`globals`] lays them out.
pub fn read_only_layout(program: &Program) -> Vec<(i128, i128)> {
    program
        .global_sizes
        .keys()
        .zip(global_layout(program))
        .filter(|(f, _)| program.read_only.contains(f))
        .map(|(_, layout)| layout)
        .collect()
}

fn align(size: i128) -> i128 {
    (size.max(1) + 63) / 64 * 64
}

/// Where the object that address `b` points into ends, as the layout
/// knows it: the end of its stride for an object created during the pair
/// (at or above [`HEAP`]), else [`HEAP`] (no object made before the pair
/// reaches the pair's own). An access at an unknown offset from `b`
/// ([`crate::ir::Program::inside`]) stays below it: C keeps a pointer's
/// arithmetic inside its object.
pub fn object_end(t: &mut TermBank, b: TermId) -> TermId {
    let heap = t.int(HEAP);
    let stride = t.int(STRIDE);
    let from_heap = t.sub(b, heap);
    let into = t.modulo(from_heap, stride);
    let base = t.sub(b, into);
    let end = t.add(&[base, stride]);
    let pair_object = t.ge(b, heap);
    t.ite(pair_object, end, heap)
}

/// The same end for a concrete address (the replay's check).
pub fn object_end_of(b: i128) -> i128 {
    if b >= HEAP { b - (b - HEAP).rem_euclid(STRIDE) + STRIDE } else { HEAP }
}

/// Whether an integer is in the range of the objects created during the
/// pair.
pub fn in_heap(value: i128) -> bool {
    value >= HEAP
}

/// An address in C terms, for a witness: the global, the allocation or
/// the local it lies in, with the offset into it, as the layout placed
/// them; an address below the globals is an object that existed before
/// init (in the arbitrary memory the search starts from), which has no
/// name.
pub fn describe(program: &Program, objects: &[(i128, String)], a: i128) -> String {
    if let Some(known) = known(program, objects, a) {
        return known;
    }
    match a {
        0 => "NULL".to_string(),
        a if a > 0 && a < NULL_PAGE => format!("NULL + {a}"),
        a if a >= HEAP => "an object made during the run".to_string(),
        _ => "an object that existed before init".to_string(),
    }
}

/// The object `a` lies in, when the layout placed one there: a global,
/// or an allocation or local of the run ([`Bump::names`]), with the
/// offset into it.
pub fn known(program: &Program, objects: &[(i128, String)], a: i128) -> Option<String> {
    let offset = |base: i128| if a == base { String::new() } else { format!(" + {}", a - base) };
    if a >= HEAP {
        let (base, what) = objects.iter().rev().find(|(b, _)| *b <= a && a < *b + STRIDE)?;
        return Some(format!("{what}{}", offset(*base)));
    }
    if a < GLOBALS {
        return None;
    }
    let ((f, _), (base, _)) = program.global_sizes.iter().zip(global_layout(program)).find(|(_, (base, size))| *base <= a && a < base + size.max(&1))?;
    let name = &program.functions[*f].name;
    let name = name.strip_prefix("addr_").unwrap_or(name);
    let name = if name.starts_with("string_literal") { "a string literal" } else { name };
    Some(format!("{name}{}", offset(base)))
}
