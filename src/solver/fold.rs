//! The constructors of [`TermBank`] for connectives, comparisons and
//! arithmetic, each folding its trivial cases.
//!
//! Folding is local and cheap: constants are evaluated (integer arithmetic
//! only when it fits an `i128`; an overflow keeps the node, whose meaning is
//! the mathematical one), neutral and absorbing operands are dropped,
//! duplicate operands of `and`/`or` are removed, `x op x` is decided where
//! the answer does not depend on `x`, and an n-ary node left with fewer
//! than two operands becomes its operand or its neutral element. Nothing is
//! flattened or reordered, so the cost is linear in the operands and a term
//! prints as it was built. Division follows SMT-LIB: `div` and `mod` are
//! Euclidean (Rust's `div_euclid`/`rem_euclid`), and a division by zero is
//! left unevaluated, since SMT-LIB leaves its value unspecified.

use super::term::{Comparison, Sort, Term, TermBank, TermId};
use std::collections::HashSet;

impl TermBank {
    /// `¬a`.
    pub fn not(&mut self, a: TermId) -> TermId {
        self.expect("not", a, Sort::Bool);
        if let Some(b) = self.as_bool(a) {
            return self.bool(!b);
        }
        if let Term::Not(inner) = self.term(a) {
            return *inner;
        }
        self.intern(Term::Not(a), Sort::Bool)
    }

    /// The conjunction of `args`; `true` if there are none.
    pub fn and(&mut self, args: &[TermId]) -> TermId {
        self.junction("and", args, true)
    }

    /// The disjunction of `args`; `false` if there are none.
    pub fn or(&mut self, args: &[TermId]) -> TermId {
        self.junction("or", args, false)
    }

    /// `and` (when `neutral` is true) or `or`: the neutral constant is
    /// dropped, its negation absorbs, duplicates go.
    fn junction(&mut self, operator: &str, args: &[TermId], neutral: bool) -> TermId {
        let mut seen = HashSet::new();
        let mut kept = Vec::with_capacity(args.len());
        for &a in args {
            self.expect(operator, a, Sort::Bool);
            match self.as_bool(a) {
                Some(b) if b == neutral => {}
                Some(_) => return self.bool(!neutral),
                None => {
                    if seen.insert(a) {
                        kept.push(a);
                    }
                }
            }
        }
        match kept.as_slice() {
            [] => self.bool(neutral),
            [only] => *only,
            _ if neutral => self.intern(Term::And(kept.into()), Sort::Bool),
            _ => self.intern(Term::Or(kept.into()), Sort::Bool),
        }
    }

    /// `a ⇒ b`.
    pub fn implies(&mut self, a: TermId, b: TermId) -> TermId {
        self.expect("=>", a, Sort::Bool);
        self.expect("=>", b, Sort::Bool);
        match (self.as_bool(a), self.as_bool(b)) {
            (Some(false), _) | (_, Some(true)) => self.bool(true),
            (Some(true), _) => b,
            (_, Some(false)) => self.not(a),
            (None, None) if a == b => self.bool(true),
            (None, None) => self.intern(Term::Implies(a, b), Sort::Bool),
        }
    }

    /// `if c then a else b`.
    pub fn ite(&mut self, c: TermId, a: TermId, b: TermId) -> TermId {
        self.expect("ite", c, Sort::Bool);
        let sort = self.same_sort("ite", &[a, b]).unwrap_or(Sort::Bool);
        if a == b {
            return a;
        }
        match (self.as_bool(c), self.as_bool(a), self.as_bool(b)) {
            (Some(true), _, _) => a,
            (Some(false), _, _) => b,
            (None, Some(true), Some(false)) => c,
            (None, Some(false), Some(true)) => self.not(c),
            _ => self.intern(Term::Ite(c, a, b), sort),
        }
    }

    /// `a = b`, for two terms of one sort.
    pub fn eq(&mut self, a: TermId, b: TermId) -> TermId {
        let sort = self.same_sort("=", &[a, b]).unwrap_or(Sort::Bool);
        if a == b {
            return self.bool(true);
        }
        match sort {
            Sort::Int => {
                if let (Some(x), Some(y)) = (self.as_int(a), self.as_int(b)) {
                    return self.bool(x == y);
                }
            }
            Sort::Bool => match (self.as_bool(a), self.as_bool(b)) {
                (Some(x), Some(y)) => return self.bool(x == y),
                (Some(true), None) => return b,
                (None, Some(true)) => return a,
                (Some(false), None) => return self.not(b),
                (None, Some(false)) => return self.not(a),
                (None, None) => {}
            },
        }
        self.intern(Term::Eq(a, b), Sort::Bool)
    }

    /// `a ≠ b`, as `¬(a = b)`.
    pub fn ne(&mut self, a: TermId, b: TermId) -> TermId {
        let e = self.eq(a, b);
        self.not(e)
    }

    /// The terms are pairwise different; `true` for fewer than two.
    pub fn distinct(&mut self, args: &[TermId]) -> TermId {
        self.same_sort("distinct", args);
        if args.len() < 2 {
            return self.bool(true);
        }
        let mut seen = HashSet::new();
        if !args.iter().all(|a| seen.insert(*a)) {
            return self.bool(false);
        }
        // Distinct ids of constants are distinct values (the bank interns).
        if args.iter().all(|&a| self.as_int(a).is_some()) {
            return self.bool(true);
        }
        self.intern(Term::Distinct(args.into()), Sort::Bool)
    }

    /// An integer comparison of `a` with `b`.
    pub fn compare(&mut self, op: Comparison, a: TermId, b: TermId) -> TermId {
        self.expect(op.symbol(), a, Sort::Int);
        self.expect(op.symbol(), b, Sort::Int);
        if let (Some(x), Some(y)) = (self.as_int(a), self.as_int(b)) {
            return self.bool(op.holds(x, y));
        }
        if a == b {
            return self.bool(op.holds(0, 0));
        }
        self.intern(Term::Compare(op, a, b), Sort::Bool)
    }

    /// `a < b`.
    pub fn lt(&mut self, a: TermId, b: TermId) -> TermId {
        self.compare(Comparison::Lt, a, b)
    }

    /// `a <= b`.
    pub fn le(&mut self, a: TermId, b: TermId) -> TermId {
        self.compare(Comparison::Le, a, b)
    }

    /// `a > b`.
    pub fn gt(&mut self, a: TermId, b: TermId) -> TermId {
        self.compare(Comparison::Gt, a, b)
    }

    /// `a >= b`.
    pub fn ge(&mut self, a: TermId, b: TermId) -> TermId {
        self.compare(Comparison::Ge, a, b)
    }

    /// The sum of `args`; `0` if there are none. Constants are added into
    /// one last operand.
    pub fn add(&mut self, args: &[TermId]) -> TermId {
        self.ring("+", args, 0, i128::checked_add)
    }

    /// The product of `args`; `1` if there are none. A constant `0`
    /// absorbs; constants are multiplied into one last operand.
    pub fn mul(&mut self, args: &[TermId]) -> TermId {
        self.ring("*", args, 1, i128::checked_mul)
    }

    /// `add` (neutral 0) or `mul` (neutral 1, and 0 absorbs).
    fn ring(
        &mut self,
        operator: &str,
        args: &[TermId],
        neutral: i128,
        combine: fn(i128, i128) -> Option<i128>,
    ) -> TermId {
        let mut constant = neutral;
        let mut kept = Vec::with_capacity(args.len());
        for &a in args {
            self.expect(operator, a, Sort::Int);
            match self.as_int(a).and_then(|x| combine(constant, x)) {
                Some(c) => constant = c,
                None => kept.push(a),
            }
        }
        if neutral == 1 && constant == 0 {
            return self.int(0);
        }
        if constant != neutral {
            let c = self.int(constant);
            kept.push(c);
        }
        match kept.as_slice() {
            [] => self.int(neutral),
            [only] => *only,
            _ if neutral == 0 => self.intern(Term::Add(kept.into()), Sort::Int),
            _ => self.intern(Term::Mul(kept.into()), Sort::Int),
        }
    }

    /// `a - b`.
    pub fn sub(&mut self, a: TermId, b: TermId) -> TermId {
        self.expect("-", a, Sort::Int);
        self.expect("-", b, Sort::Int);
        if a == b {
            return self.int(0);
        }
        match (self.as_int(a), self.as_int(b)) {
            (_, Some(0)) => a,
            (Some(0), None) => self.neg(b),
            (Some(x), Some(y)) => match x.checked_sub(y) {
                Some(d) => self.int(d),
                None => self.intern(Term::Sub(a, b), Sort::Int),
            },
            _ => self.intern(Term::Sub(a, b), Sort::Int),
        }
    }

    /// `-a`.
    pub fn neg(&mut self, a: TermId) -> TermId {
        self.expect("-", a, Sort::Int);
        if let Some(n) = self.as_int(a).and_then(i128::checked_neg) {
            return self.int(n);
        }
        if let Term::Neg(inner) = self.term(a) {
            return *inner;
        }
        self.intern(Term::Neg(a), Sort::Int)
    }

    /// SMT-LIB `(div a b)`: the Euclidean quotient. C's truncating `/` is
    /// for the caller to express (it differs for a negative dividend).
    pub fn div(&mut self, a: TermId, b: TermId) -> TermId {
        self.expect("div", a, Sort::Int);
        self.expect("div", b, Sort::Int);
        match (self.as_int(a), self.as_int(b)) {
            (_, Some(1)) => a,
            (Some(x), Some(y)) if y != 0 => match x.checked_div_euclid(y) {
                Some(q) => self.int(q),
                None => self.intern(Term::Div(a, b), Sort::Int),
            },
            _ => self.intern(Term::Div(a, b), Sort::Int),
        }
    }

    /// SMT-LIB `(mod a b)`: the Euclidean remainder, in `[0, |b|)`.
    pub fn modulo(&mut self, a: TermId, b: TermId) -> TermId {
        self.expect("mod", a, Sort::Int);
        self.expect("mod", b, Sort::Int);
        match (self.as_int(a), self.as_int(b)) {
            (_, Some(1 | -1)) => self.int(0),
            (Some(x), Some(y)) if y != 0 => match x.checked_rem_euclid(y) {
                Some(r) => self.int(r),
                None => self.intern(Term::Mod(a, b), Sort::Int),
            },
            _ => self.intern(Term::Mod(a, b), Sort::Int),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::term::{Sort, Term, TermBank};

    #[test]
    fn connectives_fold_constants_and_duplicates() {
        let mut b = TermBank::new();
        let (t, f) = (b.bool(true), b.bool(false));
        let x = b.var("x", Sort::Bool);
        let y = b.var("y", Sort::Bool);
        assert_eq!(b.and(&[]), t);
        assert_eq!(b.or(&[]), f);
        assert_eq!(b.and(&[t, x, t]), x);
        assert_eq!(b.and(&[x, f, y]), f);
        assert_eq!(b.or(&[x, t]), t);
        assert_eq!(b.or(&[x, x, f]), x);
        let xy = b.and(&[x, y, x]);
        assert_eq!(b.term(xy), &Term::And([x, y].into()));
        let nx = b.not(x);
        assert_eq!(b.not(nx), x);
        assert_eq!(b.not(t), f);
        assert_eq!(b.implies(f, x), t);
        assert_eq!(b.implies(t, x), x);
        assert_eq!(b.implies(x, f), nx);
        assert_eq!(b.implies(x, x), t);
        assert_eq!(b.ite(x, t, f), x);
        assert_eq!(b.ite(x, f, t), nx);
        assert_eq!(b.ite(t, x, y), x);
        assert_eq!(b.ite(y, x, x), x);
        assert_eq!(b.eq(x, t), x);
        assert_eq!(b.eq(f, x), nx);
    }

    #[test]
    fn arithmetic_folds_constants_and_identities() {
        let mut b = TermBank::new();
        let x = b.var("x", Sort::Int);
        let (zero, one, two, three) = (b.int(0), b.int(1), b.int(2), b.int(3));
        assert_eq!(b.add(&[]), zero);
        assert_eq!(b.add(&[x, zero]), x);
        let sum = b.add(&[one, x, two]);
        assert_eq!(b.term(sum), &Term::Add([x, three].into()));
        assert_eq!(b.mul(&[x, zero]), zero);
        assert_eq!(b.mul(&[one, x]), x);
        assert_eq!(b.sub(x, x), zero);
        assert_eq!(b.sub(x, zero), x);
        let seven = b.int(-7);
        let q = b.div(seven, two);
        assert_eq!(b.as_int(q), Some(-4), "SMT-LIB div is Euclidean, not truncating");
        let r = b.modulo(seven, two);
        assert_eq!(b.as_int(r), Some(1));
        let by_zero = b.div(three, zero);
        assert_eq!(b.term(by_zero), &Term::Div(three, zero));
        let max = b.int(i128::MAX);
        let overflow = b.add(&[max, one]);
        assert!(matches!(b.term(overflow), Term::Add(_)), "an overflow keeps the node");
        let lt = b.lt(two, three);
        assert_eq!(b.as_bool(lt), Some(true));
        let le = b.le(x, x);
        assert_eq!(b.as_bool(le), Some(true));
        let gt = b.gt(x, x);
        assert_eq!(b.as_bool(gt), Some(false));
        let dd = b.distinct(&[x, one, x]);
        assert_eq!(b.as_bool(dd), Some(false));
        let dc = b.distinct(&[one, two, three]);
        assert_eq!(b.as_bool(dc), Some(true));
    }

    #[test]
    fn terms_are_hash_consed() {
        let mut b = TermBank::new();
        let x = b.var("x", Sort::Int);
        let y = b.var("y", Sort::Int);
        let first = b.add(&[x, y]);
        let n = b.num_terms();
        assert_eq!(b.add(&[x, y]), first);
        assert_eq!(b.var("x", Sort::Int), x);
        assert_eq!(b.num_terms(), n);
        assert_ne!(b.add(&[y, x]), first, "operands are not reordered");
        assert_ne!(b.var("x", Sort::Bool), x, "one name with two sorts is two variables");
    }

    #[test]
    #[should_panic(expected = "`and` takes Bool operands")]
    fn sort_errors_panic() {
        let mut b = TermBank::new();
        let x = b.var("x", Sort::Int);
        b.and(&[x]);
    }

    #[test]
    #[should_panic(expected = "takes 1 arguments, got 2")]
    fn arity_errors_panic() {
        let mut b = TermBank::new();
        let f = b.declare("f", &[Sort::Int], Sort::Int);
        let x = b.int(1);
        b.apply(f, &[x, x]);
    }
}
