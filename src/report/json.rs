//! The JSON report of `check` (docs/output.md).

use super::model::{FileVerdicts, Status};
use crate::diagnostics::FileError;
use crate::frontend::entry_points::UnmodelledOps;
use crate::verify::verdict::{Verdict, totals};
use std::io::Write;
use std::path::PathBuf;

/// The composite module a file was analysed with, for the JSON report.
fn module_json(m: &crate::frontend::kbuild_module::KbuildModule) -> serde_json::Value {
    let paths = |v: &[PathBuf]| v.iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
    serde_json::json!({
        "name": m.name,
        "makefile": m.makefile.display().to_string(),
        "files": paths(&m.members),
        "left_out": m.left_out.iter().map(|(part, option)| serde_json::json!({ "part": part, "because": option })).collect::<Vec<_>>(),
        "assembly": paths(&m.assembly),
        "unknown": m.unknown,
    })
}

/// The JSON of the unmodelled structures of a file.
fn unmodelled_json(unmodelled: &[UnmodelledOps]) -> serde_json::Value {
    use serde_json::json;
    let items: Vec<serde_json::Value> = unmodelled
        .iter()
        .map(|u| {
            json!({
                "record": u.record,
                "fields": u.fields,
                "location": { "file": u.span.file.display().to_string(), "line": u.span.line, "column": u.span.column },
            })
        })
        .collect();
    json!(items)
}

/// Writes the JSON report: one document for the whole run.
pub fn write_json(
    out: &mut impl Write,
    results: &[FileVerdicts],
    errors: &[FileError],
    precise: Option<&crate::precise::Options>,
    applied: Option<&super::baseline::Applied>,
) -> std::io::Result<()> {
    use serde_json::{Value, json};
    let error = |e: &FileError| json!({ "file": e.path.display().to_string(), "class": e.class.as_str(), "message": e.message });
    let mut files = Vec::new();
    for r in results {
        match &r.outcome {
            Ok(pairs) => {
                let pairs_json: Vec<Value> = pairs
                    .iter()
                    .map(|p| {
                        let regions: Vec<Value> = p
                            .regions
                            .iter()
                            .map(|(name, v)| {
                                let mut region = region_json(name, v);
                                if let Some(x) = super::precise::region_json(&r.precise, p, name) {
                                    region["precise"] = x;
                                }
                                if let Some(fp) = r.race_fingerprint(p, name, v) {
                                    if applied.is_some() {
                                        region["baseline"] = json!(if r.suppressed.contains(&fp) { "unchanged" } else { "new" });
                                    }
                                    region["fingerprint"] = json!(fp);
                                }
                                region
                            })
                            .collect();
                        json!({ "first": p.first, "second": p.second, "regions": regions })
                    })
                    .collect();
                let t = totals(pairs);
                let mut file = json!({
                    "file": r.file.display().to_string(),
                    "status": r.status().as_str(),
                    "cached": r.cached,
                    "entry_points": r.entry_points,
                    "seconds": r.time.as_secs_f64(),
                    "memory_bytes": r.peak_memory,
                    "pairs": pairs_json,
                    "totals": {
                        "pairs": t.pairs, "proven": t.proven, "races": t.races, "unknown": t.unknown,
                        "unmodelled_ops": r.unmodelled.len(),
                    },
                    "unmodelled_ops": unmodelled_json(&r.unmodelled),
                    "lock_annotations": serde_json::to_value(&r.annotations).unwrap_or_default(),
                });
                if let Some(o) = precise {
                    file["precise"] = super::precise::file_json(&r.precise, o);
                }
                if let Some(m) = &r.module {
                    file["module"] = module_json(m);
                }
                files.push(file);
            }
            Err(e) => {
                // A file that is not a unit of compilation carries a note
                // naming its includer, not an error.
                let mut file = json!({
                    "file": r.file.display().to_string(),
                    "status": r.status().as_str(),
                    "cached": false,
                    "entry_points": 0,
                    "seconds": r.time.as_secs_f64(),
                    "memory_bytes": r.peak_memory,
                });
                if r.status() == Status::NotAUnit {
                    let at = e.span.as_ref().map(|s| json!({ "file": s.file.display().to_string(), "line": s.line }));
                    file["note"] = json!({ "class": e.class.as_str(), "message": e.message, "included_at": at });
                } else {
                    file["error"] = error(e);
                }
                files.push(file);
            }
        }
    }
    let mut doc = json!({
        "racewatch": env!("CARGO_PKG_VERSION"),
        "files": files,
        "errors": errors.iter().map(error).collect::<Vec<_>>(),
    });
    if let Some(a) = applied {
        doc["baseline"] = json!({ "new": a.new, "suppressed": a.suppressed, "gone": a.gone });
    }
    serde_json::to_writer_pretty(&mut *out, &doc).map_err(std::io::Error::other)?;
    writeln!(out)
}

/// The JSON of one region's lockset verdict.
fn region_json(name: &str, v: &Verdict) -> serde_json::Value {
    use serde_json::{Value, json};
    let span = |s: &Option<crate::diagnostics::Span>| match s {
        Some(s) => json!({ "file": s.file.display().to_string(), "line": s.line, "column": s.column }),
        None => Value::Null,
    };
    match v {
        Verdict::Proven => json!({ "region": name, "verdict": "proven" }),
        Verdict::Unknown(why) => json!({ "region": name, "verdict": "unknown", "reason": why }),
        Verdict::Race(accesses) => {
            let side = |a: &crate::verify::verdict::Access| {
                json!({
                    "entry_point": a.entry, "write": a.write, "atomic": a.atomic,
                    "function": a.function, "location": span(&a.span), "locks": a.locks,
                    "expression": a.expression,
                })
            };
            json!({
                "region": name, "verdict": "race", "name": crate::verify::identity::race_name(accesses),
                "accesses": [side(&accesses[0]), side(&accesses[1])],
            })
        }
    }
}
