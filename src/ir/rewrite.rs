//! Rewriting: copies of expressions and commands with their variables and
//! procedures renamed, for passes that clone procedures (the lockset
//! instrumentation renames each entry point's procedures apart).
//!
//! The matches are exhaustive, so a new expression or command variant must
//! say how it is renamed before anything compiles.

use super::command::Command;
use super::entity::{ProcId, VarId};
use super::expr::Expr;

impl Expr {
    /// The expression with every variable `v` replaced by `f(v)`.
    pub fn map_vars(&self, f: &mut impl FnMut(VarId) -> VarId) -> Expr {
        match self {
            Expr::Int(i) => Expr::Int(*i),
            Expr::Bool(b) => Expr::Bool(*b),
            Expr::Var(v) => Expr::Var(f(*v)),
            Expr::Unary(op, a) => Expr::Unary(*op, Box::new(a.map_vars(f))),
            Expr::Binary(op, a, b) => Expr::Binary(*op, Box::new(a.map_vars(f)), Box::new(b.map_vars(f))),
            Expr::Ite(c, a, b) => Expr::Ite(Box::new(c.map_vars(f)), Box::new(a.map_vars(f)), Box::new(b.map_vars(f))),
            Expr::Apply(func, args) => Expr::Apply(*func, args.iter().map(|a| a.map_vars(f)).collect()),
        }
    }
}

impl Command {
    /// The command with variables mapped by `vars` and called procedures
    /// by `procs`.
    pub fn map(&self, vars: &mut impl FnMut(VarId) -> VarId, procs: &mut impl FnMut(ProcId) -> ProcId) -> Command {
        match self {
            Command::Assign { target, value, span } => {
                Command::Assign { target: vars(*target), value: value.map_vars(vars), span: span.clone() }
            }
            Command::Assume { cond, span } => Command::Assume { cond: cond.map_vars(vars), span: span.clone() },
            Command::Assert { cond, check, span } => {
                Command::Assert { cond: cond.map_vars(vars), check: *check, span: span.clone() }
            }
            Command::Havoc { vars: vs, span } => Command::Havoc { vars: vs.iter().map(|v| vars(*v)).collect(), span: span.clone() },
            Command::Call { procedure, args, results, span } => Command::Call {
                procedure: procs(*procedure),
                args: args.iter().map(|a| a.map_vars(vars)).collect(),
                results: results.iter().map(|r| vars(*r)).collect(),
                span: span.clone(),
            },
            Command::Load { target, region, address, access, span } => Command::Load {
                target: vars(*target),
                region: *region,
                address: address.map_vars(vars),
                access: *access,
                span: span.clone(),
            },
            Command::Store { region, address, value, access, span } => Command::Store {
                region: *region,
                address: address.map_vars(vars),
                value: value.map_vars(vars),
                access: *access,
                span: span.clone(),
            },
            Command::Lock { lock, mode, span } => Command::Lock { lock: *lock, mode: *mode, span: span.clone() },
            Command::TryLock { lock, mode, success, span } => {
                Command::TryLock { lock: *lock, mode: *mode, success: vars(*success), span: span.clone() }
            }
            Command::Unlock { lock, mode, span } => Command::Unlock { lock: *lock, mode: *mode, span: span.clone() },
            Command::LockUnknown { reason, span } => Command::LockUnknown { reason: reason.clone(), span: span.clone() },
            Command::HeldAnnotation { lock, mode, annotation, trusted, span } => {
                Command::HeldAnnotation { lock: *lock, mode: *mode, annotation: annotation.clone(), trusted: *trusted, span: span.clone() }
            }
            Command::InterruptControl { op, span } => Command::InterruptControl { op: *op, span: span.clone() },
            Command::MakeLive { function, targets, assumed, span } => {
                Command::MakeLive { function: function.clone(), targets: targets.clone(), assumed: *assumed, span: span.clone() }
            }
            Command::Quiesce { function, targets, stops_self, rearmed_by, exclusive, effective, span } => Command::Quiesce {
                function: function.clone(),
                targets: targets.clone(),
                stops_self: *stops_self,
                rearmed_by: rearmed_by.clone(),
                exclusive: *exclusive,
                effective: effective.clone(),
                span: span.clone(),
            },
            Command::GhostAccess { region, address, write, entry_point, span } => Command::GhostAccess {
                region: *region,
                address: address.map_vars(vars),
                write: *write,
                entry_point: *entry_point,
                span: span.clone(),
            },
            Command::Keep { values, span } => Command::Keep { values: values.iter().map(|v| v.map_vars(vars)).collect(), span: span.clone() },
            Command::Approximation { kind, detail, span } => {
                Command::Approximation { kind: *kind, detail: detail.clone(), span: span.clone() }
            }
        }
    }
}
