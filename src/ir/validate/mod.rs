//! Well-formedness of a program, checked between pipeline stages.
//!
//! # Checks
//!
//! - Every id stored in the program names something that exists: variables,
//!   regions, locks, functions, procedures, entry points, blocks (a
//!   procedure's entry and its `goto` targets; a `goto` has targets).
//! - Names: variables, procedures and functions are named by C identifiers
//!   (the printer relies on it), procedures and functions uniquely.
//! - Scopes: a variable scoped to a procedure is listed, once, in that
//!   procedure's list for its scope, and the lists hold only such variables.
//!   A command sees the globals and its procedure's parameters, returns and
//!   locals; it assigns only the globals, returns and locals (a parameter is
//!   read-only, as in Boogie, so that a postcondition's mention of it means
//!   the value on entry). A precondition sees the globals and parameters, a
//!   postcondition also the returns.
//! - Sorts: conditions and contracts are boolean, addresses are integers,
//!   an assignment, load or store moves a value of the target's (region's)
//!   sort, a call and a function application match the callee's signature
//!   (and a call's results are distinct), a trylock's success variable is
//!   boolean, a shared lock operation is on a lock that has a shared mode.
//! - A bodiless procedure has no locals and a single block that only
//!   returns.
//!
//! Unreachable blocks are allowed and checked like the others.
//!
//! # Algorithm
//!
//! One pass over the declarations, then one pass over each procedure: its
//! variable lists, contracts, blocks (every command, then the terminator).
//! Every error is collected, not only the first. Each expression is first
//! checked for its references (its variables exist and are visible where it
//! stands, its functions exist) and only when they are sound is it sorted
//! with [`Expr::sort_of`], so that one mistake gives one error (and a
//! place never repeats an error).
//!
//! Messages print variables as the printer names them in the procedure
//! (`count.2`; `x@v7` for a variable the procedure cannot see), and regions,
//! locks and blocks by id, so that they can be read against the program's
//! text.

mod commands;

use super::entity::{BlockId, ProcId, VarId};
use super::expr::Expr;
use super::program::{Procedure, Program, Scope, Sort, Terminator};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Where in a program a [`ValidationError`] lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The declarations.
    Program,
    /// A procedure's signature, variable lists or blocks as a whole.
    Procedure,
    /// A precondition, by its position from 0.
    Requires(usize),
    /// A postcondition, by its position from 0.
    Ensures(usize),
    /// A command, by its block and its position in the block from 0.
    Command {
        /// The block.
        block: BlockId,
        /// The command's position.
        index: usize,
    },
    /// A block's terminator.
    Terminator(BlockId),
}

/// One thing wrong with a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// The procedure's name, unless the error is in the declarations.
    pub procedure: Option<String>,
    /// Where in the procedure (or program).
    pub place: Place,
    /// What is wrong, in one sentence.
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(procedure) = &self.procedure {
            write!(f, "procedure `{procedure}`")?;
            match self.place {
                Place::Program | Place::Procedure => {}
                Place::Requires(n) => write!(f, ", requires[{n}]")?,
                Place::Ensures(n) => write!(f, ", ensures[{n}]")?,
                Place::Command { block, index } => write!(f, ", {block}[{index}]")?,
                Place::Terminator(block) => write!(f, ", {block} terminator")?,
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ValidationError {}

/// Checks a program; see the module documentation for what is checked.
pub fn validate(program: &Program) -> Result<(), Vec<ValidationError>> {
    let mut checker = Checker { program, errors: Vec::new() };
    checker.declarations();
    for (id, procedure) in program.procedures.iter() {
        checker.procedure(id, procedure);
    }
    if checker.errors.is_empty() { Ok(()) } else { Err(checker.errors) }
}

/// Validates in debug builds, panicking with every error; passes call it
/// between stages. Release builds skip the check.
pub fn debug_validate(program: &Program) {
    if cfg!(debug_assertions) {
        if let Err(errors) = validate(program) {
            let errors: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            panic!("malformed IR:\n{}", errors.join("\n"));
        }
    }
}

/// Where an expression stands, which decides the variables it sees.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Visibility {
    Body,
    Precondition,
    Postcondition,
}

/// How a procedure owns one of its variables.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Param,
    Return,
    Local,
}

impl Role {
    /// The procedure's list of variables in this role.
    fn list(self, procedure: &Procedure) -> &[VarId] {
        match self {
            Role::Param => &procedure.params,
            Role::Return => &procedure.returns,
            Role::Local => &procedure.locals,
        }
    }

    /// The scope of a variable in this role of `procedure`.
    fn scope(self, procedure: ProcId) -> Scope {
        match self {
            Role::Param => Scope::Param(procedure),
            Role::Return => Scope::Return(procedure),
            Role::Local => Scope::Local(procedure),
        }
    }

    /// The list's name, for messages.
    fn plural(self) -> &'static str {
        match self {
            Role::Param => "parameters",
            Role::Return => "returns",
            Role::Local => "locals",
        }
    }
}

/// The procedure and place being checked.
struct Site<'p> {
    id: ProcId,
    procedure: &'p Procedure,
    /// The role of each variable the procedure lists (the first listing,
    /// when a variable is listed twice).
    own: HashMap<VarId, Role>,
    place: Place,
}

struct Checker<'p> {
    program: &'p Program,
    errors: Vec<ValidationError>,
}

impl<'p> Checker<'p> {
    /// Records an error, unless the same place already has it (a variable
    /// both read and written by one command).
    fn report(&mut self, site: &Site<'_>, message: String) {
        let procedure = Some(site.procedure.name.clone());
        let error = ValidationError { procedure, place: site.place, message };
        let mut same_place =
            self.errors.iter().rev().take_while(|e| e.procedure == error.procedure && e.place == error.place);
        if !same_place.any(|e| *e == error) {
            self.errors.push(error);
        }
    }

    /// Records an error in the declarations.
    fn report_program(&mut self, message: String) {
        self.errors.push(ValidationError { procedure: None, place: Place::Program, message });
    }

    /// Checks names, the scopes of variables against their procedures'
    /// lists, and entry points.
    fn declarations(&mut self) {
        let program = self.program;
        for (id, variable) in program.variables.iter() {
            if !is_identifier(&variable.name) {
                self.report_program(format!("variable {id} is named {:?}, which is not a C identifier", variable.name));
            }
            let (owner, role) = match variable.scope {
                Scope::Global => continue,
                Scope::Param(owner) => (owner, Role::Param),
                Scope::Return(owner) => (owner, Role::Return),
                Scope::Local(owner) => (owner, Role::Local),
            };
            let Some(procedure) = program.procedures.get(owner) else {
                self.report_program(format!(
                    "variable `{}` ({id}) belongs to procedure {owner}, which does not exist",
                    variable.name
                ));
                continue;
            };
            if !role.list(procedure).contains(&id) {
                let role = role.plural();
                self.report_program(format!(
                    "variable `{}` ({id}) is scoped to `{}`, which does not list it among its {role}",
                    variable.name, procedure.name
                ));
            }
        }
        let mut procedure_names: HashMap<&str, ProcId> = HashMap::new();
        for (id, procedure) in program.procedures.iter() {
            if !is_identifier(&procedure.name) {
                self.report_program(format!(
                    "procedure {id} is named {:?}, which is not a C identifier",
                    procedure.name
                ));
            } else if let Some(first) = procedure_names.insert(&procedure.name, id) {
                self.report_program(format!("procedures {first} and {id} are both named `{}`", procedure.name));
            }
        }
        let mut function_names = HashSet::new();
        for (id, function) in program.functions.iter() {
            if !is_identifier(&function.name) {
                self.report_program(format!("function {id} is named {:?}, which is not a C identifier", function.name));
            } else if !function_names.insert(&function.name) {
                self.report_program(format!("two functions are named `{}`", function.name));
            }
        }
        for (id, entry) in program.entry_points.iter() {
            if !program.procedures.contains(entry.procedure) {
                self.report_program(format!(
                    "entry point {id} (`{}`) runs procedure {}, which does not exist",
                    entry.name, entry.procedure
                ));
            }
        }
    }

    /// Checks one procedure: lists, shape, contracts, blocks.
    fn procedure(&mut self, id: ProcId, procedure: &'p Procedure) {
        let mut own = HashMap::new();
        for role in [Role::Param, Role::Return, Role::Local] {
            for v in role.list(procedure) {
                own.entry(*v).or_insert(role);
            }
        }
        let mut site = Site { id, procedure, own, place: Place::Procedure };
        self.variable_lists(&site);
        if !procedure.blocks.contains(procedure.entry) {
            self.report(&site, format!("entry block {} does not exist", procedure.entry));
        }
        if !procedure.body {
            self.declaration_shape(&site);
        }
        for (n, contract) in procedure.requires.iter().enumerate() {
            site.place = Place::Requires(n);
            self.expect_sort(&site, &contract.expr, Visibility::Precondition, "precondition", Sort::Bool);
        }
        for (n, contract) in procedure.ensures.iter().enumerate() {
            site.place = Place::Ensures(n);
            self.expect_sort(&site, &contract.expr, Visibility::Postcondition, "postcondition", Sort::Bool);
        }
        for (block_id, block) in procedure.blocks.iter() {
            for (index, command) in block.commands.iter().enumerate() {
                site.place = Place::Command { block: block_id, index };
                self.command(&site, command);
            }
            site.place = Place::Terminator(block_id);
            match &block.terminator {
                Terminator::Goto(targets) if targets.is_empty() => {
                    self.report(&site, "goto without targets (use unreachable)".into());
                }
                Terminator::Goto(targets) => {
                    for target in targets.iter().filter(|t| !procedure.blocks.contains(**t)) {
                        self.report(&site, format!("goto target {target} does not exist"));
                    }
                }
                Terminator::Return | Terminator::Unreachable => {}
            }
        }
    }

    /// Every listed variable exists, once, with the scope of its list.
    fn variable_lists(&mut self, site: &Site<'_>) {
        let mut listed = HashSet::new();
        for role in [Role::Param, Role::Return, Role::Local] {
            let (scope, list_name) = (role.scope(site.id), role.plural());
            for &v in role.list(site.procedure) {
                let Some(variable) = self.program.variables.get(v) else {
                    self.report(site, format!("its {list_name} list {v}, which does not exist"));
                    continue;
                };
                if !listed.insert(v) {
                    self.report(site, format!("`{}` ({v}) is listed twice", variable.name));
                } else if variable.scope != scope {
                    let actual = self.describe_scope(variable.scope);
                    let message = format!("`{}` ({v}) is listed among its {list_name} but is {actual}", variable.name);
                    self.report(site, message);
                }
            }
        }
    }

    /// A bodiless procedure has no locals and one block that only returns.
    fn declaration_shape(&mut self, site: &Site<'_>) {
        let procedure = site.procedure;
        if procedure.blocks.len() != 1 {
            self.report(site, format!("bodiless, yet it has {} blocks instead of one", procedure.blocks.len()));
        }
        if !procedure.locals.is_empty() {
            self.report(site, format!("bodiless, yet it declares {} local(s)", procedure.locals.len()));
        }
        if let Some(block) = procedure.blocks.get(procedure.entry) {
            if !block.commands.is_empty() {
                self.report(site, format!("bodiless, yet {} has {} command(s)", procedure.entry, block.commands.len()));
            }
            if block.terminator != Terminator::Return {
                self.report(site, format!("bodiless, yet {} does not end in return", procedure.entry));
            }
        }
    }

    /// A scope in words, as in "a local of `f`".
    fn describe_scope(&self, scope: Scope) -> String {
        let name =
            |p: ProcId| self.program.procedures.get(p).map_or_else(|| p.to_string(), |p| format!("`{}`", p.name));
        match scope {
            Scope::Global => "global".into(),
            Scope::Param(p) => format!("a parameter of {}", name(p)),
            Scope::Return(p) => format!("a return of {}", name(p)),
            Scope::Local(p) => format!("a local of {}", name(p)),
        }
    }

    /// The printed name of `v` in the procedure being checked.
    fn name(&self, site: &Site<'_>, v: VarId) -> String {
        self.program.variable_name(site.id, v)
    }

    /// Checks that `v` exists and is visible; returns its sort if so.
    fn read(&mut self, site: &Site<'_>, v: VarId, visibility: Visibility) -> Option<Sort> {
        let Some(variable) = self.program.variables.get(v) else {
            self.report(site, format!("variable {v} does not exist"));
            return None;
        };
        let problem = match (variable.scope, site.own.get(&v)) {
            (Scope::Global, _) | (_, Some(Role::Param)) => None,
            (_, Some(Role::Return)) => {
                (visibility == Visibility::Precondition).then_some("a return, which a precondition cannot mention")
            }
            (_, Some(Role::Local)) => {
                (visibility != Visibility::Body).then_some("a local, which a contract cannot mention")
            }
            (scope, None) => {
                let scope = self.describe_scope(scope);
                let message = format!("`{}` is {scope}, not visible here", self.name(site, v));
                self.report(site, message);
                return None;
            }
        };
        match problem {
            None => Some(variable.sort),
            Some(problem) => {
                let message = format!("`{}` is {problem}", self.name(site, v));
                self.report(site, message);
                None
            }
        }
    }

    /// Checks that a command may assign `v`; returns its sort if so.
    fn write(&mut self, site: &Site<'_>, v: VarId) -> Option<Sort> {
        let sort = self.read(site, v, Visibility::Body)?;
        if site.own.get(&v) == Some(&Role::Param) {
            let message =
                format!("`{}` is a parameter, which commands cannot assign (copy it to a local)", self.name(site, v));
            self.report(site, message);
            return None;
        }
        Some(sort)
    }

    /// Checks an expression's references, then its sort.
    fn sort(&mut self, site: &Site<'_>, e: &Expr, visibility: Visibility, what: &str) -> Option<Sort> {
        let mut sound = true;
        for v in e.variables() {
            sound &= self.read(site, v, visibility).is_some();
        }
        for f in e.functions().into_iter().filter(|f| !self.program.functions.contains(*f)) {
            self.report(site, format!("function {f} does not exist"));
            sound = false;
        }
        if !sound {
            return None;
        }
        match e.sort_of(self.program) {
            Ok(sort) => Some(sort),
            Err(error) => {
                self.report(site, format!("{what}: {error}"));
                None
            }
        }
    }

    /// Checks an expression and that it has the sort `expected`.
    fn expect_sort(&mut self, site: &Site<'_>, e: &Expr, visibility: Visibility, what: &str, expected: Sort) {
        if let Some(found) = self.sort(site, e, visibility, what) {
            if found != expected {
                self.report(site, format!("{what} has sort {found}, expected {expected}"));
            }
        }
    }
}

/// Whether `name` is a C identifier: `[A-Za-z_][A-Za-z0-9_]*`.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
