//! The values of many terms in one model, each subterm evaluated once.
//!
//! # Algorithm
//!
//! A witness asks for the value of every executed step's path condition,
//! round, address and value: thousands of terms sharing most of their
//! subterms (a path condition is the conjunction of every branch before
//! it). z3's model evaluator caches only within one call, so asking it for
//! each term separately is quadratic; on the real drivers it took longer
//! than the solving. Here the bank's terms are evaluated bottom-up with one
//! cache for the whole model, following only the taken branch of an
//! `if-then-else` (a read chain is as long as the writes before it). z3 is
//! asked only for the leaves: variables and applications of uninterpreted
//! functions, with model completion, and for any node whose value cannot
//! be computed here (an operand z3 could not evaluate, an integer that
//! overflows an `i128`, a division by zero, which SMT-LIB leaves to the
//! model).
//!
//! # Soundness
//!
//! The operators are computed with their SMT-LIB meaning (Euclidean `div`
//! and `mod`, as the bank folds them), so every value is the one z3 would
//! give; the evaluation only reads the model.

use crate::solver::{Model, Sort, Term, TermBank, TermId};
use std::collections::HashMap;

/// A value of a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Bool(bool),
    Int(i128),
}

/// The values of one model's terms, cached.
pub struct Values<'a> {
    terms: &'a TermBank,
    model: &'a Model,
    cache: HashMap<TermId, Option<Value>>,
}

impl<'a> Values<'a> {
    /// An empty cache over `model`, a model of a solver over `terms`.
    pub fn new(terms: &'a TermBank, model: &'a Model) -> Values<'a> {
        Values { terms, model, cache: HashMap::new() }
    }

    /// The value of a Boolean term.
    pub fn bool(&mut self, t: TermId) -> Option<bool> {
        match self.eval(t)? {
            Value::Bool(b) => Some(b),
            Value::Int(_) => None,
        }
    }

    /// Whether a term is a constant, whose value holds in every model.
    pub fn is_constant(&self, t: TermId) -> bool {
        self.terms.as_int(t).is_some() || self.terms.as_bool(t).is_some()
    }

    /// The value of an integer term.
    pub fn int(&mut self, t: TermId) -> Option<i128> {
        match self.eval(t)? {
            Value::Int(i) => Some(i),
            Value::Bool(_) => None,
        }
    }

    fn cached(&self, t: TermId) -> Option<Option<Value>> {
        self.cache.get(&t).copied()
    }

    /// Evaluates `root`, children before parents, with an explicit stack
    /// (path conditions nest as deep as the expansion is long).
    fn eval(&mut self, root: TermId) -> Option<Value> {
        let mut stack = vec![root];
        while let Some(&t) = stack.last() {
            if self.cache.contains_key(&t) {
                stack.pop();
                continue;
            }
            let needed: Vec<TermId> = match self.terms.term(t) {
                // Only the branch taken.
                Term::Ite(c, a, b) => match self.cached(*c) {
                    None => vec![*c],
                    Some(Some(Value::Bool(true))) => vec![*a],
                    Some(Some(Value::Bool(false))) => vec![*b],
                    Some(_) => Vec::new(),
                },
                // A leaf for z3.
                Term::App(..) => Vec::new(),
                term => term.children().collect(),
            };
            let missing: Vec<TermId> = needed.into_iter().filter(|c| !self.cache.contains_key(c)).collect();
            if missing.is_empty() {
                let v = self.node(t);
                self.cache.insert(t, v);
                stack.pop();
            } else {
                stack.extend(missing);
            }
        }
        self.cached(root).flatten()
    }

    /// The value of `t` from its children's cached values, else z3's.
    fn node(&self, t: TermId) -> Option<Value> {
        self.compute(t).or_else(|| self.ask_z3(t))
    }

    fn ask_z3(&self, t: TermId) -> Option<Value> {
        match self.terms.sort(t) {
            Sort::Bool => self.model.eval_bool(self.terms, t).map(Value::Bool),
            Sort::Int => self.model.eval_int(self.terms, t).map(Value::Int),
        }
    }

    /// The node's value computed here; `None` to ask z3.
    fn compute(&self, t: TermId) -> Option<Value> {
        let v = |c: &TermId| self.cached(*c).flatten();
        let b = |c: &TermId| match v(c) {
            Some(Value::Bool(x)) => Some(x),
            _ => None,
        };
        let i = |c: &TermId| match v(c) {
            Some(Value::Int(x)) => Some(x),
            _ => None,
        };
        let ints = |cs: &[TermId]| cs.iter().map(i).collect::<Option<Vec<i128>>>();
        let bools = |cs: &[TermId]| cs.iter().map(b).collect::<Option<Vec<bool>>>();
        Some(match self.terms.term(t) {
            Term::Bool(x) => Value::Bool(*x),
            Term::Int(x) => Value::Int(*x),
            Term::App(..) => return None,
            Term::Not(a) => Value::Bool(!b(a)?),
            Term::And(cs) => Value::Bool(bools(cs)?.into_iter().all(|x| x)),
            Term::Or(cs) => Value::Bool(bools(cs)?.into_iter().any(|x| x)),
            Term::Implies(a, c) => Value::Bool(!b(a)? || b(c)?),
            Term::Ite(c, x, y) => {
                if b(c)? {
                    v(x)?
                } else {
                    v(y)?
                }
            }
            Term::Eq(x, y) => Value::Bool(v(x)? == v(y)?),
            Term::Distinct(cs) => {
                let vals = cs.iter().map(v).collect::<Option<Vec<Value>>>()?;
                Value::Bool(vals.iter().enumerate().all(|(n, x)| !vals[..n].contains(x)))
            }
            Term::Compare(op, x, y) => {
                let (x, y) = (i(x)?, i(y)?);
                Value::Bool(match op {
                    crate::solver::Comparison::Lt => x < y,
                    crate::solver::Comparison::Le => x <= y,
                    crate::solver::Comparison::Gt => x > y,
                    crate::solver::Comparison::Ge => x >= y,
                })
            }
            Term::Add(cs) => Value::Int(ints(cs)?.into_iter().try_fold(0i128, i128::checked_add)?),
            Term::Mul(cs) => Value::Int(ints(cs)?.into_iter().try_fold(1i128, i128::checked_mul)?),
            Term::Sub(x, y) => Value::Int(i(x)?.checked_sub(i(y)?)?),
            Term::Neg(x) => Value::Int(i(x)?.checked_neg()?),
            Term::Div(x, y) => {
                let (x, y) = (i(x)?, i(y)?);
                if y == 0 {
                    return None;
                }
                Value::Int(x.checked_div_euclid(y)?)
            }
            Term::Mod(x, y) => {
                let (x, y) = (i(x)?, i(y)?);
                if y == 0 {
                    return None;
                }
                Value::Int(x.checked_rem_euclid(y)?)
            }
        })
    }
}
