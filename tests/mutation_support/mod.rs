//! The lock/unlock pairs of a C driver and their removal, for
//! `tests/mutations.rs`.
//!
//! **Which calls are lock operations** comes from the kernel models only
//! (`kernel-models/locks/`, through [`KernelModels::lock_functions`]): the
//! driver is parsed with libclang (racewatch's safe wrapper and the
//! session's kernel flags), every call in a function body of the driver
//! whose callee — after macro expansion — is a modelled lock function is a
//! lock operation. So `spin_lock_irqsave(&l, f)` is seen as the
//! `_raw_spin_lock_irqsave` it expands to, `guard(mutex)(&m)` and
//! `scoped_guard(mutex, &m)` as `class_mutex_constructor` (a model with
//! `returns-lock`: the lock is released when the guard's scope ends), and
//! `rtnl_lock()` as an acquire of the global pseudo lock `rtnl`.
//!
//! **Which lock.** The model's `lock-arg` (peeled of the modelled lock
//! passthroughs, such as `spinlock_check`) is rendered from the AST:
//! `&dev->lock`; a global lock by its name. A parameter of the enclosing
//! function is rendered as `$N` in the key that pairs operations, so the
//! lock of a helper can be matched with its callers' arguments.
//!
//! **Pairs.** Per function and per lock (and mode: a reader's hold and a
//! writer's are distinct), the operations are grouped in source order: an
//! acquire opens a group when none is open or the open one has already
//! released (an acquire before the open group's first release is an
//! alternative acquire, as in `if (nonblock) down_trylock(s) else
//! down(s)`), and a release joins the open group (several releases: early
//! returns). A guard is a group by itself. A group with acquires and
//! releases is a pair; its critical section runs from the end of its first
//! acquire to the start of its last release (a guard's: to the end of its
//! block, or its `scoped_guard` body).
//!
//! **Across helpers.** A function whose group only acquires (a lock
//! helper, `rwhl_lock(dev) { mutex_lock(&dev->lock); }`) and one whose group
//! only releases the same lock of the same parameters (`rwhl_unlock`) form
//! one pair across the two helpers; each call of such a helper is then a
//! lock operation of its caller on the lock with the caller's arguments
//! substituted, so the callers' helper calls form pairs of their own too.
//! The critical sections of a pair across helpers are those of all its
//! callers' pairs. One level of helpers is supported; an operation that
//! fits none of this is reported as a problem, never skipped.
//!
//! **Removal** replaces each operation of the pair, as written (the macro
//! invocation, `guard(…)(…)` with both parenthesised groups, or the
//! `scoped_guard(…)` header before its body), by blanks; the `;` after it
//! stays, leaving an empty statement. A may-fail or try acquire used as a
//! value (`if (!mutex_trylock(&l))`) is replaced by the model's `success`
//! value instead (`1`, `0`), so the code takes its locked path. Every line
//! and column keeps its place, so the spans racewatch reports on the mutant
//! are positions in the original.

use racewatch::frontend::clang::{CSyntax, Cursor, CursorKind, EvalValue, TypeKind, UnaryOperator, with_thread_index};
use racewatch::frontend::parse::parse_c_file;
use racewatch::models::{KernelModels, LockFunction, LockMode, LockOp, LockRef, LockResult, Success};
use racewatch::pipeline::Session;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// How one removed operation is rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replacement {
    /// Blanks (newlines kept).
    Blank,
    /// The value that means "acquired", padded with blanks.
    Literal(&'static str),
}

/// One rewrite of the source: bytes `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edit {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// What replaces them.
    pub replacement: Replacement,
}

/// What a lock operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    Acquire,
    Release,
    /// Acquires, and releases when its scope ends.
    Guard,
}

/// One lock operation as written in a function.
#[derive(Clone, Debug)]
struct Op {
    dir: Dir,
    /// The lock, parameters as `$N`.
    lock: String,
    /// `" (shared)"` for a reader's hold, else empty.
    mode: &'static str,
    /// The lock as written (parameters by name).
    display: String,
    /// The name written at the call (the macro's, for a macro).
    written: String,
    edit: Edit,
    line: u32,
    /// For a guard: its critical section.
    scope: Option<(usize, usize)>,
    /// For a call of a lock helper: the helper.
    via: Option<String>,
}

/// A call of a function the driver defines.
#[derive(Clone, Debug)]
struct Call {
    callee: String,
    start: usize,
    /// The call as a lock operation, if the callee is a lock helper:
    /// its rewrite and whether it stands as a statement.
    edit: Option<Edit>,
    line: u32,
    written: String,
    /// Each argument rendered as a lock key and for display, when it can be.
    args: Vec<Option<(String, String)>>,
}

/// What the walk of one function body found.
#[derive(Clone, Debug, Default)]
struct Function {
    body: (usize, usize),
    /// Its type, canonical: what a call through a pointer of that type may
    /// reach.
    ty: String,
    ops: Vec<Op>,
    calls: Vec<Call>,
}

/// The kind of a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairKind {
    /// Acquire(s) and release(s) in one function.
    Local,
    /// A guard: released at the end of its scope.
    Guard,
    /// The acquire of one helper and the release of another.
    AcrossHelpers,
}

/// One lock/unlock pair and what its removal must expose.
#[derive(Clone, Debug)]
pub struct Pair {
    /// The function holding it, `LOCKER/UNLOCKER` across helpers.
    pub function: String,
    /// The lock as written.
    pub lock: String,
    /// The kind of pair.
    pub kind: PairKind,
    /// The names written at the removed calls, in order, deduplicated.
    pub calls: Vec<String>,
    /// The lines of the removed operations.
    pub lines: Vec<u32>,
    /// The rewrites that remove it.
    pub edits: Vec<Edit>,
    /// The byte ranges it protected: its critical sections and the bodies
    /// of the driver's functions called from them, transitively.
    pub sections: Vec<(usize, usize)>,
}

impl Pair {
    /// `rwtl_irq: spin_lock/spin_unlock of &dev->lock (lines 39, 42)`.
    pub fn describe(&self) -> String {
        let lines: Vec<String> = self.lines.iter().map(u32::to_string).collect();
        format!(
            "{}: {} of {} (line{} {})",
            self.function,
            self.calls.join("/"),
            self.lock,
            if lines.len() == 1 { "" } else { "s" },
            lines.join(", ")
        )
    }
}

/// The pairs of one driver.
#[derive(Debug, Default)]
pub struct DriverLocks {
    /// The source, as clang read it.
    pub text: Vec<u8>,
    /// Every pair, in source order of its first operation.
    pub pairs: Vec<Pair>,
    /// Operations that could not be paired or rewritten.
    pub problems: Vec<String>,
}

/// Parses `file` with the session's flags and finds its pairs.
pub fn find_pairs(session: &Session, file: &Path) -> Result<DriverLocks, String> {
    let flags = session.source.flags_for(file, &session.options).map_err(|e| e.to_string())?;
    with_thread_index(|index| {
        let tu = parse_c_file(index, file, &flags).map_err(|e| e.to_string())?;
        let text = tu.file_text(file).ok_or("clang did not read the file")?.to_vec();
        let main = tu.main_file_id().ok_or("no main file")?;
        let mut walker =
            Walker { models: &session.models, text: &text, file, functions: BTreeMap::new(), problems: Vec::new() };
        for f in tu.root().children() {
            if f.kind() == CursorKind::FunctionDecl && f.is_definition() && f.is_expanded_in(main) {
                walker.function(f);
            }
        }
        let Walker { functions, mut problems, .. } = walker;
        let pairs = pair_up(&functions, &mut problems);
        Ok(DriverLocks { text, pairs, problems })
    })
}

struct Walker<'a> {
    models: &'a KernelModels,
    text: &'a [u8],
    file: &'a Path,
    functions: BTreeMap<String, Function>,
    problems: Vec<String>,
}

impl<'a> Walker<'a> {
    fn function(&mut self, f: Cursor<'_>) {
        let Some(body) = f.children().into_iter().find(|c| c.kind() == CursorKind::CompoundStmt) else { return };
        let (s, e) = body.extent();
        let ty = f.ty().canonical().spelling();
        let mut info = Function { body: (s.offset as usize, e.offset as usize), ty, ..Function::default() };
        let params = f.arguments();
        let mut stack = Vec::new();
        self.walk(body, &mut stack, &params, &f.spelling(), &mut info);
        info.ops.sort_by_key(|o| o.edit.start);
        // One macro may expand to several calls: one operation per place.
        let mut ops: Vec<Op> = Vec::new();
        for op in std::mem::take(&mut info.ops) {
            match ops.last() {
                Some(prev) if prev.edit.start == op.edit.start => {
                    if prev.dir != op.dir || prev.lock != op.lock {
                        self.problems.push(format!(
                            "{}: line {}: two different lock operations in one construct",
                            f.spelling(),
                            op.line
                        ));
                    }
                }
                _ => ops.push(op),
            }
        }
        info.ops = ops;
        self.functions.insert(f.spelling(), info);
    }

    fn walk<'t>(
        &mut self,
        c: Cursor<'t>,
        stack: &mut Vec<Cursor<'t>>,
        params: &[Cursor<'t>],
        fname: &str,
        info: &mut Function,
    ) {
        if c.kind() == CursorKind::CallExpr {
            self.call(c, stack, params, fname, info);
        }
        stack.push(c);
        for child in c.children() {
            self.walk(child, stack, params, fname, info);
        }
        stack.pop();
    }

    fn call<'t>(
        &mut self,
        c: Cursor<'t>,
        stack: &[Cursor<'t>],
        params: &[Cursor<'t>],
        fname: &str,
        info: &mut Function,
    ) {
        let name = c.spelling();
        let line = c.extent().0.line;
        if let Some(model) = self.models.lock_functions.get(&name) {
            match self.lock_op(c, model, stack, params) {
                Ok(op) => info.ops.push(op),
                Err(why) => self.problems.push(format!("{fname}: line {line}: {name}: {why}")),
            }
            return;
        }
        let (s, _) = c.extent();
        if s.file.as_deref() != Some(self.file) {
            return;
        }
        let direct = c.referenced().is_some_and(|d| d.kind() == CursorKind::FunctionDecl);
        if !direct {
            // A call through a pointer: it may reach any function of the
            // pointer's type (`*TYPE`, resolved by `with_callees`).
            let target =
                c.children().first().and_then(|e| e.ty().canonical().pointee()).map(|t| t.canonical().spelling());
            if let Some(t) = target {
                let call = Call {
                    callee: format!("*{t}"),
                    start: s.offset as usize,
                    edit: None,
                    line,
                    written: String::new(),
                    args: Vec::new(),
                };
                info.calls.push(call);
            }
            return;
        }
        let construct = construct(c, stack, self.text, self.file).ok();
        let args = c.arguments().into_iter().map(|a| render(a, params, self.models).ok()).collect();
        info.calls.push(Call {
            callee: name,
            start: s.offset as usize,
            edit: construct.as_ref().filter(|k| k.statement).map(|k| Edit {
                start: k.start,
                end: k.end,
                replacement: Replacement::Blank,
            }),
            line,
            written: construct.map(|k| k.written).unwrap_or_default(),
            args,
        });
    }

    fn lock_op<'t>(
        &self,
        c: Cursor<'t>,
        model: &LockFunction,
        stack: &[Cursor<'t>],
        params: &[Cursor<'t>],
    ) -> Result<Op, String> {
        let k = construct(c, stack, self.text, self.file)?;
        let (lock, display) = match &model.lock {
            LockRef::Global(g) => (format!("global {g}"), g.clone()),
            LockRef::Arg(n) | LockRef::ArgDeref(n) | LockRef::ArgField(n, _) => {
                let arg = c.arguments().get(*n).copied().ok_or("the lock argument is missing")?;
                let (key, display) = render(arg, params, self.models)?;
                match &model.lock {
                    LockRef::ArgDeref(_) => (format!("*{key}"), format!("*{display}")),
                    LockRef::ArgField(_, f) => (format!("{key}->{f}"), format!("{display}->{f}")),
                    _ => (key, display),
                }
            }
        };
        let mode = if model.mode == LockMode::Shared { " (shared)" } else { "" };
        let guard = model.op != LockOp::Release && model.returns != LockResult::Other;
        let dir = match model.op {
            LockOp::Release => Dir::Release,
            _ if guard => Dir::Guard,
            _ => Dir::Acquire,
        };
        let replacement = match (k.statement, dir, model.success) {
            (true, _, _) => Replacement::Blank,
            (false, Dir::Acquire, Some(Success::Zero)) => Replacement::Literal("0"),
            (false, Dir::Acquire, Some(Success::Nonzero)) => Replacement::Literal("1"),
            (false, Dir::Acquire, Some(Success::NonNegative)) => Replacement::Literal("0"),
            _ => return Err("used as a value, and no success value replaces it".into()),
        };
        if guard && k.scope.is_none() {
            return Err("a guard that is neither a declaration in a block nor a scoped_guard-like for".into());
        }
        Ok(Op {
            dir,
            lock,
            mode,
            display,
            written: k.written,
            edit: Edit { start: k.start, end: k.end, replacement },
            line: k.line,
            scope: if guard { k.scope } else { None },
            via: None,
        })
    }
}

/// A call as written: the bytes of the macro invocation or call, whether it
/// stands as a statement, and the scope of the declaration or `for` it is.
struct Construct {
    start: usize,
    end: usize,
    statement: bool,
    written: String,
    line: u32,
    scope: Option<(usize, usize)>,
}

fn construct<'t>(call: Cursor<'t>, stack: &[Cursor<'t>], text: &[u8], file: &Path) -> Result<Construct, String> {
    let (s, _) = call.extent();
    if s.file.as_deref() != Some(file) {
        return Err("not written in the driver".into());
    }
    let start = s.offset as usize;
    let (written, end) = invocation(text, start)?;
    // The outermost node that starts where the call is written (the
    // `do … while (0)` of a macro, a guard's declaration, a
    // `scoped_guard`'s `for`), and the node holding it.
    let mut top = call;
    let mut i = stack.len();
    while i > 0 {
        let (a, _) = stack[i - 1].extent();
        if a.offset as usize == start && a.file.as_deref() == Some(file) {
            top = stack[i - 1];
            i -= 1;
        } else {
            break;
        }
    }
    let parent = (i > 0).then(|| stack[i - 1]);
    let statement = parent.is_some_and(|p| {
        let kids = p.children();
        let pos = kids.iter().position(|k| *k == top);
        match p.kind() {
            CursorKind::CompoundStmt | CursorKind::LabelStmt | CursorKind::DefaultStmt => true,
            CursorKind::IfStmt | CursorKind::WhileStmt | CursorKind::SwitchStmt | CursorKind::CaseStmt => {
                pos.is_some_and(|n| n >= 1)
            }
            CursorKind::DoStmt => pos == Some(0),
            CursorKind::ForStmt => pos.is_some_and(|n| n + 1 == kids.len()),
            _ => false,
        }
    });
    let scope = match (top.kind(), parent) {
        (CursorKind::DeclStmt, Some(p)) if statement && p.kind() == CursorKind::CompoundStmt => {
            Some((end, p.extent().1.offset as usize))
        }
        (CursorKind::ForStmt, _) if statement => top.children().last().map(|b| {
            let (bs, be) = b.extent();
            (bs.offset as usize, be.offset as usize)
        }),
        _ => None,
    };
    Ok(Construct { start, end, statement, written, line: s.line, scope })
}

/// The name at `start` and the end of the parenthesised groups after it:
/// `spin_lock(&l)`, `guard(mutex)(&m)`, `scoped_guard(mutex, &m)`.
fn invocation(text: &[u8], start: usize) -> Result<(String, usize), String> {
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = start;
    while i < text.len() && is_ident(text[i]) {
        i += 1;
    }
    let name = String::from_utf8_lossy(&text[start..i]).into_owned();
    if name.is_empty() {
        return Err(format!("no name at byte {start}"));
    }
    let mut end = None;
    loop {
        let mut j = i;
        while j < text.len() && text[j].is_ascii_whitespace() {
            j += 1;
        }
        if j >= text.len() || text[j] != b'(' {
            break;
        }
        let mut depth = 0usize;
        let mut quote: Option<u8> = None;
        while j < text.len() {
            let b = text[j];
            match quote {
                Some(_) if b == b'\\' => j += 1,
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None if b == b'"' || b == b'\'' => quote = Some(b),
                None if b == b'(' => depth += 1,
                None if b == b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                None => {}
            }
            j += 1;
        }
        if j >= text.len() {
            return Err(format!("{name}: unbalanced parentheses"));
        }
        i = j + 1;
        end = Some(i);
    }
    end.map(|e| (name.clone(), e)).ok_or_else(|| format!("{name}: no argument list"))
}

/// Renders a lock expression: (key with the function's parameters as `$N`,
/// text with their names).
fn render(c: Cursor<'_>, params: &[Cursor<'_>], models: &KernelModels) -> Result<(String, String), String> {
    let exprs =
        || c.children().into_iter().filter(|k| matches!(k.kind().c_syntax(), CSyntax::Expr(_))).collect::<Vec<_>>();
    match c.kind() {
        CursorKind::UnexposedExpr | CursorKind::ParenExpr | CursorKind::CStyleCastExpr => {
            let last = exprs().pop().ok_or("an empty expression")?;
            render(last, params, models)
        }
        CursorKind::DeclRefExpr => {
            let name = c.spelling();
            let referenced = c.referenced();
            match referenced.and_then(|r| params.iter().position(|p| *p == r)) {
                Some(i) => Ok((format!("${i}"), name)),
                None => Ok((name.clone(), name)),
            }
        }
        CursorKind::MemberRefExpr => {
            let field = c.spelling();
            match exprs().first() {
                None => Ok((field.clone(), field)),
                Some(base) => {
                    let arrow = base.ty().canonical().kind() == TypeKind::Pointer;
                    let sep = if arrow { "->" } else { "." };
                    let (k, d) = render(*base, params, models)?;
                    Ok((format!("{k}{sep}{field}"), format!("{d}{sep}{field}")))
                }
            }
        }
        CursorKind::UnaryOperator => {
            let op = match c.unary_operator() {
                UnaryOperator::AddrOf => "&",
                UnaryOperator::Deref => "*",
                other => return Err(format!("unsupported operator {other:?} in a lock expression")),
            };
            let inner = exprs().pop().ok_or("an operator without operand")?;
            let (k, d) = render(inner, params, models)?;
            Ok((format!("{op}{k}"), format!("{op}{d}")))
        }
        CursorKind::ArraySubscriptExpr => {
            let kids = exprs();
            let [a, b] = kids.as_slice() else { return Err("a subscript without two operands".into()) };
            let (ka, da) = render(*a, params, models)?;
            let (kb, db) = render(*b, params, models)?;
            Ok((format!("{ka}[{kb}]"), format!("{da}[{db}]")))
        }
        CursorKind::IntegerLiteral => match c.evaluate() {
            Some(EvalValue::Int(v)) => Ok((v.to_string(), v.to_string())),
            _ => Err("an integer literal clang does not evaluate".into()),
        },
        CursorKind::CallExpr => {
            let name = c.spelling();
            let pass =
                models.lock_passthroughs.get(&name).ok_or_else(|| format!("a call of {name} in a lock expression"))?;
            let arg = c.arguments().get(pass.arg).copied().ok_or("a passthrough without its argument")?;
            render(arg, params, models)
        }
        other => Err(format!("unsupported {other:?} in a lock expression")),
    }
}

/// Replaces `$N` by argument N; `$N->f` with an argument `&x` becomes `x.f`.
fn substitute(lock: &str, args: &[String]) -> Option<String> {
    let b = lock.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let n: usize = lock[i + 1..j].parse().ok()?;
            let arg = args.get(n)?;
            let simple =
                |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.');
            if lock[j..].starts_with("->") && arg.starts_with('&') && simple(&arg[1..]) {
                out.push_str(&arg[1..]);
                out.push('.');
                i = j + 2;
                continue;
            }
            if simple(arg) {
                out.push_str(arg);
            } else {
                out.push_str(&format!("({arg})"));
            }
            i = j;
        } else {
            let c = lock[i..].chars().next()?;
            out.push(c);
            i += c.len_utf8();
        }
    }
    Some(out)
}

/// A group of operations on one lock in one function.
#[derive(Clone, Debug)]
struct Group {
    ops: Vec<Op>,
}

impl Group {
    fn acquires(&self) -> bool {
        self.ops.iter().any(|o| o.dir != Dir::Release)
    }
    fn releases(&self) -> bool {
        self.ops.iter().any(|o| o.dir != Dir::Acquire)
    }
    /// The critical section(s), for a complete group.
    fn sections(&self) -> Vec<(usize, usize)> {
        if let Some(g) = self.ops.iter().find(|o| o.dir == Dir::Guard) {
            return g.scope.into_iter().collect();
        }
        let from = self.ops.iter().filter(|o| o.dir == Dir::Acquire).map(|o| o.edit.end).min();
        let to = self.ops.iter().filter(|o| o.dir == Dir::Release).map(|o| o.edit.start).max();
        match (from, to) {
            (Some(a), Some(b)) if a <= b => vec![(a, b)],
            _ => Vec::new(),
        }
    }
}

/// Groups a function's operations (sorted by place) per lock and mode.
fn group(ops: &[Op]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut open: BTreeMap<(String, &'static str), usize> = BTreeMap::new();
    for op in ops {
        let key = (op.lock.clone(), op.mode);
        if op.dir == Dir::Guard {
            groups.push(Group { ops: vec![op.clone()] });
            continue;
        }
        let current = open.get(&key).copied();
        let join = match (op.dir, current) {
            (Dir::Release, Some(g)) => Some(g),
            (Dir::Acquire, Some(g)) if !groups[g].releases() => Some(g),
            _ => None,
        };
        match join {
            Some(g) => groups[g].ops.push(op.clone()),
            None => {
                groups.push(Group { ops: vec![op.clone()] });
                open.insert(key, groups.len() - 1);
            }
        }
    }
    groups
}

/// Adds the bodies of the driver's functions called from `sections` of
/// `function`, transitively; a call through a function pointer may reach
/// every function of the driver with the pointer's type.
fn with_callees(
    functions: &BTreeMap<String, Function>,
    function: &str,
    sections: &[(usize, usize)],
) -> Vec<(usize, usize)> {
    let mut out = sections.to_vec();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut todo: Vec<String> = Vec::new();
    if let Some(f) = functions.get(function) {
        for c in &f.calls {
            if sections.iter().any(|&(a, b)| a <= c.start && c.start < b) {
                todo.push(c.callee.clone());
            }
        }
    }
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(ty) = name.strip_prefix('*') {
            todo.extend(functions.iter().filter(|(_, f)| f.ty == ty).map(|(n, _)| n.clone()));
            continue;
        }
        let Some(f) = functions.get(&name) else { continue };
        out.push(f.body);
        todo.extend(f.calls.iter().map(|c| c.callee.clone()));
    }
    out
}

fn make_pair(function: &str, kind: PairKind, ops: &[&Op], sections: Vec<(usize, usize)>) -> Pair {
    let mut calls: Vec<String> = Vec::new();
    for o in ops {
        if !calls.contains(&o.written) {
            calls.push(o.written.clone());
        }
    }
    let display = ops.iter().find(|o| o.dir != Dir::Release).unwrap_or(&ops[0]).display.clone();
    Pair {
        function: function.to_string(),
        lock: display,
        kind,
        calls,
        lines: ops.iter().map(|o| o.line).collect(),
        edits: ops.iter().map(|o| o.edit).collect(),
        sections,
    }
}

/// Forms the pairs: local ones, then the helpers' and their callers'.
fn pair_up(functions: &BTreeMap<String, Function>, problems: &mut Vec<String>) -> Vec<Pair> {
    // Lock helpers: functions with a group that only acquires or only
    // releases.
    let mut lockers: Vec<(String, Group)> = Vec::new();
    let mut unlockers: Vec<(String, Group)> = Vec::new();
    for (name, f) in functions {
        for g in group(&f.ops) {
            match (g.acquires(), g.releases()) {
                (true, false) => lockers.push((name.clone(), g)),
                (false, true) => unlockers.push((name.clone(), g)),
                _ => {}
            }
        }
    }
    // Each call of a helper becomes a lock operation of its caller.
    let helper_dir: BTreeMap<&str, Vec<(Dir, &Op)>> = {
        let mut m: BTreeMap<&str, Vec<(Dir, &Op)>> = BTreeMap::new();
        for (name, g) in &lockers {
            m.entry(name.as_str()).or_default().push((Dir::Acquire, &g.ops[0]));
        }
        for (name, g) in &unlockers {
            m.entry(name.as_str()).or_default().push((Dir::Release, &g.ops[0]));
        }
        m
    };
    let mut all_ops: BTreeMap<&str, Vec<Op>> = BTreeMap::new();
    for (name, f) in functions {
        let mut ops = f.ops.clone();
        for call in &f.calls {
            let Some(effects) = helper_dir.get(call.callee.as_str()) else { continue };
            for (dir, helper_op) in effects {
                let keys: Option<Vec<String>> = call.args.iter().map(|a| a.as_ref().map(|x| x.0.clone())).collect();
                let shown: Option<Vec<String>> = call.args.iter().map(|a| a.as_ref().map(|x| x.1.clone())).collect();
                let lock = keys.and_then(|k| substitute(&helper_op.lock, &k));
                let display = shown.and_then(|k| substitute(&helper_op.lock, &k));
                match (call.edit, lock, display) {
                    (Some(edit), Some(lock), Some(display)) => ops.push(Op {
                        dir: *dir,
                        lock,
                        mode: helper_op.mode,
                        display,
                        written: call.written.clone(),
                        edit,
                        line: call.line,
                        scope: None,
                        via: Some(call.callee.clone()),
                    }),
                    _ => problems.push(format!(
                        "{name}: line {}: the call of lock helper {} is not a statement or its lock argument cannot be read",
                        call.line, call.callee
                    )),
                }
            }
        }
        ops.sort_by_key(|o| o.edit.start);
        all_ops.insert(name.as_str(), ops);
    }
    let mut pairs = Vec::new();
    // Callers' sections per (locker, unlocker) pair of helpers.
    let mut via_sections: BTreeMap<(String, String), Vec<(usize, usize)>> = BTreeMap::new();
    for (name, ops) in &all_ops {
        for g in group(ops) {
            let complete = g.acquires() && g.releases();
            let is_helper_group = !complete && g.ops.iter().all(|o| o.via.is_none());
            if !complete {
                if !is_helper_group {
                    let o = &g.ops[0];
                    problems.push(format!("{name}: line {}: {} of {} is a call of a lock helper without its pair (helpers of helpers are not supported)", o.line, o.written, o.display));
                }
                continue;
            }
            let sections = with_callees(functions, name, &g.sections());
            if sections.is_empty() {
                problems.push(format!("{name}: line {}: a pair without a critical section", g.ops[0].line));
            }
            let lockers_used: BTreeSet<&String> =
                g.ops.iter().filter(|o| o.dir == Dir::Acquire).filter_map(|o| o.via.as_ref()).collect();
            let unlockers_used: BTreeSet<&String> =
                g.ops.iter().filter(|o| o.dir == Dir::Release).filter_map(|o| o.via.as_ref()).collect();
            for l in &lockers_used {
                for u in &unlockers_used {
                    via_sections.entry(((*l).clone(), (*u).clone())).or_default().extend(sections.iter().copied());
                }
            }
            let kind = if g.ops.iter().any(|o| o.dir == Dir::Guard) { PairKind::Guard } else { PairKind::Local };
            let refs: Vec<&Op> = g.ops.iter().collect();
            pairs.push(make_pair(name, kind, &refs, sections));
        }
    }
    // Pairs across helpers: a locker and an unlocker of the same lock of
    // the same parameters.
    let mut used_unlockers = BTreeSet::new();
    for (l, lg) in &lockers {
        let mut matched = false;
        for (i, (u, ug)) in unlockers.iter().enumerate() {
            if ug.ops[0].lock != lg.ops[0].lock || ug.ops[0].mode != lg.ops[0].mode {
                continue;
            }
            matched = true;
            used_unlockers.insert(i);
            let sections = via_sections.get(&(l.clone(), u.clone())).cloned().unwrap_or_default();
            let refs: Vec<&Op> = lg.ops.iter().chain(&ug.ops).collect();
            let mut p = make_pair(&format!("{l}/{u}"), PairKind::AcrossHelpers, &refs, sections);
            if p.sections.is_empty() {
                problems.push(format!("{}: no caller holds the lock between the two helpers", p.describe()));
            }
            p.lock = lg.ops[0].display.clone();
            pairs.push(p);
        }
        if !matched {
            let o = &lg.ops[0];
            problems.push(format!(
                "{l}: line {}: {} of {} is never released in this function nor by a helper",
                o.line, o.written, o.display
            ));
        }
    }
    for (i, (u, ug)) in unlockers.iter().enumerate() {
        if !used_unlockers.contains(&i) {
            let o = &ug.ops[0];
            problems.push(format!(
                "{u}: line {}: {} of {} releases a lock this function did not take, and no helper takes it",
                o.line, o.written, o.display
            ));
        }
    }
    pairs.sort_by_key(|p| p.edits.iter().map(|e| e.start).min());
    pairs
}

/// The source with `edits` applied; every line keeps its length.
pub fn mutate(text: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut out = text.to_vec();
    for e in edits {
        for b in &mut out[e.start..e.end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        if let Replacement::Literal(v) = e.replacement {
            out[e.start..e.start + v.len()].copy_from_slice(v.as_bytes());
        }
    }
    out
}

/// The byte offset of a 1-based line and byte column.
pub fn offset_of(text: &[u8], line: u32, column: u32) -> Option<usize> {
    let mut start = 0;
    for _ in 1..line {
        start += text[start..].iter().position(|&b| b == b'\n')? + 1;
    }
    Some(start + column.saturating_sub(1) as usize)
}

/// The 1-based line of a byte offset.
pub fn line_at(text: &[u8], offset: usize) -> usize {
    text[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}
