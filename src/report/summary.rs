//! The summary table that ends a text report over several files: one row
//! per file (status, entry points, pairs, proven, races, unknown, kernel
//! structures holding driver functions that no model describes and whose
//! callbacks every verdict of the file therefore excludes, time, memory),
//! then the totals and how many files ended each way, with the
//! error classes counted.

use super::model::{FileVerdicts, Status};
use crate::diagnostics::FileError;
use crate::verify::verdict::totals;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes the table for `results` and the path `errors`.
pub fn write_table(out: &mut impl Write, results: &[FileVerdicts], errors: &[FileError]) -> std::io::Result<()> {
    let prefix = common_dir(results.iter().map(|r| r.file.as_path()));
    let name = |p: &Path| p.strip_prefix(&prefix).unwrap_or(p).display().to_string();
    let width = results.iter().map(|r| name(&r.file).len()).max().unwrap_or(4).max(4);
    writeln!(out)?;
    if !prefix.as_os_str().is_empty() {
        writeln!(out, "summary (files under {}):", prefix.display())?;
    } else {
        writeln!(out, "summary:")?;
    }
    writeln!(
        out,
        "{:<width$}  {:<15}  {:>6}  {:>6}  {:>6}  {:>6}  {:>7}  {:>10}  {:>8}  {:>7}",
        "file", "status", "entry", "pairs", "proven", "races", "unknown", "unmodelled", "time", "memory"
    )?;
    let mut sum = [0usize; 6];
    let mut statuses: BTreeMap<&str, usize> = BTreeMap::new();
    let mut classes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut cached = 0;
    for r in results {
        let status = r.status();
        *statuses.entry(status.as_str()).or_default() += 1;
        if let Some(e) = r.outcome.as_ref().err().filter(|_| status != Status::NotAUnit) {
            *classes.entry(e.class.as_str()).or_default() += 1;
        }
        cached += usize::from(r.cached);
        let t = r.outcome.as_ref().map(|p| totals(p)).unwrap_or_default();
        for (s, v) in sum.iter_mut().zip([r.entry_points, t.pairs, t.proven, t.races, t.unknown, r.unmodelled.len()]) {
            *s += v;
        }
        let cell = |v: usize| if status == Status::Verified || status == Status::NoEntryPoints { v.to_string() } else { "-".to_string() };
        let memory = r.peak_memory.map_or("-".to_string(), |b| format!("{} MiB", b >> 20));
        let time = if r.cached { "cached".to_string() } else { format!("{:.1} s", r.time.as_secs_f64()) };
        writeln!(
            out,
            "{:<width$}  {:<15}  {:>6}  {:>6}  {:>6}  {:>6}  {:>7}  {:>10}  {:>8}  {:>7}",
            name(&r.file),
            status.as_str(),
            cell(r.entry_points),
            cell(t.pairs),
            cell(t.proven),
            cell(t.races),
            cell(t.unknown),
            cell(r.unmodelled.len()),
            time,
            memory
        )?;
    }
    writeln!(
        out,
        "total: {} files, {} entry points, {} pairs: {} proven, {} potential races, {} unknown; {} unmodelled callback structures (their callbacks excluded from every proof)",
        results.len(),
        sum[0],
        sum[1],
        sum[2],
        sum[3],
        sum[4],
        sum[5]
    )?;
    let ended: Vec<String> = statuses.iter().map(|(s, n)| format!("{n} {s}")).collect();
    write!(out, "files: {}", ended.join(", "))?;
    if cached > 0 {
        write!(out, " ({cached} from the cache)")?;
    }
    writeln!(out)?;
    for e in errors {
        *classes.entry(e.class.as_str()).or_default() += 1;
    }
    if !classes.is_empty() {
        let reasons: Vec<String> = classes.iter().map(|(c, n)| format!("{n} {c}")).collect();
        writeln!(out, "not verified, by reason: {}", reasons.join(", "))?;
    }
    Ok(())
}

/// The deepest directory holding every path.
fn common_dir<'a>(mut paths: impl Iterator<Item = &'a Path>) -> PathBuf {
    let Some(first) = paths.next() else { return PathBuf::new() };
    let mut common: PathBuf = first.parent().map(Path::to_path_buf).unwrap_or_default();
    for p in paths {
        while !p.starts_with(&common) {
            if !common.pop() {
                return PathBuf::new();
            }
        }
    }
    common
}
