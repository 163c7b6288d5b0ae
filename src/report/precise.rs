//! The precise phase's results in the reports: merged into the lockset
//! diagnostics, the trailer line and the JSON.
//!
//! A race the precise phase confirms becomes an error carrying the
//! witness's key events as notes (accesses, lock operations, context
//! switches; the JSON has every step); a race it does not find stays the
//! lockset warning with a note saying within which bounds it was not
//! found and which bounds the search reached; an unknown says why.

use crate::diagnostics::{Diagnostic, Level};
use crate::precise::{self, PrecisePair, PreciseVerdict, Witness, WitnessStep};
use crate::verify::verdict::{PairVerdict, Verdict, race_diagnostic, unknown_diagnostic};
use serde_json::{Value, json};

/// Counts for the trailer.
#[derive(Clone, Copy, Debug, Default)]
pub struct PreciseTotals {
    /// Regions confirmed racy.
    pub confirmed: usize,
    /// Regions without a race within the bounds.
    pub not_found: usize,
    /// Regions the search could not decide.
    pub unknown: usize,
}

/// Counts a file's precise verdicts.
pub fn totals(precise: &[PrecisePair]) -> PreciseTotals {
    let mut t = PreciseTotals::default();
    for p in precise {
        for (_, v) in &p.regions {
            match v {
                PreciseVerdict::Confirmed(_) => t.confirmed += 1,
                PreciseVerdict::NotFound => t.not_found += 1,
                PreciseVerdict::Unknown(_) => t.unknown += 1,
            }
        }
    }
    t
}

/// The trailer line of a file: counts, bounds and the bounds reached.
pub fn trailer(precise: &[PrecisePair], options: &precise::Options) -> String {
    let t = totals(precise);
    let mut hits: Vec<&String> = precise.iter().flat_map(|p| p.hits.iter()).collect();
    hits.sort();
    hits.dedup();
    let reached = if hits.is_empty() {
        "no bound reached".to_string()
    } else {
        format!("bounds reached: {}", hits.iter().map(|h| h.as_str()).collect::<Vec<_>>().join("; "))
    };
    format!(
        "precise: {} confirmed, {} not found within bounds, {} unknown ({}; {reached})",
        t.confirmed,
        t.not_found,
        t.unknown,
        precise::bounds_text(options)
    )
}

/// The precise phase's result for a pair and region, with its pair.
pub fn find<'a>(precise: &'a [PrecisePair], pair: &PairVerdict, region: &str) -> Option<(&'a PrecisePair, &'a PreciseVerdict)> {
    let p = precise.iter().find(|p| p.first == pair.first && p.second == pair.second)?;
    p.regions.iter().find(|(r, _)| r == region).map(|(_, v)| (p, v))
}

/// One witness step in words: who (init or thread, entry point, round),
/// where (the function, when not the entry point) and what happened.
pub fn step_text(s: &WitnessStep) -> String {
    let who = if s.earlier {
        format!("earlier call {}", s.entry)
    } else if s.thread == 0 {
        format!("init {}", s.entry)
    } else {
        format!("thread {} ({}), round {}", s.thread, s.entry, s.round)
    };
    let what = match s.event.as_str() {
        "read" | "write" => format!(
            "{} {}{}{}",
            s.event,
            s.region.as_deref().unwrap_or("?"),
            s.address.map(|a| format!(" at {a:#x}")).unwrap_or_default(),
            s.value.map(|v| format!(" = {v}")).unwrap_or_default()
        ),
        "lock" | "unlock" | "trylock-failed" => format!("{} {}", s.event, s.region.as_deref().unwrap_or("?")),
        "switch" => "context switch".to_string(),
        "live" => "callbacks become live".to_string(),
        other => other.to_string(),
    };
    let in_fn = if s.function == s.entry { String::new() } else { format!(" in {}", s.function) };
    format!("{who}{in_fn}: {what}")
}

fn witness_notes(w: &Witness) -> Vec<(String, Option<crate::diagnostics::Span>)> {
    let mut notes = vec![(format!("racing access: {}", step_text(&w.access)), w.access.span.clone())];
    match &w.conflict {
        Some(c) => notes.push((format!("changed behind it by: {}", step_text(c)), c.span.clone())),
        None => notes.push(("changed behind it by the other thread".to_string(), None)),
    }
    notes.push(("witness interleaving (its key events; the JSON output has every step):".to_string(), None));
    let key = |s: &&WitnessStep| match s.event.as_str() {
        "read" | "write" => s.thread != 0 && s.region == w.access.region,
        "lock" | "unlock" | "trylock-failed" | "switch" | "live" => true,
        _ => false,
    };
    for s in w.steps.iter().filter(key) {
        notes.push((format!("  {}", step_text(s)), s.span.clone()));
    }
    notes
}

/// The diagnostics of a driver with its precise verdicts: confirmed races
/// are errors with their witness, the rest keep their lockset level with a
/// note on the precise search.
pub fn diagnostics(pairs: &[PairVerdict], precise: &[PrecisePair], options: &precise::Options) -> Vec<Diagnostic> {
    let bounds = precise::bounds_text(options);
    let mut out = Vec::new();
    for pair in pairs {
        for (region, verdict) in &pair.regions {
            let mut d = match verdict {
                Verdict::Proven => continue,
                Verdict::Race(accesses) => race_diagnostic(region, accesses),
                Verdict::Unknown(why) => unknown_diagnostic(pair, region, why),
            };
            match find(precise, pair, region) {
                Some((_, PreciseVerdict::Confirmed(w))) => {
                    d.level = Level::Error;
                    let subject = match verdict {
                        Verdict::Race(accesses) => crate::verify::verdict::race_subject(region, accesses),
                        Verdict::Proven | Verdict::Unknown(_) => region.clone(),
                    };
                    d.message = format!("data race on {subject} between {} and {}, confirmed", pair.first, pair.second);
                    d.span = w.access.span.clone().or(d.span);
                    d.notes = witness_notes(w);
                    d.notes.push((format!("found within {bounds}"), None));
                }
                Some((p, PreciseVerdict::NotFound)) => {
                    let reached = if p.hits.is_empty() { "no bound reached".to_string() } else { format!("reached: {}", p.hits.join("; ")) };
                    d.notes.push((format!("the precise phase found no race within {bounds} ({reached})"), None));
                }
                Some((_, PreciseVerdict::Unknown(why))) => d.notes.push((format!("the precise phase could not decide: {why}"), None)),
                None => {}
            }
            out.push(d);
        }
    }
    out
}

fn span_json(s: &Option<crate::diagnostics::Span>) -> Value {
    match s {
        Some(s) => json!({ "file": s.file.display().to_string(), "line": s.line, "column": s.column }),
        None => Value::Null,
    }
}

fn step_json(s: &WitnessStep) -> Value {
    json!({
        "thread": s.thread, "entry_point": s.entry, "round": s.round, "function": s.function,
        "location": span_json(&s.span), "event": s.event, "region": s.region,
        "address": s.address.map(|a| a.to_string()), "value": s.value.map(|v| v.to_string()),
    })
}

/// The `precise` member of a region's JSON, when the precise phase ran on it.
pub fn region_json(precise: &[PrecisePair], pair: &PairVerdict, region: &str) -> Option<Value> {
    let (p, v) = find(precise, pair, region)?;
    let mut out = json!({ "verdict": v.as_str(), "bounds_reached": p.hits });
    match v {
        PreciseVerdict::Confirmed(w) => {
            out["witness"] = json!({
                "access": step_json(&w.access),
                "conflict": w.conflict.as_ref().map(step_json),
                "steps": w.steps.iter().map(step_json).collect::<Vec<_>>(),
            });
        }
        PreciseVerdict::NotFound => {}
        PreciseVerdict::Unknown(why) => out["reason"] = json!(why),
    }
    Some(out)
}

/// The `precise` member of a file's JSON: bounds, counts, yields, time.
pub fn file_json(precise: &[PrecisePair], options: &precise::Options) -> Value {
    let t = totals(precise);
    json!({
        "bounds": { "k": options.k, "unroll": options.unroll, "init_unroll": options.main_unroll.max(options.unroll),
                    "inline_depth": options.inline_depth,
                    "yields": options.yields.as_str(), "strict": options.strict },
        "confirmed": t.confirmed, "not_found": t.not_found, "unknown": t.unknown,
        "pairs": precise.iter().map(|p| json!({
            "first": p.first, "second": p.second, "yields": p.yields,
            "seconds": p.time.as_secs_f64(), "bounds_reached": p.hits,
        })).collect::<Vec<_>>(),
    })
}
