//! Prints the clang cursors of a file's own declarations, with kinds and
//! locations: a debugging aid for writing kernel models and lowering rules.
//! `cargo run --example dump_ast -- FILE.c` (kernel flags from the set-up cache).
use racewatch::frontend::clang::{Cursor, with_thread_index};
use racewatch::frontend::flags::{FlagOptions, FlagSource};

fn dump(c: Cursor<'_>, depth: usize) {
    let loc = c.location();
    println!("{:indent$}{:?} {:?} {}:{} def={}", "", c.kind(), c.spelling(), loc.line, loc.column, c.is_definition(), indent = depth * 2);
    c.for_each_child(|ch| { dump(ch, depth + 1); true });
}

fn main() {
    let file = std::path::PathBuf::from(std::env::args().nth(1).expect("file"));
    let options = FlagOptions { no_kernel: std::env::var_os("PLAIN").is_some(), ..FlagOptions::default() };
    let source = FlagSource::resolve(&options).unwrap();
    let flags = source.flags_for(&file, &options).unwrap();
    with_thread_index(|index| {
        let tu = index.parse(&file, &flags).unwrap();
        tu.root().for_each_child(|top| { if let Some(id) = tu.main_file_id() { if top.is_expanded_in(id) { dump(top, 0); } } true });
    });
}
