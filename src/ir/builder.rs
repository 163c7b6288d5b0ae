//! A small builder for procedures, for the lowering and for tests.
//!
//! The builder adds the procedure to the program when it starts, so that
//! its id is known at once (a recursive function calls itself), then fills
//! it in: variables, contracts, blocks and commands. There is always a
//! current block, into which commands go until a terminator ends it.
//! Misuse (a command after a terminator, two terminators, a block left
//! without one) is a bug of the caller and panics, naming the procedure and
//! block.

use super::command::Command;
use super::entity::{BlockId, ProcId, SecondaryMap, VarId};
use super::expr::Expr;
use super::program::{Block, Contract, Procedure, Program, Scope, Sort, Terminator, Variable};
use crate::diagnostics::Span;

/// Builds one procedure of a program.
pub struct ProcedureBuilder<'p> {
    program: &'p mut Program,
    procedure: ProcId,
    current: BlockId,
    terminated: SecondaryMap<BlockId, bool>,
}

impl<'p> ProcedureBuilder<'p> {
    /// Adds a procedure with a body to `program` and starts building it;
    /// the current block is its (empty) entry block.
    pub fn new(program: &'p mut Program, name: impl Into<String>, span: Option<Span>) -> ProcedureBuilder<'p> {
        let mut procedure = Procedure::declaration(name);
        procedure.body = true;
        procedure.span = span;
        let current = procedure.entry;
        let procedure = program.procedures.push(procedure);
        ProcedureBuilder { program, procedure, current, terminated: SecondaryMap::new() }
    }

    /// Starts building the body of a procedure declared earlier (so that
    /// calls could name it before its body was lowered); the current block
    /// is its entry block.
    ///
    /// # Panics
    ///
    /// When the procedure already has commands or more than one block.
    pub fn resume(program: &'p mut Program, procedure: ProcId) -> ProcedureBuilder<'p> {
        let p = &mut program.procedures[procedure];
        let empty = p.blocks.len() == 1 && p.blocks[p.entry].commands.is_empty();
        assert!(empty, "`{}`: resumed a procedure that already has a body", p.name);
        p.body = true;
        let current = p.entry;
        ProcedureBuilder { program, procedure, current, terminated: SecondaryMap::new() }
    }

    /// The id of the procedure being built.
    pub fn id(&self) -> ProcId {
        self.procedure
    }

    /// The program, to declare regions, locks or globals on the way.
    pub fn program(&mut self) -> &mut Program {
        self.program
    }

    fn procedure_mut(&mut self) -> &mut Procedure {
        &mut self.program.procedures[self.procedure]
    }

    fn variable(&mut self, name: String, sort: Sort, scope: Scope, ghost: bool, span: Option<Span>) -> VarId {
        self.program.variables.push(Variable { name, sort, scope, ghost, span })
    }

    /// Adds a parameter, after the others.
    pub fn add_param(&mut self, name: impl Into<String>, sort: Sort) -> VarId {
        let v = self.variable(name.into(), sort, Scope::Param(self.procedure), false, None);
        self.procedure_mut().params.push(v);
        v
    }

    /// Adds a return variable, after the others.
    pub fn add_return(&mut self, name: impl Into<String>, sort: Sort) -> VarId {
        let v = self.variable(name.into(), sort, Scope::Return(self.procedure), false, None);
        self.procedure_mut().returns.push(v);
        v
    }

    /// Adds a local variable.
    pub fn add_local(&mut self, name: impl Into<String>, sort: Sort, span: Option<Span>) -> VarId {
        let v = self.variable(name.into(), sort, Scope::Local(self.procedure), false, span);
        self.procedure_mut().locals.push(v);
        v
    }

    /// Adds a ghost local variable (instrumentation state).
    pub fn add_ghost_local(&mut self, name: impl Into<String>, sort: Sort) -> VarId {
        let v = self.variable(name.into(), sort, Scope::Local(self.procedure), true, None);
        self.procedure_mut().locals.push(v);
        v
    }

    /// Adds a precondition; a free one is assumed, not checked.
    pub fn requires(&mut self, expr: Expr, free: bool) {
        self.procedure_mut().requires.push(Contract { expr, free });
    }

    /// Adds a postcondition; a free one is assumed, not checked.
    pub fn ensures(&mut self, expr: Expr, free: bool) {
        self.procedure_mut().ensures.push(Contract { expr, free });
    }

    /// Creates an empty block, without making it current.
    pub fn new_block(&mut self) -> BlockId {
        self.procedure_mut().blocks.push(Block { commands: Vec::new(), terminator: Terminator::Unreachable })
    }

    /// Makes `block` the current block.
    pub fn switch_to(&mut self, block: BlockId) {
        assert!(
            self.program.procedures[self.procedure].blocks.contains(block),
            "{block} is not a block of this procedure"
        );
        self.current = block;
    }

    /// The block commands go into.
    pub fn current_block(&self) -> BlockId {
        self.current
    }

    /// Whether the current block has its terminator.
    pub fn is_terminated(&self) -> bool {
        self.terminated[self.current]
    }

    /// Appends a command to the current block.
    ///
    /// # Panics
    ///
    /// When the current block is terminated.
    pub fn push(&mut self, command: Command) {
        self.expect_open();
        let current = self.current;
        self.procedure_mut().blocks[current].commands.push(command);
    }

    /// Appends `target := value;`.
    pub fn assign(&mut self, target: VarId, value: Expr, span: Option<Span>) {
        self.push(Command::Assign { target, value, span });
    }

    /// Appends `assume cond;`.
    pub fn assume(&mut self, cond: Expr, span: Option<Span>) {
        self.push(Command::Assume { cond, span });
    }

    /// Ends the current block with a nondeterministic `goto`.
    pub fn goto(&mut self, targets: impl IntoIterator<Item = BlockId>) {
        self.terminate(Terminator::Goto(targets.into_iter().collect()));
    }

    /// Ends the current block with a two-way branch on `cond`: creates and
    /// returns a `then` block starting with `assume cond;` and an `else`
    /// block starting with `assume !cond;`. Neither becomes current.
    pub fn branch(&mut self, cond: Expr, span: Option<Span>) -> (BlockId, BlockId) {
        let (then_block, else_block) = (self.new_block(), self.new_block());
        self.goto([then_block, else_block]);
        let blocks = &mut self.procedure_mut().blocks;
        let negated = Expr::not(cond.clone());
        blocks[then_block].commands.push(Command::Assume { cond, span: span.clone() });
        blocks[else_block].commands.push(Command::Assume { cond: negated, span });
        (then_block, else_block)
    }

    /// Ends the current block with `return`.
    pub fn ret(&mut self) {
        self.terminate(Terminator::Return);
    }

    /// Ends the current block with `unreachable`.
    pub fn unreachable(&mut self) {
        self.terminate(Terminator::Unreachable);
    }

    fn terminate(&mut self, terminator: Terminator) {
        self.expect_open();
        let current = self.current;
        self.procedure_mut().blocks[current].terminator = terminator;
        self.terminated[current] = true;
    }

    fn expect_open(&self) {
        let name = &self.program.procedures[self.procedure].name;
        assert!(!self.terminated[self.current], "`{name}`: {} is already terminated", self.current);
    }

    /// Finishes a procedure with a body and returns its id.
    ///
    /// # Panics
    ///
    /// When a block has no terminator.
    pub fn finish(self) -> ProcId {
        let procedure = &self.program.procedures[self.procedure];
        if let Some(block) = procedure.blocks.ids().find(|b| !self.terminated[*b]) {
            panic!("`{}`: {block} has no terminator", procedure.name);
        }
        self.procedure
    }

    /// Finishes the procedure as a bodiless declaration (a model or an
    /// external function): its entry block only returns.
    ///
    /// # Panics
    ///
    /// When blocks, commands or locals were added.
    pub fn finish_declaration(mut self) -> ProcId {
        let procedure = self.procedure_mut();
        let entry = procedure.entry;
        let empty = procedure.blocks.len() == 1 && procedure.blocks[entry].commands.is_empty();
        assert!(empty && procedure.locals.is_empty(), "`{}`: a declaration has no body", procedure.name);
        procedure.blocks[entry].terminator = Terminator::Return;
        procedure.body = false;
        self.procedure
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_creates_two_guarded_blocks() {
        let mut program = Program::new();
        let mut b = ProcedureBuilder::new(&mut program, "f", None);
        let x = b.add_param("x", Sort::Int);
        let (then_block, else_block) = b.branch(Expr::gt(Expr::var(x), Expr::int(0)), None);
        assert!(b.is_terminated());
        for block in [then_block, else_block] {
            b.switch_to(block);
            assert!(!b.is_terminated());
            b.ret();
        }
        let f = b.finish();
        let blocks = &program.procedures[f].blocks;
        assert_eq!(blocks[BlockId::from_u32(0)].terminator, Terminator::Goto(vec![then_block, else_block]));
        let guard = Expr::gt(Expr::var(x), Expr::int(0));
        assert_eq!(blocks[else_block].commands, [Command::Assume { cond: Expr::not(guard), span: None }]);
    }

    #[test]
    #[should_panic(expected = "`f`: bb1 has no terminator")]
    fn finish_rejects_an_open_block() {
        let mut program = Program::new();
        let mut b = ProcedureBuilder::new(&mut program, "f", None);
        let next = b.new_block();
        b.goto([next]);
        b.finish();
    }

    #[test]
    #[should_panic(expected = "`f`: bb0 is already terminated")]
    fn commands_cannot_follow_a_terminator() {
        let mut program = Program::new();
        let mut b = ProcedureBuilder::new(&mut program, "f", None);
        b.ret();
        b.assume(Expr::bool(true), None);
    }
}
