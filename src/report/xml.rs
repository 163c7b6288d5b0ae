//! XML output: the schemas are documented in docs/entry-points-xml.md.

use crate::analyses::pairs::Pairs;
use crate::diagnostics::{FileError, Span};
use crate::frontend::entry_points::{DriverEntryPoints, Origin, Via};
use crate::pipeline::FileResult;
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use std::io::{self, Write};

pub(super) type Xml<'w, W> = Writer<&'w mut W>;

fn io_err(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

pub(super) fn start<W: Write>(w: &mut Xml<'_, W>, name: &str, attrs: &[(&str, String)]) -> io::Result<()> {
    let mut el = BytesStart::new(name);
    for (k, v) in attrs {
        el.push_attribute((*k, v.as_str()));
    }
    w.write_event(Event::Start(el)).map_err(io_err)
}

pub(super) fn empty<W: Write>(w: &mut Xml<'_, W>, name: &str, attrs: &[(&str, String)]) -> io::Result<()> {
    let mut el = BytesStart::new(name);
    for (k, v) in attrs {
        el.push_attribute((*k, v.as_str()));
    }
    w.write_event(Event::Empty(el)).map_err(io_err)
}

pub(super) fn end<W: Write>(w: &mut Xml<'_, W>, name: &str) -> io::Result<()> {
    w.write_event(Event::End(BytesEnd::new(name))).map_err(io_err)
}

fn text_element<W: Write>(w: &mut Xml<'_, W>, name: &str, attrs: &[(&str, String)], text: &str) -> io::Result<()> {
    start(w, name, attrs)?;
    w.write_event(Event::Text(BytesText::new(text))).map_err(io_err)?;
    end(w, name)
}

fn header<W: Write>(w: &mut Xml<'_, W>) -> io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None))).map_err(io_err)?;
    start(w, "racewatch", &[("version", env!("CARGO_PKG_VERSION").to_string())])
}

pub(super) fn span_attrs(span: &Span) -> [(&'static str, String); 3] {
    [("file", span.file.display().to_string()), ("line", span.line.to_string()), ("column", span.column.to_string())]
}

fn driver_name(r: &FileResult) -> String {
    r.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn origin<W: Write>(w: &mut Xml<'_, W>, o: &Origin) -> io::Result<()> {
    let mut attrs = vec![("kind", o.kind.as_str().to_string()), ("via", o.via.to_string())];
    match &o.via {
        Via::Field { record, field } => {
            attrs.push(("struct", record.clone()));
            attrs.push(("field", field.clone()));
        }
        Via::Call { function, .. } => attrs.push(("call", function.clone())),
        Via::ModuleHook { .. } => {}
    }
    if let Some(h) = &o.holder {
        attrs.push(("holder", h.clone()));
    }
    let [_, line, column] = span_attrs(&o.span);
    attrs.extend([line, column]);
    empty(w, "origin", &attrs)
}

pub(super) fn error<W: Write>(w: &mut Xml<'_, W>, e: &FileError) -> io::Result<()> {
    let mut attrs = vec![("file", e.path.display().to_string()), ("class", e.class.as_str().to_string())];
    if let Some(span) = &e.span {
        let [file, line, column] = span_attrs(span);
        attrs.extend([("at-file", file.1), line, column]);
    }
    text_element(w, "error", &attrs, &e.message)
}

fn driver_entry_points<W: Write>(w: &mut Xml<'_, W>, r: &FileResult, d: &DriverEntryPoints) -> io::Result<()> {
    let mut attrs = vec![("name", driver_name(r)), ("file", r.file.display().to_string())];
    if let Some(init) = d.init_entry_point() {
        attrs.push(("init", init.function.clone()));
    }
    start(w, "driver", &attrs)?;
    for ep in &d.entry_points {
        let [_, line, column] = span_attrs(&ep.span);
        start(w, "entry-point", &[("function", ep.function.clone()), ("kind", ep.kind().as_str().into()), line, column])?;
        for o in &ep.origins {
            origin(w, o)?;
        }
        end(w, "entry-point")?;
    }
    for x in &d.externals {
        start(w, "external", &[("function", x.function.clone()), ("kind", x.origin.kind.as_str().into())])?;
        origin(w, &x.origin)?;
        end(w, "external")?;
    }
    for d in &d.warnings {
        let mut attrs = vec![("check", d.check.to_string())];
        if let Some(span) = &d.span {
            let [_, line, column] = span_attrs(span);
            attrs.extend([line, column]);
        }
        text_element(w, "warning", &attrs, &d.message)?;
    }
    end(w, "driver")
}

/// The `entry-points --xml` document.
pub fn write_entry_points(out: &mut impl Write, results: &[FileResult], errors: &[FileError]) -> io::Result<()> {
    let mut w = Writer::new_with_indent(out, b' ', 2);
    header(&mut w)?;
    for e in errors {
        error(&mut w, e)?;
    }
    for r in results {
        match &r.outcome {
            Ok(d) => driver_entry_points(&mut w, r, d)?,
            Err(e) => error(&mut w, e)?,
        }
    }
    end(&mut w, "racewatch")?;
    writeln!(w.into_inner())
}

/// The `pairs --xml` document: `<driver name><pair ep1 ep2/>…<removed ep1 ep2
/// rule/>…</driver>`; `rule` lists every rule that removed the pair, space
/// separated.
pub fn write_pairs(
    out: &mut impl Write,
    results: &[FileResult],
    pairs: &[Option<(&DriverEntryPoints, Pairs<'_>)>],
) -> io::Result<()> {
    let mut w = Writer::new_with_indent(out, b' ', 2);
    header(&mut w)?;
    for (r, p) in results.iter().zip(pairs) {
        match (p, &r.outcome) {
            (Some((d, pairs)), _) => {
                start(&mut w, "driver", &[("name", driver_name(r)), ("file", r.file.display().to_string())])?;
                let name = |i: usize| d.entry_points[i].function.clone();
                for p in &pairs.kept {
                    empty(&mut w, "pair", &[("ep1", name(p.first)), ("ep2", name(p.second))])?;
                }
                for x in &pairs.removed {
                    let rules: Vec<&str> = x.rules.iter().map(|r| r.name.as_str()).collect();
                    empty(
                        &mut w,
                        "removed",
                        &[("ep1", name(x.pair.first)), ("ep2", name(x.pair.second)), ("rule", rules.join(" "))],
                    )?;
                }
                end(&mut w, "driver")?;
            }
            (None, Err(e)) => error(&mut w, e)?,
            (None, Ok(_)) => {}
        }
    }
    end(&mut w, "racewatch")?;
    writeln!(w.into_inner())
}
