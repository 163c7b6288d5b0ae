//! The validator's verdicts: the example is valid, and each hand-made
//! mistake gives exactly the expected errors.

use super::*;

/// The errors of the example after `change`, rendered.
fn errors_after(change: impl FnOnce(&mut Example)) -> Vec<String> {
    let mut example = example();
    change(&mut example);
    match validate(&example.program) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(|e| e.to_string()).collect(),
    }
}

/// Block `n` of a procedure of the example.
fn block(example: &mut Example, procedure: ProcId, n: u32) -> &mut Block {
    &mut example.program.procedures[procedure].blocks[BlockId::from_u32(n)]
}

/// Command `index` of block `n` of a procedure of the example.
fn command(example: &mut Example, procedure: ProcId, n: u32, index: usize) -> &mut Command {
    &mut block(example, procedure, n).commands[index]
}

#[test]
fn the_example_is_valid() {
    let example = example();
    assert_eq!(validate(&example.program), Ok(()));
    debug_validate(&example.program);
}

#[test]
fn goto_targets_must_exist_and_be_present() {
    let missing = errors_after(|e| {
        block(e, e.dev_read, 1).terminator = Terminator::Goto(vec![BlockId::from_u32(2), BlockId::from_u32(9)]);
    });
    assert_eq!(missing, ["procedure `dev_read`, bb1 terminator: goto target bb9 does not exist"]);
    let empty = errors_after(|e| block(e, e.dev_read, 1).terminator = Terminator::Goto(Vec::new()));
    assert_eq!(empty, ["procedure `dev_read`, bb1 terminator: goto without targets (use unreachable)"]);
}

#[test]
fn the_entry_block_must_exist() {
    let errors = errors_after(|e| e.program.procedures[e.dev_read].entry = BlockId::from_u32(42));
    assert_eq!(errors, ["procedure `dev_read`: entry block bb42 does not exist"]);
}

#[test]
fn conditions_must_be_boolean() {
    let errors = errors_after(|e| *command(e, e.dev_read, 2, 0) = Command::Assume { cond: Expr::var(e.i), span: None });
    assert_eq!(errors, ["procedure `dev_read`, bb2[0]: assume condition has sort int, expected bool"]);
}

#[test]
fn assignments_must_preserve_sorts() {
    let errors = errors_after(|e| {
        *command(e, e.dev_read, 0, 1) = Command::Assign { target: e.i, value: Expr::bool(true), span: None };
    });
    assert_eq!(errors, ["procedure `dev_read`, bb0[1]: assigned value has sort bool, but `i` has sort int"]);
}

#[test]
fn parameters_are_read_only() {
    let errors = errors_after(|e| {
        let dev = e.program.procedures[e.dev_read].params[0];
        *command(e, e.dev_read, 0, 1) = Command::Assign { target: dev, value: Expr::int(0), span: None };
    });
    assert_eq!(
        errors,
        ["procedure `dev_read`, bb0[1]: `dev` is a parameter, which commands cannot assign (copy it to a local)"]
    );
}

#[test]
fn loads_and_stores_must_match_the_region() {
    let load = errors_after(|e| {
        let ok = e.ok;
        let Command::Load { target, .. } = command(e, e.dev_read, 2, 1) else { panic!("bb2[1] is the load") };
        *target = ok;
    });
    assert_eq!(load, ["procedure `dev_read`, bb2[1]: region1 holds int, but `ok` has sort bool"]);
    let store = errors_after(|e| {
        let Command::Store { value, .. } = command(e, e.dev_read, 2, 3) else { panic!("bb2[3] is the store") };
        *value = Expr::bool(false);
    });
    assert_eq!(store, ["procedure `dev_read`, bb2[3]: stored value has sort bool, but region0 holds int"]);
    let address = errors_after(|e| {
        let ok = e.ok;
        let Command::Store { address, .. } = command(e, e.dev_read, 2, 3) else { panic!("bb2[3] is the store") };
        *address = Expr::var(ok);
    });
    assert_eq!(address, ["procedure `dev_read`, bb2[3]: address has sort bool, expected int"]);
    let region = errors_after(|e| {
        let Command::Load { region, .. } = command(e, e.dev_read, 2, 1) else { panic!("bb2[1] is the load") };
        *region = RegionId::from_u32(7);
    });
    assert_eq!(region, ["procedure `dev_read`, bb2[1]: region region7 does not exist"]);
}

#[test]
fn calls_must_match_the_callee() {
    let arity = errors_after(|e| {
        let Command::Call { args, .. } = command(e, e.dev_read, 4, 1) else { panic!("bb4[1] is the call") };
        args.clear();
    });
    assert_eq!(arity, ["procedure `dev_read`, bb4[1]: call to `dev_helper` passes 0 argument(s) for 1 parameter(s)"]);
    let result = errors_after(|e| {
        let ok = e.ok;
        let Command::Call { results, .. } = command(e, e.dev_read, 4, 1) else { panic!("bb4[1] is the call") };
        results[0] = ok;
    });
    assert_eq!(
        result,
        ["procedure `dev_read`, bb4[1]: result `ok` has sort bool, but return `r` of `dev_helper` has sort int"]
    );
    let twice = errors_after(|e| {
        let Command::Call { results, .. } = command(e, e.dev_read, 4, 1) else { panic!("bb4[1] is the call") };
        results.push(results[0]);
    });
    assert_eq!(
        twice,
        [
            "procedure `dev_read`, bb4[1]: `ret` receives two results of the call",
            "procedure `dev_read`, bb4[1]: call to `dev_helper` receives 2 result(s) from 1 return(s)",
        ]
    );
    let callee = errors_after(|e| {
        let Command::Call { procedure, .. } = command(e, e.dev_read, 4, 1) else { panic!("bb4[1] is the call") };
        *procedure = ProcId::from_u32(9);
    });
    assert_eq!(callee, ["procedure `dev_read`, bb4[1]: procedure proc9 does not exist"]);
}

#[test]
fn function_applications_must_match_the_function() {
    let errors = errors_after(|e| {
        let Command::Assign { value, .. } = command(e, e.dev_read, 2, 2) else { panic!("bb2[2] is the assignment") };
        let Expr::Binary(_, application, _) = value else { panic!("bb2[2] assigns a sum") };
        let Expr::Apply(_, args) = application.as_mut() else { panic!("the sum starts with bitand") };
        args.pop();
    });
    assert_eq!(errors, ["procedure `dev_read`, bb2[2]: assigned value: `bitand` takes 2 argument(s), given 1"]);
}

#[test]
fn locks_must_exist_and_have_the_mode() {
    let success = errors_after(|e| {
        let i = e.i;
        let Command::TryLock { success, .. } = command(e, e.dev_read, 3, 2) else { panic!("bb3[2] is the trylock") };
        *success = i;
    });
    assert_eq!(success, ["procedure `dev_read`, bb3[2]: trylock success variable `i` has sort int, expected bool"]);
    let shared = errors_after(|e| {
        let Command::Lock { mode, .. } = command(e, e.dev_read, 0, 0) else { panic!("bb0[0] is the lock") };
        *mode = LockMode::Shared;
    });
    assert_eq!(shared, ["procedure `dev_read`, bb0[0]: lock0 is a mutex, which has no shared mode"]);
    let missing = errors_after(|e| {
        let Command::Lock { lock, .. } = command(e, e.dev_read, 0, 0) else { panic!("bb0[0] is the lock") };
        *lock = LockId::from_u32(9);
    });
    assert_eq!(missing, ["procedure `dev_read`, bb0[0]: lock lock9 does not exist"]);
}

#[test]
fn declarations_have_no_body() {
    let errors = errors_after(|e| {
        block(e, e.dev_helper, 0).commands.push(Command::Havoc { vars: vec![], span: None });
        block(e, e.dev_helper, 0).terminator = Terminator::Unreachable;
    });
    assert_eq!(
        errors,
        [
            "procedure `dev_helper`: bodiless, yet bb0 has 1 command(s)",
            "procedure `dev_helper`: bodiless, yet bb0 does not end in return",
        ]
    );
}

#[test]
fn variables_are_visible_only_in_their_procedure() {
    let i = example().i;
    let foreign = errors_after(|e| {
        let Command::Load { target, .. } = command(e, e.dev_misc, 0, 3) else { panic!("bb0[3] is the load") };
        *target = i;
    });
    assert_eq!(foreign, [format!("procedure `dev_misc`, bb0[3]: `i@{i}` is a local of `dev_read`, not visible here")]);
    let unlisted = errors_after(|e| e.program.procedures[e.dev_read].locals.retain(|v| *v != i));
    assert_eq!(
        unlisted,
        [
            format!("variable `i` ({i}) is scoped to `dev_read`, which does not list it among its locals"),
            format!("procedure `dev_read`, bb0[1]: `i@{i}` is a local of `dev_read`, not visible here"),
            format!("procedure `dev_read`, bb2[0]: `i@{i}` is a local of `dev_read`, not visible here"),
            format!("procedure `dev_read`, bb2[1]: `i@{i}` is a local of `dev_read`, not visible here"),
            format!("procedure `dev_read`, bb2[4]: `i@{i}` is a local of `dev_read`, not visible here"),
            format!("procedure `dev_read`, bb3[0]: `i@{i}` is a local of `dev_read`, not visible here"),
            format!("procedure `dev_read`, bb4[1]: `i@{i}` is a local of `dev_read`, not visible here"),
        ]
    );
}

#[test]
fn contracts_see_only_globals_parameters_and_returns() {
    let errors = errors_after(|e| {
        let procedure = &mut e.program.procedures[e.dev_read];
        let (ret, i) = (procedure.returns[0], e.i);
        procedure.requires[0].expr = Expr::ge(Expr::var(ret), Expr::int(0));
        procedure.ensures[0].expr = Expr::ge(Expr::var(ret), Expr::var(i));
    });
    assert_eq!(
        errors,
        [
            "procedure `dev_read`, requires[0]: `ret` is a return, which a precondition cannot mention",
            "procedure `dev_read`, ensures[0]: `i` is a local, which a contract cannot mention",
        ]
    );
}

#[test]
fn declarations_must_be_consistent() {
    let mut badly_named = None;
    let errors = errors_after(|e| {
        e.program.procedures[e.dev_misc].name = "dev_read".into();
        e.program.entry_points[EntryPointId::from_u32(0)].procedure = ProcId::from_u32(9);
        badly_named = Some(e.program.add_global("a b", Sort::Int, None));
    });
    let badly_named = badly_named.expect("the change ran");
    assert_eq!(
        errors,
        [
            format!("variable {badly_named} is named \"a b\", which is not a C identifier"),
            "procedures proc1 and proc2 are both named `dev_read`".to_string(),
            "entry point entry0 (`dev_misc`) runs procedure proc9, which does not exist".to_string(),
        ]
    );
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "malformed IR:\nprocedure `dev_read`: entry block bb42 does not exist")]
fn debug_validate_panics_with_the_errors() {
    let mut example = example();
    example.program.procedures[example.dev_read].entry = BlockId::from_u32(42);
    debug_validate(&example.program);
}

#[test]
fn a_cloned_procedure_is_valid_and_has_its_own_variables() {
    let mut example = example();
    let original = example.dev_read;
    let (copy, map) = example.program.clone_procedure(original);
    assert_eq!(validate(&example.program), Ok(()));
    let (a, b) = (&example.program.procedures[original], &example.program.procedures[copy]);
    assert_eq!(Procedure::source_name(&b.name), a.name);
    assert_ne!(b.name, a.name);
    assert_eq!(a.blocks.len(), b.blocks.len());
    // Every variable of the original is renamed, and the copy names none
    // of them.
    for v in a.params.iter().chain(&a.returns).chain(&a.locals) {
        let new = map[v];
        assert_eq!(example.program.variables[new].scope.procedure(), Some(copy));
    }
    let theirs: std::collections::BTreeSet<VarId> = a.params.iter().chain(&a.returns).chain(&a.locals).copied().collect();
    for block in b.blocks.values() {
        for c in &block.commands {
            let mut seen = Vec::new();
            let _ = c.map(&mut |v| {
                seen.push(v);
                v
            }, &mut |p| p);
            assert!(seen.iter().all(|v| !theirs.contains(v)), "the copy uses the original's variables: {c:?}");
        }
    }
    // A second copy gets another name.
    let (second, _) = example.program.clone_procedure(original);
    assert_ne!(example.program.procedures[second].name, example.program.procedures[copy].name);
    assert_eq!(validate(&example.program), Ok(()));
}
