//! `racewatch check --format sarif`: the run as one SARIF 2.1.0 log
//! (docs/output.md, "SARIF"), for GitHub code scanning and other SARIF
//! viewers.
//!
//! One `result` per potential race, that is per pair of entry points and
//! region with a race verdict, under the rule `data-race` (the check id
//! of the text output): level `warning` for a potential race, `error`
//! when the precise phase confirmed it. A race keeps its rule whatever the
//! precise phase says, so an alert keeps its identity when a later run
//! confirms it. `locations` holds one location, the first access (the
//! racing access of the witness when confirmed): the specification allows
//! several only for a problem that must be fixed at every one of them,
//! and GitHub reads only the first. Both accesses are `relatedLocations`
//! with ids, linked from the message (`[write by entry point f](1)`),
//! which is how GitHub shows them. A confirmed race carries its witness as
//! `codeFlows[0]`: one thread flow per thread (init, thread 1, thread 2),
//! each step a thread flow location with a global `executionOrder`.
//!
//! A kernel structure holding driver functions that no model describes is
//! a `result` of the rule `unmodelled-ops` (level `warning`, at the
//! initialiser or assignment storing the first function): its callbacks are
//! not entry points, so no verdict of the file covers them, and the result
//! says so where a code-scanning user looks for findings.
//!
//! What is not a finding goes to `invocations[0].toolExecutionNotifications`:
//! each region left unknown (descriptor `unknown`) and each file or path
//! that could not be analysed (descriptor `file-error`, the error class in
//! the message and in `properties.class`; level `note` for a file that is
//! not a unit of compilation, `not-a-unit`). The invocation is successful:
//! racewatch ran to its end, and such files are its findings' limits.
//!
//! Paths relative to the working directory (and absolute paths below it)
//! become URIs relative to `%SRCROOT%`, which `originalUriBaseIds` sets to
//! the working directory; other paths (kernel headers) become `file:` URIs.

use super::model::FileVerdicts;
use super::precise::{find, step_text};
use crate::diagnostics::{FileError, Span};
use crate::frontend::entry_points::UnmodelledOps;
use crate::precise::{self, PrecisePair, PreciseVerdict, Witness, WitnessStep};
use crate::verify::verdict::{Access, PairVerdict, Verdict};
use serde_json::{Value, json};
use std::io::{self, Write};
use std::path::Path;

/// The `$schema` of the log: the `$id` of the official SARIF 2.1.0 schema.
pub const SCHEMA_URI: &str = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json";

/// The rule of every race, the check id of the text output.
const RACE_RULE: &str = "data-race";

/// The rule of a callback structure no model describes, with its index.
const UNMODELLED_RULE: (&str, usize) = ("unmodelled-ops", 1);
const ANNOTATION_RULE: (&str, usize) = ("lock-annotation", 2);

/// The notification descriptors, in the order of `tool.driver.notifications`.
const UNKNOWN_NOTIFICATION: (&str, usize) = ("unknown", 0);
const FILE_ERROR_NOTIFICATION: (&str, usize) = ("file-error", 1);

/// The base id of relative URIs.
const SRCROOT: &str = "%SRCROOT%";

/// Writes the SARIF log of a run, relative to the working directory.
pub fn write(
    out: &mut impl Write,
    results: &[FileVerdicts],
    errors: &[FileError],
    precise: Option<&precise::Options>,
    baseline: bool,
) -> io::Result<()> {
    let root = std::env::current_dir().ok();
    let log = document(results, errors, precise, root.as_deref(), baseline);
    serde_json::to_writer_pretty(&mut *out, &log).map_err(io::Error::other)?;
    writeln!(out)
}

/// The SARIF log of a run; relative paths are relative to `root`; with
/// `baseline`, each race says whether the baseline had it
/// (`baselineState`).
pub fn document(results: &[FileVerdicts], errors: &[FileError], precise: Option<&precise::Options>, root: Option<&Path>, baseline: bool) -> Value {
    let paths = Paths { root };
    let mut sarif_results = Vec::new();
    let mut notifications: Vec<Value> = errors.iter().map(|e| paths.error_notification(e)).collect();
    for r in results {
        let pairs = match &r.outcome {
            Ok(pairs) => pairs,
            Err(e) => {
                notifications.push(paths.error_notification(e));
                continue;
            }
        };
        for u in &r.unmodelled {
            sarif_results.push(paths.unmodelled_result(&r.file, u));
        }
        for a in &r.annotations {
            sarif_results.push(paths.annotation_result(&r.file, a));
        }
        for pair in pairs {
            for (region, verdict) in &pair.regions {
                let found = precise.and_then(|_| find(&r.precise, pair, region));
                let fingerprint = r.race_fingerprint(pair, region, verdict);
                let state = fingerprint.as_ref().filter(|_| baseline).map(|fp| if r.suppressed.contains(fp) { "unchanged" } else { "new" });
                let race = Race { file: &r.file, pair, region, found, bounds: precise.map(precise::bounds_text), fingerprint, state };
                match verdict {
                    Verdict::Proven => {}
                    Verdict::Race(accesses) => sarif_results.push(with_module(paths.race_result(&race, Some(accesses)), r)),
                    Verdict::Unknown(_) if race.confirmed().is_some() => sarif_results.push(with_module(paths.race_result(&race, None), r)),
                    Verdict::Unknown(why) => notifications.push(paths.unknown_notification(&race, why)),
                }
            }
        }
    }
    let mut run = json!({
        "tool": { "driver": driver() },
        "invocations": [{ "executionSuccessful": true, "toolExecutionNotifications": notifications }],
        "columnKind": "unicodeCodePoints",
        "results": sarif_results,
    });
    if let Some(root) = root.and_then(directory_uri) {
        run["originalUriBaseIds"] = json!({ SRCROOT: { "uri": root, "description": { "text": "The working directory of the run." } } });
    }
    if let Some(o) = precise {
        run["properties"] = json!({ "precise": {
            "k": o.k, "unroll": o.unroll, "initUnroll": o.main_unroll.max(o.unroll), "inlineDepth": o.inline_depth, "yields": o.yields.as_str(), "strict": o.strict,
        } });
    }
    json!({ "$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run] })
}

/// `tool.driver`: racewatch, its version, the rule and the notifications.
fn driver() -> Value {
    json!({
        "name": "racewatch",
        "version": env!("CARGO_PKG_VERSION"),
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "rules": [{
            "id": RACE_RULE,
            "name": "DataRace",
            "shortDescription": { "text": "Two entry points of a driver may access the same memory concurrently, at least one writing, without a common lock." },
            "fullDescription": { "text": "racewatch could not prove this pair of concurrently callable entry points race-free on this memory region with its symbolic lockset analysis: the two accesses shown may run at the same time, at least one of them writes, they are not both atomic, and no lock is held at both. With --precise, a bounded search over the real interleavings confirms the race with a witness (level error) or finds none within its bounds (the result stays a warning)." },
            "help": { "text": "Hold a common lock at both accesses, make them atomic, or make sure the two entry points cannot run concurrently (if the kernel serialises them, a serialisation rule in kernel-models/serialisation/ tells racewatch so)." },
            "defaultConfiguration": { "level": "warning" },
            "properties": { "tags": ["concurrency", "data-race"] },
        }, {
            "id": UNMODELLED_RULE.0,
            "name": "UnmodelledCallbackStructure",
            "shortDescription": { "text": "Driver functions are stored in a kernel structure racewatch has no model of: they are not entry points, and no verdict of the file covers them." },
            "fullDescription": { "text": "racewatch finds the functions the kernel calls through the callback structures and registration functions described in kernel-models/. This structure is declared outside the driver's directory and holds functions of the driver, but no model describes it, so its callbacks are not entry points: races between them and the rest of the driver are not checked, and 'proven' for this file excludes them." },
            "help": { "text": "Add the structure to kernel-models/entry-points/ (an ops-struct with the kinds of its fields and the kernel mechanism as reason) if the kernel calls these functions." },
            "defaultConfiguration": { "level": "warning" },
            "properties": { "tags": ["soundness", "unmodelled-ops"] },
        }, {
            "id": ANNOTATION_RULE.0,
            "name": "LockAnnotation",
            "shortDescription": { "text": "A function says a lock is held (lockdep_assert_held, __must_hold, ASSERT_RTNL), but a call reaches it without the lock; or racewatch assumes the kernel's caller holds it." },
            "fullDescription": { "text": "racewatch checks the kernel's held-lock annotations at every path that reaches them and assumes only the ones that hold. A violation (level warning) names the call that reaches the annotated function without the lock; the annotation is then not assumed. On an entry point the kernel calls, only the kernel's caller can establish the lock: racewatch takes the annotation as given (level note), the guarantee being lockdep's check on every call in debug kernels." },
            "help": { "text": "Take the lock before the call, or correct the annotation." },
            "defaultConfiguration": { "level": "warning" },
            "properties": { "tags": ["concurrency", "locking", "lock-annotation"] },
        }],
        "notifications": [
            { "id": UNKNOWN_NOTIFICATION.0, "shortDescription": { "text": "A pair of entry points could not be proven race-free on a region, nor shown to race (a solver timeout, an unsupported construct)." } },
            { "id": FILE_ERROR_NOTIFICATION.0, "shortDescription": { "text": "A file or path could not be analysed; the class says why." } },
        ],
    })
}

/// One pair and region reported, with the precise phase's verdict on it.
struct Race<'a> {
    file: &'a Path,
    pair: &'a PairVerdict,
    region: &'a str,
    found: Option<(&'a PrecisePair, &'a PreciseVerdict)>,
    /// The precise phase's bounds, when it ran.
    bounds: Option<String>,
    /// Its fingerprint (`racewatch/v1`), when it is a race.
    fingerprint: Option<String>,
    /// `new` or `unchanged` against the `--baseline` report, when given.
    state: Option<&'static str>,
}

impl Race<'_> {
    fn confirmed(&self) -> Option<&Witness> {
        match self.found {
            Some((_, PreciseVerdict::Confirmed(w))) => Some(w),
            _ => None,
        }
    }

    /// What the precise phase said, as a sentence, when it ran and did
    /// not confirm the race.
    fn precise_note(&self) -> Option<String> {
        let bounds = self.bounds.as_deref()?;
        match self.found {
            Some((p, PreciseVerdict::NotFound)) => {
                let reached = if p.hits.is_empty() { "no bound reached".to_string() } else { format!("reached: {}", p.hits.join("; ")) };
                Some(format!("The precise phase found no race within {bounds} ({reached})."))
            }
            Some((_, PreciseVerdict::Unknown(why))) => Some(format!("The precise phase could not decide: {why}.")),
            Some((_, PreciseVerdict::Confirmed(_))) | None => None,
        }
    }
}

/// Turns paths into SARIF artifact locations.
struct Paths<'a> {
    /// The directory `%SRCROOT%` stands for.
    root: Option<&'a Path>,
}

impl Paths<'_> {
    fn artifact(&self, path: &Path) -> Value {
        if path.is_relative() {
            return json!({ "uri": encode(path), "uriBaseId": SRCROOT });
        }
        match self.root.and_then(|r| path.strip_prefix(r).ok()).filter(|p| !p.as_os_str().is_empty()) {
            Some(relative) => json!({ "uri": encode(relative), "uriBaseId": SRCROOT }),
            None => json!({ "uri": format!("file://{}", encode(path)) }),
        }
    }

    /// A location at `span`, else at the start of `fallback`, else with
    /// no physical place; in `function` when given.
    fn location(&self, span: Option<&Span>, fallback: Option<&Path>, function: Option<&str>) -> Value {
        let mut location = json!({});
        if let Some(file) = span.map(|s| &*s.file).or(fallback) {
            let mut physical = json!({ "artifactLocation": self.artifact(file) });
            if let Some(s) = span.filter(|s| s.line >= 1) {
                physical["region"] = json!({ "startLine": s.line });
                if s.column >= 1 {
                    physical["region"]["startColumn"] = json!(s.column);
                }
            }
            location["physicalLocation"] = physical;
        }
        if let Some(f) = function {
            location["logicalLocations"] = json!([{ "name": f, "kind": "function" }]);
        }
        location
    }

    /// The result of one potential or confirmed race; `lockset` holds the
    /// lockset phase's two accesses, when it found the race.
    fn race_result(&self, race: &Race<'_>, lockset: Option<&[Access; 2]>) -> Value {
        let mut related = Vec::new();
        let mut link = |span: Option<&Span>, function: &str, text: String| {
            let id = related.len() + 1;
            let mut location = self.location(span, Some(race.file), Some(function));
            location["id"] = json!(id);
            location["message"] = json!({ "text": text.clone() });
            related.push(location);
            format!("[{}]({id})", escape(&text))
        };
        let lockset_links = lockset.map(|[a, b]| [link(a.span.as_ref(), &a.function, access_text(a)), link(b.span.as_ref(), &b.function, access_text(b))]);
        let (first, second) = (escape(&race.pair.first), escape(&race.pair.second));
        // The race by its source-level name, the region as a secondary note.
        let name = lockset.and_then(|a| crate::verify::identity::race_name(a));
        let region = match &name {
            Some(n) => escape(&format!("'{n}' (region {})", race.region)),
            None => escape(race.region),
        };
        let mut message;
        let mut primary = lockset.and_then(|[a, _]| a.span.clone());
        let mut primary_function = lockset.map(|[a, _]| a.function.clone());
        if let Some(w) = race.confirmed() {
            let access = link(w.access.span.as_ref(), &w.access.function, format!("racing access: {}", step_text(&w.access)));
            let conflict = match &w.conflict {
                Some(c) => link(c.span.as_ref(), &c.function, format!("changed behind it by: {}", step_text(c))),
                None => "changed behind it by the other thread".to_string(),
            };
            message = format!("Data race on {region} between {first} and {second}, confirmed: {access}; {conflict}.");
            if let Some([a, b]) = &lockset_links {
                message.push_str(&format!(" The lockset phase's accesses: {a}; {b}."));
            }
            if w.access.span.is_some() {
                primary = w.access.span.clone();
                primary_function = Some(w.access.function.clone());
            }
        } else {
            let kinds = lockset.map(|[a, b]| format!("{}/{} ", kind(a), kind(b))).unwrap_or_default();
            message = format!("Potential {kinds}race on {region} between entry points {first} and {second}");
            if let Some([a, b]) = &lockset_links {
                message.push_str(&format!(": {a}; {b}"));
            }
            message.push('.');
            if let Some(note) = race.precise_note() {
                message.push(' ');
                message.push_str(&escape(&note));
            }
        }
        let file = self.artifact(race.file)["uri"].as_str().unwrap_or_default().to_string();
        let mut result = json!({
            "ruleId": RACE_RULE,
            "ruleIndex": 0,
            "kind": "fail",
            "level": if race.confirmed().is_some() { "error" } else { "warning" },
            "message": { "text": message },
            "locations": [self.location(primary.as_ref(), Some(race.file), primary_function.as_deref())],
            "relatedLocations": related,
            "partialFingerprints": { "racewatchRace/v1": fingerprint(&[&file, &race.pair.first, &race.pair.second, race.region]) },
            "properties": { "region": race.region, "entryPoints": [race.pair.first, race.pair.second] },
        });
        if let Some(fp) = &race.fingerprint {
            result["partialFingerprints"][crate::verify::identity::FINGERPRINT_KEY] = json!(fp);
            result["properties"]["fingerprint"] = json!(fp);
        }
        if let Some(n) = &name {
            result["properties"]["name"] = json!(n);
        }
        if let Some([a, b]) = lockset {
            result["properties"]["expressions"] = json!([a.expression, b.expression]);
        }
        if let Some(state) = race.state {
            result["baselineState"] = json!(state);
        }
        if let Some((p, v)) = race.found {
            result["properties"]["precise"] = json!(v.as_str());
            result["properties"]["boundsReached"] = json!(p.hits);
        }
        if let (Some(w), Some(bounds)) = (race.confirmed(), &race.bounds) {
            result["codeFlows"] = json!([self.code_flow(w, bounds)]);
        }
        result
    }

    /// A witness as a code flow: one thread flow per thread, in thread
    /// order, each step numbered by its place in the whole interleaving.
    fn code_flow(&self, w: &Witness, bounds: &str) -> Value {
        let mut flows = Vec::new();
        for thread in 0..=2u8 {
            let steps: Vec<(usize, &WitnessStep)> = w.steps.iter().enumerate().filter(|(_, s)| s.thread == thread).collect();
            let Some((_, first)) = steps.first() else { continue };
            let (id, name) = match thread {
                0 => ("init".to_string(), format!("init {}", first.entry)),
                t => (format!("thread-{t}"), format!("thread {t} ({})", first.entry)),
            };
            let locations: Vec<Value> = steps.iter().map(|(i, s)| self.thread_flow_location(w, *i + 1, s)).collect();
            flows.push(json!({ "id": id, "message": { "text": name }, "locations": locations }));
        }
        json!({ "message": { "text": format!("The witness interleaving, found within {bounds}.") }, "threadFlows": flows })
    }

    fn thread_flow_location(&self, w: &Witness, order: usize, s: &WitnessStep) -> Value {
        let mut location = self.location(s.span.as_ref(), None, Some(&s.function));
        location["message"] = json!({ "text": step_text(s) });
        let essential = *s == w.access || w.conflict.as_ref() == Some(s);
        let important = match s.event.as_str() {
            "read" | "write" => s.thread != 0 && s.region == w.access.region,
            "lock" | "unlock" | "trylock-failed" | "switch" | "live" => true,
            _ => false,
        };
        let importance = if essential {
            "essential"
        } else if important {
            "important"
        } else {
            "unimportant"
        };
        let mut step = json!({ "location": location, "executionOrder": order, "importance": importance });
        let kinds: &[&str] = match s.event.as_str() {
            "read" | "write" => &["memory"],
            "lock" => &["acquire", "lock"],
            "unlock" => &["release", "lock"],
            "trylock-failed" => &["lock"],
            _ => &[],
        };
        if !kinds.is_empty() {
            step["kinds"] = json!(kinds);
        }
        if let (Some(region), Some(value)) = (&s.region, s.value) {
            let key = match (&s.object, s.address) {
                (Some(o), _) => format!("{region} in {o}"),
                (None, Some(a)) => format!("{region} at {a:#x}"),
                (None, None) => region.clone(),
            };
            step["state"] = json!({ key: { "text": value.to_string() } });
        }
        step
    }

    /// The result of a kernel structure no model describes, at the
    /// place the driver stores its first function in it.
    fn unmodelled_result(&self, file: &Path, u: &UnmodelledOps) -> Value {
        let uri = self.artifact(file)["uri"].as_str().unwrap_or_default().to_string();
        let text = format!(
            "Driver functions stored in struct {} ({}), which kernel-models/ does not describe: they are not entry points, so every verdict of this file excludes them.",
            escape(&u.record),
            escape(&u.fields.join(", "))
        );
        json!({
            "ruleId": UNMODELLED_RULE.0,
            "ruleIndex": UNMODELLED_RULE.1,
            "kind": "fail",
            "level": "warning",
            "message": { "text": text },
            "locations": [self.location(Some(&u.span), Some(file), None)],
            "partialFingerprints": { "racewatchUnmodelled/v1": fingerprint(&[&uri, &u.record]) },
            "properties": { "record": u.record, "fields": u.fields },
        })
    }

    /// The result of a violated or assumed lock annotation.
    fn annotation_result(&self, file: &Path, a: &crate::analyses::annotations::AnnotationFinding) -> Value {
        let uri = self.artifact(file)["uri"].as_str().unwrap_or_default().to_string();
        let d = a.diagnostic();
        let violated = a.kind == crate::analyses::annotations::FindingKind::Violated;
        json!({
            "ruleId": ANNOTATION_RULE.0,
            "ruleIndex": ANNOTATION_RULE.1,
            "kind": if violated { "fail" } else { "informational" },
            "level": if violated { "warning" } else { "note" },
            "message": { "text": escape(&d.message) },
            "locations": [self.location(d.span.as_ref(), Some(file), None)],
            "partialFingerprints": { "racewatchAnnotation/v1": fingerprint(&[&uri, &a.function, &a.lock, &a.annotation, &a.entry_point]) },
            "properties": { "annotation": a.annotation, "lock": a.lock, "function": a.function, "entryPoint": a.entry_point },
        })
    }

    /// The notification of a region left unknown.
    fn unknown_notification(&self, race: &Race<'_>, why: &str) -> Value {
        let mut text = format!("{}: not proven for {} and {}: {why}", race.region, race.pair.first, race.pair.second);
        if let Some(note) = race.precise_note() {
            text.push(' ');
            text.push_str(&note);
        }
        json!({
            "descriptor": { "id": UNKNOWN_NOTIFICATION.0, "index": UNKNOWN_NOTIFICATION.1 },
            "level": "warning",
            "message": { "text": text },
            "locations": [self.location(None, Some(race.file), None)],
            "properties": { "region": race.region, "entryPoints": [race.pair.first, race.pair.second] },
        })
    }

    /// The notification of a file or path that could not be analysed, at
    /// clang's location when there is one.
    fn error_notification(&self, e: &FileError) -> Value {
        json!({
            "descriptor": { "id": FILE_ERROR_NOTIFICATION.0, "index": FILE_ERROR_NOTIFICATION.1 },
            "level": e.class.level().as_str(),
            "message": { "text": format!("{}: {} [{}]", e.path.display(), e.message, e.class.as_str()) },
            "locations": [self.location(e.span.as_ref(), Some(&e.path), None)],
            "properties": { "class": e.class.as_str(), "file": e.path.display().to_string() },
        })
    }
}

/// `read`, `write`, `atomic read` or `atomic write`.
fn kind(a: &Access) -> &'static str {
    match (a.write, a.atomic) {
        (true, false) => "write",
        (false, false) => "read",
        (true, true) => "atomic write",
        (false, true) => "atomic read",
    }
}

/// One lockset access in words, as the text output's notes say it.
fn access_text(a: &Access) -> String {
    let in_function = if a.function == a.entry { String::new() } else { format!(" (in {})", a.function) };
    let locks = if a.locks.is_empty() { "no lock".to_string() } else { a.locks.join(", ") };
    format!("{} by entry point {}{in_function}, holding {locks}", kind(a), a.entry)
}

/// Escapes the characters that embedded links give a meaning to in a
/// plain-text SARIF message.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A path as a URI path: every byte but the unreserved characters, `/`
/// and the sub-delimiters percent-encoded (`:` too, so that a relative
/// path never reads as a scheme).
fn encode(path: &Path) -> String {
    let mut out = String::new();
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `file:` URI of a directory, with the trailing slash SARIF asks of
/// a base URI.
fn directory_uri(dir: &Path) -> Option<String> {
    if !dir.is_absolute() {
        return None;
    }
    let mut uri = format!("file://{}", encode(dir));
    if !uri.ends_with('/') {
        uri.push('/');
    }
    Some(uri)
}

/// A stable identity for a race across runs and line moves (FNV-1a over
/// the file, the pair and the region), for code scanning's alert matching.
fn fingerprint(parts: &[&str]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0]) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

/// A race of a file analysed with its composite module names the module
/// and its files (`properties.module`, `properties.moduleFiles`); its
/// locations name each access's own file.
fn with_module(mut result: serde_json::Value, r: &super::model::FileVerdicts) -> serde_json::Value {
    if let Some(m) = &r.module {
        result["properties"]["module"] = json!(m.name);
        result["properties"]["moduleFiles"] = json!(m.members.iter().map(|f| f.display().to_string()).collect::<Vec<_>>());
    }
    result
}
