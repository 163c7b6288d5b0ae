//! The functions a driver stores in fields of structures, for calls
//! through those fields ([`super::calls`]).
//!
//! # Algorithm
//!
//! One walk over the main file's top-level declarations records, for every
//! initializer list of a record type (designated or positional) and every
//! assignment to a member, each function designator stored in a field of
//! function-pointer type, keyed by (struct tag, field).
//!
//! # Soundness
//!
//! A call through a field this walk finds no function for is an
//! approximation the caller reports (`approx {function-pointer}`); a field
//! filled from another translation unit or through a computed pointer is
//! not seen here.

use super::calls::strip_to_member;
use super::layout;
use crate::frontend::clang::{Cursor, CursorKind};

/// Every function this driver stores in a field of any structure, by
/// (struct tag, field), collected from initializers and assignments in the
/// main file, for calls through those fields.
pub fn collect_field_targets<'t>(root: Cursor<'t>, main_id: crate::frontend::clang::FileId<'t>) -> std::collections::HashMap<(String, String), Vec<String>> {
    let mut out: std::collections::HashMap<(String, String), Vec<String>> = std::collections::HashMap::new();
    let mut record = |field: Cursor<'t>, value: Cursor<'t>, out: &mut std::collections::HashMap<(String, String), Vec<String>>| {
        if !field.ty().is_function_pointer() {
            return;
        }
        let Some(parent) = field.semantic_parent() else { return };
        let name = layout::record_name(parent);
        let key = (name.strip_prefix("struct ").unwrap_or(&name).to_string(), field.spelling());
        for f in crate::frontend::entry_points::function_refs(value) {
            let usr = f.definition().map(|d| d.usr()).unwrap_or_else(|| f.usr());
            let list = out.entry(key.clone()).or_default();
            if !list.contains(&usr) {
                list.push(usr);
            }
        }
    };
    fn walk<'t>(
        c: Cursor<'t>,
        out: &mut std::collections::HashMap<(String, String), Vec<String>>,
        record: &mut dyn FnMut(Cursor<'t>, Cursor<'t>, &mut std::collections::HashMap<(String, String), Vec<String>>),
    ) {
        match c.kind() {
            CursorKind::InitListExpr => {
                let ty = c.ty().canonical();
                if ty.kind() == crate::frontend::clang::TypeKind::Record {
                    let fields = ty.fields();
                    let mut next = 0usize;
                    for element in c.children() {
                        match crate::frontend::entry_points::designated_field(element) {
                            Some(field) => {
                                next = fields.iter().position(|f| *f == field).map_or(fields.len(), |i| i + 1);
                                if let Some(value) = element.children().last().copied() {
                                    record(field, value, out);
                                }
                            }
                            None => {
                                if let Some(&field) = fields.get(next) {
                                    record(field, element, out);
                                }
                                next += 1;
                            }
                        }
                    }
                }
            }
            CursorKind::BinaryOperator if c.binary_operator() == crate::frontend::clang::BinaryOperator::Assign => {
                let children = c.children();
                if let [lhs, rhs] = children.as_slice() {
                    if let Some(field) = strip_to_member(*lhs).and_then(|m| m.referenced()).filter(|f| f.kind() == CursorKind::FieldDecl) {
                        record(field, *rhs, out);
                    }
                }
            }
            _ => {}
        }
        c.for_each_child(|child| {
            walk(child, out, record);
            true
        });
    }
    root.for_each_child(|top| {
        if top.is_expanded_in(main_id) {
            walk(top, &mut out, &mut record);
        }
        true
    });
    out
}
