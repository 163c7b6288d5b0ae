//! The text report of `check`: clang-style diagnostics and a verdict line
//! per file.

use super::model::FileVerdicts;
use crate::diagnostics::{render_diagnostic, render_file_error};
use crate::frontend::entry_points::UnmodelledOps;
use crate::verify::verdict::{diagnostics, totals};
use std::io::Write;
use std::path::PathBuf;

/// Writes the text report: each file's diagnostics and verdict lines.
pub fn write_text(out: &mut impl Write, results: &[FileVerdicts], precise: Option<&crate::precise::Options>) -> std::io::Result<()> {
    for r in results {
        let pairs = match &r.outcome {
            Ok(pairs) => pairs,
            Err(e) if e.class == crate::diagnostics::ErrorClass::NotAUnit => {
                writeln!(out, "{}", render_file_error(e))?;
                continue;
            }
            Err(_) => continue,
        };
        // Callbacks the models do not know are said first, and the
        // verdict line says that its proof excludes them.
        for u in &r.unmodelled {
            writeln!(out, "{}", render_diagnostic(&u.diagnostic()))?;
        }
        for a in &r.annotations {
            writeln!(out, "{}", render_diagnostic(&a.diagnostic()))?;
        }
        if r.entry_points == 0 {
            if r.unmodelled.is_empty() {
                writeln!(out, "{}: no entry points: nothing in it is called by the kernel, so nothing to verify", r.file.display())?;
            } else {
                writeln!(out, "{}: no entry points the kernel models know, so nothing verified{}", r.file.display(), exclusion(&r.unmodelled))?;
            }
            if let Some(phrase) = r.module_phrase() {
                writeln!(out, "{}: {phrase}: {}", r.file.display(), module_files(r))?;
            }
            continue;
        }
        // The races a --baseline report has are not shown.
        let shown;
        let listed = if r.suppressed.is_empty() {
            pairs
        } else {
            shown = r.shown_pairs();
            &shown
        };
        let found = match precise {
            Some(p) => super::precise::diagnostics(listed, &r.precise, p),
            None => diagnostics(listed),
        };
        for d in found {
            writeln!(out, "{}", render_diagnostic(&d))?;
        }
        let in_baseline = if r.suppressed.is_empty() { String::new() } else { format!(" ({} in the baseline, not shown)", r.suppressed.len()) };
        writeln!(out, "{}: {}{in_baseline}{}", r.file.display(), totals(pairs), exclusion(&r.unmodelled))?;
        if let Some(phrase) = r.module_phrase() {
            writeln!(out, "{}: {phrase}: {}", r.file.display(), module_files(r))?;
        }
        if let Some(p) = precise {
            writeln!(out, "{}: {}", r.file.display(), super::precise::trailer(&r.precise, p))?;
        }
    }
    Ok(())
}

/// The files of a file's module and what it left out, for the text
/// report.
fn module_files(r: &FileVerdicts) -> String {
    let Some(m) = &r.module else { return String::new() };
    let name = |p: &PathBuf| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut s = m.members.iter().map(name).collect::<Vec<_>>().join(", ");
    for (part, why) in &m.left_out {
        s.push_str(&format!("; {part} left out ({why})"));
    }
    for a in &m.assembly {
        s.push_str(&format!("; {} is assembly, not analysed", name(a)));
    }
    for u in &m.unknown {
        s.push_str(&format!("; part {u} not understood"));
    }
    s
}

/// What a file's verdicts do not cover, as a clause of its verdict line:
/// empty when every structure holding its functions is modelled.
pub fn exclusion(unmodelled: &[UnmodelledOps]) -> String {
    if unmodelled.is_empty() {
        return String::new();
    }
    let names: Vec<String> = unmodelled.iter().map(|u| format!("struct {}", u.record)).collect();
    format!(
        "; the proof excludes the callbacks in {} unmodelled kernel structure{} ({}) [unmodelled-ops]",
        unmodelled.len(),
        if unmodelled.len() == 1 { "" } else { "s" },
        names.join(", ")
    )
}
