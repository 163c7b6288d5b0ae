//! Composing the files of one module into one program's entry points and
//! definitions.
//!
//! # Algorithm
//!
//! Each file of a composite module ([`super::kbuild_module`]) is parsed with
//! its own flags and its entry points extracted alone, as for a single
//! file. The unit then joins them:
//!
//! * **Functions by name.** Every function a file defines is named in the
//!   unit by its C name. A name two files define (necessarily `static` in
//!   at least one: two external definitions would not link) is qualified in
//!   each file that defines it static, `name@file.c`, so that the two stay
//!   distinct functions, entry points and procedures; an external function
//!   keeps its C name, as the linker sees it.
//! * **Calls across files.** A file calls a function of another file
//!   through a declaration (from a shared header); clang's USR of an
//!   external function is the same in every file (`c:@F@name`), so the
//!   declaration resolves to the definition of the file that has it
//!   ([`Definitions::external`]). A static function's USR names its file,
//!   so it never resolves across files.
//! * **Entry points.** The entry points of all files, their origins merged
//!   by function. A callback one file registers but another defines (an
//!   external callback of the first file) is an entry point of the unit
//!   with that origin.
//! * **The init entry point** is chosen again over the unit (the single
//!   probe, else the module init), as for one file.
//! * **Sealed entry points** ([`super::sealed`]) stay sealed only when
//!   their function is static: only then does the file that sealed it see
//!   every use of its address.
//!
//! # Soundness
//!
//! The unit is the program the linker builds from the module's objects:
//! one symbol per external name, one per static name and file. Calls into
//! other modules or the kernel stay external calls (docs/soundness.md).

use super::clang::{Cursor, CursorKind, TranslationUnit};
use super::entry_points::{DriverEntryPoints, EntryPoint};
use crate::models::EntryKind;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The functions the files of a unit define.
#[derive(Default)]
pub struct Definitions<'t> {
    /// Each definition by its name in the unit.
    pub by_name: HashMap<String, Cursor<'t>>,
    /// External (non-static) definitions by USR, for calls from files that
    /// only declare them.
    pub external: HashMap<String, Cursor<'t>>,
    /// Names qualified because two files define them: (file index, C name)
    /// to the name in the unit.
    renamed: HashMap<(usize, String), String>,
    /// External names, each defined by one file.
    external_names: HashSet<String>,
}

impl<'t> Definitions<'t> {
    /// The definitions of every file of the unit, in file order.
    pub fn of(tus: &[&'t TranslationUnit<'t>]) -> Definitions<'t> {
        let mut per_file: Vec<Vec<(String, Cursor<'t>)>> = Vec::new();
        let mut count: HashMap<String, usize> = HashMap::new();
        for tu in tus {
            let mut here = Vec::new();
            if let Some(main_id) = tu.main_file_id() {
                tu.root().for_each_child(|c| {
                    if c.kind() == CursorKind::FunctionDecl && c.is_definition() && c.is_expanded_in(main_id) {
                        here.push((c.spelling(), c));
                    }
                    true
                });
            }
            for (name, _) in &here {
                *count.entry(name.clone()).or_default() += 1;
            }
            per_file.push(here);
        }
        let mut out = Definitions::default();
        for (index, (tu, here)) in tus.iter().zip(per_file).enumerate() {
            let file = tu.main_file().file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            for (name, c) in here {
                let external = !c.is_static_storage();
                if external {
                    out.external.insert(c.usr(), c);
                    out.external_names.insert(name.clone());
                }
                let unit_name = if count[&name] > 1 && !external { format!("{name}@{file}") } else { name.clone() };
                if unit_name != name {
                    out.renamed.insert((index, name), unit_name.clone());
                }
                out.by_name.entry(unit_name).or_insert(c);
            }
        }
        out
    }

    /// The unit's name of the function file `index` calls `name`.
    pub fn name_in(&self, index: usize, name: &str) -> String {
        self.renamed.get(&(index, name.to_string())).cloned().unwrap_or_else(|| name.to_string())
    }
}

/// The entry points of a unit from those of its files (in file order).
pub fn merge(parts: Vec<DriverEntryPoints>, definitions: &Definitions<'_>) -> DriverEntryPoints {
    let mut out = DriverEntryPoints::default();
    let mut by_function: HashMap<String, usize> = HashMap::new();
    let mut add = |out: &mut DriverEntryPoints, ep: EntryPoint| match by_function.get(&ep.function) {
        Some(&i) => {
            let existing = &mut out.entry_points[i];
            for o in ep.origins {
                if !existing.origins.contains(&o) {
                    existing.origins.push(o);
                }
            }
            existing.origins.sort();
        }
        None => {
            by_function.insert(ep.function.clone(), out.entry_points.len());
            out.entry_points.push(ep);
        }
    };
    let mut sealed = BTreeSet::new();
    let pci_pm_ops = merged_pci_pm_ops(&parts);
    for (index, part) in parts.into_iter().enumerate() {
        for mut ep in part.entry_points {
            let unit_name = definitions.name_in(index, &ep.function);
            if part.sealed.contains(&ep.function) && !definitions.external_names.contains(&ep.function) {
                sealed.insert(unit_name.clone());
            }
            ep.function = unit_name;
            add(&mut out, ep);
        }
        for external in part.externals {
            // Registered here, defined by another file of the unit.
            let defined = definitions.external_names.contains(&external.function);
            match definitions.by_name.get(&external.function).filter(|_| defined) {
                Some(def) => {
                    let span = span_of(*def);
                    add(&mut out, EntryPoint { function: external.function, span, origins: vec![external.origin] });
                }
                None => {
                    if !out.externals.contains(&external) {
                        out.externals.push(external);
                    }
                }
            }
        }
        out.warnings.extend(part.warnings);
        for u in part.unmodelled {
            if !out.unmodelled.iter().any(|x| x.record == u.record && x.span == u.span) {
                out.unmodelled.push(u);
            }
        }
        out.unresolved_registrations.extend(part.unresolved_registrations);
        out.registration_sites.extend(part.registration_sites);
        out.called_directly.extend(part.called_directly);
    }
    out.sealed = sealed;
    out.pci_pm_ops = pci_pm_ops;
    out.entry_points.sort_by(|a, b| (&a.span, &a.function).cmp(&(&b.span, &b.function)));
    let probes: Vec<usize> =
        (0..out.entry_points.len()).filter(|&i| out.entry_points[i].origins.iter().any(|o| o.kind == EntryKind::Probe)).collect();
    out.init = if probes.len() == 1 {
        Some(probes[0])
    } else {
        out.entry_points.iter().position(|e| e.origins.iter().any(|o| matches!(o.kind, EntryKind::ModuleInit | EntryKind::Initcall)))
    };
    out
}

fn span_of(c: Cursor<'_>) -> crate::diagnostics::Span {
    let loc = c.location();
    let file = loc.file.map(|f| std::sync::Arc::from(f.as_path())).unwrap_or_else(|| std::sync::Arc::from(std::path::Path::new("")));
    crate::diagnostics::Span { file, line: loc.line, column: loc.column }
}

/// The PCI drivers' `dev_pm_ops` of a unit (src/frontend/pm_ops.rs): a
/// name one file found only in `struct pci_driver` initializers, unless
/// another file holds `dev_pm_ops` callbacks in a variable of the same name
/// that it did not find so (each is `static`, so only its own file can
/// refer to it, but two files may use one name).
fn merged_pci_pm_ops(parts: &[DriverEntryPoints]) -> BTreeSet<String> {
    let holders = |part: &DriverEntryPoints| -> BTreeSet<String> {
        let origins = part.entry_points.iter().flat_map(|e| e.origins.iter()).chain(part.externals.iter().map(|x| &x.origin));
        origins
            .filter(|o| matches!(&o.via, crate::frontend::entry_points::Via::Field { record, .. } if record == "dev_pm_ops"))
            .filter_map(|o| o.holder.clone())
            .collect()
    };
    let mut out: BTreeSet<String> = parts.iter().flat_map(|p| p.pci_pm_ops.iter().cloned()).collect();
    for part in parts {
        for name in holders(part) {
            if !part.pci_pm_ops.contains(&name) {
                out.remove(&name);
            }
        }
    }
    out
}
