//! The state of the lowering: what all functions share ([`Shared`]) and
//! what one function's lowering holds ([`FnLower`]), with the helpers every
//! part of the lowering uses: temporaries, spans, approximations, region
//! ids.
//!
//! A function's frame: each parameter is copied into a local at entry (IR
//! parameters are read-only); a local or parameter whose address is taken,
//! and every local record or array, lives in memory, in a thread-private
//! region of its own (`local f.buf`) at an address fixed on entry; every
//! other local is an IR variable. `return e` assigns the return variable
//! and jumps to the one return block.

use super::layout::{self, Shape};
use super::regions::{RegionKey, RegionTable};
use super::stats::LoweringStats;
use super::{ProcedureMap, span_of};
use crate::diagnostics::{Diagnostic, Level, Span};
use crate::frontend::clang::{Cursor, CursorKind, Type, UnaryOperator};
use crate::models::KernelModels;
use crate::ir::{ApproxKind, BlockId, Command, Expr, FuncId, LockId, ProcId, ProcedureBuilder, Program, RegionId, Sort, VarId};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// What every function's lowering shares.
pub struct Shared<'m> {
    /// The kernel models.
    pub models: &'m KernelModels,
    /// The driver file, for spans.
    pub main_file: Arc<Path>,
    /// Region keys and merges.
    pub regions: RegionTable,
    /// Identified locks, by identity key.
    pub locks: HashMap<String, LockId>,
    /// For the key of a lock inside a global structure, the keys a pointer
    /// to an enclosing structure would give it ([`crate::ir::Program::lock_keys`]).
    pub lock_aliases: HashMap<String, std::collections::BTreeSet<String>>,
    /// Every lowered function's procedure, by USR.
    pub procedures: ProcedureMap,
    /// Procedures of lock-parametric functions specialised for one lock
    /// binding, by (USR, binding).
    pub specialised: HashMap<(String, String), ProcId>,
    /// Uninterpreted functions by name.
    pub functions: HashMap<String, FuncId>,
    /// Source texts read to recognise attributes, by file.
    pub texts: HashMap<std::path::PathBuf, Vec<u8>>,
    /// Functions stored in each `record.field` anywhere in the driver, for
    /// calls through that field.
    pub field_targets: HashMap<(String, String), Vec<String>>,
    /// A whole program's constant function-pointer globals
    /// ([`super::constant_pointers`]).
    pub constant_pointers: super::constant_pointers::ConstantPointers,
    /// Specialised procedures declared but not yet lowered: (USR of the
    /// function, procedure, lock binding).
    pub pending: Vec<(String, ProcId, Vec<(usize, super::locks::LockIdentity)>)>,
    /// The bit locks met and the writes that could clear them.
    pub bit_locks: super::bitlocks::BitLockLog,
    /// Every entry point's function with the kinds of all its
    /// registrations (for the callbacks a registration makes live).
    pub entry_kinds: Vec<(String, Vec<crate::models::EntryKind>)>,
    /// The entry points an unknown call cannot make live
    /// What a call no model describes may make live: every entry point but
    /// the sealed ones ([`crate::frontend::sealed`], which only a call
    /// given their address can start); `None`: every callback.
    pub assumed_targets: Option<Vec<String>>,
    /// The entry points whose every registration says which functions
    /// alone arm them (`armed-by`), with those functions.
    pub armed_only: HashMap<String, Vec<String>>,
    /// The sealed entry points ([`crate::frontend::sealed`]).
    pub sealed: std::collections::BTreeSet<String>,
    /// The global objects whose callbacks only their initialisers set, for
    /// `makes="object:N"` ([`crate::frontend::registered`]).
    pub registered: crate::frontend::registered::RegisteredObjects,
    /// Every entry point's function with the structure of each of its
    /// registrations (`None`: not a structure field), for `quiesces`.
    pub entry_records: Vec<(String, Vec<super::quiesce::OriginInfo>)>,
    /// Work items queued, never with a delay, on one workqueue the driver
    /// allocates, with that queue, for `quiesces="queued-on"`.
    pub undelayed_work: std::collections::BTreeMap<String, String>,
    /// Warnings so far.
    pub warnings: Vec<Diagnostic>,
    /// Counts so far.
    pub stats: LoweringStats,
    /// The `unless-reaches` markers each procedure uses
    /// ([`crate::ir::Program::reach_markers`]).
    pub reach_markers: std::collections::BTreeMap<crate::ir::ProcId, std::collections::BTreeSet<String>>,
    /// What the per-call private memory analysis needs to know.
    pub privacy: crate::analyses::private::Facts,
    /// The names ([`super::place::global_name`]) of the variables with
    /// internal linkage that several files of a multi-file unit define:
    /// each file's is named with its file (`count@a.c`), since the linker
    /// keeps one per file.
    pub qualified_statics: std::collections::HashSet<String>,
    /// The USRs of the variables whose address a file-scope initialiser
    /// takes ([`super::place::initializer_addressed`]).
    pub initializer_addressed: std::collections::HashSet<String>,
}

impl<'m> Shared<'m> {
    /// Empty shared state.
    pub fn new(models: &'m KernelModels, main_file: Arc<Path>) -> Shared<'m> {
        Shared {
            models,
            main_file,
            regions: RegionTable::default(),
            locks: HashMap::new(),
            lock_aliases: HashMap::new(),
            procedures: HashMap::new(),
            specialised: HashMap::new(),
            functions: HashMap::new(),
            texts: HashMap::new(),
            field_targets: HashMap::new(),
            constant_pointers: Default::default(),
            pending: Vec::new(),
            bit_locks: super::bitlocks::BitLockLog::default(),
            entry_kinds: Vec::new(),
            assumed_targets: None,
            registered: Default::default(),
            armed_only: HashMap::new(),
            sealed: Default::default(),
            entry_records: Vec::new(),
            undelayed_work: Default::default(),
            warnings: Vec::new(),
            stats: LoweringStats::default(),
            reach_markers: Default::default(),
            privacy: Default::default(),
            qualified_statics: Default::default(),
            initializer_addressed: Default::default(),
        }
    }
}

/// Where a C local or parameter lives.
#[derive(Clone, Debug)]
pub enum Storage {
    /// An IR variable (address never taken, scalar).
    Var(VarId),
    /// Memory at a fixed address, accessed through the shared, type-based
    /// regions because its address escapes (to a procedure, into memory):
    /// every access to its bytes, direct or through a pointer, is in one
    /// region, and is race-checked.
    Shared {
        /// The variable holding its address.
        address: VarId,
    },
    /// Memory at a fixed address in a region of its own.
    Memory {
        /// The local's region key.
        key: RegionKey,
        /// The variable holding its address.
        address: VarId,
    },
}

/// Jump targets of the innermost enclosing loop or switch.
#[derive(Clone, Copy, Debug)]
pub struct Jumps {
    /// Where `break` goes.
    pub brk: BlockId,
    /// Where `continue` goes (none inside a switch that is not in a loop).
    pub cont: Option<BlockId>,
    /// How many scopes were open when the loop or switch body began:
    /// jumping out runs the cleanups of the scopes opened since.
    pub depth: usize,
}

/// One function's lowering.
pub struct FnLower<'p, 's, 'm, 't> {
    /// The procedure being built.
    pub b: ProcedureBuilder<'p>,
    /// The shared state.
    pub s: &'s mut Shared<'m>,
    /// The C function.
    pub function: Cursor<'t>,
    /// Its name.
    pub name: String,
    /// Locals and parameters by USR.
    pub locals: HashMap<String, Storage>,
    /// The return variable, for a non-void function.
    pub ret: Option<VarId>,
    /// The single return block.
    pub ret_block: BlockId,
    /// Innermost loop or switch last.
    pub jumps: Vec<Jumps>,
    /// Case blocks of the innermost switch: (value, block); `None` for
    /// `default`.
    pub cases: Vec<Vec<(Option<i128>, BlockId)>>,
    /// Label blocks by name.
    pub labels: HashMap<String, BlockId>,
    /// The locals and parameters whose address is taken, by USR.
    pub address_taken: std::collections::HashSet<String>,
    /// Those whose address escapes beyond kernel models and comparisons.
    pub escaping: std::collections::HashSet<String>,
    /// Locks held through lock-typed parameters, for specialisation:
    /// parameter index to the caller's lock identity.
    pub lock_binding: Vec<(usize, super::locks::LockIdentity)>,
    /// Locals holding a lock a guard constructor or lock function returned,
    /// with the lock's kind.
    pub lock_holders: HashMap<String, (super::locks::LockIdentity, crate::ir::LockKind)>,
    /// The lock the last lock call acquired and returned, if it returns one.
    pub last_acquired: Option<(super::locks::LockIdentity, crate::ir::LockKind)>,
    /// Open scopes, innermost last, with the cleanups to run on leaving
    /// them (guard destructors): (scope statement, cleanups).
    pub scopes: Vec<(Option<Cursor<'t>>, Vec<Cleanup<'t>>)>,
}

/// A cleanup to run when a scope is left: `destructor(&variable)`.
#[derive(Clone, Debug)]
pub struct Cleanup<'t> {
    /// The destructor's name.
    pub destructor: String,
    /// The variable.
    pub variable: Cursor<'t>,
}

/// Lowers one function's body into its declared procedure.
pub fn lower_function(program: &mut Program, shared: &mut Shared<'_>, function: Cursor<'_>, id: ProcId) {
    lower_function_with(program, shared, function, id, Vec::new());
}

/// Lowers one function's body, with locks of lock-typed parameters bound.
pub fn lower_function_with(
    program: &mut Program,
    shared: &mut Shared<'_>,
    function: Cursor<'_>,
    id: ProcId,
    lock_binding: Vec<(usize, super::locks::LockIdentity)>,
) {
    let params: Vec<VarId> = program.procedures[id].params.clone();
    let ret = program.procedures[id].returns.first().copied();
    let mut b = ProcedureBuilder::resume(program, id);
    let ret_block = b.new_block();
    let escaping = escaping_locals(function, shared.models);
    let mut f = FnLower {
        b,
        s: shared,
        function,
        name: function.spelling(),
        locals: HashMap::new(),
        ret,
        ret_block,
        jumps: Vec::new(),
        cases: Vec::new(),
        labels: HashMap::new(),
        address_taken: address_taken_locals(function),
        escaping,
        lock_binding,
        lock_holders: HashMap::new(),
        last_acquired: None,
        scopes: Vec::new(),
    };
    f.s.stats.functions += 1;
    let taken = f.address_taken.clone();
    for (param, var) in function.arguments().into_iter().zip(params) {
        let storage = f.declare_local(param, &taken);
        // A record passed by value: the callee's copy of the caller's, in
        // the local's own region or, when its address escapes, the shared
        // field regions.
        let copy_into = match (&storage, layout::shape(param.ty())) {
            (Storage::Shared { address }, Shape::Record) => Some((*address, super::place::Owner::Heap, None)),
            (Storage::Memory { key, address }, Shape::Record) => {
                Some((*address, super::place::Owner::Local(key.clone()), Some(key.clone())))
            }
            _ => None,
        };
        match copy_into {
            Some((address, owner, field_key)) => {
                let object = |address: VarId, owner, field_key| {
                    super::place::Place::Object(super::place::Object { address: Expr::var(address), ty: param.ty(), owner, field_key })
                };
                let src = object(var, super::place::Owner::Heap, None);
                let dst = object(address, owner, field_key);
                f.copy_object(&src, &dst, param.ty(), None);
            }
            None => f.store_storage(&storage, param.ty(), Expr::var(var), None),
        }
        f.locals.insert(param.usr(), storage);
    }
    f.entry_annotations();
    let body = function.children().into_iter().rfind(|c| c.kind() == CursorKind::CompoundStmt);
    match body {
        Some(body) => f.lower_stmt(body),
        None => f.approx(ApproxKind::UnsupportedConstruct, "function without a body".into(), Some(function)),
    }
    if !f.b.is_terminated() {
        f.b.goto([f.ret_block]);
    }
    f.b.switch_to(f.ret_block);
    f.b.ret();
    // Blocks created for unreachable code (after a goto or return) end here.
    f.close_open_blocks();
    f.b.finish();
}

/// The locals and parameters whose address escapes: `&x` (or an array
/// decaying to a pointer) anywhere but as a direct argument of a modelled
/// kernel function or a compiler builtin (which keep no pointer), an
/// operand of a comparison, or inside `sizeof`.
fn escaping_locals(function: Cursor<'_>, models: &KernelModels) -> std::collections::HashSet<String> {
    use crate::frontend::clang::BinaryOperator as Op;
    fn address_of_local(c: Cursor<'_>) -> Option<String> {
        let c = super::expr::strip_parens(c);
        let target = match c.kind() {
            CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::AddrOf => c.children().first().copied(),
            CursorKind::UnexposedExpr => match c.children().as_slice() {
                [inner] if layout::shape(inner.ty()) == Shape::Array => Some(*inner),
                _ => None,
            },
            _ => None,
        }?;
        let target = super::expr::strip_parens(target);
        let decl = (target.kind() == CursorKind::DeclRefExpr).then(|| target.referenced()).flatten()?;
        let local = matches!(decl.kind(), CursorKind::VarDecl | CursorKind::ParmDecl)
            && decl.semantic_parent().is_some_and(|p| p.kind() == CursorKind::FunctionDecl)
            && !decl.is_static_storage();
        local.then(|| decl.usr())
    }
    fn strip_casts(mut c: Cursor<'_>) -> Cursor<'_> {
        while matches!(c.kind(), CursorKind::ParenExpr | CursorKind::CStyleCastExpr | CursorKind::UnexposedExpr) {
            match c.children().as_slice() {
                [.., last] if c.kind() != CursorKind::UnexposedExpr || c.children().len() == 1 => {
                    if address_of_local(c).is_some() {
                        return c;
                    }
                    c = *last;
                }
                _ => break,
            }
        }
        c
    }
    fn scan(c: Cursor<'_>, models: &KernelModels, out: &mut std::collections::HashSet<String>) {
        match c.kind() {
            CursorKind::UnaryExpr => return,
            CursorKind::CallExpr => {
                let name = c.referenced().map(|f| f.spelling()).unwrap_or_default();
                if models.replaces(&name) || name.starts_with("__builtin_") {
                    for arg in c.arguments() {
                        let a = strip_casts(arg);
                        if address_of_local(a).is_some() {
                            // Its operand may still hold escapes (`&x[f(&y)]`).
                            a.for_each_child(|child| {
                                scan(child, models, out);
                                true
                            });
                        } else {
                            scan(arg, models, out);
                        }
                    }
                    return;
                }
            }
            // `a[i]` on a local array: the decay of `a` feeds the subscript only.
            CursorKind::ArraySubscriptExpr => {
                for operand in c.children() {
                    if address_of_local(operand).is_some() && operand.kind() == CursorKind::UnexposedExpr {
                        continue;
                    }
                    scan(operand, models, out);
                }
                return;
            }
            CursorKind::BinaryOperator if matches!(c.binary_operator(), Op::EQ | Op::NE | Op::LT | Op::GT | Op::LE | Op::GE) => {
                for operand in c.children() {
                    if address_of_local(strip_casts(operand)).is_none() {
                        scan(operand, models, out);
                    }
                }
                return;
            }
            _ => {}
        }
        if let Some(usr) = address_of_local(c) {
            out.insert(usr);
        }
        c.for_each_child(|child| {
            scan(child, models, out);
            true
        });
    }
    let mut out = std::collections::HashSet::new();
    scan(function, models, &mut out);
    out
}

/// The locals and parameters of `function` whose address is taken.
fn address_taken_locals(function: Cursor<'_>) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    fn walk(c: Cursor<'_>, out: &mut std::collections::HashSet<String>) {
        c.for_each_child(|child| {
            if child.kind() == CursorKind::UnaryOperator && child.unary_operator() == UnaryOperator::AddrOf {
                if let Some(operand) = child.children().first() {
                    let operand = super::expr::strip_parens(*operand);
                    if operand.kind() == CursorKind::DeclRefExpr {
                        if let Some(decl) = operand.referenced() {
                            out.insert(decl.usr());
                        }
                    }
                }
            }
            walk(child, out);
            true
        });
    }
    walk(function, &mut out);
    out
}

impl<'t> FnLower<'_, '_, '_, 't> {
    /// The span of a cursor.
    pub fn span(&self, c: Cursor<'_>) -> Span {
        span_of(&self.s.main_file, c)
    }

    /// A fresh integer temporary.
    pub fn tmp(&mut self) -> VarId {
        self.b.add_local("tmp", Sort::Int, None)
    }

    /// A fresh boolean temporary.
    pub fn tmp_bool(&mut self) -> VarId {
        self.b.add_local("cond", Sort::Bool, None)
    }

    /// The region id of a key.
    pub fn region(&mut self, key: RegionKey) -> RegionId {
        self.s.regions.id(self.b.program(), key)
    }

    /// An uninterpreted function, declared on first use.
    pub fn function(&mut self, name: &str, arity: usize) -> FuncId {
        super::function(self.b.program(), &mut self.s.functions, name, arity)
    }

    /// Records an approximation: an `approx` command, a warning with the
    /// span, and a count.
    pub fn approx(&mut self, kind: ApproxKind, detail: String, at: Option<Cursor<'_>>) {
        let span = at.map(|c| self.span(c));
        self.s.stats.count_approximation(kind);
        let level = if kind.affects_soundness() { Level::Warning } else { Level::Note };
        self.s.warnings.push(Diagnostic {
            level,
            check: kind.as_str(),
            message: format!("{}: {detail}", approximation_phrase(kind)),
            span: span.clone(),
            notes: Vec::new(),
        });
        if !self.b.is_terminated() {
            self.b.push(Command::Approximation { kind, detail, span });
        }
    }

    /// Where a local or parameter lives, allocating its storage.
    pub fn declare_local(&mut self, decl: Cursor<'t>, taken: &std::collections::HashSet<String>) -> Storage {
        let name = decl.spelling();
        let in_memory = taken.contains(&decl.usr()) || layout::shape(decl.ty()) != Shape::Scalar;
        if in_memory && self.escaping.contains(&decl.usr()) {
            let address = self.b.add_local(format!("addr_{}", sanitise(&name)), Sort::Int, Some(self.span(decl)));
            self.b.push(Command::Havoc { vars: vec![address], span: None });
            self.b.assume(Expr::gt(Expr::var(address), Expr::int(0)), None);
            self.mark_local_address(address, decl);
            self.s.stats.address_taken_locals += 1;
            self.s.privacy.locals.push(address);
            return Storage::Shared { address };
        }
        if in_memory {
            let key = RegionKey::Local { name: format!("{}.{}", self.name, name) };
            let address = self.b.add_local(format!("addr_{}", sanitise(&name)), Sort::Int, Some(self.span(decl)));
            // A fixed, unknown, non-null address on entry.
            self.b.push(Command::Havoc { vars: vec![address], span: None });
            self.b.assume(Expr::gt(Expr::var(address), Expr::int(0)), None);
            self.mark_local_address(address, decl);
            self.s.stats.address_taken_locals += 1;
            self.s.privacy.locals.push(address);
            Storage::Memory { key, address }
        } else {
            Storage::Var(self.b.add_local(sanitise(&name), Sort::Int, Some(self.span(decl))))
        }
    }

    /// Records that `address` receives a new frame object for `decl` each
    /// time the function runs (for the precise phase's separation).
    fn mark_local_address(&mut self, address: VarId, decl: Cursor<'t>) {
        let size = layout::size_of(decl.ty());
        self.b.program().addresses.insert(address, crate::ir::Address::Local { size });
    }

    /// Writes a scalar value to a local's storage.
    pub fn store_storage(&mut self, storage: &Storage, ty: Type<'_>, value: Expr, span: Option<Span>) {
        match storage {
            Storage::Var(v) => self.b.assign(*v, value, span),
            Storage::Shared { address } => {
                if layout::shape(ty) == Shape::Scalar {
                    let region = self.region(RegionKey::Pointee { ty: layout::type_name(ty) });
                    self.b.push(Command::Store {
                        region,
                        address: Expr::var(*address),
                        value,
                        access: crate::ir::AccessKind::Plain,
                        span,
                    });
                }
            }
            Storage::Memory { key, address } => {
                if layout::shape(ty) == Shape::Scalar {
                    let region = self.region(key.clone());
                    self.b.push(Command::Store {
                        region,
                        address: Expr::var(*address),
                        value,
                        access: crate::ir::AccessKind::Plain,
                        span,
                    });
                }
            }
        }
    }

    /// Ends every block left open, such as the block after a `return`,
    /// which no edge reaches.
    fn close_open_blocks(&mut self) {
        let id = self.b.id();
        let blocks: Vec<BlockId> = self.b.program().procedures[id].blocks.ids().collect();
        for block in blocks {
            self.b.switch_to(block);
            if !self.b.is_terminated() {
                self.b.unreachable();
            }
        }
    }
}

/// An identifier made from a C name (which already is one) or a fallback.
pub fn sanitise(name: &str) -> String {
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if clean.is_empty() || clean.starts_with(|c: char| c.is_ascii_digit()) { format!("v_{clean}") } else { clean }
}

fn approximation_phrase(kind: ApproxKind) -> &'static str {
    match kind {
        ApproxKind::ExternalCall => "call into code that is not analysed: without a model its result is arbitrary and it may write what its non-const pointer arguments point to (one level); other driver memory and calls back into the driver are assumed untouched",
        ApproxKind::InlineAsm => "inline assembly: its outputs are arbitrary",
        ApproxKind::FunctionPointer => "call through a function pointer with no known target: its result is arbitrary",
        ApproxKind::UnsupportedConstruct => "construct the lowering does not express: verdicts that depend on it are unknown",
        ApproxKind::UnknownLock => "lock that cannot be identified uniquely: it protects nothing",
        ApproxKind::BitOperation => "bit operation abstracted by an uninterpreted function",
        ApproxKind::Cast => "cast abstracted",
    }
}
