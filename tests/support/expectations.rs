//! The expectation format of docs/expectations.md: parsing directives and
//! comparing them with what racewatch found.
//!
//! A missing expected finding and an unexpected one both fail; a directive
//! the runner does not know fails too, so nothing is silently ignored.

use racewatch::diagnostics::{ErrorClass, FileError};
use racewatch::frontend::entry_points::DriverEntryPoints;
use std::collections::BTreeSet;
use std::path::Path;

/// What one file's directives expect.
#[derive(Debug, Default)]
pub struct Expectations {
    /// `(function, kind, via)` of `@expect entry-point`.
    pub entry_points: BTreeSet<(String, String, String)>,
    /// `(function, kind, via)` of `@expect external`.
    pub externals: BTreeSet<(String, String, String)>,
    /// `@expect init`.
    pub init: Option<String>,
    /// `@expect no-entry-points`.
    pub none: bool,
    /// `@expect error CLASS "TEXT"`.
    pub error: Option<(String, String)>,
    /// Directives of later stages, kept for their runners:
    /// (directive, words).
    pub later: Vec<(String, Vec<String>)>,
}

/// Directives that later stages check; accepted here, checked there.
const LATER: &[&str] = &["race", "proven", "confirmed", "confirmed-strict", "not-found", "unconfirmed", "annotation-violated"];

/// Parses the directives of a C file (`// @expect …`) or of a sidecar file
/// (`@expect …` lines, `#` comments).
pub fn parse(text: &str, sidecar: bool) -> Result<Expectations, String> {
    let mut e = Expectations::default();
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        let trimmed = line.trim_start();
        let body = if sidecar {
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            trimmed
        } else {
            match line.find("//") {
                Some(i) if line[i + 2..].trim_start().starts_with("@expect") => line[i + 2..].trim_start(),
                _ => {
                    if line.contains("@expect") {
                        return Err(format!("line {line_no}: @expect outside a // comment"));
                    }
                    continue;
                }
            }
        };
        let Some(rest) = body.strip_prefix("@expect") else {
            return Err(format!("line {line_no}: not a directive: {body}"));
        };
        let words = shlex::split(rest).ok_or_else(|| format!("line {line_no}: unbalanced quotes"))?;
        let bad = |what: &str| format!("line {line_no}: {what}: {}", body.trim());
        match words.first().map(String::as_str) {
            Some(d @ ("entry-point" | "external")) => {
                let [_, f, k, v] = words.as_slice() else { return Err(bad("expected FUNCTION KIND VIA")) };
                if racewatch::models::EntryKind::parse(k).is_none() {
                    return Err(bad("unknown kind"));
                }
                let set = if d == "entry-point" { &mut e.entry_points } else { &mut e.externals };
                if !set.insert((f.clone(), k.clone(), v.clone())) {
                    return Err(bad("duplicate directive"));
                }
            }
            Some("init") => {
                let [_, f] = words.as_slice() else { return Err(bad("expected FUNCTION")) };
                if e.init.replace(f.clone()).is_some() {
                    return Err(bad("second init"));
                }
            }
            Some("no-entry-points") if words.len() == 1 => e.none = true,
            Some("error") => {
                let [_, class, text] = words.as_slice() else { return Err(bad("expected CLASS \"TEXT\"")) };
                if !ErrorClass::ALL.iter().any(|c| c.as_str() == class) {
                    return Err(bad("unknown error class"));
                }
                e.error = Some((class.clone(), text.clone()));
            }
            Some(d) if LATER.contains(&d) => e.later.push((d.to_string(), words[1..].to_vec())),
            _ => return Err(bad("unknown directive")),
        }
    }
    let has_findings = !e.entry_points.is_empty() || !e.externals.is_empty() || e.init.is_some();
    if e.error.is_some() && (has_findings || e.none) {
        return Err("an `error` expectation excludes all others".into());
    }
    if e.none && has_findings {
        return Err("`no-entry-points` contradicts other directives".into());
    }
    if e.error.is_none() && !e.none && !has_findings {
        return Err("no expectation: say `@expect no-entry-points` if there are none".into());
    }
    Ok(e)
}

fn triples(d: &DriverEntryPoints) -> (BTreeSet<(String, String, String)>, BTreeSet<(String, String, String)>) {
    let eps = d
        .entry_points
        .iter()
        .flat_map(|ep| ep.origins.iter().map(|o| (ep.function.clone(), o.kind.as_str().to_string(), o.via.to_string())))
        .collect();
    let ext = d
        .externals
        .iter()
        .map(|x| (x.function.clone(), x.origin.kind.as_str().to_string(), x.origin.via.to_string()))
        .collect();
    (eps, ext)
}

/// Compares an outcome with the expectations; returns one message per
/// difference.
pub fn check(file: &Path, e: &Expectations, outcome: &Result<DriverEntryPoints, FileError>) -> Vec<String> {
    let mut problems = Vec::new();
    let name = file.display();
    match (&e.error, outcome) {
        (Some((class, text)), Err(err)) => {
            let rendered = err.to_string();
            if err.class.as_str() != class || !rendered.contains(text.as_str()) {
                problems.push(format!("{name}: expected error {class} containing {text:?}, got: {rendered}"));
            }
        }
        (Some((class, text)), Ok(_)) => {
            problems.push(format!("{name}: expected error {class} containing {text:?}, but the file was analysed"));
        }
        (None, Err(err)) => problems.push(format!("{name}: unexpected error: {err}")),
        (None, Ok(d)) => {
            let (eps, ext) = triples(d);
            for (what, expected, found) in [("entry point", &e.entry_points, &eps), ("external", &e.externals, &ext)] {
                for m in expected.difference(found) {
                    problems.push(format!("{name}: missing {what}: {} {} {}", m.0, m.1, m.2));
                }
                for u in found.difference(expected) {
                    problems.push(format!("{name}: unexpected {what}: {} {} {}", u.0, u.1, u.2));
                }
            }
            let init = d.init_entry_point().map(|ep| ep.function.clone());
            if init != e.init {
                problems.push(format!("{name}: init is {init:?}, expected {:?}", e.init));
            }
        }
    }
    problems
}
