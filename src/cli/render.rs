//! Text output of the entry-point and pairs commands.

use crate::analyses::pairs::Pair;
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

/// One block per file: a heading and a row per pair.
pub fn write_pairs(
    out: &mut impl Write,
    results: &[FileResult],
    pairs: &[Option<(&DriverEntryPoints, Vec<Pair>)>],
) -> io::Result<()> {
    for (r, p) in results.iter().zip(pairs) {
        let Some((d, pairs)) = p else { continue };
        let excluded = d.entry_points.iter().filter(|e| e.role() == crate::models::Role::Exit).count();
        writeln!(
            out,
            "{}: {} of {}{}",
            r.file.display(),
            plural(pairs.len(), "pair", "pairs"),
            plural(d.entry_points.len(), "entry point", "entry points"),
            if excluded > 0 { format!(" ({} excluded as exit)", excluded) } else { String::new() }
        )?;
        let rows: Vec<[String; 2]> = pairs
            .iter()
            .map(|p| [d.entry_points[p.first].function.clone(), d.entry_points[p.second].function.clone()])
            .collect();
        write_table(out, &rows)?;
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
