//! The callbacks a quiescing call names (kernel-models/entry-points/
//! quiescing.xml): for `kinds:K,K`, the entry point of each kind that has
//! exactly one registration of that kind in the file (the call names one
//! timer, work item, tasklet, NAPI context or line, which the lowering
//! does not identify; with two registrations of a kind the call may name
//! either, so it names neither); for `structs:S,S`, every entry point all
//! of whose registrations are fields of those structures. Which of them
//! the call surely stops is decided after lowering
//! ([`crate::analyses::quiesce`]).

use super::context::Shared;
use crate::frontend::entry_points::{EntryPoint, Via};
use crate::models::Quiesced;

/// Each entry point's function with the structure of each registration.
pub(super) fn entry_records(entries: &[EntryPoint]) -> Vec<(String, Vec<Option<String>>)> {
    entries
        .iter()
        .map(|ep| {
            let records = ep
                .origins
                .iter()
                .map(|o| match &o.via {
                    Via::Field { record, .. } => Some(record.clone()),
                    _ => None,
                })
                .collect();
            (ep.function.clone(), records)
        })
        .collect()
}

/// The entry points (C function names) a call with this model names.
pub(super) fn targets(shared: &Shared<'_>, quiesced: &Quiesced) -> Vec<String> {
    let mut out = Vec::new();
    match quiesced {
        Quiesced::Kinds(kinds) => {
            for kind in kinds {
                let with: Vec<(&String, usize)> = shared
                    .entry_kinds
                    .iter()
                    .map(|(f, ks)| (f, ks.iter().filter(|k| *k == kind).count()))
                    .filter(|(_, n)| *n > 0)
                    .collect();
                if let [(f, 1)] = with.as_slice() {
                    out.push((*f).clone());
                }
            }
        }
        Quiesced::Structs(structs) => {
            for (f, records) in &shared.entry_records {
                let all = !records.is_empty() && records.iter().all(|r| r.as_ref().is_some_and(|r| structs.contains(r)));
                if all {
                    out.push(f.clone());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}
