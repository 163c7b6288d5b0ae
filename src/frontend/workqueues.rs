//! Work items queued on one ordered workqueue and nowhere else.
//!
//! # Algorithm
//!
//! An ordered workqueue (`alloc_ordered_workqueue`, which expands to
//! `alloc_workqueue` with `__WQ_ORDERED` in its flags) executes at most one
//! work item at a time, in queueing order (Documentation/core-api/
//! workqueue.rst; kernel/workqueue.c gives it a single pool workqueue with
//! `max_active` 1, and `workqueue_set_max_active` refuses to change it).
//! Two work functions whose items are only ever queued on the same ordered
//! workqueue never run at the same time. One walk over the driver's code
//! (the main file and the files of its own directory) finds:
//!
//! - the *queues*: a `static` variable or a structure field of type
//!   `struct workqueue_struct *` is ordered when some assignment stores an
//!   ordered allocator's result into it (an `<ordered-workqueue-allocator>`
//!   model whose flags argument evaluates to a constant with the ordered
//!   bits) and every other assignment stores NULL; one assignment of
//!   anything else, an initialiser that is not NULL, or its address taken
//!   (`&wq`) spoils it;
//! - the *queueings*: each call of a `<work-queueing>` function records the
//!   work item (named as an entry point's origin names it: the structure
//!   field `struct.field` of `&dev->work`, or the variable of `&work`) and
//!   the queue it goes to;
//! - the *escapes*: the address of a `work_struct`, `delayed_work` or
//!   `rcu_work` used anywhere else than as the work argument of a queueing
//!   call or an argument of a `<work-neutral>` call (cancel, flush), or as
//!   the base of a member access, lets unknown code queue it anywhere.
//!
//! A work item is mapped to its queue when every queueing names that one
//! ordered queue and its address never escapes. The same walk maps the
//! work items of any workqueue the driver allocates (every store into the
//! queue is an allocation, ordered or not, or NULL) for the quiescing
//! calls that drain one (`destroy_workqueue`, `drain_workqueue`), keeping
//! only items no queueing delays (`queue_delayed_work`, `queue_rcu_work`):
//! a delayed item's pending timer is not on the workqueue, so a drain does
//! not wait for it. A queueing whose work item
//! the walk cannot name (a pointer parameter, a work function requeueing
//! itself through its argument) may queue any of them: on one named
//! ordered queue it keeps only that queue's items, anywhere else it keeps
//! none. An escaped address the walk cannot name keeps none, and so does a
//! work item's pointer the walk cannot name handed to any other call
//! (`schedule_work(work)`) or stored anywhere but in a local variable.
//!
//! # Soundness
//!
//! Only the driver's code is walked: a kernel function is assumed not to
//! queue a driver's work item it is not handed (the models list the ones
//! that are). A queue held in a structure field stands for the field of
//! every instance: two devices' ordered queues run their items
//! concurrently, so the rule that uses this map has scope `device`
//! (docs/soundness.md). Writes through memory the walk does not see (a
//! `memcpy` over the structure) are assumed to store another ordered
//! queue's pointer or NULL.

use super::clang::{BinaryOperator, Cursor, CursorKind, EvalValue, TranslationUnit, Type, TypeKind, UnaryOperator};
use super::entry_points::{is_address_of, object_key, strip};
use crate::models::KernelModels;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The structure types of work items.
const WORK_TYPES: &[&str] = &["struct work_struct", "struct delayed_work", "struct rcu_work"];

/// The work items of a file and the one workqueue each is queued on, by
/// work item (as [`super::entry_points::Origin`] names it: `object`, else
/// `holder`).
#[derive(Clone, Debug, Default)]
pub struct WorkQueues {
    /// Items queued on one ordered workqueue only.
    pub ordered: BTreeMap<String, String>,
    /// Items queued, never with a delay, on one workqueue only that the
    /// driver allocates.
    pub undelayed: BTreeMap<String, String>,
}

/// The work items of the file queued on one workqueue only.
pub fn work_queues<'t>(tu: &'t TranslationUnit<'t>, models: &KernelModels) -> WorkQueues {
    if models.work_queueing.is_empty() || models.ordered_allocators.is_empty() {
        return WorkQueues::default();
    }
    let Some(main_id) = tu.main_file_id() else { return WorkQueues::default() };
    let dir = tu.main_file().parent().map(|d| d.to_path_buf());
    let mut scan = Scan {
        models,
        queued: HashMap::new(),
        escaped: HashSet::new(),
        unnamed: HashSet::new(),
        lost: false,
        ordered: HashSet::new(),
        allocated: HashSet::new(),
        delayed: HashSet::new(),
        unnamed_delayed: false,
        spoiled: HashSet::new(),
        fields_spoiled: false,
    };
    tu.root().for_each_child(|top| {
        let own = top.is_expanded_in(main_id)
            || dir.as_ref().is_some_and(|d| top.location().file.is_some_and(|f| f.parent() == Some(d.as_path())));
        if own {
            scan.visit(top);
        }
        true
    });
    scan.result()
}

struct Scan<'m> {
    models: &'m KernelModels,
    /// Work item to the queues it is queued on (`None`: a queue the walk
    /// cannot name).
    queued: HashMap<String, HashSet<Option<String>>>,
    /// Work items whose address is used where unknown code may queue them.
    escaped: HashSet<String>,
    /// Queues that work items the walk cannot name are queued on.
    unnamed: HashSet<Option<String>>,
    /// An escaped work item's address the walk cannot name.
    lost: bool,
    /// Queues an ordered allocation is stored into.
    ordered: HashSet<String>,
    /// Queues an allocation, ordered or not, is stored into.
    allocated: HashSet<String>,
    /// Work items some queueing delays (a `delayed_work` or `rcu_work`
    /// argument).
    delayed: HashSet<String>,
    /// Whether a queueing of a work item the walk cannot name delays it.
    unnamed_delayed: bool,
    /// Queues something else is stored into, or whose address is taken.
    spoiled: HashSet<String>,
    /// A queue pointer of unknown name was stored with something other than
    /// NULL (an initialiser list), or its address taken: every field queue
    /// is spoiled.
    fields_spoiled: bool,
}

impl Scan<'_> {
    fn visit(&mut self, c: Cursor<'_>) {
        match c.kind() {
            CursorKind::CallExpr => {
                if let Some(callee) = c.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl) {
                    let name = callee.spelling();
                    let args = c.arguments();
                    if let Some(q) = self.models.work_queueing.get(&name) {
                        let queue = args.get(q.workqueue_arg).and_then(|a| queue_key(*a));
                        let delayed = args.get(q.work_arg).is_some_and(|a| !is_plain_work_pointer(*a));
                        match args.get(q.work_arg).and_then(|a| work_key(*a)) {
                            Some(work) => {
                                if delayed {
                                    self.delayed.insert(work.clone());
                                }
                                self.queued.entry(work).or_default().insert(queue);
                            }
                            None => {
                                self.unnamed_delayed |= delayed;
                                self.unnamed.insert(queue);
                            }
                        }
                        for (i, a) in args.iter().enumerate() {
                            if i == q.work_arg { self.visit_address_operand(*a) } else { self.visit(*a) }
                        }
                        return;
                    }
                    if self.models.work_neutral.contains_key(&name) {
                        for a in args {
                            self.visit_address_operand(a);
                        }
                        return;
                    }
                }
                // Any other call handed a work item through a pointer the
                // walk cannot name (`schedule_work(work)` in a work function
                // requeueing itself) may queue it anywhere; a named one is
                // an escape below (`&dev->work`).
                if c.arguments().into_iter().any(|a| is_work_pointer(a) && !is_address_of(a)) {
                    self.lost = true;
                }
            }
            CursorKind::BinaryOperator if c.binary_operator() == BinaryOperator::Assign => {
                let children = c.children();
                if let [lhs, rhs] = children.as_slice() {
                    // A work item's pointer stored anywhere but a local
                    // may reach code that queues it.
                    if is_work_pointer(*rhs) && !is_local(*lhs) {
                        self.lost = true;
                    }
                    if is_queue_pointer(*lhs) {
                        match (queue_key(*lhs), self.allocation(*rhs)) {
                            (Some(q), Some(ordered)) => {
                                if ordered {
                                    self.ordered.insert(q.clone());
                                }
                                self.allocated.insert(q);
                            }
                            (Some(_), None) if is_null(*rhs) => {}
                            (Some(q), None) => {
                                self.spoiled.insert(q);
                            }
                            (None, _) if is_null(*rhs) => {}
                            (None, _) => self.fields_spoiled = true,
                        }
                    }
                }
            }
            CursorKind::VarDecl if is_queue_pointer(c) => {
                if c.var_initializer().is_some_and(|i| !is_null(i)) {
                    self.spoiled.insert(c.spelling());
                }
            }
            CursorKind::InitListExpr => {
                for element in c.children() {
                    if is_queue_pointer(element) && !is_null(element) {
                        self.fields_spoiled = true;
                    }
                }
            }
            CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::AddrOf => {
                if let Some(operand) = c.children().last().copied() {
                    if is_work(operand) {
                        match work_key(c) {
                            Some(w) => {
                                self.escaped.insert(w);
                            }
                            None => self.lost = true,
                        }
                    } else if is_queue_pointer(operand) {
                        match queue_key(operand) {
                            Some(q) => {
                                self.spoiled.insert(q);
                            }
                            None => self.fields_spoiled = true,
                        }
                    }
                }
            }
            CursorKind::MemberRefExpr => {
                // `(&dev->work)->entry`: a member access, not an escape.
                for child in c.children() {
                    self.visit_address_operand(child);
                }
                return;
            }
            _ => {}
        }
        c.for_each_child(|child| {
            self.visit(child);
            true
        });
    }

    /// Visits `c`, but when it is the address of a work item, only what it
    /// takes the address of.
    fn visit_address_operand(&mut self, c: Cursor<'_>) {
        if is_address_of(c) {
            if let Some(operand) = strip(c).children().last().copied() {
                if is_work(operand) {
                    return self.visit(operand);
                }
            }
        }
        self.visit(c)
    }

    /// Whether `rhs` is a call of a workqueue allocator: `Some(true)` when
    /// its flags make the workqueue ordered, `Some(false)` otherwise.
    fn allocation(&self, rhs: Cursor<'_>) -> Option<bool> {
        let call = strip(rhs);
        if call.kind() != CursorKind::CallExpr {
            return None;
        }
        let a = self.models.ordered_allocators.get(&call.referenced()?.spelling())?;
        let flags = match call.arguments().get(a.flags_arg).and_then(|f| f.evaluate()) {
            Some(EvalValue::Int(v)) => v as u64,
            Some(EvalValue::UnsignedInt(v)) => v,
            _ => return Some(false),
        };
        Some(flags & a.ordered_flags == a.ordered_flags)
    }

    fn result(self) -> WorkQueues {
        WorkQueues { ordered: self.mapped(&self.ordered, false), undelayed: self.mapped(&self.allocated, true) }
    }

    /// The work items queued on one queue of `queues` only (and, with
    /// `undelayed`, never with a delay), with that queue.
    fn mapped(&self, queues: &HashSet<String>, undelayed: bool) -> BTreeMap<String, String> {
        if self.lost || self.unnamed.contains(&None) || self.unnamed.len() > 1 || (undelayed && self.unnamed_delayed) {
            return BTreeMap::new();
        }
        let good =
            |q: &String| queues.contains(q) && !self.spoiled.contains(q) && !(self.fields_spoiled && q.contains('.'));
        if self.unnamed.iter().flatten().any(|q| !good(q)) {
            return BTreeMap::new();
        }
        let unnamed_queue = self.unnamed.iter().flatten().next();
        let mut out = BTreeMap::new();
        for (work, on) in &self.queued {
            if self.escaped.contains(work) || on.len() != 1 || (undelayed && self.delayed.contains(work)) {
                continue;
            }
            let Some(Some(queue)) = on.iter().next() else { continue };
            if good(queue) && unnamed_queue.is_none_or(|u| u == queue) {
                out.insert(work.clone(), queue.clone());
            }
        }
        out
    }
}

/// The work item an argument names: a structure field (`&dev->work`:
/// `dev_struct.work`), a file-scope variable (`&work`: `work`), a local
/// (`local:work`, which no origin names); `None` for anything else.
fn work_key(arg: Cursor<'_>) -> Option<String> {
    if let Some(k) = object_key(arg) {
        return Some(k);
    }
    if !is_address_of(arg) {
        return None;
    }
    let c = strip(*strip(arg).children().last()?);
    let v = c.referenced().filter(|v| c.kind() == CursorKind::DeclRefExpr && v.kind() == CursorKind::VarDecl)?;
    Some(if at_file_scope(v) { v.spelling() } else { format!("local:{}", v.spelling()) })
}

/// The queue an expression names: a `static` file-scope variable or a
/// structure field.
pub(crate) fn queue_key(c: Cursor<'_>) -> Option<String> {
    if let Some(k) = object_key(c) {
        return Some(k);
    }
    let v = strip(c).referenced().filter(|v| v.kind() == CursorKind::VarDecl)?;
    (at_file_scope(v) && v.is_static_storage()).then(|| v.spelling())
}

/// Whether a variable declaration is at file scope.
fn at_file_scope(v: Cursor<'_>) -> bool {
    v.semantic_parent().is_some_and(|p| p.kind() == CursorKind::TranslationUnit)
}

fn is_work_type(t: Type<'_>) -> bool {
    WORK_TYPES.contains(&t.canonical().unqualified().spelling().as_str())
}

fn is_work(c: Cursor<'_>) -> bool {
    is_work_type(c.ty())
}

/// Whether `c` points to a `struct work_struct` (not a `delayed_work` or
/// `rcu_work`, whose queueing may wait for a timer or a grace period).
fn is_plain_work_pointer(c: Cursor<'_>) -> bool {
    let t = c.ty().canonical();
    t.kind() == TypeKind::Pointer && t.pointee().is_some_and(|p| p.canonical().unqualified().spelling() == "struct work_struct")
}

fn is_work_pointer(c: Cursor<'_>) -> bool {
    let t = c.ty().canonical();
    t.kind() == TypeKind::Pointer && t.pointee().is_some_and(is_work_type)
}

/// A reference to a variable local to a function.
fn is_local(c: Cursor<'_>) -> bool {
    let c = strip(c);
    c.kind() == CursorKind::DeclRefExpr
        && c.referenced().is_some_and(|v| {
            v.kind() == CursorKind::VarDecl && !at_file_scope(v) && !v.is_static_storage()
        })
}

fn is_queue_pointer(c: Cursor<'_>) -> bool {
    let t = c.ty().canonical();
    t.kind() == TypeKind::Pointer && t.pointee().is_some_and(|p| p.unqualified().spelling() == "struct workqueue_struct")
}

fn is_null(c: Cursor<'_>) -> bool {
    matches!(strip(c).evaluate(), Some(EvalValue::Int(0) | EvalValue::UnsignedInt(0)))
}
