//! Kernel knowledge as data.
//!
//! Everything racewatch knows about the kernel's side of a driver lives in
//! XML files under `kernel-models/`: which structures hold callbacks and what
//! kind each field is, which functions register callbacks, which macros name
//! the module hooks. Each rule carries its reason. The files are embedded at
//! build time (`build.rs` lists them, so a new file needs no code change) and
//! can be replaced at run time with `--models DIR`.
//!
//! **Invariant:** this module only reads and validates data; it knows nothing
//! of clang or of any analysis.

mod entry_points;

pub use entry_points::{ArgumentRule, EntryKind, ModuleHook, OpsStruct, Registration, Role};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/embedded_models.rs"));

/// All kernel models, indexed for lookup.
#[derive(Debug, Default)]
pub struct KernelModels {
    /// Callback-holding structures by name (`file_operations`).
    pub ops_structs: HashMap<String, OpsStruct>,
    /// Registration functions by name (`request_irq`).
    pub registrations: HashMap<String, Registration>,
    /// Module hooks by the name of the function their macro generates.
    pub module_hooks: HashMap<String, ModuleHook>,
    /// Kernel functions registered by kernel macros on the driver's behalf,
    /// with the reason they are not driver callbacks.
    pub internal_callbacks: HashMap<String, String>,
}

/// A model file that could not be read or is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    /// The file.
    pub file: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: error: invalid kernel model: {}", self.file.display(), self.message)
    }
}

impl KernelModels {
    /// The models built into the binary.
    pub fn embedded() -> Result<KernelModels, ModelError> {
        let files: Vec<(PathBuf, String)> = EMBEDDED_MODELS
            .iter()
            .map(|(name, text)| (Path::new("kernel-models").join(name), text.to_string()))
            .collect();
        KernelModels::from_files(&files)
    }

    /// The models in every `*.xml` file below `dir`.
    pub fn from_dir(dir: &Path) -> Result<KernelModels, ModelError> {
        let mut paths = Vec::new();
        collect_xml(dir, &mut paths)?;
        if paths.is_empty() {
            return Err(ModelError { file: dir.to_path_buf(), message: "no .xml model files here".into() });
        }
        let files = paths
            .into_iter()
            .map(|p| {
                std::fs::read_to_string(&p)
                    .map(|t| (p.clone(), t))
                    .map_err(|e| ModelError { file: p, message: e.to_string() })
            })
            .collect::<Result<Vec<_>, _>>()?;
        KernelModels::from_files(&files)
    }

    /// Parses and merges model files; a name defined twice is an error.
    pub fn from_files(files: &[(PathBuf, String)]) -> Result<KernelModels, ModelError> {
        let mut models = KernelModels::default();
        for (path, text) in files {
            let file = entry_points::parse_file(text)
                .map_err(|message| ModelError { file: path.clone(), message })?;
            let dup = |what: &str, name: &str| ModelError {
                file: path.clone(),
                message: format!("{what} `{name}` is defined twice"),
            };
            for s in file.ops_structs {
                if models.ops_structs.contains_key(&s.name) {
                    return Err(dup("ops-struct", &s.name));
                }
                models.ops_structs.insert(s.name.clone(), s);
            }
            for r in file.registrations {
                if models.registrations.contains_key(&r.function) {
                    return Err(dup("registration", &r.function));
                }
                models.registrations.insert(r.function.clone(), r);
            }
            for h in file.module_hooks {
                if models.module_hooks.contains_key(&h.function) {
                    return Err(dup("module-hook", &h.function));
                }
                models.module_hooks.insert(h.function.clone(), h);
            }
            for (function, reason) in file.internal_callbacks {
                if models.internal_callbacks.insert(function.clone(), reason).is_some() {
                    return Err(dup("internal-callback", &function));
                }
            }
        }
        Ok(models)
    }

    /// The kind of entry point that a function stored in `record.field`
    /// becomes, if the structure is modelled.
    pub fn field_kind(&self, record: &str, field: &str) -> Option<EntryKind> {
        self.ops_structs.get(record).and_then(|s| s.kind_of(field))
    }
}

fn collect_xml(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ModelError> {
    let err = |e: std::io::Error| ModelError { file: dir.to_path_buf(), message: e.to_string() };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).map_err(err)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_xml(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "xml") {
            out.push(p);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(xml: &str) -> Result<KernelModels, ModelError> {
        KernelModels::from_files(&[(PathBuf::from("test.xml"), xml.to_string())])
    }

    #[test]
    fn embedded_models_load_and_know_the_common_structures() {
        let m = KernelModels::embedded().expect("the shipped models are valid");
        assert_eq!(m.field_kind("pci_driver", "probe"), Some(EntryKind::Probe));
        assert_eq!(m.field_kind("usb_driver", "disconnect"), Some(EntryKind::Remove));
        assert_eq!(m.field_kind("file_operations", "read"), Some(EntryKind::Callback));
        assert_eq!(m.field_kind("work_struct", "func"), Some(EntryKind::Work));
        assert_eq!(m.field_kind("device", "parent"), None, "only device.release is a callback");
        let irq = &m.registrations["request_threaded_irq"].arguments;
        assert_eq!(irq, &[ArgumentRule { index: 1, kind: EntryKind::Irq }, ArgumentRule { index: 2, kind: EntryKind::IrqThread }]);
        assert!(m.module_hooks.contains_key("__inittest"));
        for s in m.ops_structs.values() {
            assert!(!s.reason.trim().is_empty(), "{} has no reason", s.name);
        }
    }

    #[test]
    fn every_rule_needs_a_reason() {
        let e = load(r#"<kernel-model kernel="6.12"><ops-struct name="x" default-kind="callback"/></kernel-model>"#)
            .unwrap_err();
        assert!(e.message.contains("reason"), "{}", e.message);
    }

    #[test]
    fn unknown_kinds_and_elements_are_rejected() {
        let e = load(r#"<kernel-model kernel="6.12"><ops-struct name="x" default-kind="sometimes" reason="r"/></kernel-model>"#)
            .unwrap_err();
        assert!(e.message.contains("unknown kind `sometimes`"), "{}", e.message);
        let e = load(r#"<kernel-model kernel="6.12"><struct name="x" reason="r"/></kernel-model>"#).unwrap_err();
        assert!(e.message.contains("struct"), "{}", e.message);
        let e = load(r#"<kernel-model kernel="6.12"><registration function="f" reason="r"/></kernel-model>"#).unwrap_err();
        assert!(e.message.contains("no <argument>"), "{}", e.message);
    }

    #[test]
    fn a_name_defined_twice_is_an_error() {
        let one = r#"<kernel-model kernel="6.12"><ops-struct name="x" default-kind="callback" reason="r"/></kernel-model>"#;
        let e = KernelModels::from_files(&[(PathBuf::from("a.xml"), one.into()), (PathBuf::from("b.xml"), one.into())])
            .unwrap_err();
        assert_eq!(e.file, PathBuf::from("b.xml"));
        assert!(e.message.contains("defined twice"), "{}", e.message);
    }

    #[test]
    fn fields_can_override_or_cancel_the_default_kind() {
        let m = load(
            r#"<kernel-model kernel="6.12">
                 <ops-struct name="x" default-kind="callback" reason="r">
                   <field name="start" kind="probe"/>
                   <field name="owner_cb" kind="none" reason="called by the driver itself"/>
                 </ops-struct>
               </kernel-model>"#,
        )
        .unwrap();
        assert_eq!(m.field_kind("x", "start"), Some(EntryKind::Probe));
        assert_eq!(m.field_kind("x", "owner_cb"), None);
        assert_eq!(m.field_kind("x", "other"), Some(EntryKind::Callback));
    }
}
