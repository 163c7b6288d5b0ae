//! Text output of the entry-point and pairs commands.

use crate::analyses::pairs::Pairs;
use crate::diagnostics::render_diagnostic;
use crate::frontend::entry_points::DriverEntryPoints;
use crate::pipeline::FileResult;
use std::io::{self, Write};

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One block per analysed file: a heading, then a row per registration.
pub fn write_entry_points(out: &mut impl Write, results: &[FileResult]) -> io::Result<()> {
    for r in results {
        let Ok(d) = &r.outcome else { continue };
        write_heading(out, r, d)?;
        let mut rows: Vec<[String; 5]> = Vec::new();
        for ep in &d.entry_points {
            for o in &ep.origins {
                let holder = o.holder.as_ref().map(|h| format!(" ({h})")).unwrap_or_default();
                rows.push([
                    String::new(),
                    ep.function.clone(),
                    o.kind.as_str().into(),
                    format!("{}{holder}", o.via),
                    format!("{}:{}", ep.span.line, ep.span.column),
                ]);
            }
        }
        for x in &d.externals {
            let holder = x.origin.holder.as_ref().map(|h| format!(" ({h})")).unwrap_or_default();
            rows.push([
                "external".into(),
                x.function.clone(),
                x.origin.kind.as_str().into(),
                format!("{}{holder}", x.origin.via),
                format!("{}:{}", x.origin.span.line, x.origin.span.column),
            ]);
        }
        write_table(out, &rows)?;
        for w in &d.warnings {
            writeln!(out, "{}", render_diagnostic(w))?;
        }
    }
    Ok(())
}

fn write_heading(out: &mut impl Write, r: &FileResult, d: &DriverEntryPoints) -> io::Result<()> {
    let mut heading = format!("{}: {}", r.file.display(), plural(d.entry_points.len(), "entry point", "entry points"));
    if !d.externals.is_empty() {
        heading.push_str(&format!(", {}", plural(d.externals.len(), "external callback", "external callbacks")));
    }
    match d.init_entry_point() {
        Some(init) => heading.push_str(&format!(", init {}", init.function)),
        None if d.entry_points.is_empty() => {}
        None => heading.push_str(", no init entry point"),
    }
    if !d.warnings.is_empty() {
        heading.push_str(&format!(", {}", plural(d.warnings.len(), "warning", "warnings")));
    }
    writeln!(out, "{heading}")
}

/// Left-aligned columns, two spaces apart, indented by two.
fn write_table<const N: usize>(out: &mut impl Write, rows: &[[String; N]]) -> io::Result<()> {
    let mut widths = [0usize; N];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    for row in rows {
        let mut line = String::from(" ");
        for (i, (w, cell)) in widths.iter().zip(row).enumerate() {
            if *w == 0 {
                continue;
            }
            line.push(' ');
            if i + 1 == N { line.push_str(cell) } else { line.push_str(&format!("{cell:<w$} ", w = *w)) }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// One block per file: a heading counting the kept and the removed pairs, a
/// row per kept pair, and with `verbose` a row per removed pair with the
/// rules that removed it.
pub fn write_pairs(
    out: &mut impl Write,
    results: &[FileResult],
    pairs: &[Option<(&DriverEntryPoints, Pairs<'_>)>],
    verbose: bool,
) -> io::Result<()> {
    for (r, p) in results.iter().zip(pairs) {
        let Some((d, pairs)) = p else { continue };
        writeln!(
            out,
            "{}: {}, {} kept, {} removed by kernel serialisation",
            r.file.display(),
            plural(d.entry_points.len(), "entry point", "entry points"),
            plural(pairs.kept.len(), "pair", "pairs"),
            pairs.removed.len(),
        )?;
        let name = |i: usize| d.entry_points[i].function.clone();
        let rows: Vec<[String; 2]> = pairs.kept.iter().map(|p| [name(p.first), name(p.second)]).collect();
        write_table(out, &rows)?;
        if verbose && !pairs.removed.is_empty() {
            writeln!(out, "  removed (pair, rules):")?;
            let rows: Vec<[String; 3]> = pairs
                .removed
                .iter()
                .map(|x| {
                    let rules: Vec<&str> = x.rules.iter().map(|r| r.name.as_str()).collect();
                    [name(x.pair.first), name(x.pair.second), rules.join(", ")]
                })
                .collect();
            write_table(out, &rows)?;
        }
    }
    Ok(())
}

/// Per-file parse and extraction times, and their ratio.
pub fn write_timings(out: &mut impl Write, results: &[FileResult]) {
    let _ = writeln!(out, "timings: file, parse ms, extract ms, extract/parse");
    for r in results {
        let parse = r.timings.parse.as_secs_f64() * 1e3;
        let extract = r.timings.extract.as_secs_f64() * 1e3;
        let ratio = if parse > 0.0 { extract / parse } else { 0.0 };
        let _ = writeln!(out, "timing {} {parse:.2} {extract:.2} {ratio:.4}", r.file.display());
    }
}
