//! Statements: C control flow to basic blocks.
//!
//! Loops get a head block (the condition), a body and an exit; `break` and
//! `continue` jump to the innermost enclosing targets. A `switch` evaluates
//! its operand once and jumps to one block per `case` (which assumes the
//! operand equals the case's value, or lies in a GNU case range) or to
//! `default` (which assumes it equals none of them); the cases' bodies are
//! laid out in source order so that falling through works as in C. `goto`
//! jumps to a block per label, created at first mention. Code after a jump
//! goes to a fresh block that no edge reaches.
//!
//! libclang omits the absent parts of a `for` header, so which child is the
//! initialisation, the condition or the increment is decided by the
//! positions of the header's semicolons in the source text where the `for`
//! is written (its spelling, for loops written by macros such as
//! `list_for_each_entry`), falling back on the shape of the expressions.

use super::context::FnLower;
use super::layout::{self, Shape};
use super::place::Place;
use crate::frontend::clang::{BinaryOperator as Op, CStmt, CSyntax, Cursor, CursorKind, Type, UnaryOperator as UOp};
use crate::ir::{ApproxKind, Command, Expr};

impl<'t> FnLower<'_, '_, '_, 't> {
    /// Lowers a statement into the current block and those it creates.
    pub fn lower_stmt(&mut self, c: Cursor<'t>) {
        if self.b.is_terminated() {
            // Unreachable code (after a return or goto) still gets lowered:
            // a label inside it may be a jump target.
            let dead = self.b.new_block();
            self.b.switch_to(dead);
        }
        self.s.stats.statements += 1;
        self.note_merge_site(c);
        if self.annotation_statement(c) {
            return;
        }
        match c.kind().c_syntax() {
            CSyntax::Stmt(kind) => self.statement(c, kind),
            CSyntax::Expr(_) => {
                self.value(c);
            }
            CSyntax::NotC(kind) => {
                self.approx(ApproxKind::UnsupportedConstruct, format!("{kind:?} is not C"), Some(c));
            }
            CSyntax::Other(_) => {
                // Declarations inside statements only appear under DeclStmt.
            }
        }
    }

    fn statement(&mut self, c: Cursor<'t>, kind: CStmt) {
        match kind {
            CStmt::CompoundStmt => {
                self.scopes.push((Some(c), Vec::new()));
                for s in c.children() {
                    self.lower_stmt(s);
                }
                self.close_scope();
            }
            CStmt::NullStmt => {}
            CStmt::UnexposedStmt => {
                // Attributed statements (`fallthrough;`) carry their
                // statement as a child.
                for s in c.children() {
                    self.lower_stmt(s);
                }
            }
            CStmt::DeclStmt => {
                for decl in c.children() {
                    if decl.kind() == CursorKind::VarDecl {
                        self.local_declaration(decl);
                    }
                }
            }
            CStmt::IfStmt => self.if_statement(c),
            CStmt::WhileStmt => self.while_loop(c),
            CStmt::DoStmt => self.do_loop(c),
            CStmt::ForStmt => self.for_loop(c),
            CStmt::SwitchStmt => self.switch_statement(c),
            CStmt::CaseStmt | CStmt::DefaultStmt => self.case_label(c, kind),
            CStmt::BreakStmt => match self.jumps.last().copied() {
                Some(j) => {
                    self.run_cleanups_from(j.depth);
                    self.b.goto([j.brk]);
                }
                None => self.approx(ApproxKind::UnsupportedConstruct, "break outside a loop or switch".into(), Some(c)),
            },
            CStmt::ContinueStmt => match self.jumps.iter().rev().find(|j| j.cont.is_some()).copied() {
                Some(j) => {
                    self.run_cleanups_from(j.depth);
                    self.b.goto([j.cont.expect("found")]);
                }
                None => self.approx(ApproxKind::UnsupportedConstruct, "continue outside a loop".into(), Some(c)),
            },
            CStmt::ReturnStmt => {
                if let (Some(value), Some(ret)) = (c.children().first().copied(), self.ret) {
                    let v = self.value(value);
                    let span = Some(self.span(c));
                    self.b.assign(ret, v, span);
                } else if let Some(value) = c.children().first().copied() {
                    self.value(value);
                }
                self.run_cleanups_from(0);
                self.b.goto([self.ret_block]);
            }
            CStmt::GotoStmt => {
                let label = c.children().into_iter().find(|k| k.kind() == CursorKind::LabelRef).map(|l| l.spelling());
                match label {
                    Some(name) => {
                        // Leaving the scopes that do not contain the label.
                        let keep = self.scopes.iter().rposition(|(s, _)| s.is_some_and(|s| contains_label(s, &name))).map_or(0, |i| i + 1);
                        self.run_cleanups_from(keep);
                        let target = self.label_block(&name);
                        self.b.goto([target]);
                    }
                    None => self.approx(ApproxKind::UnsupportedConstruct, "goto without a label".into(), Some(c)),
                }
            }
            CStmt::LabelStmt => {
                let target = self.label_block(&c.spelling());
                self.b.goto([target]);
                self.b.switch_to(target);
                for s in c.children() {
                    self.lower_stmt(s);
                }
            }
            CStmt::IndirectGotoStmt => {
                self.approx(ApproxKind::UnsupportedConstruct, "computed goto".into(), Some(c));
                self.b.unreachable();
            }
            CStmt::AsmStmt => self.inline_asm(c),
        }
    }

    /// Runs the cleanups of the scopes at `depth` and deeper, innermost
    /// first, without closing them (the jump leaves them on this path only).
    fn run_cleanups_from(&mut self, depth: usize) {
        let cleanups: Vec<_> = self.scopes[depth.min(self.scopes.len())..].iter().rev().flat_map(|(_, c)| c.iter().rev().cloned()).collect();
        for cleanup in cleanups {
            if self.b.is_terminated() {
                return;
            }
            self.run_cleanup(&cleanup);
        }
    }

    /// Closes the innermost scope, running its cleanups if control can
    /// reach its end.
    fn close_scope(&mut self) {
        let depth = self.scopes.len().saturating_sub(1);
        if !self.b.is_terminated() {
            self.run_cleanups_from(depth);
        }
        self.scopes.pop();
    }

    fn label_block(&mut self, name: &str) -> crate::ir::BlockId {
        if let Some(&b) = self.labels.get(name) {
            return b;
        }
        let b = self.b.new_block();
        self.labels.insert(name.to_string(), b);
        b
    }

    fn if_statement(&mut self, c: Cursor<'t>) {
        let children = c.children();
        let Some((&cond, rest)) = children.split_first() else { return };
        // `if (0)`, `if (IS_ENABLED(CONFIG_X))`: only the taken branch runs.
        // (A label inside the other branch is still a jump target: lower it
        // into a block no edge enters.)
        if let Some(k) = super::expr::constant_condition(cond) {
            let (taken, dead) = if k != 0 { (rest.first(), rest.get(1)) } else { (rest.get(1), rest.first()) };
            if let Some(&dead) = dead.filter(|d| contains_any_label(**d)) {
                let join = self.b.new_block();
                if let Some(&taken) = taken {
                    self.lower_stmt(taken);
                }
                if !self.b.is_terminated() {
                    self.b.goto([join]);
                }
                let unreached = self.b.new_block();
                self.b.switch_to(unreached);
                self.lower_stmt(dead);
                if !self.b.is_terminated() {
                    self.b.goto([join]);
                }
                self.b.switch_to(join);
            } else if let Some(&taken) = taken {
                self.lower_stmt(taken);
            }
            return;
        }
        let (t, f) = self.branch_blocks(cond);
        let join = self.b.new_block();
        self.b.switch_to(t);
        if let Some(&then) = rest.first() {
            self.lower_stmt(then);
        }
        if !self.b.is_terminated() {
            self.b.goto([join]);
        }
        self.b.switch_to(f);
        if let Some(&otherwise) = rest.get(1) {
            self.lower_stmt(otherwise);
        }
        if !self.b.is_terminated() {
            self.b.goto([join]);
        }
        self.b.switch_to(join);
    }

    fn while_loop(&mut self, c: Cursor<'t>) {
        let children = c.children();
        let [cond, body] = children.as_slice() else { return self.malformed(c) };
        self.s.stats.loops += 1;
        let head = self.b.new_block();
        let exit = self.b.new_block();
        self.b.goto([head]);
        self.b.switch_to(head);
        let (t, f) = self.branch_blocks(*cond);
        self.b.switch_to(f);
        self.b.goto([exit]);
        self.b.switch_to(t);
        self.jumps.push(super::context::Jumps { brk: exit, cont: Some(head), depth: self.scopes.len() });
        self.lower_stmt(*body);
        self.jumps.pop();
        if !self.b.is_terminated() {
            self.b.goto([head]);
        }
        self.b.switch_to(exit);
    }

    fn do_loop(&mut self, c: Cursor<'t>) {
        let children = c.children();
        let [body, cond] = children.as_slice() else { return self.malformed(c) };
        self.s.stats.loops += 1;
        let start = self.b.new_block();
        let test = self.b.new_block();
        let exit = self.b.new_block();
        self.b.goto([start]);
        self.b.switch_to(start);
        self.jumps.push(super::context::Jumps { brk: exit, cont: Some(test), depth: self.scopes.len() });
        self.lower_stmt(*body);
        self.jumps.pop();
        if !self.b.is_terminated() {
            self.b.goto([test]);
        }
        self.b.switch_to(test);
        match super::expr::constant_condition(*cond) {
            // `do { … } while (0)`, the macro idiom: no back edge.
            Some(0) => self.b.goto([exit]),
            Some(_) => self.b.goto([start]),
            None => {
                let (t, f) = self.branch_blocks(*cond);
                self.b.switch_to(t);
                self.b.goto([start]);
                self.b.switch_to(f);
                self.b.goto([exit]);
            }
        }
        self.b.switch_to(exit);
    }

    fn for_loop(&mut self, c: Cursor<'t>) {
        let children = c.children();
        let Some((&body, header)) = children.split_last() else { return self.malformed(c) };
        let Some((init, cond, inc)) = for_header(c, header, &mut self.s.texts) else {
            self.approx(ApproxKind::UnsupportedConstruct, "for loop header libclang does not expose".into(), Some(c));
            return;
        };
        self.s.stats.loops += 1;
        // A declaration in the header lives until the loop is left.
        self.scopes.push((Some(c), Vec::new()));
        if let Some(init) = init {
            self.lower_stmt(init);
        }
        let head = self.b.new_block();
        let step = self.b.new_block();
        let exit = self.b.new_block();
        self.b.goto([head]);
        self.b.switch_to(head);
        match cond {
            Some(cond) => {
                let (t, f) = self.branch_blocks(cond);
                self.b.switch_to(f);
                self.b.goto([exit]);
                self.b.switch_to(t);
            }
            None => {}
        }
        self.jumps.push(super::context::Jumps { brk: exit, cont: Some(step), depth: self.scopes.len() });
        self.lower_stmt(body);
        self.jumps.pop();
        if !self.b.is_terminated() {
            self.b.goto([step]);
        }
        self.b.switch_to(step);
        if let Some(inc) = inc {
            self.value(inc);
        }
        if !self.b.is_terminated() {
            self.b.goto([head]);
        }
        self.b.switch_to(exit);
        self.close_scope();
    }

    fn switch_statement(&mut self, c: Cursor<'t>) {
        let children = c.children();
        let Some((&body, rest)) = children.split_last() else { return self.malformed(c) };
        let Some(&operand) = rest.last() else { return self.malformed(c) };
        self.s.stats.switches += 1;
        let v = self.value(operand);
        let selector = self.tmp();
        self.b.assign(selector, v, Some(self.span(operand)));
        let dispatch_from = self.b.current_block();
        let exit = self.b.new_block();
        // The cases of this switch (not of nested ones), in source order.
        let mut labels = Vec::new();
        collect_cases(body, &mut labels);
        let mut dispatch = Vec::new();
        let mut bodies = Vec::new();
        let mut values = Vec::new();
        for label in &labels {
            let entry = self.b.new_block();
            let target = self.b.new_block();
            dispatch.push(entry);
            bodies.push((Some(*label), target));
            match label.kind() {
                CursorKind::CaseStmt => {
                    let exprs: Vec<Cursor<'t>> =
                        label.children().into_iter().filter(|k| matches!(k.kind().c_syntax(), CSyntax::Expr(_))).collect();
                    let lo = exprs.first().and_then(|e| super::expr::constant(*e));
                    // A GNU case range `lo ... hi` has two constant children
                    // before the statement; a plain case has one.
                    let hi = if label.children().len() >= 3 { exprs.get(1).and_then(|e| super::expr::constant(*e)) } else { None };
                    self.b.switch_to(entry);
                    match (lo, hi) {
                        (Some(lo), Some(hi)) => {
                            self.b.assume(Expr::and(Expr::le(Expr::int(lo), Expr::var(selector)), Expr::le(Expr::var(selector), Expr::int(hi))), None);
                            values.push((lo, Some(hi)));
                        }
                        (Some(lo), None) => {
                            self.b.assume(Expr::eq(Expr::var(selector), Expr::int(lo)), None);
                            values.push((lo, None));
                        }
                        (None, _) => self.approx(ApproxKind::UnsupportedConstruct, "case label that is not constant".into(), Some(*label)),
                    }
                    self.b.goto([target]);
                }
                _ => {}
            }
        }
        // `default`, or leaving the switch, where no case matches.
        let default_index = labels.iter().position(|l| l.kind() == CursorKind::DefaultStmt);
        let none_entry = self.b.new_block();
        self.b.switch_to(none_entry);
        for (lo, hi) in &values {
            let matches = match hi {
                Some(hi) => Expr::and(Expr::le(Expr::int(*lo), Expr::var(selector)), Expr::le(Expr::var(selector), Expr::int(*hi))),
                None => Expr::eq(Expr::var(selector), Expr::int(*lo)),
            };
            self.b.assume(Expr::not(matches), None);
        }
        match default_index {
            Some(i) => self.b.goto([bodies[i].1]),
            None => self.b.goto([exit]),
        }
        // Dispatch from the block that evaluated the selector.
        let mut targets: Vec<_> = labels
            .iter()
            .zip(&dispatch)
            .filter(|(l, _)| l.kind() == CursorKind::CaseStmt)
            .map(|(_, d)| *d)
            .collect();
        targets.push(none_entry);
        self.b.switch_to(dispatch_from);
        self.b.goto(targets);
        self.cases.push(bodies.into_iter().map(|(_, b)| (None, b)).collect());
        self.jumps.push(super::context::Jumps { brk: exit, cont: None, depth: self.scopes.len() });
        let unreachable_start = self.b.new_block();
        self.b.switch_to(unreachable_start);
        self.lower_stmt(body);
        self.jumps.pop();
        self.cases.pop();
        if !self.b.is_terminated() {
            self.b.goto([exit]);
        }
        self.b.switch_to(exit);
    }

    fn case_label(&mut self, c: Cursor<'t>, kind: CStmt) {
        // The next body block of the innermost switch.
        let target = self.cases.last_mut().and_then(|cases| if cases.is_empty() { None } else { Some(cases.remove(0).1) });
        let Some(target) = target else {
            self.approx(ApproxKind::UnsupportedConstruct, "case label outside a switch".into(), Some(c));
            return;
        };
        if !self.b.is_terminated() {
            self.b.goto([target]);
        }
        self.b.switch_to(target);
        let statements: Vec<Cursor<'t>> = c.children();
        let sub = match kind {
            CStmt::DefaultStmt => statements.last().copied(),
            _ => statements.last().copied().filter(|_| statements.len() >= 2),
        };
        if let Some(sub) = sub {
            self.lower_stmt(sub);
        }
    }

    fn local_declaration(&mut self, decl: Cursor<'t>) {
        if decl.is_static_storage() || decl.is_extern_storage() {
            // A static local is a global initialised once at load time.
            return;
        }
        let taken = self.address_taken.clone();
        let storage = self.declare_local(decl, &taken);
        self.locals.insert(decl.usr(), storage.clone());
        if let Some(destructor) = self.cleanup_destructor(decl) {
            if let Some(scope) = self.scopes.last_mut() {
                scope.1.push(super::context::Cleanup { destructor, variable: decl });
            }
        }
        let Some(init) = decl.var_initializer() else { return };
        self.last_acquired = None;
        let holder = decl.usr();
        let span = Some(self.span(decl));
        let place = match &storage {
            super::context::Storage::Var(v) => Place::Var(*v),
            super::context::Storage::Shared { address } => match layout::shape(decl.ty()) {
                Shape::Scalar | Shape::Opaque => Place::Mem {
                    key: crate::frontend::lower::regions::RegionKey::Pointee { ty: layout::type_name(decl.ty()) },
                    address: Expr::var(*address),
                },
                Shape::Record | Shape::Array => Place::Object(super::place::Object {
                    address: Expr::var(*address),
                    ty: decl.ty(),
                    owner: super::place::Owner::Heap,
                    field_key: None,
                }),
            },
            super::context::Storage::Memory { key, address } => match layout::shape(decl.ty()) {
                Shape::Scalar | Shape::Opaque => Place::Mem { key: key.clone(), address: Expr::var(*address) },
                Shape::Record | Shape::Array => Place::Object(super::place::Object {
                    address: Expr::var(*address),
                    ty: decl.ty(),
                    owner: super::place::Owner::Local(key.clone()),
                    field_key: Some(key.clone()),
                }),
            },
        };
        match layout::shape(decl.ty()) {
            Shape::Scalar | Shape::Opaque => {
                let v = self.value(init);
                self.name_access_with(&place, &span, || decl.spelling());
                self.write(&place, v, span);
            }
            Shape::Record | Shape::Array => self.initialise(&place, decl.ty(), init),
        }
        if let Some(held) = self.last_acquired.take() {
            self.lock_holders.insert(holder, held);
        } else if let Some(kind) = layout::pointee(decl.ty()).and_then(|t| self.lock_kind_of(t)) {
            // `struct mutex *m = &f->lock;` never assigned again: `m` names
            // that lock wherever it is used.
            if !assigned_after_declaration(self.function, decl) {
                let identity = self.lock_identity(init);
                if identity.key().is_some() {
                    self.lock_holders.insert(holder, (identity, kind));
                }
            }
        }
    }

    /// The destructor of a variable declared with a cleanup attribute:
    /// `class_NAME_t` variables (what `guard()` and `scoped_guard()`
    /// declare) are destroyed by `class_NAME_destructor`; another cleanup
    /// function is not exposed by libclang and is reported as unknown.
    fn cleanup_destructor(&mut self, decl: Cursor<'t>) -> Option<String> {
        let attribute = decl.children().into_iter().filter(|k| k.kind() == CursorKind::UnexposedAttr).find(|a| {
            let at = a.spelling_location();
            let Some(file) = at.file else { return false };
            let text = self.s.texts.entry(file.clone()).or_insert_with(|| std::fs::read(&file).unwrap_or_default());
            text.get(at.offset as usize..).is_some_and(|t| t.starts_with(b"__cleanup__") || t.starts_with(b"cleanup"))
        })?;
        let ty = decl.ty().spelling();
        let ty = ty.trim_start_matches("const ");
        match ty.strip_prefix("class_").and_then(|t| t.strip_suffix("_t")) {
            Some(class) => Some(format!("class_{class}_destructor")),
            None => {
                let detail = format!("cleanup function of {} is not exposed by libclang", decl.spelling());
                self.approx(ApproxKind::ExternalCall, detail, Some(attribute));
                None
            }
        }
    }

    /// Initialises an object from an initializer: a list (designated,
    /// positional or nested), a string literal, or another record.
    pub fn initialise(&mut self, place: &Place<'t>, ty: Type<'t>, init: Cursor<'t>) {
        let Place::Object(object) = place else {
            let v = self.value(init);
            return self.write(place, v, Some(self.span(init)));
        };
        let init = super::expr::strip_parens(init);
        if layout::shape(ty) == Shape::Scalar {
            // A scalar in an object (a compound literal `(int){ 7 }`).
            let key = object.field_key.clone().unwrap_or(crate::frontend::lower::regions::RegionKey::Pointee { ty: layout::type_name(ty) });
            let target = Place::Mem { key, address: object.address.clone() };
            let v = self.value(init);
            return self.write(&target, v, Some(self.span(init)));
        }
        if init.kind() != CursorKind::InitListExpr {
            if layout::shape(init.ty()) == Shape::Record {
                let src = self.place(init);
                return self.copy_object(&src, place, ty, Some(self.span(init)));
            }
            // A string literal or other array initializer: the array's
            // elements get arbitrary values.
            self.value(init);
            return self.havoc_object(object, ty, Some(self.span(init)));
        }
        // Zero-initialise everything, then write the listed elements: C
        // gives unlisted members the value zero.
        for leaf in layout::scalar_leaves(ty) {
            let p = self.leaf_place(object, &leaf);
            self.write(&p, Expr::int(0), Some(self.span(init)));
        }
        match layout::shape(ty) {
            Shape::Record => self.initialise_record(object, ty, init),
            Shape::Array => self.initialise_array(object, ty, init),
            Shape::Scalar | Shape::Opaque => {}
        }
    }

    fn initialise_record(&mut self, object: &super::place::Object<'t>, ty: Type<'t>, init: Cursor<'t>) {
        let fields = ty.canonical().fields();
        let mut next = 0usize;
        for element in init.children() {
            let (chain, value) = match designated(element) {
                Some((chain, value)) => {
                    let first = chain[0];
                    next = fields.iter().position(|f| *f == first).map_or(fields.len(), |i| i + 1);
                    (chain, value)
                }
                None => {
                    let Some(&f) = fields.get(next) else { continue };
                    next += 1;
                    (vec![f], element)
                }
            };
            // `.a.b.c = v`: walk down the chain, summing offsets.
            let mut current = object.clone();
            let mut record = ty;
            let last = chain.len() - 1;
            for (i, field) in chain.into_iter().enumerate() {
                let offset = record.canonical().offset_of(&field.spelling()).unwrap_or(0) / 8;
                let address = super::place::add_offset(current.address.clone(), offset as i128);
                let sub = self.subobject_place(&current, field, address);
                if i == last {
                    self.initialise(&sub, field.ty(), value);
                } else if let Place::Object(o) = sub {
                    current = o;
                    record = field.ty();
                }
            }
        }
    }

    fn initialise_array(&mut self, object: &super::place::Object<'t>, ty: Type<'t>, init: Cursor<'t>) {
        let Some(element_ty) = layout::pointee(ty) else { return };
        let size = layout::size_of(element_ty) as i128;
        let mut next: i128 = 0;
        for element in init.children() {
            // `[k] = v` and GNU `[lo ... hi] = v`: libclang exposes the
            // indexes as constant children before the value.
            let (lo, hi, value) = match array_designator(element) {
                Some((lo, hi, value)) => (lo, hi, value),
                None => (next, next, element),
            };
            next = hi + 1;
            for index in lo..=hi.min(lo + 4096) {
                let address = super::place::add_offset(object.address.clone(), index * size);
                let sub = match layout::shape(element_ty) {
                    Shape::Scalar | Shape::Opaque => Place::Mem {
                        key: object.field_key.clone().unwrap_or(crate::frontend::lower::regions::RegionKey::Pointee { ty: layout::type_name(element_ty) }),
                        address,
                    },
                    Shape::Record | Shape::Array => Place::Object(super::place::Object {
                        address,
                        ty: element_ty,
                        owner: object.owner.clone(),
                        field_key: object.field_key.clone(),
                    }),
                };
                self.initialise(&sub, element_ty, value);
            }
        }
    }

    fn subobject_place(&mut self, object: &super::place::Object<'t>, field: Cursor<'t>, address: Expr) -> Place<'t> {
        use super::place::Owner;
        match (&object.owner, layout::shape(field.ty())) {
            (Owner::Local(key), Shape::Scalar | Shape::Opaque) => Place::Mem { key: key.clone(), address },
            (_, Shape::Scalar | Shape::Opaque) => Place::Mem { key: super::place::field_key(field), address },
            (owner, Shape::Record | Shape::Array) => Place::Object(super::place::Object {
                address,
                ty: field.ty(),
                owner: owner.clone(),
                field_key: match owner {
                    Owner::Local(key) => Some(key.clone()),
                    _ => (layout::shape(field.ty()) == Shape::Array).then(|| super::place::field_key(field)),
                },
            }),
        }
    }

    /// Every leaf of an object gets an arbitrary value.
    pub fn havoc_object(&mut self, object: &super::place::Object<'t>, ty: Type<'t>, span: Option<crate::diagnostics::Span>) {
        for leaf in layout::scalar_leaves(ty) {
            let p = self.leaf_place(object, &leaf);
            let t = self.tmp();
            self.b.push(Command::Havoc { vars: vec![t], span: None });
            self.write(&p, Expr::var(t), span.clone());
        }
    }

    fn inline_asm(&mut self, c: Cursor<'t>) {
        self.approx(ApproxKind::InlineAsm, "outputs are arbitrary; memory operands are read and written".into(), Some(c));
        let targets = self.asm_goto_targets(c);
        if targets.is_none() && self.empty_asm(c) {
            self.s.stats.empty_asm += 1;
        }
        for operand in c.children() {
            if !matches!(operand.kind().c_syntax(), CSyntax::Expr(_)) {
                continue;
            }
            let operand = super::expr::strip_parens(operand);
            let lvalue = matches!(operand.kind(), CursorKind::DeclRefExpr | CursorKind::MemberRefExpr | CursorKind::ArraySubscriptExpr)
                || operand.kind() == CursorKind::UnaryOperator && operand.unary_operator() == UOp::Deref;
            if lvalue && layout::shape(operand.ty()) == Shape::Scalar {
                let place = self.place(operand);
                let span = Some(self.span(operand));
                self.name_access(&place, &span, operand);
                if !matches!(place, Place::Var(_)) {
                    self.read(&place, span.clone());
                }
                let t = self.tmp();
                self.b.push(Command::Havoc { vars: vec![t], span: None });
                self.write(&place, Expr::var(t), span);
            } else {
                // An input operand may be stored anywhere by the asm.
                let v = self.value(operand);
                self.keep([v]);
            }
        }
        // `asm goto` may jump to its labels instead of falling through.
        if let Some(labels) = targets {
            let next = self.b.new_block();
            let mut blocks = vec![next];
            for label in labels {
                blocks.push(self.label_block(&label));
            }
            self.b.goto(blocks);
            self.b.switch_to(next);
        }
    }

    /// Whether an `asm` statement has an empty template and no operands
    /// (`__asm__ __volatile__("" ::: "memory")`, a compiler barrier): it
    /// runs no instruction, so it touches no memory and changes no value.
    /// Only its text says so (libclang does not expose the template).
    fn empty_asm(&mut self, c: Cursor<'t>) -> bool {
        if c.children().iter().any(|o| matches!(o.kind().c_syntax(), CSyntax::Expr(_))) {
            return false;
        }
        let at = c.spelling_location();
        let Some(file) = at.file.clone() else { return false };
        let text = self.s.texts.entry(file.clone()).or_insert_with(|| std::fs::read(&file).unwrap_or_default());
        let Some(rest) = text.get(at.offset as usize..) else { return false };
        let Some(open) = rest.iter().position(|&b| b == b'(') else { return false };
        let after = rest[open + 1..].iter().skip_while(|b| b.is_ascii_whitespace()).copied().collect::<Vec<u8>>();
        let Some(tail) = after.strip_prefix(b"\"\"") else { return false };
        tail.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|&b| b == b':' || b == b')')
    }

    /// The labels an `asm goto` may jump to: those it names, read from its
    /// text; when the text is a macro's and cannot be read, every label of
    /// the function (an over-approximation). `None` for a plain `asm`.
    fn asm_goto_targets(&mut self, c: Cursor<'t>) -> Option<Vec<String>> {
        let at = c.spelling_location();
        let file = at.file.clone()?;
        let text = self.s.texts.entry(file.clone()).or_insert_with(|| std::fs::read(&file).unwrap_or_default());
        let rest = text.get(at.offset as usize..)?;
        let open = rest.iter().position(|&b| b == b'(')?;
        let head = String::from_utf8_lossy(&rest[..open]);
        let words: Vec<&str> = head.split(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_').filter(|w| !w.is_empty()).collect();
        if !words.contains(&"goto") && !words.contains(&"asm_goto_output") && !words.contains(&"asm_volatile_goto") {
            return None;
        }
        // The operands after the fourth top-level colon are the labels.
        let (mut depth, mut colons, mut labels_start, mut end) = (0i32, 0, None, None);
        let mut in_string = false;
        for (i, &b) in rest[open..].iter().enumerate() {
            match b {
                b'"' => in_string = !in_string,
                _ if in_string => {}
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(open + i);
                        break;
                    }
                }
                b':' if depth == 1 => {
                    colons += 1;
                    if colons == 4 {
                        labels_start = Some(open + i + 1);
                    }
                }
                _ => {}
            }
        }
        let named: Vec<String> = match (labels_start, end) {
            (Some(s), Some(e)) if s <= e => String::from_utf8_lossy(&rest[s..e])
                .split(',')
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty() && l.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_'))
                .collect(),
            _ => Vec::new(),
        };
        let known: Vec<String> = named.into_iter().filter(|l| contains_label(self.function, l)).collect();
        if !known.is_empty() {
            return Some(known);
        }
        let mut all = Vec::new();
        collect_labels(self.function, &mut all);
        Some(all)
    }

    fn malformed(&mut self, c: Cursor<'t>) {
        self.approx(ApproxKind::UnsupportedConstruct, format!("malformed {:?}", c.kind()), Some(c));
    }
}

/// Whether `variable` is assigned (or has its address taken) anywhere in
/// `function` besides its declaration.
fn assigned_after_declaration(function: Cursor<'_>, variable: Cursor<'_>) -> bool {
    fn names(c: Cursor<'_>, variable: Cursor<'_>) -> bool {
        let c = super::expr::strip_parens(c);
        c.kind() == CursorKind::DeclRefExpr && c.referenced().is_some_and(|d| d == variable)
    }
    let mut found = false;
    fn walk(c: Cursor<'_>, variable: Cursor<'_>, found: &mut bool) {
        c.for_each_child(|child| {
            let writes = match child.kind() {
                CursorKind::BinaryOperator | CursorKind::CompoundAssignOperator => {
                    matches!(child.binary_operator(), Op::Assign) || child.kind() == CursorKind::CompoundAssignOperator
                }
                CursorKind::UnaryOperator => matches!(
                    child.unary_operator(),
                    UOp::PostInc | UOp::PostDec | UOp::PreInc | UOp::PreDec | UOp::AddrOf
                ),
                _ => false,
            };
            if writes && child.children().first().is_some_and(|target| names(*target, variable)) {
                *found = true;
            }
            if !*found {
                walk(child, variable, found);
            }
            !*found
        });
    }
    walk(function, variable, &mut found);
    found
}

/// Every label inside `c`.
fn collect_labels(c: Cursor<'_>, out: &mut Vec<String>) {
    c.for_each_child(|child| {
        if child.kind() == CursorKind::LabelStmt && !out.contains(&child.spelling()) {
            out.push(child.spelling());
        }
        collect_labels(child, out);
        true
    });
}

/// Whether any label is inside `c`.
fn contains_any_label(c: Cursor<'_>) -> bool {
    let mut found = false;
    c.for_each_child(|child| {
        found = child.kind() == CursorKind::LabelStmt || contains_any_label(child);
        !found
    });
    found
}

/// Whether a label of this name is inside `c`.
fn contains_label(c: Cursor<'_>, name: &str) -> bool {
    let mut found = false;
    c.for_each_child(|child| {
        found = child.kind() == CursorKind::LabelStmt && child.spelling() == name || contains_label(child, name);
        !found
    });
    found
}

/// The `case`/`default` labels of a switch body, not of nested switches.
fn collect_cases<'t>(c: Cursor<'t>, out: &mut Vec<Cursor<'t>>) {
    for child in c.children() {
        match child.kind() {
            CursorKind::SwitchStmt => {}
            CursorKind::CaseStmt | CursorKind::DefaultStmt => {
                out.push(child);
                collect_cases(child, out);
            }
            _ => collect_cases(child, out),
        }
    }
}

/// A designated initializer element (`.a.b = v`): the fields of the
/// designator, outermost first, and the value.
fn designated<'t>(element: Cursor<'t>) -> Option<(Vec<Cursor<'t>>, Cursor<'t>)> {
    if element.kind() != CursorKind::UnexposedExpr {
        return None;
    }
    let children = element.children();
    if children.first().is_none_or(|c| c.kind() != CursorKind::MemberRef) {
        return None;
    }
    let chain: Vec<Cursor<'t>> =
        children.iter().take_while(|c| c.kind() == CursorKind::MemberRef).filter_map(|m| m.referenced()).collect();
    if chain.is_empty() {
        return None;
    }
    Some((chain, *children.last()?))
}

/// An array designator element (`[k] = v`, `[lo ... hi] = v`): the index
/// range and the value.
fn array_designator<'t>(element: Cursor<'t>) -> Option<(i128, i128, Cursor<'t>)> {
    if element.kind() != CursorKind::UnexposedExpr {
        return None;
    }
    match element.children().as_slice() {
        [k, value] => Some((super::expr::constant(*k)?, super::expr::constant(*k)?, *value)),
        [lo, hi, value] => Some((super::expr::constant(*lo)?, super::expr::constant(*hi)?, *value)),
        _ => None,
    }
}

/// Splits a `for` header's children (the body removed) into
/// initialisation, condition and increment.
type ForParts<'t> = (Option<Cursor<'t>>, Option<Cursor<'t>>, Option<Cursor<'t>>);

fn for_header<'t>(
    for_stmt: Cursor<'t>,
    header: &[Cursor<'t>],
    texts: &mut std::collections::HashMap<std::path::PathBuf, Vec<u8>>,
) -> Option<ForParts<'t>> {
    match header {
        [] => return Some((None, None, None)),
        [a, b, c] => return Some((Some(*a), Some(*b), Some(*c))),
        _ => {}
    }
    // Positions of the header's two semicolons, from the text where the
    // `for` is spelled.
    if let Some(parts) = by_semicolons(for_stmt, header, texts) {
        return Some(parts);
    }
    // By shape: a declaration is the initialisation; an expression whose
    // value is discarded (assignment, increment, comma) is not the
    // condition.
    let effect = |c: &Cursor<'t>| {
        c.kind() == CursorKind::DeclStmt
            || c.kind() == CursorKind::CompoundAssignOperator
            || c.kind() == CursorKind::BinaryOperator && matches!(c.binary_operator(), Op::Assign | Op::Comma)
            || c.kind() == CursorKind::UnaryOperator
                && matches!(c.unary_operator(), UOp::PostInc | UOp::PostDec | UOp::PreInc | UOp::PreDec)
    };
    match header {
        [a] if a.kind() == CursorKind::DeclStmt => Some((Some(*a), None, None)),
        [a] if !effect(a) => Some((None, Some(*a), None)),
        [a, b] if effect(a) && !effect(b) => Some((Some(*a), Some(*b), None)),
        [a, b] if !effect(a) && effect(b) => Some((None, Some(*a), Some(*b))),
        [a, b] if a.kind() == CursorKind::DeclStmt => Some((Some(*a), None, Some(*b))),
        _ => None,
    }
}

fn by_semicolons<'t>(
    for_stmt: Cursor<'t>,
    header: &[Cursor<'t>],
    texts: &mut std::collections::HashMap<std::path::PathBuf, Vec<u8>>,
) -> Option<ForParts<'t>> {
    let at = for_stmt.spelling_location();
    let file = at.file.clone()?;
    let text = texts.entry(file.clone()).or_insert_with(|| std::fs::read(&file).unwrap_or_default());
    let start = at.offset as usize;
    let open = start + text.get(start..)?.iter().position(|&b| b == b'(')?;
    let (mut depth, mut semis) = (0i32, Vec::new());
    for (i, &b) in text.get(open..)?.iter().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b';' if depth == 1 => semis.push(open + i),
            _ => {}
        }
    }
    let [first, second] = semis.as_slice() else { return None };
    let mut parts: ForParts<'t> = (None, None, None);
    for child in header {
        let loc = child.spelling_location();
        if loc.file.as_ref() != Some(&file) || (loc.offset as usize) < open {
            return None;
        }
        let o = loc.offset as usize;
        let slot = if o < *first {
            &mut parts.0
        } else if o < *second {
            &mut parts.1
        } else {
            &mut parts.2
        };
        if slot.is_some() {
            return None;
        }
        *slot = Some(*child);
    }
    Some(parts)
}
