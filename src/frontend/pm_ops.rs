//! Which of a file's `dev_pm_ops` structures are a PCI driver's: the
//! `pci-sleep-runtime-active` serialisation rule (attribute
//! `pm-ops-bus="pci"`) holds only for the power-management operations the
//! PCI bus calls through its own sleep callbacks (drivers/pci/pci-driver.c).
//!
//! # Algorithm
//!
//! One walk over the main file's declarations and function bodies: every
//! reference to a file-scope `static` variable of type `struct dev_pm_ops`
//! defined in the main file is classified. It is a PCI reference when it
//! stands in the initializer of a file-scope variable of type `struct
//! pci_driver` (whose only field that can hold a `dev_pm_ops` pointer is
//! `driver.pm`), and any other reference otherwise (a function body, another
//! structure's initializer). A variable is a PCI driver's operations when
//! it has at least one reference and every reference is a PCI one.
//!
//! # Soundness
//!
//! A wrong answer would apply the rule to operations another bus calls, so
//! the test is strict: a static variable cannot be referenced from another
//! file, and a single reference of any other kind excludes it. In a module
//! of several files a name is kept only if no other file holds
//! `dev_pm_ops` callbacks in a variable of that name that it did not find
//! so (src/frontend/compose.rs).

use super::clang::{Cursor, CursorKind, TranslationUnit};
use std::collections::BTreeSet;

/// The `dev_pm_ops` variables of the main file referenced only from the
/// initializers of `struct pci_driver` variables, by name.
pub fn pci_pm_ops<'t>(tu: &'t TranslationUnit<'t>) -> BTreeSet<String> {
    let Some(main_id) = tu.main_file_id() else { return BTreeSet::new() };
    let mut walk = Walk { main_id, pci: BTreeSet::new(), other: BTreeSet::new() };
    tu.root().for_each_child(|top| {
        if top.is_expanded_in(main_id) {
            let in_pci_driver = top.kind() == CursorKind::VarDecl && record_name(top).as_deref() == Some("pci_driver");
            walk.visit(top, in_pci_driver);
        }
        true
    });
    walk.pci.difference(&walk.other).cloned().collect()
}

struct Walk<'t> {
    main_id: super::clang::FileId<'t>,
    /// Variables with a reference from a `pci_driver` initializer.
    pci: BTreeSet<String>,
    /// Variables with any other reference.
    other: BTreeSet<String>,
}

impl Walk<'_> {
    fn visit(&mut self, c: Cursor<'_>, in_pci_driver: bool) {
        if c.kind() == CursorKind::DeclRefExpr {
            if let Some(var) = c.referenced().filter(|v| v.kind() == CursorKind::VarDecl) {
                if record_name(var).as_deref() == Some("dev_pm_ops") {
                    let own = var.is_static_storage() && var.is_expanded_in(self.main_id);
                    if own && in_pci_driver {
                        self.pci.insert(var.spelling());
                    } else {
                        self.other.insert(var.spelling());
                    }
                }
            }
        }
        c.for_each_child(|child| {
            self.visit(child, in_pci_driver);
            true
        });
    }
}

/// The name of the structure a declaration's type is, without qualifiers.
fn record_name(c: Cursor<'_>) -> Option<String> {
    let record = c.ty().canonical().declaration()?;
    matches!(record.kind(), CursorKind::StructDecl).then(|| record.spelling())
}
