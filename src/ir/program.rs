//! A whole program of the IVL: the declarations (variables, regions, locks,
//! uninterpreted functions, entry points) and the procedures, each a control
//! flow graph of basic blocks.
//!
//! Everything is plain data in [`Arena`]s; the fields are public so that
//! passes can rewrite them directly. Nothing here checks well-formedness:
//! that is [`validate()`](super::validate()), which passes run between stages.

use super::command::Command;
use super::entity::{Arena, BlockId, EntryPointId, FuncId, LockId, ProcId, RegionId, VarId};
use super::expr::Expr;
use crate::diagnostics::Span;
use crate::models::EntryKind;
use std::fmt;

/// The sort (type) of a value: mathematical integers and booleans. There
/// are no bit-vectors: C integers are unbounded integers here, and bit
/// operations go through uninterpreted functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sort {
    /// An unbounded integer (also every pointer, as an address).
    Int,
    /// A boolean.
    Bool,
}

impl Sort {
    /// The printed name: `int` or `bool`.
    pub fn as_str(self) -> &'static str {
        match self {
            Sort::Int => "int",
            Sort::Bool => "bool",
        }
    }
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a variable is visible.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// In every procedure.
    Global,
    /// An input of this procedure; commands cannot assign it.
    Param(ProcId),
    /// An output of this procedure.
    Return(ProcId),
    /// A local of this procedure.
    Local(ProcId),
}

impl Scope {
    /// The procedure owning the variable, unless it is global.
    pub fn procedure(self) -> Option<ProcId> {
        match self {
            Scope::Global => None,
            Scope::Param(p) | Scope::Return(p) | Scope::Local(p) => Some(p),
        }
    }
}

/// A scalar variable. C variables whose address is taken live in regions
/// instead; ghost variables hold instrumentation state (locksets, flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// The name: a C identifier (`[A-Za-z_][A-Za-z0-9_]*`), not necessarily
    /// unique; the printer disambiguates.
    pub name: String,
    /// Its sort.
    pub sort: Sort,
    /// Where it is visible.
    pub scope: Scope,
    /// Added by instrumentation rather than lowered from C.
    pub ghost: bool,
    /// Its declaration in C, if any.
    pub span: Option<Span>,
}

/// What C storage a region stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegionKind {
    /// One field of one structure type, at every address.
    Field,
    /// One global variable (or static local).
    Global,
    /// What pointers of one type point to, when nothing finer is known.
    Pointee,
    /// Several of the above, merged because they may alias.
    Merged,
}

impl RegionKind {
    /// The printed name.
    pub fn as_str(self) -> &'static str {
        match self {
            RegionKind::Field => "field",
            RegionKind::Global => "global",
            RegionKind::Pointee => "pointee",
            RegionKind::Merged => "merged",
        }
    }
}

/// A memory region: a map from integer address to a value of one sort. The
/// races racewatch looks for are between accesses to the same region at the
/// same address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Human readable: `struct file.f_pos`, `global nvram_count`,
    /// `int (pointee)`.
    pub name: String,
    /// The sort of the values stored.
    pub element: Sort,
    /// What C storage it stands for.
    pub kind: RegionKind,
    /// Never shared between threads (a local whose address is taken), so
    /// its accesses cannot race.
    pub thread_private: bool,
}

/// The kind of a kernel lock, which decides the modes it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockKind {
    /// `struct mutex`.
    Mutex,
    /// `spinlock_t` (and raw spinlocks).
    Spinlock,
    /// `rwlock_t`.
    RwLock,
    /// `struct rw_semaphore`.
    RwSemaphore,
    /// `struct semaphore`, used as a mutex.
    Semaphore,
    /// A kernel-wide exclusion that the models express as a lock (`rtnl`,
    /// the device lock the driver core takes around probe and remove).
    Pseudo,
}

impl LockKind {
    /// The printed name.
    pub fn as_str(self) -> &'static str {
        match self {
            LockKind::Mutex => "mutex",
            LockKind::Spinlock => "spinlock",
            LockKind::RwLock => "rwlock",
            LockKind::RwSemaphore => "rw-semaphore",
            LockKind::Semaphore => "semaphore",
            LockKind::Pseudo => "pseudo",
        }
    }

    /// Whether the lock can be held in shared (reader) mode.
    pub fn has_shared_mode(self) -> bool {
        match self {
            LockKind::RwLock | LockKind::RwSemaphore | LockKind::Pseudo => true,
            LockKind::Mutex | LockKind::Spinlock | LockKind::Semaphore => false,
        }
    }
}

/// A lock, identified statically.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lock {
    /// Human readable: `nvram_mutex`, `struct rtl8169_private.wk.mutex`,
    /// `rtnl`.
    pub name: String,
    /// Its kind.
    pub kind: LockKind,
}

/// An uninterpreted function: bit operations, casts the lowering cannot
/// express, and kernel functions of their arguments only (`netdev_priv`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UninterpretedFn {
    /// The name, a C identifier, unique among the functions.
    pub name: String,
    /// The sorts of the arguments.
    pub params: Vec<Sort>,
    /// The sort of the result.
    pub result: Sort,
}

/// An entry point of the driver and the procedure that runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPointInfo {
    /// The C function the kernel calls.
    pub name: String,
    /// The procedure that runs it (the function's own, or a harness).
    pub procedure: ProcId,
    /// How the kernel calls it.
    pub kind: EntryKind,
    /// The function's definition.
    pub span: Span,
    /// The kernel objects it receives whose lifetime the kernel orders
    /// (the models' object-lifetime rules).
    pub objects: Vec<ObjectParam>,
    /// Bit locks it runs holding because the begin callback of its object
    /// keeps them while the object is open, with the mode: shared for the
    /// object's callbacks that may overlap, exclusive for its end callback
    /// (src/frontend/lower/owned_bits.rs).
    pub held_by_object: Vec<(LockId, super::LockMode)>,
}

/// A kernel object an entry point receives through a parameter, and where
/// the call stands in the object's life (`kernel-models/lifetimes/`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectParam {
    /// The lifetime rule.
    pub rule: String,
    /// The parameter holding the object's address, from 0.
    pub param: usize,
    /// Where the call stands in the object's life.
    pub stage: crate::models::Stage,
    /// The rule's `quiet-at-begin`.
    pub quiet_at_begin: bool,
    /// The rule's `after-begin`.
    pub after_begin: bool,
    /// The variables holding the structures the entry point is stored in
    /// (`sonypi_misc_fops`), one per registration; empty when a
    /// registration names none.
    pub holders: Vec<String>,
    /// The region name of the object's field naming its operations
    /// (`struct file.f_op`), from the rule's `ops-field`.
    pub ops_field: Option<String>,
}

/// A pre- or postcondition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contract {
    /// A boolean expression over globals and parameters (and, in a
    /// postcondition, returns).
    pub expr: Expr,
    /// Assumed but not checked (`free requires`), as Houdini's candidates
    /// are until proved.
    pub free: bool,
}

/// How a basic block ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// Nondeterministic choice between the targets; the conditions are
    /// `assume`s at the head of the targets. Never empty.
    Goto(Vec<BlockId>),
    /// Return to the caller.
    Return,
    /// Control never reaches the end of this block.
    Unreachable,
}

/// A basic block: straight-line commands, then a terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The commands, in order.
    pub commands: Vec<Command>,
    /// How it ends.
    pub terminator: Terminator,
}

/// A procedure: a signature, contracts and (unless `body` is false) a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Procedure {
    /// The name, a C identifier, unique among the procedures.
    pub name: String,
    /// The inputs, in order; variables scoped [`Scope::Param`].
    pub params: Vec<VarId>,
    /// The outputs, in order; variables scoped [`Scope::Return`].
    pub returns: Vec<VarId>,
    /// The locals; variables scoped [`Scope::Local`].
    pub locals: Vec<VarId>,
    /// The control flow graph.
    pub blocks: Arena<BlockId, Block>,
    /// Where execution starts.
    pub entry: BlockId,
    /// The C definition or declaration, if any.
    pub span: Option<Span>,
    /// Preconditions.
    pub requires: Vec<Contract>,
    /// Postconditions.
    pub ensures: Vec<Contract>,
    /// False for a bodiless declaration (a model or an external function),
    /// whose single block only returns.
    pub body: bool,
}

impl Procedure {
    /// A bodiless procedure without parameters or returns: one block that
    /// returns.
    pub fn declaration(name: impl Into<String>) -> Procedure {
        let mut blocks = Arena::new();
        let entry = blocks.push(Block { commands: Vec::new(), terminator: Terminator::Return });
        Procedure {
            name: name.into(),
            params: Vec::new(),
            returns: Vec::new(),
            locals: Vec::new(),
            blocks,
            entry,
            span: None,
            requires: Vec::new(),
            ensures: Vec::new(),
            body: false,
        }
    }

    /// Its own variables: parameters, returns, then locals.
    pub fn variables(&self) -> impl Iterator<Item = VarId> {
        self.params.iter().chain(&self.returns).chain(&self.locals).copied()
    }
}

/// A whole program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// Every procedure, with or without a body.
    pub procedures: Arena<ProcId, Procedure>,
    /// Every variable, global or owned by a procedure.
    pub variables: Arena<VarId, Variable>,
    /// The memory regions.
    pub regions: Arena<RegionId, Region>,
    /// The locks.
    pub locks: Arena<LockId, Lock>,
    /// The uninterpreted functions.
    pub functions: Arena<FuncId, UninterpretedFn>,
    /// The entry points of the driver.
    pub entry_points: Arena<EntryPointId, EntryPointInfo>,
    /// The variables that receive the address of a new object when they
    /// are havocked (an allocator's result, a local's frame address), and
    /// the globals' address functions with their sizes: what the precise
    /// phase keeps apart ([`Address`]). Facts for the precise phase only;
    /// every other stage ignores them.
    pub addresses: std::collections::BTreeMap<VarId, Address>,
    /// The size in bytes of each global whose address is an uninterpreted
    /// constant (`addr_NAME()`).
    pub global_sizes: std::collections::BTreeMap<FuncId, u64>,
    /// The globals (by address function) whose definition in the file
    /// leaves every byte zero at program start: no initialiser (C11
    /// 6.7.9p10) or a constant scalar initialiser equal to 0. For the
    /// precise phase's program-start memory (`racewatch svcomp`) only.
    pub zero_globals: std::collections::BTreeSet<FuncId>,
    /// The scalar integer globals whose definition gives a nonzero constant
    /// initialiser, with its value; like [`Program::zero_globals`].
    pub global_values: std::collections::BTreeMap<FuncId, i128>,
    /// The function-pointer globals whose definition initialises them with
    /// one function's address (`int (*hook)(void) = setup;`), with that
    /// function's address function ([`Program::function_addresses`]); like
    /// [`Program::zero_globals`].
    pub global_functions: std::collections::BTreeMap<FuncId, FuncId>,
    /// The globals whose address a file-scope initialiser takes (a module
    /// parameter's `struct kernel_param`, a sysctl table): kernel code may
    /// write them through that pointer before module init runs, so in a
    /// kernel module their load-time value is not their C initial value
    /// ([`crate::precise`]'s module-start check leaves them out).
    pub initializer_addressed: std::collections::BTreeSet<FuncId>,
    /// The registration functions called here whose model arms the
    /// callbacks it names (`makes="args"`: the IRQ requests; `makes="kinds:…"`:
    /// mod_timer, queue_work, tasklet_schedule, napi_enable, enable_irq):
    /// the only calls that start an interrupt handler, timer, work item,
    /// tasklet or NAPI poll in a precise witness
    /// ([`crate::precise::liveness`]).
    pub arming: std::collections::BTreeSet<String>,
    /// The havocked variables that receive an address inside the object
    /// another address points into (an access at an unknown offset: a
    /// model's ranged effect, an array's elements), with that base
    /// address: C keeps such an access inside its object (pointer
    /// arithmetic past an object's end is undefined), which the precise
    /// phase and its replay enforce. Facts for the precise phase only.
    pub inside: std::collections::BTreeMap<VarId, Expr>,
    /// The kernel functions and macros named by a serialisation rule's
    /// `unless-reaches` that each procedure uses itself (calls, or a
    /// statement such a macro wrote), for the pairs analysis: an entry
    /// point reaching one is exempt from that rule.
    pub reach_markers: std::collections::BTreeMap<ProcId, std::collections::BTreeSet<String>>,
    /// The havocked variables that receive the result of a call whose
    /// model returns any value of the call's C type (`returns
    /// kind="any-of-type"`: SV-COMP's `__VERIFIER_nondet_*`), with that
    /// type's range, inclusive. Every value of the range is one the call
    /// may return, so a witness may choose any. Facts for the precise
    /// phase only.
    pub nondet_ranges: std::collections::BTreeMap<VarId, (i128, i128)>,
    /// The globals (by address function, with a size in `global_sizes`)
    /// whose memory nothing writes: the string literals, which the kernel
    /// keeps in read-only data (`.rodata`, mapped read-only with
    /// CONFIG_STRICT_KERNEL_RWX: a store there faults). Facts for the
    /// precise phase only.
    pub read_only: std::collections::BTreeSet<FuncId>,
    /// The address functions of the C functions (`fn_NAME()`, the value
    /// of a function designator `f` or `&f`), in the order the lowering
    /// made them. The linker gives every function its own non-null
    /// address: the precise phase fixes each apart
    /// (`crate::precise::separation::functions`), so that comparing a
    /// function pointer with a function's address means what it says.
    /// Facts for the precise phase only.
    pub function_addresses: std::collections::BTreeSet<FuncId>,
    /// The variables the lowering dereferences as pointers to a record
    /// (`tp->field` with `tp` a `struct T *`), with that record's name and
    /// size; `None` where one variable is dereferenced as two different
    /// records. An access at `v + c` with `0 ≤ c < size` is at offset `c`
    /// of a `T` object. Facts for the precise phase's replay only
    /// (two objects of one record type never overlap partially).
    pub record_bases: std::collections::BTreeMap<VarId, Option<(String, u64)>>,
    /// The uninterpreted functions that stand for a kernel function's
    /// result (a model's `<returns kind="uninterpreted"/>`), as opposed to
    /// the lowering's own arithmetic (`wrap_u64`, `bitand`).
    pub kernel_functions: std::collections::BTreeSet<FuncId>,
    /// What each procedure surely leaves quiesced when it returns (entry
    /// point indices), as the analysis that filled the `quiesce` commands'
    /// effective sets found it (`crate::analyses::quiesce::resolve_with`);
    /// `None` before that analysis ran.
    pub quiesce_summaries: Option<std::collections::HashMap<ProcId, std::collections::BTreeSet<usize>>>,
    /// The C expression of each access as the code wrote it (`*ppos`,
    /// `tp->tx_buf[entry]`), by the access's span and region, for the race
    /// report; the first access lowered at a span and region names it.
    /// Report data only: no analysis reads it.
    pub access_names: std::collections::BTreeMap<(Span, RegionId), String>,
    /// Every key each lock is known under: its own identity (`global
    /// dev.lock`, `struct T +8`) and, for a lock inside a global structure,
    /// the key a pointer to that structure (or to a structure inside it)
    /// would give it (`struct dev_t +8`): one lock object written two
    /// ways. Facts for the annotation check only.
    pub lock_keys: std::collections::BTreeMap<LockId, std::collections::BTreeSet<String>>,
    /// The spans of the calls whose stores are assumed, not known: a
    /// function with neither body nor model may write through its
    /// pointer arguments (src/frontend/lower/external.rs), and a model's
    /// `may="true"` write happens only on some paths; with the function's
    /// name. The lockset phase checks those stores like any
    /// other; the precise phase never confirms a race on one.
    pub assumed_writes: std::collections::BTreeMap<Span, String>,
}

/// What object a havocked address variable receives the address of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Address {
    /// A local (or parameter) in memory: one object per call, of this
    /// size in bytes.
    Local {
        /// The size in bytes.
        size: u64,
    },
    /// An allocator's result: a new object, or NULL when the allocator may
    /// fail.
    Allocation {
        /// Whether NULL is possible.
        may_fail: bool,
    },
    /// An allocator's result that is a new object or an error value
    /// (`ERR_PTR`), which is no object.
    AllocationOrError,
}

impl Program {
    /// An empty program.
    pub fn new() -> Program {
        Program::default()
    }

    /// Adds a global variable.
    pub fn add_global(&mut self, name: impl Into<String>, sort: Sort, span: Option<Span>) -> VarId {
        self.variables.push(Variable { name: name.into(), sort, scope: Scope::Global, ghost: false, span })
    }

    /// Adds a ghost global variable (instrumentation state).
    pub fn add_ghost_global(&mut self, name: impl Into<String>, sort: Sort) -> VarId {
        self.variables.push(Variable { name: name.into(), sort, scope: Scope::Global, ghost: true, span: None })
    }

    /// The global variables, in id order.
    pub fn globals(&self) -> impl Iterator<Item = (VarId, &Variable)> {
        self.variables.iter().filter(|(_, v)| v.scope == Scope::Global)
    }

    /// The procedures `root` reaches through calls, root first, each once.
    pub fn reachable(&self, root: ProcId) -> Vec<ProcId> {
        let mut order = vec![root];
        let mut seen = std::collections::BTreeSet::from([root]);
        let mut i = 0;
        while i < order.len() {
            for (_, block) in self.procedures[order[i]].blocks.iter() {
                for c in &block.commands {
                    if let Command::Call { procedure, .. } = c
                        && seen.insert(*procedure)
                    {
                        order.push(*procedure);
                    }
                }
            }
            i += 1;
        }
        order
    }

    /// The `unless-reaches` markers (functions and macros) used by the
    /// procedures `root` reaches through calls.
    pub fn markers_reached(&self, root: ProcId) -> std::collections::BTreeSet<String> {
        self.reachable(root).iter().filter_map(|p| self.reach_markers.get(p)).flatten().cloned().collect()
    }

    /// The first procedure with this name. A linear search: lowering keeps
    /// its own maps.
    pub fn procedure_by_name(&self, name: &str) -> Option<ProcId> {
        self.procedures.iter().find(|(_, p)| p.name == name).map(|(id, _)| id)
    }

    /// The first uninterpreted function with this name.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions.iter().find(|(_, f)| f.name == name).map(|(id, _)| id)
    }

    /// The first lock with this name.
    pub fn lock_by_name(&self, name: &str) -> Option<LockId> {
        self.locks.iter().find(|(_, l)| l.name == name).map(|(id, _)| id)
    }

    /// The first region with this name.
    pub fn region_by_name(&self, name: &str) -> Option<RegionId> {
        self.regions.iter().find(|(_, r)| r.name == name).map(|(id, _)| id)
    }
}
