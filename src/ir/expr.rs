//! Side-effect-free expressions over integers and booleans, their sorts, and
//! walks over their sub-expressions.
//!
//! Arithmetic is on mathematical integers (no overflow). [`BinaryOp::Div`]
//! and [`BinaryOp::Rem`] follow C: the quotient is truncated toward zero
//! and the remainder takes the sign of the dividend; a division by zero
//! yields an unspecified (but fixed) integer, as in SMT-LIB. Memory reads
//! are not expressions: they are `load` commands, so an expression's value
//! depends on variables only.

use super::entity::{FuncId, VarId};
use super::program::{Program, Sort};
use std::collections::BTreeSet;
use std::fmt;

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Integer negation, `-x`.
    Neg,
    /// Boolean negation, `!x`.
    Not,
}

impl UnaryOp {
    /// The printed symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
        }
    }
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+` on integers.
    Add,
    /// `-` on integers.
    Sub,
    /// `*` on integers.
    Mul,
    /// `/` on integers, truncating toward zero.
    Div,
    /// `%` on integers, with the sign of the dividend.
    Rem,
    /// `==` on two operands of the same sort.
    Eq,
    /// `!=` on two operands of the same sort.
    Ne,
    /// `<` on integers.
    Lt,
    /// `<=` on integers.
    Le,
    /// `>` on integers.
    Gt,
    /// `>=` on integers.
    Ge,
    /// `&&` on booleans.
    And,
    /// `||` on booleans.
    Or,
    /// `==>` on booleans.
    Implies,
}

impl BinaryOp {
    /// The printed symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::Implies => "==>",
        }
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// An integer literal.
    Int(i128),
    /// A boolean literal.
    Bool(bool),
    /// The value of a variable.
    Var(VarId),
    /// A unary operation.
    Unary(UnaryOp, Box<Expr>),
    /// A binary operation.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `if c then a else b`.
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    /// An uninterpreted function applied to arguments.
    Apply(FuncId, Vec<Expr>),
}

/// Why an expression has no sort.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SortError {
    /// A variable that is not in the program.
    UnknownVariable(VarId),
    /// A function that is not in the program.
    UnknownFunction(FuncId),
    /// An operand of the wrong sort.
    Operand {
        /// The operator's symbol.
        operator: &'static str,
        /// The sort the operator takes.
        expected: Sort,
        /// The operand's sort.
        found: Sort,
    },
    /// `==` or `!=` between two sorts.
    Comparison {
        /// The operator's symbol.
        operator: &'static str,
        /// The left operand's sort.
        left: Sort,
        /// The right operand's sort.
        right: Sort,
    },
    /// An `if` whose condition is not boolean.
    Condition(Sort),
    /// An `if` whose branches differ.
    Branches {
        /// The sort of the `then` branch.
        then: Sort,
        /// The sort of the `else` branch.
        otherwise: Sort,
    },
    /// A function applied to the wrong number of arguments.
    Arity {
        /// The function's name.
        function: String,
        /// How many it takes.
        expected: usize,
        /// How many it was given.
        found: usize,
    },
    /// A function argument of the wrong sort.
    Argument {
        /// The function's name.
        function: String,
        /// The argument's position, from 1.
        position: usize,
        /// The parameter's sort.
        expected: Sort,
        /// The argument's sort.
        found: Sort,
    },
}

impl fmt::Display for SortError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SortError::UnknownVariable(v) => write!(f, "variable {v} does not exist"),
            SortError::UnknownFunction(func) => write!(f, "function {func} does not exist"),
            SortError::Operand { operator, expected, found } => {
                write!(f, "`{operator}` takes {expected} operands, not {found}")
            }
            SortError::Comparison { operator, left, right } => {
                write!(f, "`{operator}` compares {left} with {right}")
            }
            SortError::Condition(found) => write!(f, "an `if` condition has sort {found}, expected bool"),
            SortError::Branches { then, otherwise } => {
                write!(f, "the branches of an `if` have sorts {then} and {otherwise}")
            }
            SortError::Arity { function, expected, found } => {
                write!(f, "`{function}` takes {expected} argument(s), given {found}")
            }
            SortError::Argument { function, position, expected, found } => {
                write!(f, "argument {position} of `{function}` has sort {found}, expected {expected}")
            }
        }
    }
}

impl std::error::Error for SortError {}

/// Constructors, one per literal and operator. Clippy's
/// `should_implement_trait` mistakes `Expr::add(a, b)` for `Add::add`; the
/// operator traits are not implemented on purpose, so that building IR is
/// always explicit.
#[allow(clippy::should_implement_trait)]
impl Expr {
    /// An integer literal.
    pub fn int(value: i128) -> Expr {
        Expr::Int(value)
    }

    /// A boolean literal.
    pub fn bool(value: bool) -> Expr {
        Expr::Bool(value)
    }

    /// A variable's value.
    pub fn var(variable: VarId) -> Expr {
        Expr::Var(variable)
    }

    /// `-a`.
    pub fn neg(a: Expr) -> Expr {
        Expr::Unary(UnaryOp::Neg, Box::new(a))
    }

    /// `!a`.
    pub fn not(a: Expr) -> Expr {
        Expr::Unary(UnaryOp::Not, Box::new(a))
    }

    /// `a op b`.
    pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    /// `a + b`.
    pub fn add(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Add, a, b)
    }

    /// `a - b`.
    pub fn sub(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Sub, a, b)
    }

    /// `a * b`.
    pub fn mul(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Mul, a, b)
    }

    /// `a / b`, truncating.
    pub fn div(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Div, a, b)
    }

    /// `a % b`.
    pub fn rem(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Rem, a, b)
    }

    /// `a == b`.
    pub fn eq(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Eq, a, b)
    }

    /// `a != b`.
    pub fn ne(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Ne, a, b)
    }

    /// `a < b`.
    pub fn lt(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Lt, a, b)
    }

    /// `a <= b`.
    pub fn le(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Le, a, b)
    }

    /// `a > b`.
    pub fn gt(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Gt, a, b)
    }

    /// `a >= b`.
    pub fn ge(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Ge, a, b)
    }

    /// `a && b`.
    pub fn and(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::And, a, b)
    }

    /// `a || b`.
    pub fn or(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Or, a, b)
    }

    /// The conjunction of all, `true` for none.
    pub fn and_all(items: Vec<Expr>) -> Expr {
        let mut items: Vec<Expr> = items.into_iter().filter(|e| *e != Expr::Bool(true)).collect();
        match items.len() {
            0 => Expr::Bool(true),
            1 => items.pop().expect("one item"),
            _ => items.into_iter().reduce(Expr::and).expect("items"),
        }
    }

    /// The disjunction of all, `false` for none.
    pub fn or_all(items: Vec<Expr>) -> Expr {
        let mut items: Vec<Expr> = items.into_iter().filter(|e| *e != Expr::Bool(false)).collect();
        match items.len() {
            0 => Expr::Bool(false),
            1 => items.pop().expect("one item"),
            _ => items.into_iter().reduce(Expr::or).expect("items"),
        }
    }

    /// `a ==> b`.
    pub fn implies(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Implies, a, b)
    }

    /// `if c then a else b`.
    pub fn ite(c: Expr, a: Expr, b: Expr) -> Expr {
        Expr::Ite(Box::new(c), Box::new(a), Box::new(b))
    }

    /// `f(args)`.
    pub fn apply(function: FuncId, args: Vec<Expr>) -> Expr {
        Expr::Apply(function, args)
    }
}

impl Expr {
    /// The sort of the expression, checking every operator's operands.
    pub fn sort_of(&self, program: &Program) -> Result<Sort, SortError> {
        match self {
            Expr::Int(_) => Ok(Sort::Int),
            Expr::Bool(_) => Ok(Sort::Bool),
            Expr::Var(v) => program.variables.get(*v).map(|var| var.sort).ok_or(SortError::UnknownVariable(*v)),
            Expr::Unary(op, operand) => {
                let sort = match op {
                    UnaryOp::Neg => Sort::Int,
                    UnaryOp::Not => Sort::Bool,
                };
                expect_operand(op.symbol(), sort, operand.sort_of(program)?)?;
                Ok(sort)
            }
            Expr::Binary(op, left, right) => {
                let (left, right) = (left.sort_of(program)?, right.sort_of(program)?);
                let (operands, result) = match op {
                    BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
                        (Sort::Int, Sort::Int)
                    }
                    BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => (Sort::Int, Sort::Bool),
                    BinaryOp::And | BinaryOp::Or | BinaryOp::Implies => (Sort::Bool, Sort::Bool),
                    BinaryOp::Eq | BinaryOp::Ne => {
                        return if left == right {
                            Ok(Sort::Bool)
                        } else {
                            Err(SortError::Comparison { operator: op.symbol(), left, right })
                        };
                    }
                };
                expect_operand(op.symbol(), operands, left)?;
                expect_operand(op.symbol(), operands, right)?;
                Ok(result)
            }
            Expr::Ite(condition, then, otherwise) => {
                let condition = condition.sort_of(program)?;
                if condition != Sort::Bool {
                    return Err(SortError::Condition(condition));
                }
                let (then, otherwise) = (then.sort_of(program)?, otherwise.sort_of(program)?);
                if then == otherwise { Ok(then) } else { Err(SortError::Branches { then, otherwise }) }
            }
            Expr::Apply(f, args) => {
                let function = program.functions.get(*f).ok_or(SortError::UnknownFunction(*f))?;
                if function.params.len() != args.len() {
                    return Err(SortError::Arity {
                        function: function.name.clone(),
                        expected: function.params.len(),
                        found: args.len(),
                    });
                }
                for (n, (arg, expected)) in args.iter().zip(&function.params).enumerate() {
                    let found = arg.sort_of(program)?;
                    if found != *expected {
                        return Err(SortError::Argument {
                            function: function.name.clone(),
                            position: n + 1,
                            expected: *expected,
                            found,
                        });
                    }
                }
                Ok(function.result)
            }
        }
    }

    /// The direct sub-expressions, left to right.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Int(_) | Expr::Bool(_) | Expr::Var(_) => Vec::new(),
            Expr::Unary(_, operand) => vec![operand],
            Expr::Binary(_, left, right) => vec![left, right],
            Expr::Ite(condition, then, otherwise) => vec![condition, then, otherwise],
            Expr::Apply(_, args) => args.iter().collect(),
        }
    }

    /// Calls `visit` on this expression and every sub-expression, parents
    /// before children, left to right.
    pub fn walk<'e>(&'e self, visit: &mut impl FnMut(&'e Expr)) {
        visit(self);
        for child in self.children() {
            child.walk(visit);
        }
    }

    /// The variables the expression reads.
    pub fn variables(&self) -> BTreeSet<VarId> {
        let mut variables = BTreeSet::new();
        self.walk(&mut |e| {
            if let Expr::Var(v) = e {
                variables.insert(*v);
            }
        });
        variables
    }

    /// The functions the expression applies.
    pub fn functions(&self) -> BTreeSet<FuncId> {
        let mut functions = BTreeSet::new();
        self.walk(&mut |e| {
            if let Expr::Apply(f, _) = e {
                functions.insert(*f);
            }
        });
        functions
    }
}

/// Checks that an operand of `operator` has the sort it takes.
fn expect_operand(operator: &'static str, expected: Sort, found: Sort) -> Result<(), SortError> {
    if expected == found { Ok(()) } else { Err(SortError::Operand { operator, expected, found }) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Program, UninterpretedFn};

    #[test]
    fn sorts_are_checked_through_operators_and_functions() {
        let mut program = Program::new();
        let x = program.add_global("x", Sort::Int, None);
        let b = program.add_global("b", Sort::Bool, None);
        let bitand = program.functions.push(UninterpretedFn {
            name: "bitand".into(),
            params: vec![Sort::Int; 2],
            result: Sort::Int,
        });
        let ok =
            Expr::ite(Expr::var(b), Expr::apply(bitand, vec![Expr::var(x), Expr::int(3)]), Expr::neg(Expr::var(x)));
        assert_eq!(ok.sort_of(&program), Ok(Sort::Int));
        assert_eq!(Expr::eq(Expr::var(b), Expr::bool(true)).sort_of(&program), Ok(Sort::Bool));
        let bad = Expr::add(Expr::var(x), Expr::var(b));
        assert_eq!(bad.sort_of(&program).unwrap_err().to_string(), "`+` takes int operands, not bool");
        let bad = Expr::apply(bitand, vec![Expr::var(x)]);
        assert_eq!(bad.sort_of(&program).unwrap_err().to_string(), "`bitand` takes 2 argument(s), given 1");
        let bad = Expr::ne(Expr::var(x), Expr::var(b));
        assert_eq!(bad.sort_of(&program).unwrap_err().to_string(), "`!=` compares int with bool");
        let bad = Expr::var(VarId::from_u32(9));
        assert_eq!(bad.sort_of(&program), Err(SortError::UnknownVariable(VarId::from_u32(9))));
    }

    #[test]
    fn walks_visit_every_sub_expression_once() {
        let (a, b) = (VarId::from_u32(0), VarId::from_u32(1));
        let e = Expr::and(Expr::lt(Expr::var(b), Expr::int(1)), Expr::not(Expr::eq(Expr::var(a), Expr::var(b))));
        let mut count = 0;
        e.walk(&mut |_| count += 1);
        assert_eq!(count, 8);
        assert_eq!(e.variables().into_iter().collect::<Vec<_>>(), [a, b]);
        assert!(e.functions().is_empty());
    }
}
