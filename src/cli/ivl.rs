//! Output of `racewatch ivl`: the lowered program, one procedure, or the
//! lowering's counts; approximation warnings go to stderr.

use super::args::IvlArgs;
use crate::diagnostics::render_diagnostic;
use crate::frontend::lower::Lowered;
use std::io::{self, Write};
use std::path::Path;

/// Writes what `racewatch ivl` asked for about one lowered file.
pub fn write(out: &mut impl Write, file: &Path, lowered: &Lowered, args: &IvlArgs) -> io::Result<()> {
    let program = &lowered.program;
    if args.stats {
        writeln!(out, "{}:", file.display())?;
        for (name, n) in lowered.stats.rows() {
            writeln!(out, "  {name:<28} {n}")?;
        }
        writeln!(out, "  {:<28} {}", "procedures", program.procedures.len())?;
        writeln!(out, "  {:<28} {}", "regions", program.regions.len())?;
        writeln!(out, "  {:<28} {}", "lock identities", program.locks.len())?;
    } else if let Some(name) = &args.function {
        match program.procedure_by_name(name) {
            Some(id) => writeln!(out, "{}", program.display_procedure(id))?,
            None => writeln!(out, "// {}: no lowered function named {name}", file.display())?,
        }
    } else {
        write!(out, "// {}\n{program}", file.display())?;
    }
    let mut err = io::stderr().lock();
    if args.verbose {
        for w in &lowered.warnings {
            writeln!(err, "{}", render_diagnostic(w))?;
        }
    }
    let counted: usize = lowered.stats.approximations.values().sum();
    if counted > 0 {
        let kinds: Vec<String> = lowered.stats.approximations.iter().map(|(k, n)| format!("{n} {k}")).collect();
        writeln!(err, "{}: {counted} approximations ({})", file.display(), kinds.join(", "))?;
    }
    Ok(())
}
