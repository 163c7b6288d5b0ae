//! The HTML report (`racewatch report --html OUT`), in scan-build's and
//! CodeChecker's manner: static files, no server.
//!
//! `OUT/index.html` lists every race of the merged run, one row per
//! (file, pair, region), with filters by directory, file, check and status
//! (a small inline script hides the rows that do not match and counts the
//! rest), and the files' verdict lines. `OUT/race-N.html` shows one race:
//! the two accesses' source side by side (a window of the file around each
//! line, read when the report is written), the entry points, the locks
//! each held, and, when the precise phase confirmed the race, its witness
//! as a two-lane timeline (thread 1 and thread 2, the initialisation
//! before them). Every string from the program or the source is escaped.

use super::model::FileVerdicts;
use crate::diagnostics::Span;
use crate::precise::{PreciseVerdict, WitnessStep};
use crate::verify::verdict::{Access, Verdict, totals};
use std::fmt::Write as _;
use std::path::Path;

/// Lines shown on each side of an access.
const CONTEXT: u32 = 6;

/// One race row.
struct Race<'a> {
    file: &'a Path,
    first: &'a str,
    second: &'a str,
    region: &'a str,
    name: Option<String>,
    accesses: &'a [Access],
    precise: Option<&'a PreciseVerdict>,
}

impl Race<'_> {
    fn check(&self) -> &'static str {
        match (self.accesses[0].write, self.accesses[1].write) {
            (true, true) => "write/write",
            _ => "read/write",
        }
    }

    /// The race's source-level name with its region, escaped.
    fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("<code>{}</code> (region {})", esc(n), esc(self.region)),
            None => esc(self.region),
        }
    }

    fn status(&self) -> &'static str {
        match self.precise {
            Some(PreciseVerdict::Confirmed(_)) => "confirmed",
            Some(PreciseVerdict::NotFound) => "not found within bounds",
            Some(PreciseVerdict::Unknown(_)) => "precise unknown",
            None => "potential",
        }
    }
}

/// Writes the report into `dir` (created if needed).
pub fn write(dir: &Path, results: &[FileVerdicts]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut races = Vec::new();
    for r in results {
        let Ok(pairs) = &r.outcome else { continue };
        for p in pairs {
            for (region, v) in &p.regions {
                if let Verdict::Race(accesses) = v {
                    let precise = super::precise::find(&r.precise, p, region).map(|(_, v)| v);
                    let name = crate::verify::identity::race_name(accesses);
                    races.push(Race { file: &r.file, first: &p.first, second: &p.second, region, name, accesses: &accesses[..], precise });
                }
            }
        }
    }
    for (i, race) in races.iter().enumerate() {
        super::output_file::write_atomically(&dir.join(format!("race-{}.html", i + 1)), |out| out.write_all(race_page(race).as_bytes()))?;
    }
    super::output_file::write_atomically(&dir.join("index.html"), |out| out.write_all(index(results, &races).as_bytes()))
}

/// Escapes text for HTML element content and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}\
th{background:#eee}pre{margin:0;font-size:90%}.hit{background:#fdd}.lanes td{width:50%}.confirmed{color:#a00;font-weight:bold}\
.side{display:inline-block;vertical-align:top;width:48%;margin-right:1%}.ln{color:#888;user-select:none}";

fn page(title: &str, body: &str, script: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head>\n<body>\n{body}\n<script>{script}</script>\n</body></html>\n",
        esc(title)
    )
}

/// The filter script: hides the rows whose data attributes do not match
/// the selects and writes how many are shown.
const FILTER: &str = "function apply(){var f={};document.querySelectorAll('select[data-key]').forEach(function(s){f[s.dataset.key]=s.value});\
var n=0;document.querySelectorAll('tr.race').forEach(function(r){var ok=Object.keys(f).every(function(k){return !f[k]||r.dataset[k]===f[k]});\
r.style.display=ok?'':'none';if(ok)n++});document.getElementById('shown').textContent=n+' of '+document.querySelectorAll('tr.race').length+' races shown';}\
document.querySelectorAll('select[data-key]').forEach(function(s){s.addEventListener('change',apply)});apply();";

fn select(key: &str, label: &str, values: &std::collections::BTreeSet<String>) -> String {
    let mut s = format!("<label>{} <select data-key=\"{key}\"><option value=\"\">all</option>", esc(label));
    for v in values {
        let _ = write!(s, "<option value=\"{0}\">{0}</option>", esc(v));
    }
    s.push_str("</select></label> ");
    s
}

fn index(results: &[FileVerdicts], races: &[Race<'_>]) -> String {
    let dir_of = |p: &Path| p.parent().map(|d| d.display().to_string()).unwrap_or_default();
    let set = |f: &dyn Fn(&Race<'_>) -> String| races.iter().map(f).collect::<std::collections::BTreeSet<String>>();
    let mut body = String::from("<h1>racewatch report</h1>\n<p>");
    body.push_str(&select("dir", "directory", &set(&|r| dir_of(r.file))));
    body.push_str(&select("file", "file", &set(&|r| r.file.display().to_string())));
    body.push_str(&select("check", "check", &set(&|r| r.check().to_string())));
    body.push_str(&select("status", "status", &set(&|r| r.status().to_string())));
    body.push_str("</p>\n<p id=\"shown\"></p>\n<table id=\"races\"><tr><th>#</th><th>file</th><th>race on</th><th>entry points</th><th>accesses</th><th>check</th><th>status</th></tr>\n");
    for (i, r) in races.iter().enumerate() {
        let access = |a: &Access| format!("{} {} in {}", a.kind(), span_text(&a.span), esc(&a.function));
        let _ = writeln!(
            body,
            "<tr class=\"race\" data-dir=\"{}\" data-file=\"{}\" data-check=\"{}\" data-status=\"{}\"><td><a href=\"race-{n}.html\">{n}</a></td><td>{}</td><td>{}</td><td>{} × {}</td><td>{}<br>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>",
            esc(&dir_of(r.file)),
            esc(&r.file.display().to_string()),
            r.check(),
            r.status(),
            esc(&r.file.display().to_string()),
            r.label(),
            esc(r.first),
            esc(r.second),
            access(&r.accesses[0]),
            access(&r.accesses[1]),
            r.check(),
            r.status().split(' ').next().unwrap_or_default(),
            r.status(),
            n = i + 1,
        );
    }
    body.push_str("</table>\n<h2>Files</h2>\n<table><tr><th>file</th><th>verdict</th></tr>\n");
    for r in results {
        let verdict = match &r.outcome {
            Ok(_) if r.entry_points == 0 => "no entry points".to_string(),
            Ok(pairs) => totals(pairs).to_string(),
            Err(e) => format!("{}: {}", e.class.level().as_str(), e.message),
        };
        let _ = writeln!(body, "<tr><td>{}</td><td>{}</td></tr>", esc(&r.file.display().to_string()), esc(&verdict));
    }
    body.push_str("</table>");
    page("racewatch report", &body, FILTER)
}

fn span_text(s: &Option<Span>) -> String {
    match s {
        Some(s) => format!("{}:{}", esc(&s.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()), s.line),
        None => "(no location)".to_string(),
    }
}

/// The source lines around `span`, the access's line marked.
fn source_window(span: &Option<Span>) -> String {
    let Some(span) = span else { return "<p>no source location</p>".to_string() };
    let Ok(text) = std::fs::read_to_string(&span.file) else {
        return format!("<p>{}: source not readable when the report was written</p>", esc(&span.file.display().to_string()));
    };
    let from = span.line.saturating_sub(CONTEXT).max(1);
    let mut out = format!("<p><b>{}</b></p><pre>", esc(&span.file.display().to_string()));
    for (n, line) in (1u32..).zip(text.lines()).filter(|(n, _)| *n >= from && *n <= span.line + CONTEXT) {
        let class = if n == span.line { " class=\"hit\"" } else { "" };
        let _ = writeln!(out, "<span{class}><span class=\"ln\">{n:5} </span>{}</span>", esc(line));
    }
    out.push_str("</pre>");
    out
}

fn race_page(r: &Race<'_>) -> String {
    let title = format!("{} × {} on {}", r.first, r.second, r.name.as_deref().unwrap_or(r.region));
    let mut body = format!(
        "<p><a href=\"index.html\">all races</a></p>\n<h1>{}</h1>\n<p>{} race on {} in {}; {}</p>\n",
        esc(&title),
        r.check(),
        r.label(),
        esc(&r.file.display().to_string()),
        esc(r.status())
    );
    for a in r.accesses {
        let locks = if a.locks.is_empty() { "no lock".to_string() } else { a.locks.join(", ") };
        let _ = writeln!(
            body,
            "<div class=\"side\"><h2>{} by {}</h2><p>in {} at {}, holding {}</p>{}</div>",
            a.kind(),
            esc(&a.entry),
            esc(&a.function),
            span_text(&a.span),
            esc(&locks),
            source_window(&a.span)
        );
    }
    match r.precise {
        Some(PreciseVerdict::Confirmed(w)) => {
            body.push_str("<h2>Witness</h2>\n<table class=\"lanes\" id=\"witness\"><tr><th>");
            body.push_str(&esc(r.first));
            body.push_str(" (thread 1)</th><th>");
            body.push_str(&esc(r.second));
            body.push_str(" (thread 2)</th></tr>\n");
            for s in &w.steps {
                let cell = step_cell(s);
                let row = match s.thread {
                    0 => format!("<tr><td colspan=\"2\">init: {cell}</td></tr>"),
                    1 => format!("<tr><td>{cell}</td><td></td></tr>"),
                    _ => format!("<tr><td></td><td>{cell}</td></tr>"),
                };
                body.push_str(&row);
                body.push('\n');
            }
            body.push_str("</table>\n");
        }
        Some(PreciseVerdict::Unknown(why)) => {
            let _ = write!(body, "<p>The precise phase could not decide: {}</p>", esc(why));
        }
        Some(PreciseVerdict::NotFound) => body.push_str("<p>The precise phase found no interleaving within its bounds.</p>"),
        None => {}
    }
    page(&title, &body, "")
}

/// A witness step: what happened, where, and the source line.
fn step_cell(s: &WitnessStep) -> String {
    let line = s.span.as_ref().and_then(|sp| std::fs::read_to_string(&sp.file).ok().and_then(|t| t.lines().nth(sp.line as usize - 1).map(|l| l.trim().to_string())));
    format!(
        "{} <code>{}</code><br><small>{} in {}</small>",
        esc(&super::precise::step_text(s)),
        esc(&line.unwrap_or_default()),
        span_text(&s.span),
        esc(&s.function)
    )
}
