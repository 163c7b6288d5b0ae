//! Begin prefixes: the driver's begin callback (a file's `open`) run, to
//! success, at the start of the thread of another callback on the same
//! object (a `read` of that file).
//!
//! # Algorithm
//!
//! An entry point receiving an object of an `after-begin` lifetime rule
//! (kernel-models/lifetimes/) at a stage other than begin gets a prefix
//! when the begin callback of its structure is known: every registration
//! of the entry point names the variable holding its structure
//! (`sonypi_misc_fops`), and every one of those variables holds the same
//! single begin callback of the driver, of the same rule. The thread then
//! runs that callback first, with the entry point's object as the
//! callback's object and arbitrary other arguments, assumes it returned
//! 0, and runs the entry point ([`of_pair`]: once per object). The prefix's accesses carry no race check
//! (its races are its own pair's), and the replay does not count its
//! writes as the other thread's conflicting write.
//!
//! # Soundness
//!
//! It removes only executions in which the callback runs on an object
//! whose begin callback never returned 0, which the rule's kernel
//! mechanism excludes (for files: do_dentry_open in fs/open.c installs
//! the file only after `open` returned 0, and __fput calls `release` only
//! for a file with FMODE_OPENED). No prefix is added when the structure's
//! begin callback is not the driver's (a kernel helper such as
//! `nonseekable_open`, or none), when the registrations disagree or name
//! no variable, or when the driver stores to the object's field naming its
//! operations (`ops-field`, `file->f_op` by `replace_fops`): then an
//! operation may run after another structure's begin callback. The
//! prefix runs without the begin callback's pseudo locks, which only
//! adds interleavings.

use crate::ir::{EntryPointInfo, Program};

pub use crate::analyses::objects::BeginCallback as Prefix;

/// The prefixes of the pair's two threads, entry points `i` (run first)
/// and `j`. When both have one of the same rule and no rule keeps their
/// objects apart, the two may be one object (two reads of one file), which
/// had one begin callback: only the first thread's runs (the second's
/// operation then runs after an open of its file, or one of another file;
/// either way the search keeps every real execution).
pub fn of_pair(
    program: &Program,
    entries: &[&EntryPointInfo],
    i: usize,
    j: usize,
) -> [Option<Prefix>; 2] {
    let (a, b) = (of(program, entries, i), of(program, entries, j));
    if let (Some(x), Some(y)) = (&a, &b) {
        let apart = crate::analyses::objects::distinct_params(program, i, j)
            .iter()
            .any(|d| d.rule == x.rule && d.first == x.own && d.second == y.own);
        if x.rule == y.rule && !apart {
            return [a, None];
        }
    }
    [a, b]
}

/// The prefix of entry point `i` (an index into `entries`), if any.
pub fn of(program: &Program, entries: &[&EntryPointInfo], i: usize) -> Option<Prefix> {
    crate::analyses::objects::begin_of(program, entries, i)
}
