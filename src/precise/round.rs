//! A thread's round (its context in the Lal–Reps schedule) as K Boolean
//! terms rather than an integer.
//!
//! # Algorithm
//!
//! A round r in 1..=K + 1 (K + 1: the thread has stopped) is the unary
//! word `past[j] = (r > j + 1)` for j in 0..K, so round 1 is all false,
//! the dead round all true, and every word is monotone (`past[j + 1]`
//! implies `past[j]`). The operations the sequentialisation needs are
//! then Boolean and linear in K:
//!
//! - `r = s`: `past[j] ⇔ past'[j]` for every j;
//! - `r = c` for a constant c: two bits (`past[c − 2] ∧ ¬past[c − 1]`);
//! - `r ≤ K` (the thread still runs): `¬past[K − 1]`;
//! - a yield, from r to a fresh r' with r ≤ r' ≤ K + 1: fresh bits with
//!   `past[j] ⇒ past'[j]` and `past'[j + 1] ⇒ past'[j]`;
//! - a join of paths: the bitwise `if-then-else` of their rounds.
//!
//! A constant round is constant bits, so the bank's folding decides every
//! comparison with it, and two accesses between the same yields share the
//! same bits, whose equality folds to true: a stretch without yields
//! reads and writes one round copy with no case split over rounds.
//!
//! # Soundness
//!
//! The encoding is exact: monotone words of length K are in one-to-one
//! correspondence with 1..=K + 1, every constraint above holds of the
//! words exactly when it holds of the numbers, and a model's round is read
//! back as one plus the number of true bits ([`Round::value`]).

use super::values::Values;
use crate::solver::{Sort, TermBank, TermId};
use std::rc::Rc;

/// A round as its unary word; cheap to clone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Round {
    /// `past[j]`: the round is past j + 1.
    past: Rc<[TermId]>,
}

impl Round {
    /// The constant round `r` (0 or 1 is round 1; past K + 1 is K + 1).
    pub fn constant(t: &TermBank, k: u32, r: u32) -> Round {
        Round { past: (0..k).map(|j| t.bool(r > j + 1)).collect() }
    }

    /// The bits: bit j says the round is past j + 1.
    pub fn bits(&self) -> &[TermId] {
        &self.past
    }

    /// Whether this round is at most `other`'s.
    pub fn le(&self, t: &mut TermBank, other: &Round) -> TermId {
        let bits: Vec<TermId> = self.past.iter().zip(other.past.iter()).map(|(&a, &b)| t.implies(a, b)).collect();
        t.and(&bits)
    }

    /// Whether this round is before `other`'s.
    pub fn lt(&self, t: &mut TermBank, other: &Round) -> TermId {
        let le = self.le(t, other);
        let nb: Vec<TermId> = self.past.iter().zip(other.past.iter()).map(|(&a, &b)| {
            let na = t.not(a);
            t.and(&[na, b])
        }).collect();
        let some = t.or(&nb);
        t.and(&[le, some])
    }

    /// The dead round K + 1.
    pub fn dead(t: &TermBank, k: u32) -> Round {
        Round::constant(t, k, k + 1)
    }

    /// A fresh round at least `self`, at most K + 1, and the constraint
    /// that says so; `name(j)` names bit j.
    pub fn later(&self, t: &mut TermBank, mut name: impl FnMut(usize) -> String) -> (Round, TermId) {
        let past: Rc<[TermId]> = (0..self.past.len()).map(|j| t.var(&name(j), Sort::Bool)).collect();
        let mut facts = Vec::with_capacity(2 * past.len());
        for j in 0..past.len() {
            facts.push(t.implies(self.past[j], past[j]));
            if j + 1 < past.len() {
                facts.push(t.implies(past[j + 1], past[j]));
            }
        }
        (Round { past }, t.and(&facts))
    }

    /// Whether the two rounds are equal.
    pub fn eq(&self, t: &mut TermBank, other: &Round) -> TermId {
        if self == other {
            return t.bool(true);
        }
        let bits: Vec<TermId> = self
            .past
            .iter()
            .zip(other.past.iter())
            .map(|(&a, &b)| if a.index() <= b.index() { t.eq(a, b) } else { t.eq(b, a) })
            .collect();
        t.and(&bits)
    }

    /// Whether the round is `r`, in 1..=K + 1.
    pub fn is(&self, t: &mut TermBank, r: u32) -> TermId {
        let k = self.past.len() as u32;
        let r = r.clamp(1, k + 1) as usize;
        let reached = if r >= 2 { self.past[r - 2] } else { t.bool(true) };
        let beyond = if r <= k as usize { t.not(self.past[r - 1]) } else { t.bool(true) };
        t.and(&[reached, beyond])
    }

    /// Whether the thread still runs: the round is at most K.
    pub fn live(&self, t: &mut TermBank) -> TermId {
        match self.past.last() {
            Some(&last) => t.not(last),
            None => t.bool(true),
        }
    }

    /// `if c then a else b`, bitwise.
    pub fn ite(t: &mut TermBank, c: TermId, a: &Round, b: &Round) -> Round {
        if a == b {
            return a.clone();
        }
        Round { past: a.past.iter().zip(b.past.iter()).map(|(&x, &y)| t.ite(c, x, y)).collect() }
    }

    /// The round in a model: one plus the number of true bits.
    pub fn value(&self, values: &mut Values<'_>) -> Option<u32> {
        let mut r = 1;
        for &b in self.past.iter() {
            if values.bool(b)? {
                r += 1;
            }
        }
        Some(r)
    }
}
