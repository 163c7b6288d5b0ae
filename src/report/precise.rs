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
    let in_fn = if s.function == s.entry { String::new() } else { format!(" in {}", s.function) };
    format!("{who}{in_fn}: {}", event_text(s))
}

/// What a step did, in C terms: an access names its region and the
/// object it lies in (a global, an allocation or a local, with the
/// offset), never a raw address.
fn event_text(s: &WitnessStep) -> String {
    match s.event.as_str() {
        "read" | "write" => {
            let region = s.region.as_deref().unwrap_or("?");
            let global = region.strip_prefix("global ");
            let what = match (&s.object, s.address) {
                // A global's own region: the global, and where in it.
                (Some(o), _) if global.is_some_and(|g| o == g || o.starts_with(&format!("{g} + "))) => o.clone(),
                (Some(o), _) => format!("{region} in {o}"),
                (None, Some(a)) => format!("{region} at {a:#x}"),
                (None, None) => region.to_string(),
            };
            let value = match (&s.points_to, s.value) {
                (Some(o), _) => format!(" = &{o}"),
                (None, Some(v)) => format!(" = {}", value_text(v)),
                (None, None) => String::new(),
            };
            format!("{} {what}{value}", s.event)
        }
        "lock" | "unlock" | "trylock-failed" => format!("{} {}", s.event, s.region.as_deref().unwrap_or("?")),
        "switch" => "context switch".to_string(),
        "live" => "callbacks become live".to_string(),
        other => other.to_string(),
    }
}

/// A value as C would print it for a kernel type: a value that is a
/// small negative number in two's complement (the solver's integers wrap
/// at 64 bits) is shown signed, a large one in hexadecimal.
fn value_text(v: i128) -> String {
    let wrapped = if (1i128 << 63..1i128 << 64).contains(&v) { v - (1i128 << 64) } else { v };
    if wrapped.unsigned_abs() >= 1 << 16 { format!("{v:#x}") } else { wrapped.to_string() }
}

/// The width of the first thread's column in the text interleaving.
const COLUMN: usize = 64;

/// A step as the lines of its column: the C line it ran (unless the
/// step before it in that column ran the same line), then what it did.
fn cell(s: &WitnessStep, mark: &str, same_line: bool) -> Vec<String> {
    let at = s.span.as_ref().map(|span| format!("{}:{}", span.file.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(), span.line));
    let first = match (&at, &s.source) {
        (Some(at), Some(src)) => format!("r{} {at}  {src}", s.round),
        (Some(at), None) => format!("r{} {at}", s.round),
        (None, _) => format!("r{}", s.round),
    };
    let in_fn = if s.function == s.entry { String::new() } else { format!("({}) ", s.function) };
    let mut lines = if same_line { Vec::new() } else { vec![clip(&first)] };
    lines.extend(wrap(&format!("{in_fn}{}{mark}", event_text(s)), "   "));
    lines
}

/// Words wrapped into lines of the column, each after `indent`.
fn wrap(text: &str, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = indent.to_string();
    for word in text.split(' ') {
        if line.len() > indent.len() && line.chars().count() + 1 + word.chars().count() > COLUMN {
            lines.push(std::mem::replace(&mut line, format!("{indent}  ")));
        }
        if !line.ends_with(' ') {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines.into_iter().map(|l| clip(&l)).collect()
}

fn clip(text: &str) -> String {
    if text.chars().count() <= COLUMN { text.to_string() } else { format!("{}…", text.chars().take(COLUMN - 1).collect::<String>()) }
}

fn witness_notes(w: &Witness) -> Vec<(String, Option<crate::diagnostics::Span>)> {
    let mut notes = vec![(format!("racing access: {}", step_text(&w.access)), w.access.span.clone())];
    match &w.conflict {
        Some(c) => notes.push((format!("changed behind it by: {}", step_text(c)), c.span.clone())),
        None => notes.push(("changed behind it by the other thread".to_string(), None)),
    }
    notes.push(("witness interleaving (its key events, r = round; the JSON output has every step):".to_string(), None));
    let key = |s: &&WitnessStep| match s.event.as_str() {
        "read" | "write" => s.thread != 0 && s.region == w.access.region,
        "lock" | "unlock" | "trylock-failed" | "switch" | "live" => true,
        _ => false,
    };
    let names = |t: u8| w.steps.iter().find(|s| s.thread == t).map(|s| s.entry.clone()).unwrap_or_default();
    let mut header = false;
    let mut last: [Option<(u32, Option<(std::sync::Arc<std::path::Path>, u32)>)>; 3] = [None, None, None];
    for s in w.steps.iter().filter(key) {
        let t = usize::from(s.thread.min(2));
        let here = Some((s.round, s.span.as_ref().map(|span| (span.file.clone(), span.line))));
        let same_line = last[t] == here && s.span.is_some();
        last[t] = here;
        if s.thread == 0 {
            // Init's repeated events (a registration in a loop) once.
            if !same_line {
                notes.push((format!("  {}", step_text(s)), s.span.clone()));
            }
            continue;
        }
        if !header {
            let left = format!("thread 1 ({})", names(1));
            notes.push((format!("  {left:<COLUMN$} | thread 2 ({})", names(2)), None));
            header = true;
        }
        let mark = if *s == w.access {
            "  <- racing access"
        } else if w.conflict.as_ref() == Some(s) {
            "  <- changes it"
        } else {
            ""
        };
        for line in cell(s, mark, same_line) {
            let row = if s.thread == 1 { format!("  {line:<COLUMN$} |") } else { format!("  {:<COLUMN$} | {line}", "") };
            notes.push((row.trim_end().to_string(), None));
        }
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
        "address": s.address.map(|a| a.to_string()), "object": s.object, "points_to": s.points_to, "source": s.source,
        "value": s.value.map(|v| v.to_string()), "earlier": s.earlier,
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
