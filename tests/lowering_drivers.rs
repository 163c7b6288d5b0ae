//! Every corpus driver and every real Linux 6.12 driver of
//! drivers/linux-6.12/drivers.txt lowers without a panic, into a program
//! the IR validator accepts, with a procedure for every entry point, and
//! with no construct the lowering cannot express (which would make
//! verdicts unknown). Runs in release builds too, where the lowering's own
//! `debug_validate` is compiled out.

use racewatch::frontend::flags::{FlagOptions, FlagSource, default_kernel_dir};
use racewatch::frontend::lower::Roots;
use racewatch::models::KernelModels;
use racewatch::pipeline::Session;
use std::path::{Path, PathBuf};

fn session() -> Session {
    let options = FlagOptions::default();
    let source = FlagSource::resolve(&options).unwrap_or_else(|e| panic!("{e}\nrun scripts/setup.sh"));
    Session { models: KernelModels::embedded().unwrap(), options, source, jobs: 1 }
}

fn drivers() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo.join("drivers/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    let source = default_kernel_dir().unwrap().parent().unwrap().parent().unwrap().join("linux-source/current");
    assert!(source.is_dir(), "{} is missing: run scripts/setup.sh", source.display());
    for rel in std::fs::read_to_string(repo.join("drivers/linux-6.12/drivers.txt")).unwrap().lines() {
        if !rel.trim().is_empty() && !rel.starts_with('#') && source.join(rel).exists() {
            files.push(source.join(rel));
        }
    }
    files
}

#[test]
fn every_driver_lowers_to_a_valid_program_without_unsupported_constructs() {
    let session = session();
    let mut problems = Vec::new();
    let mut lowered_count = 0;
    for file in drivers() {
        let name = file.display().to_string();
        let (entry_points, lowered, _) = match session.lower(&file, Roots::EntryPoints) {
            Ok(r) => r,
            // swim.c needs m68k headers: the entry-point tests check that error.
            Err(e) if e.class == racewatch::diagnostics::ErrorClass::MissingHeader => continue,
            Err(e) => {
                problems.push(format!("{name}: {e}"));
                continue;
            }
        };
        lowered_count += 1;
        if let Err(errors) = racewatch::ir::validate(&lowered.program) {
            let shown: Vec<String> = errors.iter().take(5).map(|e| e.to_string()).collect();
            problems.push(format!("{name}: {} validation errors, first: {}", errors.len(), shown.join("; ")));
        }
        for ep in &entry_points.entry_points {
            if lowered.program.procedure_by_name(&ep.function).is_none() {
                problems.push(format!("{name}: entry point {} has no procedure", ep.function));
            }
        }
        if let Some(n) = lowered.stats.approximations.get("unsupported-construct") {
            let where_: Vec<String> = lowered
                .warnings
                .iter()
                .filter(|w| w.check == "unsupported-construct")
                .map(|w| format!("{} {}", w.span.as_ref().map(|s| s.to_string()).unwrap_or_default(), w.message))
                .collect();
            problems.push(format!("{name}: {n} unsupported constructs: {}", where_.join("; ")));
        }
    }
    assert!(lowered_count >= 25, "only {lowered_count} drivers lowered");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
