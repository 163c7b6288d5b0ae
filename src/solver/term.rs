//! racewatch's own SMT terms: a hash-consed arena ([`TermBank`]) of
//! [`Term`] nodes over booleans, mathematical integers and uninterpreted
//! functions, named by [`TermId`]s.
//!
//! Verification-condition generation builds terms here without knowing z3;
//! the back end (`z3_backend.rs`) translates them and the printer
//! (`smtlib.rs`) writes them as SMT-LIB. The bank hash-conses: building a
//! node that already exists returns the existing id, so a subterm shared by
//! many paths of a VC is one node, translated to z3 once and printed once.
//! Because children are built before their parents, every child's id is
//! smaller than its parent's; the printer relies on that for a topological
//! order without sorting a graph.
//!
//! The constructors check sorts and fold trivial cases (`and` of nothing is
//! `true`, `x + 0` is `x`, constants are evaluated, ...). They never flatten
//! or reorder operands, so a term prints the way it was built. A sort error
//! is a bug in the caller, like an index out of bounds, and panics with the
//! operator and the sorts involved.
//!
//! Variables are 0-ary uninterpreted functions: a [`Decl`] is a name, the
//! argument sorts and the result sort, interned on first use, and the same
//! name with two signatures is two declarations (as in z3).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The sort of a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sort {
    /// A boolean.
    Bool,
    /// A mathematical integer.
    Int,
}

impl Sort {
    /// The SMT-LIB name: `Bool` or `Int`.
    pub fn smtlib_name(self) -> &'static str {
        match self {
            Sort::Bool => "Bool",
            Sort::Int => "Int",
        }
    }
}

/// A term of one [`TermBank`]; prints as `t12`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(u32);

/// A declaration (variable or uninterpreted function) of one [`TermBank`];
/// prints as `d3`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeclId(u32);

impl TermId {
    /// The id's position in its bank.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl DeclId {
    /// The id's position in its bank's declarations.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for TermId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}

impl fmt::Debug for DeclId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "d{}", self.0)
    }
}

/// A variable (no arguments) or an uninterpreted function.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Decl {
    /// The name; any text without a NUL character.
    pub name: String,
    /// The argument sorts; empty for a variable.
    pub args: Box<[Sort]>,
    /// The result sort.
    pub result: Sort,
}

/// An integer comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl Comparison {
    /// The SMT-LIB symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Comparison::Lt => "<",
            Comparison::Le => "<=",
            Comparison::Gt => ">",
            Comparison::Ge => ">=",
        }
    }

    /// The comparison of two known integers.
    pub(super) fn holds(self, a: i128, b: i128) -> bool {
        match self {
            Comparison::Lt => a < b,
            Comparison::Le => a <= b,
            Comparison::Gt => a > b,
            Comparison::Ge => a >= b,
        }
    }
}

/// A node of a [`TermBank`]. The n-ary operators hold at least two operands
/// (the constructors fold smaller cases away).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// `true` or `false`.
    Bool(bool),
    /// An integer constant.
    Int(i128),
    /// A declaration applied to arguments; a variable has none.
    App(DeclId, Box<[TermId]>),
    /// Boolean negation.
    Not(TermId),
    /// Conjunction.
    And(Box<[TermId]>),
    /// Disjunction.
    Or(Box<[TermId]>),
    /// Implication.
    Implies(TermId, TermId),
    /// `if c then a else b`, of the sort of `a` and `b`.
    Ite(TermId, TermId, TermId),
    /// Equality of two terms of one sort.
    Eq(TermId, TermId),
    /// Pairwise difference of terms of one sort.
    Distinct(Box<[TermId]>),
    /// An integer comparison.
    Compare(Comparison, TermId, TermId),
    /// Integer sum.
    Add(Box<[TermId]>),
    /// Integer difference.
    Sub(TermId, TermId),
    /// Integer product.
    Mul(Box<[TermId]>),
    /// Integer negation.
    Neg(TermId),
    /// SMT-LIB integer division (Euclidean: the remainder is never negative).
    Div(TermId, TermId),
    /// SMT-LIB integer modulus, in `[0, |divisor|)`.
    Mod(TermId, TermId),
}

impl Term {
    /// The operands, in order.
    pub fn children(&self) -> Children<'_> {
        match self {
            Term::Bool(_) | Term::Int(_) => Children::Slice([].iter()),
            Term::App(_, args) | Term::And(args) | Term::Or(args) | Term::Distinct(args) => {
                Children::Slice(args.iter())
            }
            Term::Add(args) | Term::Mul(args) => Children::Slice(args.iter()),
            Term::Not(a) | Term::Neg(a) => Children::Fixed([*a, *a, *a], 0, 1),
            Term::Implies(a, b) | Term::Eq(a, b) | Term::Compare(_, a, b) => Children::Fixed([*a, *b, *b], 0, 2),
            Term::Sub(a, b) | Term::Div(a, b) | Term::Mod(a, b) => Children::Fixed([*a, *b, *b], 0, 2),
            Term::Ite(c, a, b) => Children::Fixed([*c, *a, *b], 0, 3),
        }
    }
}

/// The operands of a [`Term`], without allocating.
pub enum Children<'a> {
    /// Up to three operands: the array, the next position, the count.
    Fixed([TermId; 3], usize, usize),
    /// The operands of an n-ary node.
    Slice(std::slice::Iter<'a, TermId>),
}

impl Iterator for Children<'_> {
    type Item = TermId;

    fn next(&mut self) -> Option<TermId> {
        match self {
            Children::Fixed(ids, next, count) => {
                let id = (*next < *count).then(|| ids[*next]);
                *next += usize::from(id.is_some());
                id
            }
            Children::Slice(iter) => iter.next().copied(),
        }
    }
}

/// Hands every bank a distinct identity, so that caches keyed by [`TermId`]
/// can refuse ids of another bank.
static NEXT_BANK: AtomicU64 = AtomicU64::new(1);

/// A hash-consed arena of terms and declarations.
pub struct TermBank {
    identity: u64,
    nodes: Vec<Term>,
    sorts: Vec<Sort>,
    index: HashMap<Term, TermId>,
    decls: Vec<Decl>,
    decl_index: HashMap<Decl, DeclId>,
    /// The bytes the terms take, approximately ([`TermBank::approximate_bytes`]).
    bytes: usize,
}

impl Default for TermBank {
    fn default() -> Self {
        TermBank::new()
    }
}

impl TermBank {
    /// A bank holding `false` and `true`.
    pub fn new() -> TermBank {
        let mut bank = TermBank {
            identity: NEXT_BANK.fetch_add(1, Ordering::Relaxed),
            nodes: Vec::new(),
            sorts: Vec::new(),
            index: HashMap::new(),
            decls: Vec::new(),
            decl_index: HashMap::new(),
            bytes: 0,
        };
        bank.intern(Term::Bool(false), Sort::Bool);
        bank.intern(Term::Bool(true), Sort::Bool);
        bank
    }

    /// This bank's identity, distinct from every other bank's in the process.
    pub fn identity(&self) -> u64 {
        self.identity
    }

    /// How many distinct terms the bank holds.
    pub fn num_terms(&self) -> usize {
        self.nodes.len()
    }

    /// About how many bytes the bank's terms take: each node is held twice
    /// (in the arena and as the key of its hash-consing index), with its
    /// operands, plus the index entry's id and control bytes and the sort.
    /// Vectors' spare capacity is not counted. The precise phase bounds a
    /// pair's encoding by it (`--pair-memory`).
    pub fn approximate_bytes(&self) -> usize {
        self.bytes
    }

    /// The node `t` names.
    ///
    /// # Panics
    ///
    /// When `t` is not a term of this bank.
    pub fn term(&self, t: TermId) -> &Term {
        &self.nodes[t.index()]
    }

    /// The sort of `t`.
    pub fn sort(&self, t: TermId) -> Sort {
        self.sorts[t.index()]
    }

    /// The declaration `d` names.
    pub fn decl(&self, d: DeclId) -> &Decl {
        &self.decls[d.index()]
    }

    /// Every declaration, in the order of first use.
    pub fn decls(&self) -> impl ExactSizeIterator<Item = (DeclId, &Decl)> {
        self.decls.iter().enumerate().map(|(n, d)| (DeclId(n as u32), d))
    }

    /// The constant of `t`, if it is a boolean constant.
    pub fn as_bool(&self, t: TermId) -> Option<bool> {
        if let Term::Bool(b) = self.term(t) { Some(*b) } else { None }
    }

    /// The constant of `t`, if it is an integer constant.
    pub fn as_int(&self, t: TermId) -> Option<i128> {
        if let Term::Int(i) = self.term(t) { Some(*i) } else { None }
    }

    /// The id of `term`, adding it if it is new.
    pub(super) fn intern(&mut self, term: Term, sort: Sort) -> TermId {
        if let Some(&id) = self.index.get(&term) {
            return id;
        }
        let id = TermId(u32::try_from(self.nodes.len()).expect("a term bank holds fewer than 2^32 terms"));
        self.bytes += 2 * (std::mem::size_of::<Term>() + std::mem::size_of::<TermId>() * term.children().count()) + 16;
        self.nodes.push(term.clone());
        self.sorts.push(sort);
        self.index.insert(term, id);
        id
    }

    /// Panics unless `t` has sort `sort`.
    pub(super) fn expect(&self, operator: &str, t: TermId, sort: Sort) {
        let found = self.sort(t);
        assert!(found == sort, "`{operator}` takes {sort:?} operands, got {t:?} of sort {found:?}");
    }

    /// Panics unless `ts` all have one sort, and returns it (`None` if `ts`
    /// is empty).
    pub(super) fn same_sort(&self, operator: &str, ts: &[TermId]) -> Option<Sort> {
        let first = self.sort(*ts.first()?);
        for &t in ts {
            let found = self.sort(t);
            assert!(found == first, "`{operator}` takes operands of one sort, got {first:?} and {found:?}");
        }
        Some(first)
    }

    // Constants and declarations.

    /// `true` or `false` (interned by [`TermBank::new`] as ids 1 and 0).
    pub fn bool(&self, value: bool) -> TermId {
        TermId(u32::from(value))
    }

    /// An integer constant.
    pub fn int(&mut self, value: i128) -> TermId {
        self.intern(Term::Int(value), Sort::Int)
    }

    /// Declares an uninterpreted function (or, with no arguments, a
    /// variable); declaring it again returns the same id.
    ///
    /// # Panics
    ///
    /// When `name` holds a NUL character, which no solver accepts.
    pub fn declare(&mut self, name: &str, args: &[Sort], result: Sort) -> DeclId {
        assert!(!name.contains('\0'), "declaration name {name:?} holds a NUL character");
        let decl = Decl { name: name.to_string(), args: args.into(), result };
        if let Some(&id) = self.decl_index.get(&decl) {
            return id;
        }
        let id = DeclId(u32::try_from(self.decls.len()).expect("a term bank holds fewer than 2^32 declarations"));
        self.decls.push(decl.clone());
        self.decl_index.insert(decl, id);
        id
    }

    /// The variable `name` of sort `sort`, declared on first use.
    pub fn var(&mut self, name: &str, sort: Sort) -> TermId {
        let d = self.declare(name, &[], sort);
        self.apply(d, &[])
    }

    /// `f` applied to `args`.
    ///
    /// # Panics
    ///
    /// When the arguments do not match `f`'s argument sorts.
    pub fn apply(&mut self, f: DeclId, args: &[TermId]) -> TermId {
        let decl = &self.decls[f.index()];
        assert!(
            decl.args.len() == args.len(),
            "`{}` takes {} arguments, got {}",
            decl.name,
            decl.args.len(),
            args.len()
        );
        for (&a, &sort) in args.iter().zip(decl.args.iter()) {
            let found = self.sort(a);
            assert!(found == sort, "`{}` takes a {sort:?} argument, got {a:?} of sort {found:?}", decl.name);
        }
        let result = decl.result;
        self.intern(Term::App(f, args.into()), result)
    }
}
