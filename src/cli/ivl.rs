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
        write_largest_regions(out, lowered, args.verbose)?;
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

/// The largest merged regions with their member count, and with `-v` the
/// merges that built each of them (reason, the two keys, where).
fn write_largest_regions(out: &mut impl Write, lowered: &Lowered, verbose: bool) -> io::Result<()> {
    let mut members: std::collections::BTreeMap<crate::ir::RegionId, usize> = std::collections::BTreeMap::new();
    for region in lowered.regions.values() {
        *members.entry(*region).or_default() += 1;
    }
    let mut largest: Vec<(crate::ir::RegionId, usize)> = members.into_iter().filter(|(_, n)| *n > 1).collect();
    largest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    writeln!(out, "  {:<28} {}", "merged regions", largest.len())?;
    writeln!(out, "  {:<28} {}", "region merges", lowered.merges.len())?;
    for (region, n) in largest.iter().take(10) {
        let name = &lowered.program.regions[*region].name;
        writeln!(out, "  region of {n} keys: {name}")?;
        if verbose {
            for m in &lowered.merges {
                if lowered.regions.get(&m.keys.0) == Some(region) {
                    writeln!(out, "    {} {} + {} at {}", m.reason.as_str(), m.keys.0.display(), m.keys.1.display(), m.site)?;
                }
            }
        }
    }
    Ok(())
}
