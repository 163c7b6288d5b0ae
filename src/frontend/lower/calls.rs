//! Calls: to procedures, to kernel models, through function pointers, and
//! to functions the lowering knows nothing of.
//!
//! In order of precedence, a direct call to a function named:
//!
//! 1. by a **lock model** becomes `lock`/`trylock`/`unlock` of the
//!    identified lock ([`super::locks`]), with the interrupt-state effect
//!    the model records; a lock that cannot be identified becomes `lock ?`;
//! 2. by an **interrupt-state model** becomes `control …`: recorded, but
//!    not a lock (on SMP it excludes nothing on other CPUs);
//! 3. by a **function model** becomes its memory effects: reads and writes
//!    of the arguments' pointees (a range of addresses when the model gives
//!    a size; [`super::effects`]), atomic accesses, and the modelled result (fresh memory, an
//!    argument, an uninterpreted function of the arguments, or arbitrary);
//!    an atomic access with a value operation stores and returns exact
//!    values ([`super::atomics`]);
//! 4. a compiler builtin (`__builtin_expect`, …) is evaluated;
//! 5. a function with a body becomes a `call` of its procedure; one with
//!    lock-typed parameters is specialised for the caller's locks;
//! 6. anything else becomes an arbitrary result and an `approx
//!    {external-call}`, with stores through the pointer arguments it may
//!    write (`assumed_writes`): the assumption that it writes nothing else
//!    and calls nothing back is counted and reported. A model with
//!    `calls-back="true"` is also such an approximation for its calls back.
//!
//! A call through a field of a structure (`dev->ops->start(dev)`) calls,
//! nondeterministically, each function this driver stores in that field;
//! when it stores none, the call is an `approx {function-pointer}`.

use super::context::{FnLower, Shared, sanitise};
use super::layout::{self, Shape};
use super::locks::LockIdentity;
use crate::frontend::clang::{Cursor, CursorKind, UnaryOperator};
use crate::ir::{AccessKind, ApproxKind, Command, Expr, IrqOp, LockKind, LockMode, ProcId, Program, Sort};
use crate::models::{AtomicAccess, Failure, LockOp, LockRef, LockResult, Makes, ReturnModel, Success};

/// Declares the procedure of a function: parameters and return, no body.
pub fn declare_procedure(program: &mut Program, shared: &mut Shared<'_>, function: Cursor<'_>) -> ProcId {
    declare_named(program, shared, function, &function.spelling())
}

fn declare_named(program: &mut Program, shared: &mut Shared<'_>, function: Cursor<'_>, name: &str) -> ProcId {
    let span = Some(super::span_of(&shared.main_file, function));
    let mut b = crate::ir::ProcedureBuilder::new(program, sanitise(name), span);
    for (i, p) in function.arguments().into_iter().enumerate() {
        let n = p.spelling();
        b.add_param(if n.is_empty() { format!("arg{i}") } else { sanitise(&n) }, Sort::Int);
    }
    if function.result_type().canonical().kind() != crate::frontend::clang::TypeKind::Void {
        b.add_return("result", Sort::Int);
    }
    b.finish_declaration()
}

fn irq_op(op: crate::models::IrqOp) -> IrqOp {
    match op {
        crate::models::IrqOp::Disable => IrqOp::Disable,
        crate::models::IrqOp::Enable => IrqOp::Enable,
        crate::models::IrqOp::Save => IrqOp::Save,
        crate::models::IrqOp::Restore => IrqOp::Restore,
        crate::models::IrqOp::PreemptDisable => IrqOp::PreemptDisable,
        crate::models::IrqOp::PreemptEnable => IrqOp::PreemptEnable,
        crate::models::IrqOp::BhDisable => IrqOp::BhDisable,
        crate::models::IrqOp::BhEnable => IrqOp::BhEnable,
    }
}

impl<'t> FnLower<'_, '_, '_, 't> {
    /// Lowers a call expression; returns its value (0 for `void`).
    pub fn call(&mut self, c: Cursor<'t>) -> Expr {
        self.s.stats.calls += 1;
        let direct = c
            .referenced()
            .filter(|f| f.kind() == CursorKind::FunctionDecl)
            .or_else(|| c.children().first().and_then(|&callee| super::expr::named_callee(callee)));
        let Some(callee) = direct else {
            self.note_reach_markers(c, None);
            return self.indirect_call(c);
        };
        let name = callee.spelling();
        self.note_reach_markers(c, Some(&name));
        let args = c.arguments();
        let models = self.s.models;
        if let Some(model) = models.lock_functions.get(&name) {
            let value = self.lock_call(c, model, &args);
            // A lock function may also let callbacks run (a runtime-PM put
            // queues the idle and suspend callbacks).
            if models.makes_live.contains_key(&name) && !self.b.is_terminated() {
                let span = Some(self.span(c));
                let targets = self.live_targets(&name, &args);
                return self.make_live_after(name, targets, span, value);
            }
            return value;
        }
        if let Some(model) = models.bit_lock_functions.get(&name) {
            return self.bit_lock_call(c, model, &args);
        }
        if let Some(model) = models.irq_functions.get(&name) {
            self.evaluate_all(&args);
            let span = Some(self.span(c));
            self.b.push(Command::InterruptControl { op: irq_op(model.op), span });
            return Expr::var(self.havoc());
        }
        if let Some(pass) = models.lock_passthroughs.get(&name) {
            let values = self.evaluate_all(&args);
            return values.get(pass.arg).cloned().unwrap_or(Expr::int(0));
        }
        if models.makes_live.contains_key(&name) {
            let span = Some(self.span(c));
            let targets = self.live_targets(&name, &args);
            let value = match models.functions.get(&name) {
                Some(model) => self.modelled_call(c, model, &args),
                None => self.unknown_call(c, &name, &args),
            };
            if !self.b.is_terminated() {
                return self.make_live_after(name, targets, span, value);
            }
            return value;
        }
        if let Some(q) = models.quiesces.get(&name) {
            let span = Some(self.span(c));
            let value = match models.functions.get(&name) {
                Some(model) => self.modelled_call(c, model, &args),
                None => self.unknown_call(c, &name, &args),
            };
            if !self.b.is_terminated() {
                let targets = super::quiesce::targets(self.s, &q.quiesces, &args);
                self.b.push(Command::Quiesce {
                    function: name,
                    targets,
                    stops_self: q.stops_self,
                    rearmed_by: q.rearmed_by.clone(),
                    exclusive: q.exclusive,
                    effective: Vec::new(),
                    span,
                });
            }
            return value;
        }
        if let Some(model) = models.functions.get(&name) {
            return self.modelled_call(c, model, &args);
        }
        if let Some(v) = self.builtin(c, &name, &args) {
            return v;
        }
        // A function another file of the unit defines is called through
        // this file's declaration, of the same USR.
        let definition = callee.definition().or(Some(callee));
        if let Some(procedure) = definition.and_then(|d| self.s.procedures.get(&d.usr()).copied()) {
            let procedure = self.specialise(definition.expect("checked"), procedure, &args);
            return self.procedure_call(c, procedure, &args);
        }
        self.external_call(c, &name, &args)
    }

    /// Makes the callbacks of the `makes-live` function `name` live after
    /// its call returned `value`: on every path, or, for a model with
    /// `when="returns-zero"`, only on the path where `value` is 0 (a failed
    /// registration publishes nothing). Returns the call's value.
    fn make_live_after(&mut self, name: String, targets: Option<Vec<String>>, span: Option<crate::diagnostics::Span>, value: Expr) -> Expr {
        if self.s.models.makes_live.get(&name).is_some_and(|m| matches!(m.makes, crate::models::Makes::Args | crate::models::Makes::Kinds(_))) {
            self.b.program().arming.insert(name.clone());
        }
        if !self.s.models.makes_live.get(&name).is_some_and(|m| m.on_zero) {
            self.b.push(Command::MakeLive { function: name, targets, assumed: false, span });
            return value;
        }
        let result = self.tmp();
        self.b.assign(result, value, None);
        let join = self.b.new_block();
        let (zero, failed) = self.b.branch(Expr::eq(Expr::var(result), Expr::int(0)), span.clone());
        self.b.switch_to(zero);
        self.b.push(Command::MakeLive { function: name, targets, assumed: false, span });
        self.b.goto([join]);
        self.b.switch_to(failed);
        self.b.goto([join]);
        self.b.switch_to(join);
        Expr::var(result)
    }

    /// Evaluates arguments left to right.
    pub(super) fn evaluate_all(&mut self, args: &[Cursor<'t>]) -> Vec<Expr> {
        args.iter().map(|a| self.value(*a)).collect()
    }

    /// Records values a call may keep after it returns, with where the
    /// call is (src/analyses/private.rs), and says so in the IR (a `keep`
    /// command, for the precise phase's replay).
    pub(super) fn keep(&mut self, values: impl IntoIterator<Item = Expr>) {
        let procedure = self.b.id();
        let block = self.b.current_block();
        let at = crate::analyses::private::stable_position(&self.b.program().procedures[procedure].blocks[block].commands);
        let mut kept = Vec::new();
        for v in values {
            self.s.privacy.kept_at.push((procedure, block, at, v.clone()));
            self.s.privacy.kept.push(v.clone());
            if !matches!(v, Expr::Int(_) | Expr::Bool(_)) {
                kept.push(v);
            }
        }
        if !kept.is_empty() && !self.b.is_terminated() {
            self.b.push(Command::Keep { values: kept, span: None });
        }
    }

    pub(super) fn havoc(&mut self) -> crate::ir::VarId {
        self.havoc_at(None)
    }

    /// A fresh variable with an arbitrary value, made at `span` (where a
    /// new object comes from, for the precise phase's witnesses).
    fn havoc_at(&mut self, span: Option<crate::diagnostics::Span>) -> crate::ir::VarId {
        let t = self.tmp();
        self.b.push(Command::Havoc { vars: vec![t], span });
        t
    }

    fn procedure_call(&mut self, c: Cursor<'t>, procedure: ProcId, args: &[Cursor<'t>]) -> Expr {
        let mut values = self.evaluate_all(args);
        // An integer constant expression (`BIT(3)`, `~0`, `-EINVAL`,
        // `FLAG_A | FLAG_B`) is passed as its value, converted to the
        // argument's type as C converts it, so that the callee's calling
        // contexts see the constant (const_callees.rs) where the lowering
        // left bit operations or conversions uninterpreted.
        for (value, arg) in values.iter_mut().zip(args) {
            if let Some(k) = integer_constant_argument(*arg) {
                *value = Expr::int(k);
            }
        }
        let (params, returns) = {
            let p = &self.b.program().procedures[procedure];
            (p.params.len(), p.returns.len())
        };
        // Variadic arguments beyond the parameters are evaluated, not
        // passed: what the callee does with them is unknown.
        self.keep(values.iter().skip(params).cloned());
        values.truncate(params);
        while values.len() < params {
            let t = self.havoc();
            values.push(Expr::var(t));
        }
        let results = if returns == 1 { vec![self.tmp()] } else { Vec::new() };
        let span = Some(self.span(c));
        self.b.push(Command::Call { procedure, args: values, results: results.clone(), span });
        results.first().map_or(Expr::int(0), |r| Expr::var(*r))
    }

    fn external_call(&mut self, c: Cursor<'t>, name: &str, args: &[Cursor<'t>]) -> Expr {
        let value = self.unknown_call(c, name, args);
        // It may register callbacks with the kernel, unless the models say
        // it registers nothing.
        if !self.b.is_terminated() && !self.s.models.makes_nothing_live.contains_key(name) {
            let span = Some(self.span(c));
            let targets = self.s.assumed_targets.clone();
            self.b.push(Command::MakeLive { function: name.to_string(), targets, assumed: true, span });
        }
        value
    }

    /// A call to a function with neither body nor model: its arguments are
    /// evaluated and its result is arbitrary (`approx {external-call}`).
    fn unknown_call(&mut self, c: Cursor<'t>, name: &str, args: &[Cursor<'t>]) -> Expr {
        // It may keep any argument.
        let values = self.evaluate_all(args);
        self.keep(values.iter().cloned());
        self.s.stats.external_functions.insert(name.to_string());
        self.approx(ApproxKind::ExternalCall, name.to_string(), Some(c));
        self.assumed_writes(c, name, args, &values);
        Expr::var(self.havoc())
    }

    /// The entry points a call to the `makes-live` function `name` makes
    /// live directly, as its model says; `None`: any callback.
    fn live_targets(&self, name: &str, args: &[Cursor<'t>]) -> Option<Vec<String>> {
        // A callback that only some functions arm (a NAPI poll: only
        // napi_enable) is made live by no other call.
        let armed = |f: &String| self.s.armed_only.get(f).is_none_or(|by| by.iter().any(|b| b == name));
        match self.modelled_targets(name, args) {
            Some(targets) if self.s.armed_only.is_empty() => Some(targets),
            Some(targets) => Some(targets.into_iter().filter(armed).collect()),
            None if self.s.armed_only.is_empty() && self.s.sealed.is_empty() => None,
            // A model that makes "every callback" live does not name a
            // sealed one: only its own registrations, which take the
            // function itself, start it ([`crate::frontend::sealed`]); a
            // callback made live here that requests it is added by the
            // liveness closure.
            None => Some(
                self.s.entry_kinds.iter().map(|(f, _)| f).filter(|f| armed(f) && !self.s.sealed.contains(*f)).cloned().collect(),
            ),
        }
    }

    /// The entry points the model of `name` names; `None`: any callback.
    fn modelled_targets(&self, name: &str, args: &[Cursor<'t>]) -> Option<Vec<String>> {
        let models = self.s.models;
        let mut out = match &models.makes_live.get(name)?.makes {
            Makes::All => return None,
            Makes::Args => {
                let registration = models.registrations.get(name)?;
                let mut out = Vec::new();
                for rule in &registration.arguments {
                    out.extend(callback_names(*args.get(rule.index)?)?);
                }
                out
            }
            Makes::Fields(fields) => super::quiesce::stored_in(self.s, fields),
            Makes::Structs(records) => super::quiesce::registered_in(self.s, records),
            Makes::Object(index) => {
                let reachable = self.s.registered.callbacks(*args.get(*index)?)?;
                reachable.into_iter().filter(|f| self.s.entry_kinds.iter().any(|(e, _)| e == f)).collect()
            }
            Makes::Kinds(kinds) => {
                self.s.entry_kinds.iter().filter(|(_, ks)| ks.iter().any(|k| kinds.contains(k))).map(|(f, _)| f.clone()).collect()
            }
        };
        out.sort();
        out.dedup();
        Some(out)
    }

    /// A call through a function pointer.
    fn indirect_call(&mut self, c: Cursor<'t>) -> Expr {
        let children = c.children();
        let Some(&callee) = children.first() else { return Expr::var(self.havoc()) };
        let args = c.arguments();
        let target = super::expr::strip_parens(callee);
        let field = strip_to_member(target).and_then(|m| m.referenced()).filter(|f| f.kind() == CursorKind::FieldDecl);
        let stored: Vec<String> = field
            .and_then(|f| {
                let record = f.semantic_parent().map(layout::record_name)?;
                let key = (record.strip_prefix("struct ").unwrap_or(&record).to_string(), f.spelling());
                Some(self.s.field_targets.get(&key).cloned().unwrap_or_default())
            })
            .unwrap_or_default();
        let targets: Vec<ProcId> = stored.iter().filter_map(|usr| self.s.procedures.get(usr).copied()).collect();
        // A function stored in the field without a body here (a kernel
        // helper such as `noop_llseek`) may be the one called.
        let bodiless = targets.len() < stored.len();
        // A constant function-pointer global of a whole program.
        let constant: Vec<ProcId> = match self.s.constant_pointers.targets(callee) {
            Some(usrs) if field.is_none() => {
                let all: Option<Vec<ProcId>> = usrs.iter().map(|usr| self.s.procedures.get(usr).copied()).collect();
                all.unwrap_or_default()
            }
            _ => Vec::new(),
        };
        let (targets, bodiless) = if targets.is_empty() && !constant.is_empty() {
            for p in &constant {
                let name = self.b.program().procedures[*p].name.clone();
                self.s.stats.constant_pointer_targets.insert(name);
            }
            (constant, false)
        } else {
            (targets, bodiless)
        };
        // The pointer itself is read (it may race).
        let pointer = self.value(function_pointer_operand(callee));
        if targets.is_empty() {
            return self.unresolved_call(c, field, &args, "");
        }
        if self.s.constant_pointers.targets(callee).is_none() || field.is_some() {
            self.s.stats.indirect_calls_resolved += 1;
        }
        // Each branch calls the function the pointer holds: the branch of
        // a target assumes the pointer equals that function's address, so
        // that no path calls a function the pointer does not hold then.
        let held = self.tmp();
        self.b.assign(held, pointer, None);
        let addresses: Vec<Expr> = targets
            .iter()
            .map(|p| {
                let name = self.b.program().procedures[*p].name.clone();
                self.function_address_named(&name)
            })
            .collect();
        let result = self.tmp();
        let join = self.b.new_block();
        let blocks: Vec<_> = targets.iter().map(|_| self.b.new_block()).collect();
        let other = bodiless.then(|| self.b.new_block());
        self.b.goto(blocks.iter().copied().chain(other));
        let span = Some(self.span(c));
        for ((block, procedure), address) in blocks.into_iter().zip(targets).zip(&addresses) {
            self.b.switch_to(block);
            self.b.assume(Expr::eq(Expr::var(held), address.clone()), span.clone());
            let v = self.procedure_call(c, procedure, &args);
            self.b.assign(result, v, None);
            self.b.goto([join]);
        }
        // The pointer holds none of the functions with a body: one of the
        // bodiless ones, an unknown external call.
        if let Some(block) = other {
            self.b.switch_to(block);
            let none = addresses.into_iter().map(|a| Expr::ne(Expr::var(held), a)).collect();
            self.b.assume(Expr::and_all(none), span);
            let v = self.unresolved_call(c, field, &args, " (a function stored there without a body)");
            self.b.assign(result, v, None);
            self.b.goto([join]);
        }
        self.b.switch_to(join);
        Expr::var(result)
    }

    /// A call through a pointer to a function the lowering has no body
    /// for: its arguments are evaluated and kept, it may make any callback
    /// live, and its result is arbitrary.
    fn unresolved_call(&mut self, c: Cursor<'t>, field: Option<Cursor<'t>>, args: &[Cursor<'t>], why: &str) -> Expr {
        let values = self.evaluate_all(args);
        self.keep(values);
        let what = field.map(|f| f.spelling()).unwrap_or_else(|| "a function pointer".into());
        self.approx(ApproxKind::FunctionPointer, format!("call through {what}{why}"), Some(c));
        let span = Some(self.span(c));
        let targets = self.s.assumed_targets.clone();
        self.b.push(Command::MakeLive { function: what, targets, assumed: true, span });
        Expr::var(self.havoc())
    }

    /// A function with lock-typed parameters, specialised for the locks
    /// this call passes; other functions are returned unchanged.
    fn specialise(&mut self, function: Cursor<'t>, procedure: ProcId, args: &[Cursor<'t>]) -> ProcId {
        let params = function.arguments();
        let mut binding = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let is_lock_pointer = layout::pointee(p.ty()).is_some_and(|t| self.lock_kind_of(t).is_some());
            if !is_lock_pointer {
                continue;
            }
            if let Some(&arg) = args.get(i) {
                let identity = self.lock_identity(arg);
                if identity.key().is_some() {
                    binding.push((i, identity));
                }
            }
        }
        if binding.is_empty() {
            return procedure;
        }
        let key = (function.usr(), binding.iter().map(|(i, id)| format!("{i}={}", id.display())).collect::<Vec<_>>().join(","));
        if let Some(&p) = self.s.specialised.get(&key) {
            return p;
        }
        let name = format!("{}_for_{}", function.spelling(), self.s.specialised.len() + 1);
        let id = {
            let program = self.b.program();
            let span = Some(super::span_of(&self.s.main_file, function));
            let mut b = crate::ir::ProcedureBuilder::new(program, sanitise(&name), span);
            for (i, p) in params.iter().enumerate() {
                let n = p.spelling();
                b.add_param(if n.is_empty() { format!("arg{i}") } else { sanitise(&n) }, Sort::Int);
            }
            if function.result_type().canonical().kind() != crate::frontend::clang::TypeKind::Void {
                b.add_return("result", Sort::Int);
            }
            b.finish_declaration()
        };
        self.s.specialised.insert(key, id);
        self.s.pending.push((function.usr(), id, binding));
        self.s.stats.specialisations += 1;
        id
    }

    fn lock_call(&mut self, c: Cursor<'t>, model: &crate::models::LockFunction, args: &[Cursor<'t>]) -> Expr {
        let span = Some(self.span(c));
        let (identity, kind) = match &model.lock {
            LockRef::Global(name) => (LockIdentity::Pseudo(name.clone()), LockKind::Pseudo),
            LockRef::Arg(i) | LockRef::ArgDeref(i) | LockRef::ArgField(i, _) => match args.get(*i) {
                Some(&arg) => {
                    let identity = match &model.lock {
                        LockRef::Arg(_) => self.lock_identity(arg),
                        _ => self.guard_identity(arg),
                    };
                    let holder_kind = self.guard_kind(arg);
                    let kind = layout::pointee(arg.ty()).and_then(|t| self.lock_kind_of(t)).or(holder_kind).unwrap_or(LockKind::Mutex);
                    (identity, kind)
                }
                None => (LockIdentity::Unknown("missing lock argument".into()), LockKind::Mutex),
            },
        };
        // The arguments are evaluated for their accesses (the flags of
        // irqrestore, for instance).
        self.evaluate_all(args);
        let mode = match model.mode {
            crate::models::LockMode::Exclusive => LockMode::Exclusive,
            crate::models::LockMode::Shared => LockMode::Shared,
        };
        let lock = self.lock_id(&identity, kind);
        if lock.is_none() {
            let reason = match &identity {
                LockIdentity::Unknown(why) => why.clone(),
                other => format!("{} is not bound by any caller", other.display()),
            };
            self.approx(ApproxKind::UnknownLock, format!("{}: {reason}", model.name), Some(c));
            self.b.push(Command::LockUnknown { reason: format!("{}: {reason}", model.name), span: span.clone() });
        }
        // Acquiring disables interrupts before taking the lock; releasing
        // restores them after dropping it.
        let irq = model.irq.map(irq_op);
        if let Some(op) = irq.filter(|_| model.op != LockOp::Release) {
            self.b.push(Command::InterruptControl { op, span: span.clone() });
        }
        if matches!(model.returns, LockResult::Lock | LockResult::Field(_)) {
            self.last_acquired = Some((identity.clone(), kind));
        }
        let result = self.tmp();
        match (model.op, lock) {
            (LockOp::Acquire, Some(lock)) => {
                self.b.push(Command::Lock { lock, mode, span });
                self.b.push(Command::Havoc { vars: vec![result], span: None });
            }
            (LockOp::Release, Some(lock)) => {
                self.b.push(Command::Unlock { lock, mode, span: span.clone() });
                if let Some(op) = irq {
                    self.b.push(Command::InterruptControl { op, span });
                }
                self.b.push(Command::Havoc { vars: vec![result], span: None });
            }
            (LockOp::TryAcquire, Some(lock)) => {
                let ok = self.tmp_bool();
                self.b.push(Command::TryLock { lock, mode, success: ok, span });
                self.lock_result(result, ok, model.success, model.failure, true);
            }
            (LockOp::AcquireMayFail, Some(lock)) => {
                // Either the lock is taken and the call succeeds, or the
                // wait is interrupted and the call fails without it.
                let ok = self.tmp_bool();
                self.b.push(Command::TryLock { lock, mode, success: ok, span });
                self.lock_result(result, ok, model.success, model.failure, false);
            }
            (op, None) => {
                if let Some(irq) = irq.filter(|_| op == LockOp::Release) {
                    self.b.push(Command::InterruptControl { op: irq, span });
                }
                self.b.push(Command::Havoc { vars: vec![result], span: None });
            }
        }
        Expr::var(result)
    }

    /// Sets the result of a may-fail or try acquire from whether it took
    /// the lock (`ok`), to exactly the values the kernel returns: the
    /// success value (0, or for `nonzero` 1 from a trylock and any non-zero
    /// value from a may-fail acquire, which may return a pointer), and the
    /// failure value of the model (a negative errno in [-4095, -1], 1, or
    /// 0). `exact` gives a trylock its fixed 0/1 values.
    pub(super) fn lock_result(&mut self, result: crate::ir::VarId, ok: crate::ir::VarId, success: Option<Success>, failure: Option<Failure>, exact: bool) {
        let r = Expr::var(result);
        let success = success.unwrap_or(Success::Zero);
        let failure = failure.unwrap_or(match success {
            Success::Zero | Success::NonNegative => Failure::Errno,
            Success::Nonzero => Failure::Zero,
        });
        let failed = match failure {
            Failure::Errno => None,
            Failure::One => Some(1),
            Failure::Zero => Some(0),
            Failure::Busy => Some(16),
        };
        match (exact, success, failed) {
            (true, Success::Zero, Some(f)) => self.b.assign(result, Expr::ite(Expr::var(ok), Expr::int(0), Expr::int(f)), None),
            (true, Success::Nonzero, Some(f)) => self.b.assign(result, Expr::ite(Expr::var(ok), Expr::int(1), Expr::int(f)), None),
            _ => {
                self.b.push(Command::Havoc { vars: vec![result], span: None });
                let taken = match success {
                    Success::Zero => Expr::eq(r.clone(), Expr::int(0)),
                    Success::Nonzero => Expr::ne(r.clone(), Expr::int(0)),
                    Success::NonNegative => Expr::ge(r.clone(), Expr::int(0)),
                };
                self.b.assume(Expr::binary(crate::ir::BinaryOp::Eq, Expr::var(ok), taken), None);
                // What a failed call returns.
                let failed_value = match failed {
                    Some(f) => Expr::eq(r.clone(), Expr::int(f)),
                    None => Expr::and(Expr::ge(r.clone(), Expr::int(-4095)), Expr::le(r, Expr::int(-1))),
                };
                self.b.assume(Expr::or(Expr::var(ok), failed_value), None);
            }
        }
    }

    /// The kind of the lock a guard variable (`&guard`) holds, if known.
    fn guard_kind(&self, arg: Cursor<'t>) -> Option<LockKind> {
        let c = super::expr::strip_parens(arg);
        let var = c.children().first().copied().map(super::expr::strip_parens)?;
        let decl = var.referenced()?;
        self.lock_holders.get(&decl.usr()).map(|(_, kind)| *kind)
    }

    /// Runs a scope's cleanup: the guard destructor of a variable, modelled
    /// as the lock release it performs.
    pub fn run_cleanup(&mut self, cleanup: &super::context::Cleanup<'t>) {
        let models = self.s.models;
        let span = Some(self.span(cleanup.variable));
        // `guard(irqsave)()`, `guard(preempt)()`: interrupt-state guards.
        if let Some(irq) = models.irq_functions.get(&cleanup.destructor) {
            self.b.push(Command::InterruptControl { op: irq_op(irq.op), span });
            return;
        }
        let Some(model) = models.lock_functions.get(&cleanup.destructor) else {
            let detail = format!("cleanup {} of {}: assumed to touch no driver memory", cleanup.destructor, cleanup.variable.spelling());
            self.approx(ApproxKind::ExternalCall, detail, Some(cleanup.variable));
            return;
        };
        let (identity, kind) = match &model.lock {
            // `guard(rtnl)()`: a kernel-wide pseudo lock needs no holder.
            LockRef::Global(name) => (LockIdentity::Pseudo(name.clone()), LockKind::Pseudo),
            LockRef::Arg(_) | LockRef::ArgDeref(_) | LockRef::ArgField(_, _) => self
                .lock_holders
                .get(&cleanup.variable.usr())
                .cloned()
                .unwrap_or((LockIdentity::Unknown(format!("guard {} holds no identified lock", cleanup.variable.spelling())), LockKind::Mutex)),
        };
        let mode = match model.mode {
            crate::models::LockMode::Exclusive => LockMode::Exclusive,
            crate::models::LockMode::Shared => LockMode::Shared,
        };
        match self.lock_id(&identity, kind) {
            Some(lock) if model.op == LockOp::Release => self.b.push(Command::Unlock { lock, mode, span: span.clone() }),
            Some(_) => {}
            None => {
                let reason = format!("{}: {}", model.name, identity.display());
                self.approx(ApproxKind::UnknownLock, reason.clone(), Some(cleanup.variable));
                self.b.push(Command::LockUnknown { reason, span: span.clone() });
            }
        }
        if let Some(irq) = model.irq {
            self.b.push(Command::InterruptControl { op: irq_op(irq), span });
        }
    }

    /// The lock a guard variable holds, from `&guard` (the argument of a
    /// guard destructor or of a `*_lock_ptr` helper).
    fn guard_identity(&mut self, arg: Cursor<'t>) -> LockIdentity {
        let c = super::expr::strip_parens(arg);
        let var = if c.kind() == CursorKind::UnaryOperator && c.unary_operator() == UnaryOperator::AddrOf {
            c.children().first().copied().map(super::expr::strip_parens)
        } else {
            None
        };
        match var.filter(|v| v.kind() == CursorKind::DeclRefExpr).and_then(|v| v.referenced()) {
            Some(decl) => self
                .lock_holders
                .get(&decl.usr())
                .map(|(identity, _)| identity.clone())
                .unwrap_or_else(|| LockIdentity::Unknown(format!("guard {} holds no identified lock", decl.spelling()))),
            None => self.lock_identity(arg),
        }
    }

    pub(super) fn modelled_call(&mut self, c: Cursor<'t>, model: &crate::models::FunctionModel, args: &[Cursor<'t>]) -> Expr {
        let values = self.model_arguments(model, args);
        self.modelled_effects(c, model, args, values)
    }

    /// The values of a modelled call's arguments. The address of a scalar
    /// field, global or string passed as an argument the model does not
    /// keep (`keeps`), and that is not the call's result (`returns
    /// kind="arg"`), does not escape: its storage keeps its own region
    /// (src/frontend/lower/regions.rs, [`Self::unescaped_argument`]).
    pub(super) fn model_arguments(&mut self, model: &crate::models::FunctionModel, args: &[Cursor<'t>]) -> Vec<Expr> {
        args.iter()
            .enumerate()
            .map(|(i, a)| {
                let kept = model.may_keep(i) || model.returns == ReturnModel::Arg(i);
                match (!kept).then(|| self.unescaped_argument(*a)).flatten() {
                    Some(v) => v,
                    None => self.value(*a),
                }
            })
            .collect()
    }

    /// A modelled call whose arguments are already evaluated to `values`.
    pub(super) fn modelled_effects(&mut self, c: Cursor<'t>, model: &crate::models::FunctionModel, args: &[Cursor<'t>], values: Vec<Expr>) -> Expr {
        let span = Some(self.span(c));
        self.s.stats.modelled_calls += 1;
        self.s.stats.modelled_functions.insert(model.name.clone());
        if model.calls_back {
            // Its own accesses are modelled; the driver code it calls
            // through the function pointers it is given is not.
            self.s.stats.external_functions.insert(model.name.clone());
            self.approx(ApproxKind::ExternalCall, format!("{} (calls back into the driver; those calls are not followed)", model.name), Some(c));
        }
        let kept: Vec<Expr> = values.iter().enumerate().filter(|(i, _)| model.may_keep(*i)).map(|(_, v)| v.clone()).collect();
        // Kept at the call's start, unless the function hands its
        // arguments on only after its own accesses (`keeps-last`).
        if !model.keeps_last {
            self.keep(kept.clone());
        }
        for effect in &model.reads {
            self.memory_effect(&model.name, args, &values, effect.arg, effect.extent, effect.field.as_deref(), &[], false, AccessKind::Plain, span.clone());
        }
        for effect in &model.writes {
            self.memory_effect(&model.name, args, &values, effect.arg, effect.extent, effect.field.as_deref(), &[], true, AccessKind::Plain, span.clone());
        }
        // A conditional write (`may="true"`) may not happen: no race on the
        // call's writes is confirmed.
        if let (true, Some(span)) = (model.writes.iter().any(|e| e.may), span.clone()) {
            self.b.program().assumed_writes.insert(span, model.name.clone());
        }
        // The result of the one atomic access with a value operation, when
        // its value could be lowered exactly.
        let mut atomic_result = None;
        for effect in &model.atomics {
            if let Some(value) = effect.value {
                if let Some(result) = self.atomic_operation(args, &values, effect, value, span.clone()) {
                    self.s.stats.atomic_values += 1;
                    atomic_result = Some(result);
                    continue;
                }
                self.s.stats.atomic_value_fallbacks += 1;
            }
            let (read, write) = match effect.access {
                AtomicAccess::Read => (true, false),
                AtomicAccess::Write => (false, true),
                AtomicAccess::Rmw => (true, true),
            };
            if read {
                self.memory_effect(&model.name, args, &values, effect.arg, effect.extent, effect.field.as_deref(), &[], false, AccessKind::Atomic, span.clone());
            }
            if write {
                self.memory_effect(&model.name, args, &values, effect.arg, effect.extent, effect.field.as_deref(), &[], true, AccessKind::Atomic, span.clone());
            }
        }
        if model.keeps_last {
            self.keep(kept);
        }
        let result = match model.returns {
            ReturnModel::Havoc => Expr::var(self.havoc()),
            // Any value of the call's integer type (an enum's range is the
            // implementation's, so it gets none, nor does a pointer).
            ReturnModel::AnyOfType => {
                let r = self.havoc();
                let ty = c.ty();
                if layout::is_integral(ty) && ty.canonical().kind() != crate::frontend::clang::TypeKind::Enum {
                    let range = if layout::is_bool(ty) { (0, 1) } else { layout::integer_range(ty) };
                    self.b.program().nondet_ranges.insert(r, range);
                }
                Expr::var(r)
            }
            // Without an exact value (a bit number that is not a constant,
            // a counter that is not one scalar), the result is arbitrary.
            ReturnModel::Atomic => match atomic_result {
                Some(result) => result,
                None => Expr::var(self.havoc()),
            },
            ReturnModel::Fresh | ReturnModel::NullOrFresh => {
                let r = self.havoc_at(Some(self.span(c)));
                let may_fail = model.returns == ReturnModel::NullOrFresh;
                self.b.program().addresses.insert(r, crate::ir::Address::Allocation { may_fail });
                let fresh = Expr::gt(Expr::var(r), Expr::int(0));
                if model.returns == ReturnModel::Fresh {
                    self.b.assume(fresh, None);
                } else {
                    self.b.assume(Expr::or(Expr::eq(Expr::var(r), Expr::int(0)), fresh), None);
                }
                Expr::var(r)
            }
            // Any value for every stage but the precise phase, which
            // keeps the new block apart from all other objects.
            ReturnModel::ErrorOrFresh => {
                let r = self.havoc_at(Some(self.span(c)));
                self.b.program().addresses.insert(r, crate::ir::Address::AllocationOrError);
                Expr::var(r)
            }
            ReturnModel::Uninterpreted => {
                let f = self.function(&sanitise(&model.name), values.len());
                Expr::apply(f, values)
            }
            ReturnModel::Arg(i) => values.get(i).cloned().unwrap_or(Expr::int(0)),
            // The path ends here; what follows is lowered into a dead block.
            ReturnModel::Never => {
                self.b.unreachable();
                let dead = self.b.new_block();
                self.b.switch_to(dead);
                Expr::int(0)
            }
        };
        // A new object no one else reaches yet.
        if let (true, Expr::Var(v)) = (model.allocates, &result) {
            // An `ERR_PTR` is no object: no access through it is made.
            if matches!(model.returns, ReturnModel::Havoc | ReturnModel::Fresh | ReturnModel::NullOrFresh | ReturnModel::ErrorOrFresh) {
                self.s.privacy.allocations.push((*v, model.name.clone()));
            }
        }
        result
    }

    /// Compiler builtins, which are compiler knowledge rather than kernel
    /// knowledge; `None` for a name that is not one.
    /// GCC's `__atomic_*` builtins (`__atomic_load_n(&x, order)`): clang
    /// parses them as an `AtomicExpr`, which libclang shows as an
    /// unexposed expression whose children are the operands in clang's
    /// storage order (pointer, order, value, failure order, desired,
    /// weak), not the source order. The builtin is named by the identifier
    /// written where the expression starts; its operands, put back in
    /// source order by their positions, go to that name's function model
    /// (posix-models/functions.xml: an atomic access of argument 0, and a
    /// plain read and write of `__atomic_compare_exchange_n`'s expected
    /// value), as for a call. `None` (left unsupported) without a model,
    /// or when two operands share a position (a macro expansion).
    pub(super) fn atomic_builtin(&mut self, c: Cursor<'t>) -> Option<Expr> {
        let start = c.extent().0;
        let file = start.file.clone()?;
        let text = self.s.texts.entry(file.clone()).or_insert_with(|| std::fs::read(&file).unwrap_or_default());
        let rest = text.get(start.offset as usize..)?;
        let len = rest.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
        let name = String::from_utf8_lossy(&rest[..len]).into_owned();
        if !name.starts_with("__atomic_") {
            return None;
        }
        let model = self.s.models.functions.get(&name)?.clone();
        let mut args = c.children();
        let mut offsets: Vec<u32> = args.iter().map(|a| a.extent().0.offset).collect();
        offsets.sort_unstable();
        offsets.dedup();
        if offsets.len() != args.len() || args.iter().any(|a| a.extent().0.file.as_ref() != Some(&file)) {
            return None;
        }
        args.sort_by_key(|a| a.extent().0.offset);
        self.s.stats.calls += 1;
        Some(self.modelled_call(c, &model, &args))
    }

    fn builtin(&mut self, c: Cursor<'t>, name: &str, args: &[Cursor<'t>]) -> Option<Expr> {
        match name {
            "__builtin_expect" | "__builtin_expect_with_probability" | "__builtin_assume_aligned" => {
                let values = self.evaluate_all(args);
                Some(values.into_iter().next().unwrap_or(Expr::int(0)))
            }
            "__builtin_constant_p" => Some(Expr::int(args.first().and_then(|a| super::expr::constant(*a)).map_or(0, |_| 1))),
            "__builtin_unreachable" | "__builtin_trap" => {
                self.b.unreachable();
                let dead = self.b.new_block();
                self.b.switch_to(dead);
                Some(Expr::int(0))
            }
            "__builtin_prefetch" | "__builtin_va_start" | "__builtin_va_end" | "__builtin_va_copy" | "__builtin_c23_va_start" => {
                self.evaluate_all(args);
                Some(Expr::int(0))
            }
            _ if name.starts_with("__builtin_") => {
                // Pure builtins (bswap, clz, ctz, popcount, object_size, …):
                // the result is arbitrary; a memory builtin is modelled as the
                // library function of the same name when one is.
                let plain = name.trim_start_matches("__builtin_");
                if let Some(model) = self.s.models.functions.get(plain) {
                    return Some(self.modelled_call(c, model, args));
                }
                self.evaluate_all(args);
                self.s.stats.count_approximation(ApproxKind::BitOperation);
                Some(Expr::var(self.havoc()))
            }
            _ => None,
        }
    }
}

/// The member expression a callee expression reads, through casts and `*`.
pub(super) fn strip_to_member(c: Cursor<'_>) -> Option<Cursor<'_>> {
    let mut c = c;
    loop {
        match c.kind() {
            CursorKind::MemberRefExpr => return Some(c),
            CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr => c = *c.children().last()?,
            CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::Deref => c = *c.children().first()?,
            _ => return None,
        }
    }
}

/// An expression through the implicit conversions that keep its type, as
/// [`place`](FnLower::place) sees through them: `__func__` is such a
/// wrapper around the string literal of the function's name.
pub(super) fn see_through_same_type(mut c: Cursor<'_>) -> Cursor<'_> {
    while c.kind() == CursorKind::UnexposedExpr {
        match c.children().as_slice() {
            [inner] if inner.kind() != CursorKind::TypeRef && inner.ty().canonical().spelling() == c.ty().canonical().spelling() => c = super::expr::strip_parens(*inner),
            _ => break,
        }
    }
    c
}

/// The function-pointer expression a callee calls through: the callee
/// itself, or for `(*fp)()` (`(**fp)()`) the pointer `fp` the
/// dereferences apply to (dereferencing a function pointer gives the
/// function, which decays back to the same pointer).
fn function_pointer_operand(callee: Cursor<'_>) -> Cursor<'_> {
    let mut c = callee;
    let mut pointer = callee;
    loop {
        match c.kind() {
            CursorKind::ParenExpr | CursorKind::UnexposedExpr => match c.children().last() {
                Some(&inner) => c = inner,
                None => return pointer,
            },
            CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::Deref => match c.children().first() {
                Some(&inner) => {
                    c = inner;
                    pointer = inner;
                }
                None => return pointer,
            },
            _ => return pointer,
        }
    }
}

/// An argument through implicit and explicit casts to `void *` and casts
/// that only add qualifiers (`unsigned long *` to `volatile unsigned long
/// *`), so that a model sees the pointer's real type.
pub(super) fn see_through_void_casts(mut c: Cursor<'_>) -> Cursor<'_> {
    loop {
        let void_target = layout::pointee(c.ty()).is_some_and(|t| t.canonical().kind() == crate::frontend::clang::TypeKind::Void);
        let same_pointee = |inner: &Cursor<'_>| {
            layout::is_pointer(inner.ty()) && layout::pointee(inner.ty()).zip(layout::pointee(c.ty())).is_some_and(|(a, b)| layout::type_name(a) == layout::type_name(b))
        };
        let qualifying = matches!(c.kind(), CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr)
            && layout::is_pointer(c.ty())
            && c.children().last().is_some_and(|inner| same_pointee(inner));
        let next = match c.kind() {
            CursorKind::ParenExpr => c.children().first().copied(),
            CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr if void_target || qualifying => c.children().last().copied(),
            _ => None,
        };
        match next {
            Some(n) if layout::is_pointer(n.ty()) || layout::shape(n.ty()) == Shape::Array => c = n,
            _ => return c,
        }
    }
}

/// The functions a callback argument names: a function designator (`f`,
/// `&f`), either arm of a conditional, or none for a null pointer
/// constant; `None` when the value is anything else (a variable, a
/// parameter, a call), whose function the lowering cannot name.
fn callback_names(c: Cursor<'_>) -> Option<Vec<String>> {
    match c.kind() {
        CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr => {
            callback_names(*c.children().last()?)
        }
        CursorKind::UnaryOperator if c.unary_operator() == UnaryOperator::AddrOf => callback_names(*c.children().last()?),
        CursorKind::DeclRefExpr => c.referenced().filter(|f| f.kind() == CursorKind::FunctionDecl).map(|f| vec![f.spelling()]),
        CursorKind::ConditionalOperator => {
            let children = c.children();
            let [_, then, otherwise] = children.as_slice() else { return None };
            let mut out = callback_names(*then)?;
            out.extend(callback_names(*otherwise)?);
            Some(out)
        }
        CursorKind::IntegerLiteral => {
            use crate::frontend::clang::EvalValue;
            matches!(c.evaluate(), Some(EvalValue::Int(0) | EvalValue::UnsignedInt(0))).then(Vec::new)
        }
        _ => None,
    }
}

/// The value of a call argument that is an integer constant expression
/// reading nothing, converted to the argument's integer type (modulo
/// 2^bits into the type's range, as C converts to an unsigned type and as
/// GCC converts to a signed one; a `_Bool` is 0 or 1); none for any other
/// argument.
fn integer_constant_argument(arg: Cursor<'_>) -> Option<i128> {
    let ty = arg.ty();
    if !layout::is_integral(ty) {
        return None;
    }
    let k = super::expr::constant_condition(arg)?;
    if layout::is_bool(ty) {
        return Some(i128::from(k != 0));
    }
    let (lo, hi) = layout::integer_range(ty);
    let span = hi - lo + 1;
    Some((k - lo).rem_euclid(span) + lo)
}
