//! Printing a query (assertions, and optionally the assumption literals of
//! a `check-sat-assuming`) as a replayable SMT-LIB 2 script.
//!
//! The script declares every uninterpreted function and variable the query
//! reaches, in the order of first use, defines every shared subterm once,
//! asserts, checks and asks for the model:
//!
//! ```text
//! ; racewatch query 3
//! (set-option :produce-models true)
//! (set-logic QF_UFLIA)
//! (declare-fun x () Int)
//! (declare-fun |lock held| () Bool)
//! (define-fun s!7 () Bool (and (> x 0) |lock held|))
//! (assert (=> s!7 (< x 10)))
//! (assert (or s!7 (= x 3)))
//! (check-sat-assuming (|lock held|))
//! (get-model)
//! ```
//!
//! # Sharing
//!
//! The bank hash-conses, so a VC is a DAG and printing it as a tree could be
//! exponentially large. A compound subterm reached more than once becomes a
//! `define-fun` (printed before its first use: its operands' ids are smaller
//! than its own, so id order is a topological order); the script stays
//! linear in the DAG. Constants, variables and their negations print in
//! place. The writer keeps its own stack, so a deep term (a long chain of
//! implications) cannot overflow the thread's stack.
//!
//! # Names
//!
//! A name that is a plain SMT-LIB symbol prints as it is, any other quoted
//! `|…|`. Every declaration gets a name of its own: a name that is an
//! SMT-LIB reserved word or a builtin function of the integer, core and
//! array theories, or that the script already uses (the same name with
//! another signature), gets a `!N` suffix, and `|` and `\`, which cannot be
//! quoted, become `_`. The renaming only concerns the text; the in-process
//! check gives z3 the names as they are. A name that shadows a builtin of
//! another z3 theory (bit-vectors, strings) is not renamed and makes the
//! replay fail with a parse error, never the verdict.
//!
//! # Logic
//!
//! `QF_UFLIA` when every product has at most one non-constant factor and
//! every `div`/`mod` divides by a positive constant, `ALL` otherwise.
//! Assumptions that are not literals (a variable or its negation) get a
//! fresh Boolean proxy `racewatch!assumption!N` equal to them, since
//! `check-sat-assuming` takes literals only.

use super::term::{Decl, DeclId, Term, TermBank, TermId};
use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write};

/// A query to print; see the module documentation for the text.
pub struct Script<'a> {
    terms: &'a TermBank,
    comments: Vec<String>,
    assertions: &'a [TermId],
    assumptions: Option<&'a [TermId]>,
}

impl<'a> Script<'a> {
    /// A script asserting `assertions` and ending in `(check-sat)`.
    pub fn new(terms: &'a TermBank, assertions: &'a [TermId]) -> Script<'a> {
        Script { terms, comments: Vec::new(), assertions, assumptions: None }
    }

    /// Ends the script in `(check-sat-assuming …)` over `assumptions`.
    pub fn assuming(mut self, assumptions: &'a [TermId]) -> Script<'a> {
        self.assumptions = Some(assumptions);
        self
    }

    /// Adds a `;` comment line to the header.
    pub fn comment(mut self, line: impl Into<String>) -> Script<'a> {
        self.comments.push(line.into());
        self
    }
}

impl fmt::Display for Script<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bank = self.terms;
        let assumptions = self.assumptions.unwrap_or(&[]);
        let roots: Vec<TermId> = self.assertions.iter().chain(assumptions).copied().collect();
        let reach = Reach::of(bank, &roots);
        let mut names = Names::default();
        for line in &self.comments {
            for part in line.lines() {
                writeln!(f, "; {part}")?;
            }
        }
        writeln!(f, "(set-option :produce-models true)")?;
        writeln!(f, "(set-logic {})", if reach.linear { "QF_UFLIA" } else { "ALL" })?;
        for &d in &reach.decls {
            let decl = bank.decl(d);
            let name = names.claim(&decl.name);
            names.decls.insert(d, name);
            writeln!(
                f,
                "(declare-fun {} ({}) {})",
                symbol(&names.decls[&d]),
                arg_sorts(decl),
                decl.result.smtlib_name()
            )?;
        }
        let mut shared: Vec<TermId> =
            reach.uses.iter().filter(|(t, n)| **n > 1 && !atomic(bank, **t)).map(|(t, _)| *t).collect();
        shared.sort();
        for &t in &shared {
            let name = names.claim(&format!("s!{}", t.index()));
            write!(f, "(define-fun {} () {} ", symbol(&name), bank.sort(t).smtlib_name())?;
            write_term(f, bank, &names, t, true)?;
            writeln!(f, ")")?;
            names.shared.insert(t, name);
        }
        for &a in self.assertions {
            write!(f, "(assert ")?;
            write_term(f, bank, &names, a, false)?;
            writeln!(f, ")")?;
        }
        match self.assumptions {
            None => writeln!(f, "(check-sat)")?,
            Some(assumptions) => {
                let mut literals = Vec::with_capacity(assumptions.len());
                for (n, &a) in assumptions.iter().enumerate() {
                    if literal(bank, a) {
                        let mut text = String::new();
                        write_term(&mut text, bank, &names, a, false)?;
                        literals.push(text);
                        continue;
                    }
                    let proxy = symbol(&names.claim(&format!("racewatch!assumption!{n}")));
                    writeln!(f, "(declare-fun {proxy} () Bool)")?;
                    write!(f, "(assert (= {proxy} ")?;
                    write_term(f, bank, &names, a, false)?;
                    writeln!(f, "))")?;
                    literals.push(proxy);
                }
                writeln!(f, "(check-sat-assuming ({}))", literals.join(" "))?;
            }
        }
        writeln!(f, "(get-model)")
    }
}

/// The argument sorts of a declaration, space-separated.
fn arg_sorts(decl: &Decl) -> String {
    decl.args.iter().map(|s| s.smtlib_name()).collect::<Vec<_>>().join(" ")
}

/// What the roots reach: how often each term is used, the declarations in
/// order of first use, and whether the arithmetic is linear.
struct Reach {
    uses: HashMap<TermId, u32>,
    decls: Vec<DeclId>,
    linear: bool,
}

impl Reach {
    fn of(bank: &TermBank, roots: &[TermId]) -> Reach {
        let mut reach = Reach { uses: HashMap::new(), decls: Vec::new(), linear: true };
        let mut seen_decls = HashSet::new();
        let mut stack: Vec<TermId> = roots.iter().rev().copied().collect();
        while let Some(t) = stack.pop() {
            let uses = reach.uses.entry(t).or_insert(0);
            *uses += 1;
            if *uses > 1 {
                continue;
            }
            let term = bank.term(t);
            match term {
                Term::App(d, _) => {
                    if seen_decls.insert(*d) {
                        reach.decls.push(*d);
                    }
                }
                Term::Mul(args) => {
                    let variable = args.iter().filter(|&&a| bank.as_int(a).is_none()).count();
                    reach.linear &= variable <= 1;
                }
                Term::Div(_, b) | Term::Mod(_, b) => reach.linear &= bank.as_int(*b).is_some_and(|c| c > 0),
                Term::Bool(_) | Term::Int(_) | Term::Not(_) | Term::And(_) | Term::Or(_) => {}
                Term::Implies(..) | Term::Ite(..) | Term::Eq(..) | Term::Distinct(_) => {}
                Term::Compare(..) | Term::Add(_) | Term::Sub(..) | Term::Neg(_) => {}
            }
            let children: Vec<TermId> = term.children().collect();
            stack.extend(children.into_iter().rev());
        }
        reach
    }
}

/// A constant, a variable, or the negation of either: printed in place even
/// when shared.
fn atomic(bank: &TermBank, t: TermId) -> bool {
    let leaf = |t: TermId| {
        matches!(bank.term(t), Term::Bool(_) | Term::Int(_))
            || matches!(bank.term(t), Term::App(_, args) if args.is_empty())
    };
    if let Term::Not(a) | Term::Neg(a) = bank.term(t) { leaf(*a) } else { leaf(t) }
}

/// A Boolean variable or its negation: a `check-sat-assuming` literal.
fn literal(bank: &TermBank, t: TermId) -> bool {
    let var = |t: TermId| matches!(bank.term(t), Term::App(_, args) if args.is_empty());
    if let Term::Not(a) = bank.term(t) { var(*a) } else { var(t) }
}

/// The printed names of one script: declarations, shared subterms, and
/// every name claimed so far.
#[derive(Default)]
struct Names {
    used: HashSet<String>,
    decls: HashMap<DeclId, String>,
    shared: HashMap<TermId, String>,
}

impl Names {
    /// A name for `wanted` that no other declaration of the script has and
    /// that is not an SMT-LIB keyword or builtin (unquoted).
    fn claim(&mut self, wanted: &str) -> String {
        let base: String = if wanted.is_empty() {
            "anonymous".to_string()
        } else {
            wanted.chars().map(|c| if c == '|' || c == '\\' { '_' } else { c }).collect()
        };
        let mut name = base.clone();
        let mut n = 1;
        while RESERVED.contains(&name.as_str()) || self.used.contains(&name) {
            name = format!("{base}!{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        name
    }
}

/// SMT-LIB 2.6 reserved words and command names, and the builtin function
/// symbols of the core, integer, real and array theories (with z3's
/// aliases), which a declaration must not shadow.
const RESERVED: &[&str] = &[
    "!",
    "_",
    "as",
    "BINARY",
    "DECIMAL",
    "exists",
    "HEXADECIMAL",
    "forall",
    "let",
    "match",
    "NUMERAL",
    "par",
    "STRING",
    "assert",
    "check-sat",
    "check-sat-assuming",
    "declare-const",
    "declare-datatype",
    "declare-datatypes",
    "declare-fun",
    "declare-sort",
    "define-fun",
    "define-fun-rec",
    "define-funs-rec",
    "define-sort",
    "echo",
    "exit",
    "get-assertions",
    "get-assignment",
    "get-info",
    "get-model",
    "get-option",
    "get-proof",
    "get-unsat-assumptions",
    "get-unsat-core",
    "get-value",
    "pop",
    "push",
    "reset",
    "reset-assertions",
    "set-info",
    "set-logic",
    "set-option",
    "true",
    "false",
    "not",
    "and",
    "or",
    "xor",
    "=>",
    "=",
    "distinct",
    "ite",
    "if",
    "iff",
    "implies",
    "+",
    "-",
    "*",
    "/",
    "div",
    "mod",
    "rem",
    "abs",
    "^",
    "power",
    "<",
    "<=",
    ">",
    ">=",
    "to_real",
    "to_int",
    "is_int",
    "divisible",
    "select",
    "store",
    "const",
    "map",
    "as-array",
    "default",
    "pi",
    "euler",
    "root-obj",
    "Bool",
    "Int",
    "Real",
    "Array",
];

/// `name` as an SMT-LIB symbol: as it is when it is a simple symbol, else
/// quoted. [`Names::claim`] has removed `|` and `\`.
fn symbol(name: &str) -> String {
    let simple_char = |c: char| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/".contains(c);
    let simple = name.chars().all(simple_char) && !name.starts_with(|c: char| c.is_ascii_digit());
    if simple && !name.is_empty() { name.to_string() } else { format!("|{name}|") }
}

/// One step of [`write_term`]: a term to print, or text to emit.
enum Step {
    Term(TermId),
    Text(&'static str),
}

/// Writes `root` with the script's names: shared subterms print as their
/// `define-fun` names, except `root` itself when `defining` it.
fn write_term(out: &mut impl Write, bank: &TermBank, names: &Names, root: TermId, defining: bool) -> fmt::Result {
    let mut stack = vec![Step::Term(root)];
    while let Some(step) = stack.pop() {
        let t = match step {
            Step::Text(text) => {
                out.write_str(text)?;
                continue;
            }
            Step::Term(t) => t,
        };
        if (t != root || !defining)
            && let Some(name) = names.shared.get(&t)
        {
            out.write_str(&symbol(name))?;
            continue;
        }
        let term = bank.term(t);
        let head: String = match term {
            Term::Bool(b) => {
                out.write_str(if *b { "true" } else { "false" })?;
                continue;
            }
            Term::Int(i) if *i >= 0 => {
                write!(out, "{i}")?;
                continue;
            }
            Term::Int(i) => {
                write!(out, "(- {})", i.unsigned_abs())?;
                continue;
            }
            Term::App(d, args) if args.is_empty() => {
                out.write_str(&symbol(&names.decls[d]))?;
                continue;
            }
            Term::App(d, _) => symbol(&names.decls[d]),
            Term::Not(_) => "not".into(),
            Term::And(_) => "and".into(),
            Term::Or(_) => "or".into(),
            Term::Implies(..) => "=>".into(),
            Term::Ite(..) => "ite".into(),
            Term::Eq(..) => "=".into(),
            Term::Distinct(_) => "distinct".into(),
            Term::Compare(op, ..) => op.symbol().into(),
            Term::Add(_) => "+".into(),
            Term::Sub(..) | Term::Neg(_) => "-".into(),
            Term::Mul(_) => "*".into(),
            Term::Div(..) => "div".into(),
            Term::Mod(..) => "mod".into(),
        };
        write!(out, "({head}")?;
        stack.push(Step::Text(")"));
        let children: Vec<TermId> = term.children().collect();
        for &c in children.iter().rev() {
            stack.push(Step::Term(c));
            stack.push(Step::Text(" "));
        }
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::Script;
    use crate::solver::term::{Sort, TermBank};

    /// Runs the `z3` binary on `text` when one is on the PATH (set-up does
    /// not install it) and compares its first answer with `expected`.
    pub(in crate::solver) fn replay_if_z3_is_installed(text: &str, expected: &str) {
        let path = std::env::temp_dir().join(format!("racewatch-replay-{}-{}.smt2", std::process::id(), text.len()));
        std::fs::write(&path, text).unwrap();
        let output = std::process::Command::new("z3").arg(&path).output();
        let _ = std::fs::remove_file(&path);
        let Ok(output) = output else {
            return;
        };
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(stdout.lines().next(), Some(expected), "z3 on:\n{text}\nanswered:\n{stdout}");
        // After `unsat`, `(get-model)` can only report that there is none.
        let errors = stdout.lines().filter(|l| l.starts_with("(error") && !l.contains("model is not available"));
        assert_eq!(errors.count(), 0, "z3 on:\n{text}\nanswered:\n{stdout}");
    }

    #[test]
    fn a_small_query_prints_as_expected() {
        let mut b = TermBank::new();
        let x = b.var("x", Sort::Int);
        let held = b.var("lock held", Sort::Bool);
        let zero = b.int(0);
        let ten = b.int(10);
        let three = b.int(3);
        let positive = b.gt(x, zero);
        let guard = b.and(&[positive, held]);
        let small = b.lt(x, ten);
        let first = b.implies(guard, small);
        let is_three = b.eq(x, three);
        let second = b.or(&[guard, is_three]);
        let assertions = [first, second];
        let assumptions = [held];
        let text = Script::new(&b, &assertions).assuming(&assumptions).comment("racewatch query 3").to_string();
        let expected = format!(
            "; racewatch query 3
(set-option :produce-models true)
(set-logic QF_UFLIA)
(declare-fun x () Int)
(declare-fun |lock held| () Bool)
(define-fun s!{g} () Bool (and (> x 0) |lock held|))
(assert (=> s!{g} (< x 10)))
(assert (or s!{g} (= x 3)))
(check-sat-assuming (|lock held|))
(get-model)
",
            g = guard.index()
        );
        assert_eq!(text, expected);
        replay_if_z3_is_installed(&text, "sat");
    }

    #[test]
    fn functions_negatives_and_clashing_names() {
        let mut b = TermBank::new();
        let f = b.declare("f", &[Sort::Int, Sort::Bool], Sort::Int);
        let x = b.var("x", Sort::Int);
        let p = b.var("and", Sort::Bool);
        let weird = b.var("a|b", Sort::Int);
        let bool_x = b.var("x", Sort::Bool);
        let minus_five = b.int(-5);
        let fx = b.apply(f, &[x, p]);
        let product = b.mul(&[x, weird]);
        let eq = b.eq(fx, minus_five);
        let ge = b.ge(product, x);
        let assertions = [eq, ge, bool_x];
        let not_p = b.not(p);
        let assumptions = [not_p, ge];
        let text = Script::new(&b, &assertions).assuming(&assumptions).to_string();
        let expected = "(set-option :produce-models true)
(set-logic ALL)
(declare-fun f (Int Bool) Int)
(declare-fun x () Int)
(declare-fun and!1 () Bool)
(declare-fun a_b () Int)
(declare-fun x!1 () Bool)
(define-fun s!GE () Bool (>= (* x a_b) x))
(assert (= (f x and!1) (- 5)))
(assert s!GE)
(assert x!1)
(declare-fun racewatch!assumption!1 () Bool)
(assert (= racewatch!assumption!1 s!GE))
(check-sat-assuming ((not and!1) racewatch!assumption!1))
(get-model)
"
        .replace("GE", &ge.index().to_string());
        assert_eq!(text, expected);
        replay_if_z3_is_installed(&text, "sat");
    }

    #[test]
    fn plain_check_and_quoting() {
        let mut b = TermBank::new();
        let v = b.var("2nd", Sort::Bool);
        let w = b.var("tmp.3", Sort::Bool);
        let both = b.and(&[v, w]);
        let text = Script::new(&b, &[both]).to_string();
        assert!(text.contains("(declare-fun |2nd| () Bool)"), "{text}");
        assert!(text.contains("(declare-fun tmp.3 () Bool)"), "{text}");
        assert!(text.contains("(assert (and |2nd| tmp.3))"), "{text}");
        assert!(text.ends_with("(check-sat)\n(get-model)\n"), "{text}");
        replay_if_z3_is_installed(&text, "sat");
    }

    #[test]
    fn sharing_keeps_deep_dags_linear() {
        // x_{n+1} = x_n + x_n, 200 times: a tree of 2^200 nodes, a DAG of 200.
        let mut b = TermBank::new();
        let mut t = b.var("x", Sort::Int);
        for _ in 0..200 {
            t = b.add(&[t, t]);
        }
        let zero = b.int(0);
        let root = b.gt(t, zero);
        let text = Script::new(&b, &[root]).to_string();
        assert!(text.len() < 20_000, "{} bytes", text.len());
        assert_eq!(text.matches("define-fun").count(), 199);
        replay_if_z3_is_installed(&text, "sat");
        // A chain 100,000 deep prints without overflowing the stack.
        let mut chain = b.var("p", Sort::Bool);
        for n in 0..100_000 {
            let q = b.var(&format!("q{n}"), Sort::Bool);
            chain = b.implies(q, chain);
        }
        let text = Script::new(&b, &[chain]).to_string();
        assert!(text.contains("(=> q99999 (=> q99998"));
    }
}
