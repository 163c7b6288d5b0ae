//! The checks of individual commands, continuing the [`Checker`] of the
//! parent module: each command's ids exist, its expressions have the sorts
//! the command needs, and it assigns only variables it may assign. A call is
//! checked against its callee's signature, argument by argument and result
//! by result.

use super::{Checker, Site, Visibility};
use crate::ir::command::{Command, LockMode};
use crate::ir::entity::{LockId, ProcId, RegionId, VarId};
use crate::ir::expr::Expr;
use crate::ir::program::Sort;
use std::collections::HashSet;

impl Checker<'_> {
    /// The element sort of a region, if it exists.
    fn region(&mut self, site: &Site<'_>, region: RegionId) -> Option<Sort> {
        let element = self.program.regions.get(region).map(|r| r.element);
        if element.is_none() {
            self.report(site, format!("region {region} does not exist"));
        }
        element
    }

    /// Checks one command, reporting every problem at its place.
    pub(super) fn command(&mut self, site: &Site<'_>, command: &Command) {
        let program = self.program;
        match command {
            Command::Assign { target, value, .. } => {
                let target_sort = self.write(site, *target);
                let value_sort = self.sort(site, value, Visibility::Body, "assigned value");
                if let (Some(target_sort), Some(value_sort)) = (target_sort, value_sort) {
                    if target_sort != value_sort {
                        let target = self.name(site, *target);
                        self.report(
                            site,
                            format!("assigned value has sort {value_sort}, but `{target}` has sort {target_sort}"),
                        );
                    }
                }
            }
            Command::Assume { cond, .. } => {
                self.expect_sort(site, cond, Visibility::Body, "assume condition", Sort::Bool)
            }
            Command::Assert { cond, .. } => {
                self.expect_sort(site, cond, Visibility::Body, "assert condition", Sort::Bool)
            }
            Command::Havoc { vars, .. } => {
                for v in vars {
                    self.write(site, *v);
                }
            }
            Command::Call { procedure, args, results, .. } => self.call(site, *procedure, args, results),
            Command::Load { target, region, address, .. } => {
                let target_sort = self.write(site, *target);
                let element = self.region(site, *region);
                self.expect_sort(site, address, Visibility::Body, "address", Sort::Int);
                if let (Some(target_sort), Some(element)) = (target_sort, element) {
                    if target_sort != element {
                        let target = self.name(site, *target);
                        self.report(site, format!("{region} holds {element}, but `{target}` has sort {target_sort}"));
                    }
                }
            }
            Command::Store { region, address, value, .. } => {
                let element = self.region(site, *region);
                self.expect_sort(site, address, Visibility::Body, "address", Sort::Int);
                let value_sort = self.sort(site, value, Visibility::Body, "stored value");
                if let (Some(element), Some(value_sort)) = (element, value_sort) {
                    if element != value_sort {
                        self.report(site, format!("stored value has sort {value_sort}, but {region} holds {element}"));
                    }
                }
            }
            Command::Lock { lock, mode, .. } | Command::Unlock { lock, mode, .. } => self.lock(site, *lock, *mode),
            Command::TryLock { lock, mode, success, .. } => {
                self.lock(site, *lock, *mode);
                if let Some(sort) = self.write(site, *success) {
                    if sort != Sort::Bool {
                        let success = self.name(site, *success);
                        self.report(
                            site,
                            format!("trylock success variable `{success}` has sort {sort}, expected bool"),
                        );
                    }
                }
            }
            Command::GhostAccess { region, address, entry_point, .. } => {
                self.region(site, *region);
                self.expect_sort(site, address, Visibility::Body, "address", Sort::Int);
                if !program.entry_points.contains(*entry_point) {
                    self.report(site, format!("entry point {entry_point} does not exist"));
                }
            }
            Command::HeldAnnotation { lock, mode, .. } => self.lock(site, *lock, mode.unwrap_or(LockMode::Exclusive)),
            Command::Keep { values, .. } => {
                for v in values {
                    self.sort(site, v, Visibility::Body, "kept value");
                }
            }
            Command::LockUnknown { .. } | Command::InterruptControl { .. } | Command::MakeLive { .. } | Command::Quiesce { .. } | Command::Approximation { .. } => {}
        }
    }

    /// The lock exists and has the mode.
    fn lock(&mut self, site: &Site<'_>, lock: LockId, mode: LockMode) {
        match (self.program.locks.get(lock), mode) {
            (None, _) => self.report(site, format!("lock {lock} does not exist")),
            (Some(l), LockMode::Shared) if !l.kind.has_shared_mode() => {
                self.report(site, format!("{lock} is a {}, which has no shared mode", l.kind.as_str()));
            }
            (Some(_), LockMode::Shared | LockMode::Exclusive) => {}
        }
    }

    /// The callee exists and the arguments and results match its
    /// parameters and returns; no variable receives two results.
    fn call(&mut self, site: &Site<'_>, callee_id: ProcId, args: &[Expr], results: &[VarId]) {
        let arg_sorts: Vec<Option<Sort>> =
            args.iter().map(|a| self.sort(site, a, Visibility::Body, "argument")).collect();
        let result_sorts: Vec<Option<Sort>> = results.iter().map(|r| self.write(site, *r)).collect();
        let mut seen = HashSet::new();
        for r in results.iter().filter(|r| !seen.insert(**r)) {
            let message = format!("`{}` receives two results of the call", self.name(site, *r));
            self.report(site, message);
        }
        let Some(callee) = self.program.procedures.get(callee_id) else {
            self.report(site, format!("procedure {callee_id} does not exist"));
            return;
        };
        let name = &callee.name;
        if args.len() != callee.params.len() {
            let message =
                format!("call to `{name}` passes {} argument(s) for {} parameter(s)", args.len(), callee.params.len());
            self.report(site, message);
        }
        if results.len() != callee.returns.len() {
            let message = format!(
                "call to `{name}` receives {} result(s) from {} return(s)",
                results.len(),
                callee.returns.len()
            );
            self.report(site, message);
        }
        let params = arg_sorts.iter().zip(&callee.params).enumerate();
        let returns = result_sorts.iter().zip(&callee.returns).enumerate();
        for (n, (sort, param)) in params {
            let Some(expected) = self.program.variables.get(*param).map(|p| p.sort) else { continue };
            if let Some(found) = sort.filter(|s| *s != expected) {
                let param = self.program.variable_name(callee_id, *param);
                self.report(
                    site,
                    format!(
                        "argument {} has sort {found}, but parameter `{param}` of `{name}` has sort {expected}",
                        n + 1
                    ),
                );
            }
        }
        for (n, (sort, ret)) in returns {
            let Some(expected) = self.program.variables.get(*ret).map(|r| r.sort) else { continue };
            if let Some(found) = sort.filter(|s| *s != expected) {
                let result = self.name(site, results[n]);
                let ret = self.program.variable_name(callee_id, *ret);
                self.report(
                    site,
                    format!("result `{result}` has sort {found}, but return `{ret}` of `{name}` has sort {expected}"),
                );
            }
        }
    }
}
