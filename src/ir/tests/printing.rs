//! The exact text of the example program, and of expressions chosen to
//! exercise the precedence rules and the variable naming scheme.

use super::*;

const EXAMPLE_TEXT: &str = r#"region region0 "global counter" global: int;
region region1 "struct dev.buf" field: int;
region region2 "int (pointee)" pointee thread-private: int;
lock lock0 "dev_mutex" mutex;
lock lock1 "struct dev.lock" spinlock;
lock lock2 "cfg_sem" rw-semaphore;
function bitand(int, int): int;
var count: int; // dev.c:3:12
ghost var in_irq: bool;
entry entry0 "dev_misc" irq: dev_misc; // dev.c:24:1

procedure dev_helper(n: int) returns (r: int);
  free ensures r >= n;

procedure dev_read(dev: int, count.2: int) returns (ret: int) // dev.c:8:1
  requires count.2 >= 0 && !in_irq;
  free ensures ret <= count.2;
{
  var i: int; // dev.c:9:6
  var tmp.1: int;
  var tmp.2: int;
  var ok: bool;
bb0:
  lock lock0; // dev.c:10:2
  i := 0;
  goto bb1;
bb1:
  goto bb2, bb3;
bb2:
  assume i < count.2;
  tmp.1 := load region1[dev + 8 * i]; // dev.c:12:9
  tmp.2 := bitand(tmp.1, 255) + 1;
  store region0[0] := count + tmp.2; // dev.c:13:3
  i := i + 1;
  goto bb1;
bb3:
  assume !(i < count.2);
  unlock lock0; // dev.c:15:2
  ok := trylock lock1; // dev.c:16:6
  goto bb4, bb5;
bb4:
  assume ok; // dev.c:16:6
  call ret := dev_helper(i * (i - 1)); // dev.c:17:9
  unlock lock1; // dev.c:18:3
  goto bb6;
bb5:
  assume !ok; // dev.c:16:6
  havoc ret, tmp.1;
  goto bb6;
bb6:
  assert {user} ret >= 0 || ret == -1; // dev.c:20:2
  return;
}

procedure dev_misc(dev: int) // dev.c:24:1
{
  var v: int;
  var taken: bool;
  ghost var held_cfg_sem: bool;
bb0:
  control irq-save; // dev.c:26:2
  lock.shared lock2;
  held_cfg_sem := true;
  v := load.atomic region1[dev];
  store.atomic region2[dev - -8] := -(-v);
  ghost.write region1[dev] entry0; // dev.c:27:2
  lock ? "element of dev->queues[]"; // dev.c:28:2
  approx {external-call} "printk"; // dev.c:29:2
  call dev_misc(dev - 1);
  v := if v > 0 then v else -v;
  assume ((v + 1) * 2 - 3 == 4 ==> v % 2 != 0) ==> true;
  taken := trylock.shared lock2;
  unlock.shared lock2;
  control irq-restore;
  goto bb1, bb2;
bb1:
  assume v == 0;
  assert {bound} false;
  unreachable;
bb2:
  assume !(v == 0);
  return;
}
"#;

#[test]
fn example_prints_exactly() {
    assert_eq!(example().program.to_string(), EXAMPLE_TEXT);
}

#[test]
fn printing_is_deterministic_and_survives_cloning() {
    let example = example();
    assert_eq!(example.program.clone().to_string(), example.program.to_string());
}

#[test]
fn commands_and_expressions_print_alone_with_the_procedure_names() {
    let example = example();
    let program = &example.program;
    let block = &program.procedures[example.dev_read].blocks[BlockId::from_u32(2)];
    assert_eq!(
        program.display_command(example.dev_read, &block.commands[1]).to_string(),
        "tmp.1 := load region1[dev + 8 * i];"
    );
    assert_eq!(program.display_expr(example.dev_read, &Expr::var(example.ok)).to_string(), "ok");
    // A variable of another procedure is marked, not passed off as visible.
    let foreign = Expr::var(example.i);
    assert_eq!(program.display_expr(example.dev_misc, &foreign).to_string(), format!("i@{}", example.i));
    assert_eq!(program.display_expr(example.dev_misc, &Expr::var(VarId::from_u32(99))).to_string(), "?v99");
}

/// Prints expressions over the globals `a`, `b`, `c` (int) and `p`, `q`,
/// `r` (bool), and the function `f(int, int): int`.
fn print_all(build: impl Fn(&dyn Fn(&str) -> Expr, FuncId) -> Vec<Expr>) -> Vec<String> {
    let mut program = Program::new();
    let mut names = Vec::new();
    for (name, sort) in [("a", Sort::Int), ("b", Sort::Int), ("c", Sort::Int), ("p", Sort::Bool), ("q", Sort::Bool)] {
        names.push((name, program.add_global(name, sort, None)));
    }
    names.push(("r", program.add_global("r", Sort::Bool, None)));
    let f = program.functions.push(UninterpretedFn { name: "f".into(), params: vec![Sort::Int; 2], result: Sort::Int });
    let procedure = ProcedureBuilder::new(&mut program, "main", None).finish_declaration();
    let var = |name: &str| Expr::var(names.iter().find(|(n, _)| *n == name).expect("a declared name").1);
    let expressions = build(&var, f);
    expressions.iter().map(|e| program.display_expr(procedure, e).to_string()).collect()
}

#[test]
fn expressions_print_with_minimal_parentheses() {
    let printed = print_all(|v, f| {
        vec![
            Expr::sub(Expr::sub(v("a"), v("b")), v("c")),
            Expr::sub(v("a"), Expr::sub(v("b"), v("c"))),
            Expr::mul(Expr::add(v("a"), v("b")), v("c")),
            Expr::add(v("a"), Expr::mul(v("b"), v("c"))),
            Expr::div(Expr::mul(v("a"), v("b")), v("c")),
            Expr::div(v("a"), Expr::mul(v("b"), v("c"))),
            Expr::implies(Expr::implies(v("p"), v("q")), v("r")),
            Expr::implies(v("p"), Expr::implies(v("q"), v("r"))),
            Expr::eq(Expr::lt(v("a"), v("b")), v("p")),
            Expr::and(Expr::or(v("p"), v("q")), v("r")),
            Expr::or(v("p"), Expr::and(v("q"), v("r"))),
            Expr::not(Expr::and(v("p"), v("q"))),
            Expr::neg(Expr::int(-5)),
            Expr::mul(Expr::int(-1), v("a")),
            Expr::add(Expr::ite(v("p"), v("a"), v("b")), v("c")),
            Expr::ite(Expr::ite(v("p"), v("q"), v("r")), v("a"), Expr::ite(v("q"), v("b"), v("c"))),
            Expr::apply(f, vec![Expr::add(v("a"), v("b")), Expr::ite(v("p"), v("a"), v("b"))]),
            Expr::neg(Expr::apply(f, vec![v("a"), Expr::neg(v("b"))])),
        ]
    });
    let expected = [
        "a - b - c",
        "a - (b - c)",
        "(a + b) * c",
        "a + b * c",
        "a * b / c",
        "a / (b * c)",
        "(p ==> q) ==> r",
        "p ==> q ==> r",
        "(a < b) == p",
        "(p || q) && r",
        "p || q && r",
        "!(p && q)",
        "-(-5)",
        "-1 * a",
        "(if p then a else b) + c",
        "if (if p then q else r) then a else if q then b else c",
        "f(a + b, if p then a else b)",
        "-f(a, -b)",
    ];
    assert_eq!(printed, expected);
}

#[test]
fn clashing_names_are_numbered_globals_first() {
    let mut program = Program::new();
    let x1 = program.add_global("x", Sort::Int, None);
    let x2 = program.add_global("x", Sort::Int, None);
    let y = program.add_global("y", Sort::Int, None);
    let mut b = ProcedureBuilder::new(&mut program, "f", None);
    let x3 = b.add_param("x", Sort::Int);
    let y2 = b.add_local("y", Sort::Int, None);
    let z = b.add_local("z", Sort::Int, None);
    b.ret();
    let f = b.finish();
    let mut b = ProcedureBuilder::new(&mut program, "g", None);
    let z_of_g = b.add_local("z", Sort::Int, None);
    b.ret();
    let g = b.finish();
    let names: Vec<String> = [x1, x2, y, x3, y2, z].iter().map(|v| program.variable_name(f, *v)).collect();
    assert_eq!(names, ["x.1", "x.2", "y", "x.3", "y.2", "z"]);
    assert_eq!(program.variable_name(g, y), "y");
    assert_eq!(program.variable_name(g, z_of_g), "z");
}
