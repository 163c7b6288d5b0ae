//! The text form of the IVL: Boogie-flavoured, deterministic, and what the
//! snapshot tests of lowered C compare.
//!
//! # Layout
//!
//! Declarations come first, one a line, each group in id order: regions
//! (`region region0 "struct file.f_pos" field: int;`, then `thread-private`
//! after the kind when it applies), locks (`lock lock0 "nvram_mutex"
//! mutex;`), uninterpreted functions (`function bitand(int, int): int;`),
//! global variables (`var nvram_count: int;`, `ghost var …` for ghost
//! state) and entry points (`entry entry0 "nvram_read" callback:
//! nvram_read;`). Then each procedure, after a blank line: its signature,
//! its contracts indented (`requires …;`, `free ensures …;`), and unless it
//! is a bodiless declaration (whose signature ends in `;`) a body in braces:
//! the locals (`var i: int;`), then the blocks, the entry block first and
//! the others in id order, each a label (`bb0:`) followed by its commands
//! and its terminator, indented by two spaces. Anything with a span gets a
//! trailing comment naming the file (not its directory), line and column:
//! `// nvram.c:53:2`.
//!
//! # Variable names
//!
//! Regions, locks, blocks and entry points print as their ids (`region3`);
//! their declarations give their human-readable names. Variables print as
//! their names, made unique in two steps:
//!
//! 1. A global prints as its name if no other global has that name, else
//!    as `name.N`, where N numbers the globals of that name from 1 in id
//!    order. A global prints the same in every procedure.
//! 2. A procedure's own variable prints as its name if no global and no
//!    other variable of the procedure has that name, else as `name.N`, where
//!    N numbers the procedure's variables of that name (parameters, returns,
//!    then locals) from one more than the number of globals of that name: a
//!    local `count` shadowing a global `count` prints as `count.2`.
//!
//! Variable names are C identifiers, which contain no `.`, so the printed
//! names are unique. In a program that fails validation, a variable the
//! procedure cannot see prints as `name@v7` and a dangling id as `?v7`
//! (likewise `?proc7`, `?fn7`): the printer never panics.
//!
//! # Parentheses
//!
//! Expressions print with the fewest parentheses that re-parse to the same
//! tree under these precedences, loosest first: `if … then … else …`;
//! `==>` (right-associative); `||`; `&&`; the comparisons (non-associative);
//! `+ -`; `* / %` (the binary levels left-associative); the prefix `-` and
//! `!`, whose operand is parenthesized unless it is a variable, a
//! non-negative literal or an application (so `-(-x)`, never `--x`). An
//! `if`'s condition and `then` branch are parenthesized when they are
//! themselves `if`s, for readability.

mod syntax;

use super::command::Command;
use super::entity::{ProcId, SecondaryMap, VarId};
use super::expr::Expr;
use super::program::{Procedure, Program, Terminator, Variable};
use crate::diagnostics::Span;
use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write};

/// Prints expressions and commands with the variable names of one scope.
struct Writer<'p> {
    program: &'p Program,
    names: SecondaryMap<VarId, Option<String>>,
}

impl<'p> Writer<'p> {
    /// A writer that knows the globals only.
    fn for_declarations(program: &'p Program) -> Writer<'p> {
        let mut names = SecondaryMap::new();
        let globals: Vec<(VarId, &Variable)> = program.globals().collect();
        let global_counts = count_names(globals.iter().map(|(_, v)| v.name.as_str()));
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (id, variable) in globals {
            let ordinal = seen.entry(&variable.name).or_default();
            *ordinal += 1;
            names[id] = Some(numbered(&variable.name, global_counts[variable.name.as_str()], *ordinal));
        }
        Writer { program, names }
    }

    /// A writer that knows the globals and `procedure`'s own variables.
    fn for_procedure(program: &'p Program, procedure: ProcId) -> Writer<'p> {
        let mut writer = Writer::for_declarations(program);
        let Some(procedure) = program.procedures.get(procedure) else { return writer };
        let global_counts = count_names(program.globals().map(|(_, v)| v.name.as_str()));
        let mut listed = HashSet::new();
        let own: Vec<(VarId, &Variable)> = procedure
            .variables()
            .filter(|v| listed.insert(*v))
            .filter_map(|v| program.variables.get(v).map(|variable| (v, variable)))
            .collect();
        let own_counts = count_names(own.iter().map(|(_, v)| v.name.as_str()));
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (id, variable) in own {
            let globals = global_counts.get(variable.name.as_str()).copied().unwrap_or(0);
            let ordinal = seen.entry(&variable.name).or_insert(globals);
            *ordinal += 1;
            let clashes = globals + own_counts[variable.name.as_str()];
            writer.names[id] = Some(numbered(&variable.name, clashes, *ordinal));
        }
        writer
    }

    /// A variable's printed name (see "Variable names" above).
    fn var(&self, out: &mut dyn Write, v: VarId) -> fmt::Result {
        match (self.names.get(v), self.program.variables.get(v)) {
            (Some(name), _) => out.write_str(name),
            (None, Some(variable)) => write!(out, "{}@{v}", variable.name),
            (None, None) => write!(out, "?{v}"),
        }
    }

    /// Variables' names, separated by commas.
    fn var_list(&self, out: &mut dyn Write, vars: &[VarId]) -> fmt::Result {
        for (n, v) in vars.iter().enumerate() {
            if n > 0 {
                out.write_str(", ")?;
            }
            self.var(out, *v)?;
        }
        Ok(())
    }

    /// A parameter or return: `name: sort`, with `ghost ` before ghost
    /// variables.
    fn declaration(&self, out: &mut dyn Write, v: VarId) -> fmt::Result {
        if self.program.variables.get(v).is_some_and(|variable| variable.ghost) {
            out.write_str("ghost ")?;
        }
        self.var(out, v)?;
        self.sort_suffix(out, v)
    }

    /// `: sort`, or `: ?` for a dangling id.
    fn sort_suffix(&self, out: &mut dyn Write, v: VarId) -> fmt::Result {
        match self.program.variables.get(v) {
            Some(variable) => write!(out, ": {}", variable.sort),
            None => out.write_str(": ?"),
        }
    }

    /// Prints the declarations, one a line.
    fn declarations(&self, out: &mut dyn Write) -> fmt::Result {
        let program = self.program;
        for (id, region) in program.regions.iter() {
            write!(out, "region {id} {:?} {}", region.name, region.kind.as_str())?;
            if region.thread_private {
                out.write_str(" thread-private")?;
            }
            writeln!(out, ": {};", region.element)?;
        }
        for (id, lock) in program.locks.iter() {
            writeln!(out, "lock {id} {:?} {};", lock.name, lock.kind.as_str())?;
        }
        for (_, function) in program.functions.iter() {
            let params: Vec<&str> = function.params.iter().map(|s| s.as_str()).collect();
            writeln!(out, "function {}({}): {};", function.name, params.join(", "), function.result)?;
        }
        for (id, variable) in program.globals() {
            out.write_str(if variable.ghost { "ghost var " } else { "var " })?;
            self.var(out, id)?;
            write!(out, ": {};", variable.sort)?;
            end_line(out, variable.span.as_ref())?;
        }
        for (id, entry) in program.entry_points.iter() {
            write!(out, "entry {id} {:?} {}: ", entry.name, entry.kind.as_str())?;
            match program.procedures.get(entry.procedure) {
                Some(procedure) => out.write_str(&procedure.name)?,
                None => write!(out, "?{}", entry.procedure)?,
            }
            out.write_char(';')?;
            end_line(out, Some(&entry.span))?;
        }
        Ok(())
    }

    /// Prints a procedure, for a writer made for it.
    fn procedure(&self, out: &mut dyn Write, procedure: &Procedure) -> fmt::Result {
        write!(out, "procedure {}(", procedure.name)?;
        self.declaration_list(out, &procedure.params)?;
        out.write_char(')')?;
        if !procedure.returns.is_empty() {
            out.write_str(" returns (")?;
            self.declaration_list(out, &procedure.returns)?;
            out.write_char(')')?;
        }
        if !procedure.body {
            out.write_char(';')?;
        }
        end_line(out, procedure.span.as_ref())?;
        for (keyword, contracts) in [("requires", &procedure.requires), ("ensures", &procedure.ensures)] {
            for contract in contracts {
                out.write_str(if contract.free { "  free " } else { "  " })?;
                write!(out, "{keyword} ")?;
                self.expression(out, &contract.expr)?;
                out.write_str(";\n")?;
            }
        }
        if !procedure.body {
            return Ok(());
        }
        out.write_str("{\n")?;
        for local in &procedure.locals {
            let variable = self.program.variables.get(*local);
            out.write_str(if variable.is_some_and(|v| v.ghost) { "  ghost var " } else { "  var " })?;
            self.var(out, *local)?;
            self.sort_suffix(out, *local)?;
            out.write_char(';')?;
            end_line(out, variable.and_then(|v| v.span.as_ref()))?;
        }
        let entry = procedure.blocks.get(procedure.entry).map(|block| (procedure.entry, block));
        let others = procedure.blocks.iter().filter(|(id, _)| *id != procedure.entry);
        for (id, block) in entry.into_iter().chain(others) {
            writeln!(out, "{id}:")?;
            for command in &block.commands {
                out.write_str("  ")?;
                self.command(out, command)?;
                end_line(out, command.span())?;
            }
            match &block.terminator {
                Terminator::Goto(targets) => {
                    let targets: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
                    writeln!(out, "  goto {};", targets.join(", "))?;
                }
                Terminator::Return => out.write_str("  return;\n")?,
                Terminator::Unreachable => out.write_str("  unreachable;\n")?,
            }
        }
        out.write_str("}\n")
    }

    /// Parameter or return declarations, separated by commas.
    fn declaration_list(&self, out: &mut dyn Write, vars: &[VarId]) -> fmt::Result {
        for (n, v) in vars.iter().enumerate() {
            if n > 0 {
                out.write_str(", ")?;
            }
            self.declaration(out, *v)?;
        }
        Ok(())
    }
}

/// How many times each name occurs.
fn count_names<'n>(names: impl Iterator<Item = &'n str>) -> HashMap<&'n str, usize> {
    let mut counts = HashMap::new();
    for name in names {
        *counts.entry(name).or_default() += 1;
    }
    counts
}

/// `name` when it is the only one, else `name.ordinal`.
fn numbered(name: &str, clashes: usize, ordinal: usize) -> String {
    if clashes == 1 { name.to_string() } else { format!("{name}.{ordinal}") }
}

/// Ends a line, with a comment naming the file (not its directory), line
/// and column of `span` when there is one.
fn end_line(out: &mut dyn Write, span: Option<&Span>) -> fmt::Result {
    if let Some(span) = span {
        let file = span.file.file_name().unwrap_or(span.file.as_os_str()).to_string_lossy();
        write!(out, " // {file}:{}:{}", span.line, span.column)?;
    }
    out.write_char('\n')
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut declarations = String::new();
        Writer::for_declarations(self).declarations(&mut declarations)?;
        f.write_str(&declarations)?;
        for (n, id) in self.procedures.ids().enumerate() {
            if n > 0 || !declarations.is_empty() {
                f.write_char('\n')?;
            }
            write!(f, "{}", self.display_procedure(id))?;
        }
        Ok(())
    }
}

/// A procedure ready to print; see [`Program::display_procedure`].
pub struct ProcedureDisplay<'p> {
    program: &'p Program,
    procedure: ProcId,
}

/// A command ready to print; see [`Program::display_command`].
pub struct CommandDisplay<'p> {
    program: &'p Program,
    procedure: ProcId,
    command: &'p Command,
}

/// An expression ready to print; see [`Program::display_expr`].
pub struct ExprDisplay<'p> {
    program: &'p Program,
    procedure: ProcId,
    expr: &'p Expr,
}

impl Program {
    /// Prints a procedure as in the program's text.
    pub fn display_procedure(&self, procedure: ProcId) -> ProcedureDisplay<'_> {
        ProcedureDisplay { program: self, procedure }
    }

    /// Prints a command of `procedure` on one line, without the span.
    pub fn display_command<'p>(&'p self, procedure: ProcId, command: &'p Command) -> CommandDisplay<'p> {
        CommandDisplay { program: self, procedure, command }
    }

    /// Prints an expression with the variable names of `procedure`.
    pub fn display_expr<'p>(&'p self, procedure: ProcId, expr: &'p Expr) -> ExprDisplay<'p> {
        ExprDisplay { program: self, procedure, expr }
    }

    /// The printed name of a variable of `procedure` (or a global).
    pub fn variable_name(&self, procedure: ProcId, variable: VarId) -> String {
        let mut name = String::new();
        // Writing to a String cannot fail.
        let _ = Writer::for_procedure(self, procedure).var(&mut name, variable);
        name
    }
}

impl fmt::Display for ProcedureDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.program.procedures.get(self.procedure) {
            Some(procedure) => Writer::for_procedure(self.program, self.procedure).procedure(f, procedure),
            None => writeln!(f, "// ?{}", self.procedure),
        }
    }
}

impl fmt::Display for CommandDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Writer::for_procedure(self.program, self.procedure).command(f, self.command)
    }
}

impl fmt::Display for ExprDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Writer::for_procedure(self.program, self.procedure).expression(f, self.expr)
    }
}
