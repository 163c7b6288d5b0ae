//! `racewatch check --pairs-xml FILE`: the verdict of every pair checked,
//! in the pair-file form of the original Whoop tool (docs/output.md,
//! "Pair file"):
//!
//! ```xml
//! <drivers>
//!   <driver name="nvram.c" file="drivers/char/nvram.c">
//!     <pair ep1="nvram_misc_read" ep2="nvram_misc_write" bug="true"/>
//!   </driver>
//!   <driver name="broken.c" file="drivers/char/broken.c" error="parse-error"/>
//! </drivers>
//! ```
//!
//! A pair's `bug` is `true` when a race is reported for it (a potential
//! race of the lockset phase; with `--precise`, a race the precise phase
//! confirmed), `false` when every region of the pair is proven race-free,
//! and `unknown` otherwise: a region left unknown, or with `--precise` a
//! potential race neither confirmed nor proven. A file or path that could
//! not be analysed is a `<driver>` with its error class and no pairs.

use super::model::FileVerdicts;
use super::precise::find;
use super::xml::{empty, end, start};
use crate::diagnostics::FileError;
use crate::precise::{PrecisePair, PreciseVerdict};
use crate::verify::verdict::{PairVerdict, Verdict};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, Event};
use std::io::{self, Write};
use std::path::Path;

/// What the pair file says of a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    /// A race is reported for the pair.
    True,
    /// Every region is proven race-free.
    False,
    /// Neither.
    Unknown,
}

impl Bug {
    /// The `bug` attribute's value.
    pub fn as_str(self) -> &'static str {
        match self {
            Bug::True => "true",
            Bug::False => "false",
            Bug::Unknown => "unknown",
        }
    }
}

/// The verdict of a pair; `precise` holds the precise phase's results
/// when it ran.
pub fn bug(pair: &PairVerdict, precise: Option<&[PrecisePair]>) -> Bug {
    if pair.regions.iter().all(|(_, v)| matches!(v, Verdict::Proven)) {
        return Bug::False;
    }
    let raced = match precise {
        Some(found) => pair.regions.iter().any(|(r, _)| matches!(find(found, pair, r), Some((_, PreciseVerdict::Confirmed(_))))),
        None => pair.regions.iter().any(|(_, v)| matches!(v, Verdict::Race(_))),
    };
    if raced { Bug::True } else { Bug::Unknown }
}

/// The `name` attribute: the file name alone.
fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

fn failed_driver<W: Write>(w: &mut Writer<&mut W>, e: &FileError) -> io::Result<()> {
    empty(w, "driver", &[("name", file_name(&e.path)), ("file", e.path.display().to_string()), ("error", e.class.as_str().to_string())])
}

/// Writes the pair file of a run: the paths that named no file first,
/// then every file in input order; `precise` says whether the precise
/// phase ran.
pub fn write(out: &mut impl Write, results: &[FileVerdicts], errors: &[FileError], precise: bool) -> io::Result<()> {
    let mut w = Writer::new_with_indent(out, b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None))).map_err(io::Error::other)?;
    start(&mut w, "drivers", &[])?;
    for e in errors {
        failed_driver(&mut w, e)?;
    }
    for r in results {
        let pairs = match &r.outcome {
            Ok(pairs) => pairs,
            Err(e) => {
                failed_driver(&mut w, e)?;
                continue;
            }
        };
        let attrs = [("name", file_name(&r.file)), ("file", r.file.display().to_string())];
        if pairs.is_empty() {
            empty(&mut w, "driver", &attrs)?;
            continue;
        }
        start(&mut w, "driver", &attrs)?;
        for p in pairs {
            let verdict = bug(p, precise.then_some(r.precise.as_slice()));
            empty(&mut w, "pair", &[("ep1", p.first.clone()), ("ep2", p.second.clone()), ("bug", verdict.as_str().to_string())])?;
        }
        end(&mut w, "driver")?;
    }
    end(&mut w, "drivers")?;
    writeln!(w.into_inner())
}
