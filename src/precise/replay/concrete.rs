//! The replay's concrete state: objects and their separation, memory
//! loads and stores with the initial values the model gives, locks, local
//! variables and expression evaluation. Each operation rejects the run
//! (see the parent module's list) when it leaves what the kernel can do.

use super::*;

impl Interp<'_, '_, '_, '_> {
    /// A new object at `a`: apart from every object and global.
    pub(super) fn new_object(&mut self, who: Who, depth: usize, a: i128, kind: Address) -> Run<()> {
        if a == 0 || (kind == Address::AllocationOrError && !in_heap(a)) {
            return match kind {
                Address::Allocation { may_fail: true } | Address::AllocationOrError => Ok(()),
                _ => reject("an object that cannot be NULL is at address 0"),
            };
        }
        let overlaps = self.objects.iter().any(|o| (a - o.base).abs() < STRIDE)
            || self.globals.iter().any(|&(g, size)| a < g + size && g < a + STRIDE);
        if overlaps {
            return reject("a new object overlaps one that exists");
        }
        if let Some((_, what, term)) = self.unallocated.iter().find(|(v, _, _)| *v >= a && *v < a + STRIDE) {
            self.blame = Some(Blame { bases: vec![a], term: *term, allowed: Vec::new() });
            return reject(format!("{what} pointed into an object before it was allocated"));
        }
        let frame = matches!(kind, Address::Local { .. }).then_some(depth);
        self.objects.push(Object { base: a, who, published: false, handed: false, frame, alive: true });
        self.formed.insert(a);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn accessed(&mut self, who: Who, site: Site, region: RegionId, address: i128, value: i128, access: AccessKind, typed: Typed, origins: Origins) {
        if who == self.claim.who && site == self.claim.site && region == self.claim.region && access == AccessKind::Plain {
            self.pending = Some(Pending { address, value, writes: self.writes.len(), typed, origins });
        }
    }

    /// For an access to a region of pointees (what byte or `void`
    /// pointers reach, alone or merged with other regions), the fields
    /// whose initial values the pointers in its address came from: the
    /// pointer-like values of the address's variables (and of the base of
    /// an address at an unknown offset inside an object) that the thread
    /// read from initial memory. Empty for other regions.
    pub(super) fn origins(&self, th: &Thread, region: RegionId, address: &crate::ir::Expr) -> Origins {
        let mut out = Origins::new();
        if !matches!(self.program.regions[region].kind, crate::ir::RegionKind::Pointee | crate::ir::RegionKind::Merged) {
            return out;
        }
        let mut vars = address.variables();
        for v in address.variables() {
            if let Some(base) = self.program.inside.get(&v) {
                vars.extend(base.variables());
            }
        }
        for v in vars {
            let x = self.get(th, v);
            if x.abs() >= POINTER_LIKE {
                if let Some(o) = self.initial_pointers.get(&(th.who, x)) {
                    out.extend(o.iter().copied());
                }
            }
        }
        out
    }

    /// The record type and offset of an access at `address`, when it is a
    /// variable the lowering dereferences as a pointer to one record type
    /// plus a constant inside that record.
    pub(super) fn typed(&self, address: &crate::ir::Expr) -> Typed {
        fn split(e: &crate::ir::Expr) -> Option<(VarId, i128)> {
            use crate::ir::{BinaryOp, Expr};
            match e {
                Expr::Var(v) => Some((*v, 0)),
                Expr::Binary(BinaryOp::Add, x, y) => match (&**x, &**y) {
                    (x, Expr::Int(c)) | (Expr::Int(c), x) => split(x).map(|(v, d)| (v, d + c)),
                    _ => None,
                },
                Expr::Binary(BinaryOp::Sub, x, y) => match &**y {
                    Expr::Int(c) => split(x).map(|(v, d)| (v, d - c)),
                    _ => None,
                },
                _ => None,
            }
        }
        let (v, offset) = split(address)?;
        let (name, size) = self.program.record_bases.get(&v)?.as_ref()?;
        (0..i128::from(*size)).contains(&offset).then(|| (std::rc::Rc::from(name.as_str()), offset))
    }

    /// In program-start mode, an access near address 0 is a NULL
    /// dereference, which ends the program rather than racing. (For
    /// drivers the search never places the checked access there:
    /// [`crate::precise::separation::NULL_PAGE`].)
    pub(super) fn not_null(&self, a: i128) -> Run<()> {
        if self.start.is_some() && (0..crate::precise::separation::NULL_PAGE).contains(&a) {
            return reject("the witness dereferences NULL");
        }
        Ok(())
    }

    pub(super) fn load(&mut self, who: Who, region: RegionId, a: i128) -> Run<i128> {
        self.not_null(a)?;
        if self.private_regions.contains(&region) {
            if let Some(v) = self.private.get(&(who, region, a)) {
                return Ok(*v);
            }
            // A thread-private copy of a global starts as the global; a
            // local's uninitialised memory may hold anything.
            if let Some(v) = self.start_value(a, false)? {
                return Ok(v);
            }
            let name = format!("m0.{}.r{}", who.tag(), region.as_u32());
            let Some(v) = self.oracle.map(&name, a) else { return reject("the model gives no initial memory") };
            return Ok(v);
        }
        if let Some(&v) = self.memory.get(&(region, a)) {
            if self.unwritten.contains(&(region, a)) {
                self.initial_pointer(who, region, v);
            }
            return Ok(v);
        }
        if let Some(v) = self.start_value(a, true)? {
            self.memory.insert((region, a), v);
            return Ok(v);
        }
        let name = format!("m0.r{}", region.as_u32());
        let Some(v) = self.oracle.map(&name, a) else { return reject("the model gives no initial memory") };
        let term = self.oracle.map_term(&name, a);
        self.module_start_value(region, a, v, term)?;
        self.not_into_pair_object(v, "initial memory", Some(term))?;
        self.memory.insert((region, a), v);
        self.unwritten.insert((region, a));
        self.initial_pointer(who, region, v);
        Ok(v)
    }

    /// For a kernel module, the initial value `v` of shared memory at `a`
    /// (term `term`) must be a recorded global's load-time value, unless
    /// code the run does not execute may have written the region before
    /// its init: a witness starting from another value shows no run the
    /// kernel makes from loading the module (an earlier sequence of calls
    /// might leave it, which the search does not model).
    fn module_start_value(&mut self, region: RegionId, a: i128, v: i128, term: TermId) -> Run<()> {
        let Some(m) = &self.module_start else { return Ok(()) };
        if m.written_before.contains(&region) {
            return Ok(());
        }
        match m.values.at(a) {
            Ok(Some(s)) if s != v => {
                self.need = Some(super::Need::Start((term, s, region)));
                reject(format!(
                    "the witness needs a global to hold {v} before init, where loading the module leaves {s}: only earlier calls could leave it"
                ))
            }
            _ => Ok(()),
        }
    }

    /// Notes that `who` read `v` from the initial memory of `region`.
    pub(super) fn initial_pointer(&mut self, who: Who, region: RegionId, v: i128) {
        if v.abs() >= POINTER_LIKE {
            self.initial_pointers.entry((who, v)).or_default().insert(region);
        }
    }

    /// Whether `who` holds the pseudo lock of SV-COMP's atomic sections.
    pub(super) fn holds_atomic(&self, who: Who) -> bool {
        self.program
            .locks
            .iter()
            .any(|(id, l)| l.name == "verifier-atomic" && self.locks.get(&id).copied() == Some(who.holder()))
    }

    /// In program-start mode, the start value at `a` of a global; for
    /// shared memory (`shared`) outside every global, or inside a global
    /// whose start value is not recorded, a rejection: no `false` rests on
    /// an arbitrary initial value. `None` outside program-start mode and
    /// for private memory outside the globals.
    pub(super) fn start_value(&self, a: i128, shared: bool) -> Run<Option<i128>> {
        let Some(start) = &self.start else { return Ok(None) };
        match start.at(a) {
            Ok(Some(v)) => Ok(Some(v)),
            Ok(None) if !shared => Ok(None),
            Ok(None) => reject("the witness reads shared memory no thread wrote, outside the globals"),
            Err(()) => reject("the witness reads the initial value of a global whose initialiser racewatch does not know"),
        }
    }

    pub(super) fn store(&mut self, who: Who, region: RegionId, a: i128, v: i128, typed: Typed, origins: Origins) -> Run<()> {
        self.not_null(a)?;
        if self.private_regions.contains(&region) {
            self.private.insert((who, region, a), v);
            return Ok(());
        }
        self.memory.insert((region, a), v);
        self.unwritten.remove(&(region, a));
        if !self.in_prefix.contains(&who) {
            self.writes.push((who, region, a, typed, origins));
        }
        Ok(())
    }

    pub(super) fn acquire(&mut self, who: Who, lock: LockId, mode: LockMode, _blocking: bool) -> Run<()> {
        let held = self.locks.get(&lock).copied().unwrap_or(0);
        let name = &self.program.locks[lock].name;
        match mode {
            LockMode::Exclusive if held != 0 => reject(format!("a thread takes {name}, which is held")),
            LockMode::Shared if held > 0 => reject(format!("a thread takes {name} shared, which is held exclusively")),
            LockMode::Exclusive => {
                self.locks.insert(lock, who.holder());
                Ok(())
            }
            LockMode::Shared => {
                self.locks.insert(lock, held - 1);
                Ok(())
            }
        }
    }

    pub(super) fn release(&mut self, lock: LockId, mode: LockMode) {
        let held = self.locks.get(&lock).copied().unwrap_or(0);
        let value = match mode {
            LockMode::Exclusive => 0,
            LockMode::Shared if held < 0 => held + 1,
            LockMode::Shared => held,
        };
        self.locks.insert(lock, value);
    }

    pub(super) fn get(&self, th: &Thread, v: VarId) -> i128 {
        let scope = self.program.variables[v].scope;
        let map = if scope == Scope::Global { &th.globals } else { &th.frames.last().map(|f| &f.env).unwrap_or(&th.globals) };
        map.get(&v).copied().unwrap_or(0)
    }

    pub(super) fn set(&self, th: &mut Thread, v: VarId, value: i128) {
        if self.program.variables[v].scope == Scope::Global {
            th.globals.insert(v, value);
        } else if let Some(f) = th.frames.last_mut() {
            f.env.insert(v, value);
        }
    }

    /// Evaluates an expression: constants folded in the bank, what stays
    /// symbolic (an uninterpreted function of constants) from the model.
    pub(super) fn eval(&mut self, th: &Thread, e: &crate::ir::Expr) -> Run<i128> {
        let mut values: HashMap<VarId, i128> = HashMap::new();
        for v in e.variables() {
            values.insert(v, self.get(th, v));
        }
        let program = self.program;
        let leaves: HashMap<VarId, TermId> = values
            .iter()
            .map(|(&v, &x)| {
                let t = match program.variables[v].sort {
                    Sort::Bool => self.oracle.terms.bool(x != 0),
                    Sort::Int => self.oracle.terms.int(x),
                };
                (v, t)
            })
            .collect();
        // A kernel function's value (a drvdata getter, which the lowering
        // makes an uninterpreted function of the device) is a value no
        // thread computed: like initial memory, it cannot point into an
        // object the pair created and has not published, nor into one
        // init created and never handed to the kernel. The lowering's own
        // functions (wrap-around, bit operations) are computed: of those
        // only a pointer cast is checked, to keep the pointer.
        let mut applied = Vec::new();
        e.walk(&mut |sub| {
            if let crate::ir::Expr::Apply(_, args) = sub {
                if !args.is_empty() && matches!(sub.sort_of(program), Ok(Sort::Int)) {
                    applied.push(sub.clone());
                }
            }
        });
        for sub in &applied {
            let crate::ir::Expr::Apply(f, args) = sub else { continue };
            let t = crate::verify::solving::translate_with(self.oracle.terms, program, &mut |v| leaves[&v], sub);
            let Some(v) = self.oracle.int(t) else { continue };
            if program.kernel_functions.contains(f) {
                self.not_into_pair_object(v, "a kernel function's value (a drvdata getter)", Some(t))?;
            } else if let (true, [a]) = (pointer_cast(program, *f), args.as_slice()) {
                // A pointer cast to a 64-bit integer keeps its value (an
                // object's address, HEAP and above, stands for the kernel
                // pointer; super::super::exec gives the search the same
                // fact).
                let ta = crate::verify::solving::translate_with(self.oracle.terms, program, &mut |v| leaves[&v], a);
                if self.oracle.int(ta).is_some_and(|x| in_heap(x) && x != v) {
                    return reject("the witness changes a pointer by a cast to a 64-bit integer");
                }
            }
        }
        // An object never lies in the last page of the address space,
        // where the error pointers are (include/linux/err.h: IS_ERR_VALUE
        // is `x >= (unsigned long)-MAX_ERRNO`, and ERR_PTR's values are no
        // object's): an object's address (HEAP and above, past every C
        // pointer value) compared with a bound in that page is below it.
        // The operands are computed with C's wrap-around (the lowering's
        // `wrap_u64(-4095)` is uninterpreted, so the model may give it any
        // value); a model whose comparison answers otherwise is no kernel
        // execution.
        let mut compared = Vec::new();
        ordered_comparisons(e, &mut compared);
        for (op, a, b) in compared {
            let concrete = |x: &crate::ir::Expr| concrete_int(program, &values, x);
            let (Some(x), Some(y)) = (concrete(a), concrete(b)) else { continue };
            // Only an address into an object of this run: other integers
            // above every C pointer value (a counter the model starts
            // high, tested by the lowering's own range checks) are no
            // object's.
            let object = |v: i128| in_heap(v) && self.objects.iter().any(|o| v >= o.base && v < o.base + STRIDE);
            let kernel = match (object(x) && in_error_page(y), object(y) && in_error_page(x)) {
                // x below y.
                (true, _) => matches!(op, crate::ir::BinaryOp::Lt | crate::ir::BinaryOp::Le),
                // y below x.
                (_, true) => matches!(op, crate::ir::BinaryOp::Gt | crate::ir::BinaryOp::Ge),
                _ => continue,
            };
            let comparison = crate::ir::Expr::Binary(op, Box::new(a.clone()), Box::new(b.clone()));
            let t = crate::verify::solving::translate_with(self.oracle.terms, program, &mut |v| leaves[&v], &comparison);
            if self.oracle.bool(t) != Some(kernel) {
                return reject("the witness places an object in the error pointers' page (IS_ERR of an object's address is false in the kernel)");
            }
        }
        // C's division truncates toward zero, the solver's is Euclidean:
        // they agree only on non-negative operands (and a nonzero divisor),
        // so in program-start mode a witness dividing anything else is
        // refused (wide nondet values reach negative operands).
        if self.start.is_some() {
            let mut divisions = Vec::new();
            e.walk(&mut |sub| {
                if let crate::ir::Expr::Binary(crate::ir::BinaryOp::Div | crate::ir::BinaryOp::Rem, a, b) = sub {
                    divisions.push(((**a).clone(), (**b).clone()));
                }
            });
            for (a, b) in &divisions {
                let ta = crate::verify::solving::translate_with(self.oracle.terms, program, &mut |v| leaves[&v], a);
                let tb = crate::verify::solving::translate_with(self.oracle.terms, program, &mut |v| leaves[&v], b);
                match (self.oracle.int(ta), self.oracle.int(tb)) {
                    (Some(x), Some(y)) if x >= 0 && y > 0 => {}
                    _ => return reject("the witness divides a negative value or by zero, where C's division and the solver's differ"),
                }
            }
        }
        let t = crate::verify::solving::translate_with(self.oracle.terms, program, &mut |v| leaves[&v], e);
        if self.start.is_some() && applies_function(self.oracle.terms, t) {
            // A bit operation, a wrap-around or another function the
            // lowering leaves uninterpreted: the model's value need not be
            // the C program's.
            return reject("the witness computes a value the lowering leaves uninterpreted");
        }
        match e.sort_of(program) {
            Ok(Sort::Bool) => self.oracle.bool(t).map(i128::from).map_or_else(|| reject("an expression the model cannot evaluate"), Ok),
            _ => {
                let Some(x) = self.oracle.int(t) else { return reject("an expression the model cannot evaluate") };
                // An address the driver formed (super::separation::HEAP and
                // above: only objects' addresses).
                if in_heap(x) {
                    self.formed.insert(x);
                }
                Ok(x)
            }
        }
    }
}

/// Whether `f` is the lowering's wrap-around to a 64-bit integer type,
/// which a pointer cast to `unsigned long` or `long` goes through.
pub(crate) fn pointer_cast(program: &Program, f: crate::ir::FuncId) -> bool {
    matches!(program.functions[f].name.as_str(), "wrap_u64" | "wrap_s64")
}

/// Whether a value is the bound of the error pointers' page as an
/// unsigned long: `(unsigned long)-MAX_ERRNO` (IS_ERR_VALUE's `>=`,
/// include/linux/err.h) or one below it (a `>` against `-MAX_ERRNO - 1`).
/// The page's other values are left out: `(1 << 64) - 1` is also the bound
/// of the lowering's own range check of every u64 result.
fn in_error_page(value: i128) -> bool {
    const MAX_ERRNO: i128 = 4095;
    value == (1i128 << 64) - MAX_ERRNO || value == (1i128 << 64) - MAX_ERRNO - 1
}

/// The ordering comparisons (`<`, `<=`, `>`, `>=`) an expression
/// evaluates, with their operands: the arms of an `if then else` are left
/// out (only one of them is evaluated), its condition is not.
fn ordered_comparisons<'e>(e: &'e crate::ir::Expr, out: &mut Vec<(crate::ir::BinaryOp, &'e crate::ir::Expr, &'e crate::ir::Expr)>) {
    use crate::ir::{BinaryOp, Expr};
    match e {
        Expr::Binary(op, a, b) => {
            if matches!(op, BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge) {
                out.push((*op, a, b));
            }
            ordered_comparisons(a, out);
            ordered_comparisons(b, out);
        }
        Expr::Unary(_, a) => ordered_comparisons(a, out),
        Expr::Ite(c, _, _) => ordered_comparisons(c, out),
        Expr::Apply(_, args) => args.iter().for_each(|a| ordered_comparisons(a, out)),
        Expr::Int(_) | Expr::Bool(_) | Expr::Var(_) => {}
    }
}

/// The value of an integer expression as C computes it, from the
/// variables' concrete values: the lowering's `wrap_uN`/`wrap_sN` wrap
/// around; any other uninterpreted function, a division or a boolean
/// gives `None`.
fn concrete_int(program: &Program, values: &HashMap<VarId, i128>, e: &crate::ir::Expr) -> Option<i128> {
    use crate::ir::{BinaryOp, Expr, UnaryOp};
    match e {
        Expr::Int(v) => Some(*v),
        Expr::Var(v) => values.get(v).copied(),
        Expr::Unary(UnaryOp::Neg, a) => concrete_int(program, values, a)?.checked_neg(),
        Expr::Binary(op, a, b) => {
            let (x, y) = (concrete_int(program, values, a)?, concrete_int(program, values, b)?);
            match op {
                BinaryOp::Add => x.checked_add(y),
                BinaryOp::Sub => x.checked_sub(y),
                BinaryOp::Mul => x.checked_mul(y),
                _ => None,
            }
        }
        Expr::Ite(c, a, b) => {
            if concrete_bool(program, values, c)? {
                concrete_int(program, values, a)
            } else {
                concrete_int(program, values, b)
            }
        }
        Expr::Apply(f, args) if args.len() == 1 => {
            let name = &program.functions[*f].name;
            let (signed, bits) = match (name.strip_prefix("wrap_u"), name.strip_prefix("wrap_s")) {
                (Some(b), _) => (false, b.parse::<u32>().ok()?),
                (_, Some(b)) => (true, b.parse::<u32>().ok()?),
                _ => return None,
            };
            if !(1..=64).contains(&bits) {
                return None;
            }
            let x = concrete_int(program, values, &args[0])?;
            let m = 1i128 << bits;
            let r = x.rem_euclid(m);
            Some(if signed && r >= m / 2 { r - m } else { r })
        }
        _ => None,
    }
}

/// The value of a boolean expression as C computes it ([`concrete_int`]).
fn concrete_bool(program: &Program, values: &HashMap<VarId, i128>, e: &crate::ir::Expr) -> Option<bool> {
    use crate::ir::{BinaryOp, Expr, UnaryOp};
    match e {
        Expr::Bool(b) => Some(*b),
        Expr::Var(v) => values.get(v).map(|x| *x != 0),
        Expr::Unary(UnaryOp::Not, a) => concrete_bool(program, values, a).map(|b| !b),
        Expr::Binary(BinaryOp::And, a, b) => Some(concrete_bool(program, values, a)? && concrete_bool(program, values, b)?),
        Expr::Binary(BinaryOp::Or, a, b) => Some(concrete_bool(program, values, a)? || concrete_bool(program, values, b)?),
        Expr::Binary(op @ (BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge), a, b) => {
            let (x, y) = (concrete_int(program, values, a)?, concrete_int(program, values, b)?);
            Some(match op {
                BinaryOp::Lt => x < y,
                BinaryOp::Le => x <= y,
                BinaryOp::Gt => x > y,
                _ => x >= y,
            })
        }
        _ => None,
    }
}

/// Whether a term still applies an uninterpreted function to arguments
/// (a constant such as a global's address applies none).
pub(super) fn applies_function(terms: &TermBank, t: TermId) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut work = vec![t];
    while let Some(x) = work.pop() {
        if !seen.insert(x) {
            continue;
        }
        let term = terms.term(x);
        if let crate::solver::Term::App(_, args) = term {
            if !args.is_empty() {
                return true;
            }
        }
        work.extend(term.children());
    }
    false
}
