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

/// The suffix of a procedure cloned by [`super::Program::clone_procedure`],
/// before its number.
const CLONE_SUFFIX: &str = "__rw_copy";

impl super::Program {
    /// Adds a copy of procedure `p` with its own parameters, returns and
    /// locals (and their facts for the precise phase), named apart; calls
    /// inside it name the same callees. Returns the copy and the map from
    /// the original's variables to the copy's.
    pub fn clone_procedure(&mut self, p: ProcId) -> (ProcId, std::collections::BTreeMap<VarId, VarId>) {
        use super::program::{Procedure, Scope};
        let original = self.procedures[p].clone();
        let base = super::Procedure::source_name(&original.name).to_string();
        let mut n = 1;
        let name = loop {
            let name = format!("{base}{CLONE_SUFFIX}{n}");
            if !self.procedures.values().any(|q| q.name == name) {
                break name;
            }
            n += 1;
        };
        let id = self.procedures.push(Procedure::declaration(name));
        let mut map = std::collections::BTreeMap::new();
        for v in original.params.iter().chain(&original.returns).chain(&original.locals) {
            let mut var = self.variables[*v].clone();
            var.scope = match var.scope {
                Scope::Param(_) => Scope::Param(id),
                Scope::Return(_) => Scope::Return(id),
                Scope::Local(_) => Scope::Local(id),
                Scope::Global => Scope::Global,
            };
            map.insert(*v, self.variables.push(var));
        }
        let mut vars = |v: VarId| map.get(&v).copied().unwrap_or(v);
        let mut procs = |q: ProcId| q;
        let mut copy = original.clone();
        copy.name = self.procedures[id].name.clone();
        copy.params = original.params.iter().map(|v| vars(*v)).collect();
        copy.returns = original.returns.iter().map(|v| vars(*v)).collect();
        copy.locals = original.locals.iter().map(|v| vars(*v)).collect();
        for (_, block) in copy.blocks.iter_mut() {
            block.commands = block.commands.iter().map(|c| c.map(&mut vars, &mut procs)).collect();
        }
        for contract in copy.requires.iter_mut().chain(copy.ensures.iter_mut()) {
            contract.expr = contract.expr.map_vars(&mut vars);
        }
        self.procedures[id] = copy;
        for (old, new) in &map {
            if let Some(a) = self.addresses.get(old).cloned() {
                self.addresses.insert(*new, a);
            }
            if let Some(r) = self.nondet_ranges.get(old).copied() {
                self.nondet_ranges.insert(*new, r);
            }
            if let Some(r) = self.record_bases.get(old).cloned() {
                self.record_bases.insert(*new, r);
            }
            if let Some(e) = self.inside.get(old).cloned() {
                self.inside.insert(*new, e.map_vars(&mut |v| map.get(&v).copied().unwrap_or(v)));
            }
        }
        if let Some(markers) = self.reach_markers.get(&p).cloned() {
            self.reach_markers.insert(id, markers);
        }
        (id, map)
    }
}

impl super::Procedure {
    /// The C function a procedure was lowered from: its name without the
    /// suffix of a copy made by [`super::Program::clone_procedure`].
    pub fn source_name(name: &str) -> &str {
        match name.rfind(CLONE_SUFFIX) {
            Some(i) if name[i + CLONE_SUFFIX.len()..].bytes().all(|b| b.is_ascii_digit()) => &name[..i],
            _ => name,
        }
    }
}
