//! The clang-style text renderer: `file:line:col: level: message [check]`.

use super::{Diagnostic, FileError};

/// Renders a file error as one line. A C error shows clang's location; when
/// that lies in another file (a header), the analysed file is named too.
pub fn render_file_error(e: &FileError) -> String {
    let level = e.class.level().as_str();
    match &e.span {
        Some(span) if *span.file == *e.path => {
            format!("{span}: {level}: {} [{}]", e.message, e.class.as_str())
        }
        // A not-a-unit note names its includer in the message already.
        Some(_) if e.class == super::ErrorClass::NotAUnit => format!("{}: {level}: {} [{}]", e.path.display(), e.message, e.class.as_str()),
        Some(span) => format!(
            "{}: {level}: {} (at {span}) [{}]",
            e.path.display(),
            e.message,
            e.class.as_str()
        ),
        None => format!("{}: {level}: {} [{}]", e.path.display(), e.message, e.class.as_str()),
    }
}

/// Renders a diagnostic and its notes, one line each.
pub fn render_diagnostic(d: &Diagnostic) -> String {
    let mut out = match &d.span {
        Some(span) => format!("{span}: {}: {} [{}]", d.level.as_str(), d.message, d.check),
        None => format!("{}: {} [{}]", d.level.as_str(), d.message, d.check),
    };
    for (note, span) in &d.notes {
        out.push('\n');
        match span {
            Some(span) => out.push_str(&format!("{span}: note: {note}")),
            None => out.push_str(&format!("note: {note}")),
        }
    }
    out
}
