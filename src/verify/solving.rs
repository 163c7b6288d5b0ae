//! The bridge from VCs (formulas over IR expressions) to the solver
//! module's terms: Houdini's and the pair checks' one use of the solver.
//!
//! Each IR expression becomes a term of the solver's bank; VC variables are
//! declared by their unique names, uninterpreted functions by the lowered
//! program's names. C's division truncates toward zero, SMT-LIB's does not
//! on negative operands, so `a / b` is encoded by cases on the signs (and
//! `a % b` as `a - b * (a / b)`); division by zero stays unspecified, as
//! in the IR.
//!
//! Non-linear arithmetic (a product, quotient or remainder of two
//! non-constant operands) is undecidable over the integers, and z3 can
//! spend the whole time limit on one such term. It is encoded as an
//! uninterpreted function of its operands instead: equal operands still
//! give equal results (so `a[i * n]` accessed twice is one address), any
//! other relation is lost. That only adds behaviours (an over-approximation
//! that may cause false alarms, docs/soundness.md).

use crate::houdini::{Outcome, VcSolver};
use crate::ir::{BinaryOp, Expr, Program, Sort, UnaryOp, VarId};
use crate::solver::{CheckResult, Model, Solver, SolverOptions, TermBank, TermId};
use crate::vcgen::encode::Vc;
use crate::verify::run::PairSolver;
use std::path::PathBuf;
use std::time::Duration;

/// A solver session loaded with one VC.
pub struct SolverAdapter<'p> {
    program: &'p Program,
    solver: Solver,
    vars: Vec<TermId>,
    failures: Vec<TermId>,
    model: Option<Model>,
}

fn sort(s: Sort) -> crate::solver::Sort {
    match s {
        Sort::Int => crate::solver::Sort::Int,
        Sort::Bool => crate::solver::Sort::Bool,
    }
}

impl<'p> SolverAdapter<'p> {
    /// A session for VCs over `program`'s uninterpreted functions.
    pub fn new(program: &'p Program, timeout: Duration, dump_dir: Option<PathBuf>) -> SolverAdapter<'p> {
        Self::limited(program, timeout, None, dump_dir)
    }

    /// [`SolverAdapter::new`] with z3's resource limit per check.
    pub fn limited(program: &'p Program, timeout: Duration, resource_limit: Option<u32>, dump_dir: Option<PathBuf>) -> SolverAdapter<'p> {
        let options = SolverOptions { timeout, resource_limit, dump_dir };
        SolverAdapter { program, solver: Solver::with_options(options), vars: Vec::new(), failures: Vec::new(), model: None }
    }

    fn term(&mut self, e: &Expr) -> TermId {
        let t = self.solver.terms_mut();
        translate(t, self.program, &self.vars, e)
    }
}

fn c_div(t: &mut TermBank, a: TermId, b: TermId) -> TermId {
    let zero = t.int(0);
    let a_neg = t.lt(a, zero);
    let b_neg = t.lt(b, zero);
    let abs_a = {
        let n = t.neg(a);
        t.ite(a_neg, n, a)
    };
    let abs_b = {
        let n = t.neg(b);
        t.ite(b_neg, n, b)
    };
    let q = t.div(abs_a, abs_b);
    let signs_differ = t.ne(a_neg, b_neg);
    let neg_q = t.neg(q);
    t.ite(signs_differ, neg_q, q)
}

fn translate(t: &mut TermBank, program: &Program, vars: &[TermId], e: &Expr) -> TermId {
    translate_with(t, program, &mut |v| vars[v.as_u32() as usize], e)
}

/// Translates an IR expression into a term of `t`, the variables by `var`;
/// the bounded checker (src/precise/) shares it.
pub(crate) fn translate_with(t: &mut TermBank, program: &Program, var: &mut dyn FnMut(VarId) -> TermId, e: &Expr) -> TermId {
    let vars = var;
    match e {
        Expr::Int(i) => t.int(*i),
        Expr::Bool(b) => t.bool(*b),
        Expr::Var(v) => vars(*v),
        Expr::Unary(op, a) => {
            let a = translate_with(t, program, vars, a);
            match op {
                UnaryOp::Neg => t.neg(a),
                UnaryOp::Not => t.not(a),
            }
        }
        Expr::Binary(op @ (BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem), a, b)
            if !matches!(**a, Expr::Int(_)) && !matches!(**b, Expr::Int(_)) =>
        {
            // Non-linear: an uninterpreted function of the operands.
            let a = translate_with(t, program, vars, a);
            let b = translate_with(t, program, vars, b);
            let name = match op {
                BinaryOp::Mul => "nonlinear.mul",
                BinaryOp::Div => "nonlinear.div",
                _ => "nonlinear.rem",
            };
            let int = crate::solver::Sort::Int;
            let d = t.declare(name, &[int, int], int);
            t.apply(d, &[a, b])
        }
        Expr::Binary(op, a, b) => {
            let a = translate_with(t, program, vars, a);
            let b = translate_with(t, program, vars, b);
            match op {
                BinaryOp::Add => t.add(&[a, b]),
                BinaryOp::Sub => t.sub(a, b),
                BinaryOp::Mul => t.mul(&[a, b]),
                BinaryOp::Div => c_div(t, a, b),
                BinaryOp::Rem => {
                    let q = c_div(t, a, b);
                    let bq = t.mul(&[b, q]);
                    t.sub(a, bq)
                }
                BinaryOp::Eq => t.eq(a, b),
                BinaryOp::Ne => t.ne(a, b),
                BinaryOp::Lt => t.lt(a, b),
                BinaryOp::Le => t.le(a, b),
                BinaryOp::Gt => t.gt(a, b),
                BinaryOp::Ge => t.ge(a, b),
                BinaryOp::And => t.and(&[a, b]),
                BinaryOp::Or => t.or(&[a, b]),
                BinaryOp::Implies => t.implies(a, b),
            }
        }
        Expr::Ite(c, a, b) => {
            let c = translate_with(t, program, vars, c);
            let a = translate_with(t, program, vars, a);
            let b = translate_with(t, program, vars, b);
            t.ite(c, a, b)
        }
        Expr::Apply(f, args) => {
            let decl = &program.functions[*f];
            let arg_sorts: Vec<crate::solver::Sort> = decl.params.iter().map(|s| sort(*s)).collect();
            let d = t.declare(&format!("fn.{}", decl.name), &arg_sorts, sort(decl.result));
            let args: Vec<TermId> = args.iter().map(|a| translate_with(t, program, vars, a)).collect();
            t.apply(d, &args)
        }
    }
}

impl VcSolver for SolverAdapter<'_> {
    fn load(&mut self, vc: &Vc) {
        self.vars = vc.vars.values().map(|v| self.solver.terms_mut().var(&v.name, sort(v.sort))).collect();
        // One assertion for all constraints: z3 simplifies each assertion
        // on its own, with a cache that does not outlive it (see the
        // precise phase's `solve`); on the lockset VCs the gain is small
        // (ipmi_msghandler.c 153 CPU seconds instead of 158).
        let constraints: Vec<TermId> = vc.constraints.iter().map(|c| self.term(c)).collect();
        let all = self.solver.terms_mut().and(&constraints);
        self.solver.assert(all);
        let failures: Vec<TermId> = vc.checks.iter().map(|(f, _)| self.term(f)).collect();
        let any = self.solver.terms_mut().or(&failures);
        self.failures = failures;
        self.solver.assert(any);
    }

    fn check(&mut self, literals: &[(VarId, bool)]) -> Outcome {
        self.check_terms(literals, Vec::new())
    }
}

impl SolverAdapter<'_> {
    fn check_terms(&mut self, literals: &[(VarId, bool)], extra: Vec<TermId>) -> Outcome {
        let mut assumptions: Vec<TermId> = literals
            .iter()
            .map(|(v, value)| {
                let t = self.vars[v.as_u32() as usize];
                if *value { t } else { self.solver.terms_mut().not(t) }
            })
            .collect();
        assumptions.extend(extra);
        match self.solver.check_assuming(&assumptions) {
            CheckResult::Unsat { .. } => {
                self.model = None;
                Outcome::Unsat
            }
            CheckResult::Unknown { reason } => {
                self.model = None;
                Outcome::Unknown(reason)
            }
            CheckResult::Sat { model } => {
                let failing = self
                    .failures
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| model.eval_bool(self.solver.terms(), **f) == Some(true))
                    .map(|(i, _)| i)
                    .collect();
                self.model = Some(model);
                Outcome::Failing(failing)
            }
        }
    }
}

impl PairSolver for SolverAdapter<'_> {
    fn int_value(&mut self, v: VarId) -> Option<i128> {
        let t = *self.vars.get(v.as_u32() as usize)?;
        self.model.as_ref()?.eval_int(self.solver.terms(), t)
    }

    fn bool_value(&mut self, v: VarId) -> Option<bool> {
        let t = *self.vars.get(v.as_u32() as usize)?;
        self.model.as_ref()?.eval_bool(self.solver.terms(), t)
    }

    fn add(&mut self, e: &Expr) {
        let t = self.term(e);
        self.solver.assert(t);
    }

    fn check_with(&mut self, extra: &[Expr]) -> Outcome {
        let extra: Vec<TermId> = extra.iter().map(|e| self.term(e)).collect();
        self.check_terms(&[], extra)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Term;

    /// Division and remainder by a constant stay linear arithmetic (the
    /// constant divisor folds through the sign cases into an SMT-LIB `div`
    /// by a literal), so the exact bit operations of the atomic models
    /// (`x % 2^(k+1)`) cost no uninterpreted function; only a product,
    /// quotient or remainder of two non-constants becomes one.
    #[test]
    fn division_by_a_constant_stays_linear() {
        let mut program = Program::new();
        let x = program.add_global("x", Sort::Int, None);
        let y = program.add_global("y", Sort::Int, None);
        let mut t = TermBank::new();
        let vars = vec![t.var("x", crate::solver::Sort::Int), t.var("y", crate::solver::Sort::Int)];
        let nonlinear = |t: &TermBank| t.decls().filter(|(_, d)| d.name.starts_with("nonlinear.")).count();
        let mut roots = Vec::new();
        for e in [Expr::rem(Expr::var(x), Expr::int(128)), Expr::div(Expr::var(x), Expr::int(64)), Expr::rem(Expr::var(x), Expr::int(1i128 << 64))] {
            roots.push(translate(&mut t, &program, &vars, &e));
        }
        assert_eq!(nonlinear(&t), 0);
        let mut divisors = Vec::new();
        let mut stack = roots;
        while let Some(term) = stack.pop() {
            if let Term::Div(_, divisor) = t.term(term) {
                divisors.push(t.as_int(*divisor));
            }
            stack.extend(t.term(term).children());
        }
        divisors.sort();
        divisors.dedup();
        assert_eq!(divisors, vec![Some(64), Some(128), Some(1i128 << 64)], "every divisor is a literal");
        translate(&mut t, &program, &vars, &Expr::rem(Expr::var(x), Expr::var(y)));
        assert_eq!(nonlinear(&t), 1, "a remainder by a variable is uninterpreted");
    }
}
