//! The identity of a race in source terms: its name (the C expressions the
//! two accesses wrote) and its fingerprint, which survives edits that do
//! not touch the race.
//!
//! # Name
//!
//! Each access carries the lvalue it accessed as the code wrote it
//! ([`Access::expression`], recorded by the lowering in
//! `src/frontend/lower/names.rs`). A race is named by its two
//! expressions: one when they are equal (`tp->cur_tx`), both when they
//! differ (`*ppos` / `file->f_pos`). The region stays in the report as a
//! secondary note.
//!
//! # Fingerprint
//!
//! BLAKE3 over: the file's key (its path relative to the input directory
//! that named it, else its file name), the two entry points, and per
//! access its entry point, containing function, expression with all
//! white space removed, and kind (read, write, atomic), the two accesses
//! in a fixed order; then the region. No line or column goes in, so
//! inserting lines or comments above a race, or editing unrelated code,
//! keeps it; renaming a function, an entry point, a variable in the racing
//! expression or changing the region (a merge with another region) makes a
//! new race. The first 16 bytes, in hex, are the fingerprint
//! (`racewatch/v1`).
//!
//! Two races of one file never share a fingerprint: a file has one verdict
//! per pair of entry points and region, and both are hashed.

use super::verdict::Access;

/// The version tag of the fingerprint, the SARIF `partialFingerprints` key.
pub const FINGERPRINT_KEY: &str = "racewatch/v1";

/// The source-level name of a race: the two accesses' expressions, once
/// when equal; `None` when neither access has one.
pub fn race_name(accesses: &[Access; 2]) -> Option<String> {
    let [a, b] = accesses;
    match (&a.expression, &b.expression) {
        (Some(x), Some(y)) if normalise(x) == normalise(y) => Some(x.clone()),
        (Some(x), Some(y)) => Some(format!("{x} / {y}")),
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    }
}

/// An expression with its white space removed, as the fingerprint hashes
/// it.
pub fn normalise(expression: &str) -> String {
    expression.chars().filter(|c| !c.is_whitespace()).collect()
}

/// One side of a race as the fingerprint sees it: entry point, function,
/// normalised expression, kind.
pub type Side = [String; 4];

/// The side of a lockset access.
pub fn side(a: &Access) -> Side {
    let kind = match (a.write, a.atomic) {
        (true, false) => "write",
        (false, false) => "read",
        (true, true) => "atomic write",
        (false, true) => "atomic read",
    };
    [a.entry.clone(), a.function.clone(), a.expression.as_deref().map(normalise).unwrap_or_default(), kind.to_string()]
}

/// The fingerprint of a race of the file keyed `file` between entry points
/// `first` and `second` on `region`, with its two sides (in any order).
pub fn fingerprint(file: &str, first: &str, second: &str, region: &str, sides: [Side; 2]) -> String {
    let mut entries = [first, second];
    entries.sort();
    let mut sides = sides;
    sides.sort();
    let mut h = blake3::Hasher::new();
    let mut field = |s: &str| {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    field(FINGERPRINT_KEY);
    field(file);
    for e in entries {
        field(e);
    }
    for side in &sides {
        for part in side {
            field(part);
        }
    }
    field(region);
    h.finalize().to_hex()[..32].to_string()
}

/// The key of a file in fingerprints: its path relative to the first of
/// `roots` (input directories) containing it, else its file name.
pub fn file_key(file: &std::path::Path, roots: &[std::path::PathBuf]) -> String {
    for root in roots {
        if let Ok(rel) = file.strip_prefix(root) {
            if !rel.as_os_str().is_empty() {
                return rel.display().to_string();
            }
        }
    }
    file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(entry: &str, expression: Option<&str>, write: bool, line: u32) -> Access {
        Access {
            entry: entry.into(),
            write,
            atomic: false,
            span: Some(crate::diagnostics::Span { file: std::path::Path::new("d.c").into(), line, column: 1 }),
            function: entry.into(),
            locks: Vec::new(),
            expression: expression.map(str::to_string),
        }
    }

    #[test]
    fn equal_expressions_name_a_race_once() {
        let same = [access("a", Some("tp->cur_tx"), true, 1), access("b", Some("tp -> cur_tx"), false, 2)];
        assert_eq!(race_name(&same).as_deref(), Some("tp->cur_tx"));
        let different = [access("a", Some("*ppos"), true, 1), access("b", Some("file->f_pos"), false, 2)];
        assert_eq!(race_name(&different).as_deref(), Some("*ppos / file->f_pos"));
        assert_eq!(race_name(&[access("a", None, true, 1), access("b", None, false, 2)]), None);
    }

    #[test]
    fn fingerprints_ignore_lines_and_order_but_not_names() {
        let fp = |a: &Access, b: &Access| fingerprint("d.c", "a", "b", "global x", [side(a), side(b)]);
        let (a, b) = (access("a", Some("x"), true, 10), access("b", Some("x"), false, 20));
        let (a2, b2) = (access("a", Some("x"), true, 13), access("b", Some(" x"), false, 27));
        assert_eq!(fp(&a, &b), fp(&a2, &b2));
        assert_eq!(fp(&a, &b), fp(&b, &a));
        assert_ne!(fp(&a, &b), fp(&access("a", Some("y"), true, 10), &b));
        assert_ne!(fp(&a, &b), fingerprint("e.c", "a", "b", "global x", [side(&a), side(&b)]));
        assert_ne!(fp(&a, &b), fingerprint("d.c", "a", "b", "global y", [side(&a), side(&b)]));
        assert_eq!(fp(&a, &b).len(), 32);
    }

    #[test]
    fn files_are_keyed_relative_to_their_input_directory() {
        let roots = vec![std::path::PathBuf::from("/src/drivers")];
        assert_eq!(file_key(std::path::Path::new("/src/drivers/char/x.c"), &roots), "char/x.c");
        assert_eq!(file_key(std::path::Path::new("/tmp/a/x.c"), &roots), "x.c");
    }
}
