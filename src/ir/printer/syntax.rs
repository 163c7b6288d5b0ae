//! The syntax of expressions and commands: the precedence levels, the
//! minimal parenthesization (see the parent module), and one line per
//! command.

use super::Writer;
use crate::ir::command::{AccessKind, Command, LockMode};
use crate::ir::expr::{BinaryOp, Expr};
use std::fmt::{self, Write};

// The binding strengths of expressions by their outermost operator, loosest
// first; see the parent module for the rules.
const ITE: u8 = 0;
const IMPLIES: u8 = 1;
const OR: u8 = 2;
const AND: u8 = 3;
const COMPARISON: u8 = 4;
const ADDITIVE: u8 = 5;
const MULTIPLICATIVE: u8 = 6;
const PREFIX: u8 = 7;
const ATOM: u8 = 8;

impl Writer<'_> {
    /// Prints an expression, without parentheses around it.
    pub(super) fn expression(&self, out: &mut dyn Write, e: &Expr) -> fmt::Result {
        self.expr(out, e, ITE)
    }

    /// Prints `e`, parenthesized when it binds looser than `min`.
    fn expr(&self, out: &mut dyn Write, e: &Expr, min: u8) -> fmt::Result {
        let parenthesize = precedence(e) < min;
        if parenthesize {
            out.write_char('(')?;
        }
        match e {
            Expr::Int(value) => write!(out, "{value}")?,
            Expr::Bool(value) => write!(out, "{value}")?,
            Expr::Var(v) => self.var(out, *v)?,
            Expr::Unary(op, operand) => {
                out.write_str(op.symbol())?;
                self.expr(out, operand, ATOM)?;
            }
            Expr::Binary(op, left, right) => {
                let level = binary_precedence(*op);
                let (left_min, right_min) = match op {
                    BinaryOp::Implies => (level + 1, level),
                    BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                        (level + 1, level + 1)
                    }
                    BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::Mul
                    | BinaryOp::Div
                    | BinaryOp::Rem
                    | BinaryOp::And
                    | BinaryOp::Or => (level, level + 1),
                };
                self.expr(out, left, left_min)?;
                write!(out, " {} ", op.symbol())?;
                self.expr(out, right, right_min)?;
            }
            Expr::Ite(condition, then, otherwise) => {
                out.write_str("if ")?;
                self.expr(out, condition, ITE + 1)?;
                out.write_str(" then ")?;
                self.expr(out, then, ITE + 1)?;
                out.write_str(" else ")?;
                self.expr(out, otherwise, ITE)?;
            }
            Expr::Apply(f, args) => {
                match self.program.functions.get(*f) {
                    Some(function) => out.write_str(&function.name)?,
                    None => write!(out, "?{f}")?,
                }
                out.write_char('(')?;
                for (n, arg) in args.iter().enumerate() {
                    if n > 0 {
                        out.write_str(", ")?;
                    }
                    self.expr(out, arg, ITE)?;
                }
                out.write_char(')')?;
            }
        }
        if parenthesize {
            out.write_char(')')?;
        }
        Ok(())
    }

    /// Prints a command, without indentation or span comment.
    pub(super) fn command(&self, out: &mut dyn Write, command: &Command) -> fmt::Result {
        match command {
            Command::Assign { target, value, .. } => {
                self.var(out, *target)?;
                out.write_str(" := ")?;
                self.expr(out, value, ITE)?;
            }
            Command::Assume { cond, .. } => {
                out.write_str("assume ")?;
                self.expr(out, cond, ITE)?;
            }
            Command::Assert { cond, check, .. } => {
                write!(out, "assert {{{}}} ", check.as_str())?;
                self.expr(out, cond, ITE)?;
            }
            Command::Havoc { vars, .. } => {
                out.write_str("havoc")?;
                if !vars.is_empty() {
                    out.write_char(' ')?;
                    self.var_list(out, vars)?;
                }
            }
            Command::Call { procedure, args, results, .. } => {
                out.write_str("call ")?;
                if !results.is_empty() {
                    self.var_list(out, results)?;
                    out.write_str(" := ")?;
                }
                match self.program.procedures.get(*procedure) {
                    Some(callee) => out.write_str(&callee.name)?,
                    None => write!(out, "?{procedure}")?,
                }
                out.write_char('(')?;
                for (n, arg) in args.iter().enumerate() {
                    if n > 0 {
                        out.write_str(", ")?;
                    }
                    self.expr(out, arg, ITE)?;
                }
                out.write_char(')')?;
            }
            Command::Load { target, region, address, access, .. } => {
                self.var(out, *target)?;
                write!(out, " := load{} {region}[", access_suffix(*access))?;
                self.expr(out, address, ITE)?;
                out.write_char(']')?;
            }
            Command::Store { region, address, value, access, .. } => {
                write!(out, "store{} {region}[", access_suffix(*access))?;
                self.expr(out, address, ITE)?;
                out.write_str("] := ")?;
                self.expr(out, value, ITE)?;
            }
            Command::Lock { lock, mode, .. } => write!(out, "lock{} {lock}", mode_suffix(*mode))?,
            Command::TryLock { lock, mode, success, .. } => {
                self.var(out, *success)?;
                write!(out, " := trylock{} {lock}", mode_suffix(*mode))?;
            }
            Command::Unlock { lock, mode, .. } => write!(out, "unlock{} {lock}", mode_suffix(*mode))?,
            Command::LockUnknown { reason, .. } => write!(out, "lock ? {reason:?}")?,
            Command::HeldAnnotation { lock, mode, annotation, trusted, .. } => {
                let mode = match mode {
                    None => "",
                    Some(LockMode::Exclusive) => ".exclusive",
                    Some(LockMode::Shared) => ".shared",
                };
                let trusted = if *trusted { ".trusted" } else { "" };
                write!(out, "held{mode}{trusted} {lock} {annotation:?}")?
            }
            Command::InterruptControl { op, .. } => write!(out, "control {}", op.as_str())?,
            Command::MakeLive { function, targets: None, assumed: true, .. } => write!(out, "live assumed {function:?}")?,
            Command::MakeLive { function, targets: None, .. } => write!(out, "live {function:?}")?,
            Command::MakeLive { function, targets: Some(targets), assumed: true, .. } => {
                write!(out, "live assumed {function:?} {{{}}}", targets.join(", "))?
            }
            Command::MakeLive { function, targets: Some(targets), .. } => write!(out, "live {function:?} {{{}}}", targets.join(", "))?,
            Command::Quiesce { function, targets, effective, .. } => {
                write!(out, "quiesce {function:?} {{{}}} {{{}}}", targets.join(", "), effective.join(", "))?
            }
            Command::GhostAccess { region, address, write, entry_point, .. } => {
                write!(out, "ghost.{} {region}[", if *write { "write" } else { "read" })?;
                self.expr(out, address, ITE)?;
                write!(out, "] {entry_point}")?;
            }
            Command::Keep { values, .. } => {
                out.write_str("keep")?;
                for (i, v) in values.iter().enumerate() {
                    out.write_str(if i == 0 { " " } else { ", " })?;
                    self.expr(out, v, ITE)?;
                }
            }
            Command::Approximation { kind, detail, .. } => write!(out, "approx {{{}}} {detail:?}", kind.as_str())?,
        }
        out.write_char(';')
    }
}

fn precedence(e: &Expr) -> u8 {
    match e {
        Expr::Int(value) if *value < 0 => PREFIX,
        Expr::Int(_) | Expr::Bool(_) | Expr::Var(_) | Expr::Apply(..) => ATOM,
        Expr::Unary(..) => PREFIX,
        Expr::Binary(op, ..) => binary_precedence(*op),
        Expr::Ite(..) => ITE,
    }
}

fn binary_precedence(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Implies => IMPLIES,
        BinaryOp::Or => OR,
        BinaryOp::And => AND,
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => COMPARISON,
        BinaryOp::Add | BinaryOp::Sub => ADDITIVE,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => MULTIPLICATIVE,
    }
}

fn access_suffix(access: AccessKind) -> &'static str {
    match access {
        AccessKind::Plain => "",
        AccessKind::Atomic => ".atomic",
        AccessKind::Private => ".private",
    }
}

fn mode_suffix(mode: LockMode) -> &'static str {
    match mode {
        LockMode::Exclusive => "",
        LockMode::Shared => ".shared",
    }
}
