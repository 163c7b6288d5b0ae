//! Helpers for the lowering tests (`lowering_regions.rs`,
//! `lowering_locks.rs`, `lowering_atomics.rs`): write a C snippet to a
//! temporary file, lower every function it defines through the library
//! with the kernel flags (the Debian 6.12 headers scripts/setup.sh
//! installs), and read back the facts the tests assert: the final regions
//! and the region of each key, the locks, each procedure's commands with
//! region and lock ids replaced by their names, and the warnings.

#![allow(dead_code)]

use racewatch::frontend::flags::{FlagOptions, FlagSource};
use racewatch::frontend::lower::regions::RegionKey;
use racewatch::frontend::lower::{Lowered, Roots};
use racewatch::ir::{BlockId, Command, ProcId, Program, Terminator};
use std::collections::{BTreeSet, HashMap, HashSet};
use racewatch::models::KernelModels;
use racewatch::pipeline::Session;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One session for every test of the binary (the models are parsed once).
fn session() -> &'static Session {
    static SESSION: OnceLock<Session> = OnceLock::new();
    SESSION.get_or_init(|| {
        let options = FlagOptions::default();
        let source = FlagSource::resolve(&options)
            .unwrap_or_else(|e| panic!("{e}\nthe tests need the kernel headers: run scripts/setup.sh"));
        Session { models: KernelModels::embedded().expect("built-in models are valid"), options, source, jobs: 1 }
    })
}

/// A fresh path for a snippet, unique per process and call.
fn snippet_path(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("racewatch-lowering-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir.join(format!("{name}-{n}.c"))
}

/// Sets of held-lock lists (each sorted, one per way of reaching a point).
pub type HeldSets = BTreeSet<Vec<String>>;

/// What lowering one snippet gave.
pub struct Lowering {
    /// The lowering's result.
    pub lowered: Lowered,
    /// The C file (kept for the failure messages).
    pub path: PathBuf,
}

/// Lowers every function `source` defines, with the kernel headers.
/// Panics with clang's error when the snippet does not compile.
pub fn lower(name: &str, source: &str) -> Lowering {
    let path = snippet_path(name);
    std::fs::write(&path, source).expect("write the snippet");
    let (_, lowered, _) = session()
        .lower(&path, Roots::AllDefined)
        .unwrap_or_else(|e| panic!("{} does not compile: {e:?}", path.display()));
    Lowering { lowered, path }
}

/// `struct foo.a`: a field of a named record (`record` includes its tag
/// keyword: `struct foo`).
pub fn field(record: &str, name: &str) -> RegionKey {
    RegionKey::Field { record: record.into(), field: name.into() }
}

/// `global count`, or `global fn.name` for a static local.
pub fn global(name: &str) -> RegionKey {
    RegionKey::Global { name: name.into() }
}

/// `int (pointee)`.
pub fn pointee(ty: &str) -> RegionKey {
    RegionKey::Pointee { ty: ty.into() }
}

/// `local fn.x`.
pub fn local(name: &str) -> RegionKey {
    RegionKey::Local { name: name.into() }
}

/// `union u`.
pub fn union(name: &str) -> RegionKey {
    RegionKey::Union { name: name.into() }
}

/// `struct foo bit-fields at +N`.
pub fn bit_unit(record: &str, offset: u64) -> RegionKey {
    RegionKey::BitUnit { record: record.into(), offset }
}

impl Lowering {
    /// The program.
    pub fn program(&self) -> &Program {
        &self.lowered.program
    }

    /// The whole program as text, for failure messages.
    pub fn text(&self) -> String {
        self.program().to_string()
    }

    /// The names of the final regions, sorted.
    pub fn region_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.program().regions.values().map(|r| r.name.clone()).collect();
        names.sort();
        names
    }

    /// The region keys the lowering met, as their display names, sorted.
    pub fn keys(&self) -> Vec<String> {
        self.lowered.regions.keys().map(|k| k.display()).collect()
    }

    /// Whether the lowering met a key.
    pub fn has_key(&self, key: &RegionKey) -> bool {
        self.lowered.regions.contains_key(key)
    }

    /// The name of the final region of a key; panics (listing the keys met)
    /// when the key was never used.
    pub fn region_of(&self, key: &RegionKey) -> String {
        let id = self.lowered.regions.get(key).unwrap_or_else(|| {
            panic!("no region key {:?}; keys met: {:?}\n{}", key.display(), self.keys(), self.text())
        });
        self.program().regions[*id].name.clone()
    }

    /// Whether the final region of a key is thread-private.
    pub fn is_thread_private(&self, key: &RegionKey) -> bool {
        let id = self.lowered.regions.get(key).unwrap_or_else(|| panic!("no region key {:?}; keys met: {:?}", key.display(), self.keys()));
        self.program().regions[*id].thread_private
    }

    /// The printed kind of the final region of a key (`field`, `merged`, …).
    pub fn region_kind(&self, key: &RegionKey) -> &'static str {
        let id = self.lowered.regions.get(key).unwrap_or_else(|| panic!("no region key {:?}; keys met: {:?}", key.display(), self.keys()));
        self.program().regions[*id].kind.as_str()
    }

    /// Whether two keys ended in the same region (both must have been met).
    pub fn same_region(&self, a: &RegionKey, b: &RegionKey) -> bool {
        let get = |k: &RegionKey| {
            *self.lowered.regions.get(k).unwrap_or_else(|| panic!("no region key {:?}; keys met: {:?}\n{}", k.display(), self.keys(), self.text()))
        };
        get(a) == get(b)
    }

    /// The lock names, in id order.
    pub fn lock_names(&self) -> Vec<String> {
        self.program().locks.values().map(|l| l.name.clone()).collect()
    }

    /// `(name, kind)` of every lock, in id order.
    pub fn locks(&self) -> Vec<(String, String)> {
        self.program().locks.values().map(|l| (l.name.clone(), l.kind.as_str().to_string())).collect()
    }

    /// The id of a procedure by name; panics listing the names when absent.
    pub fn procedure_id(&self, name: &str) -> ProcId {
        self.program()
            .procedures
            .iter()
            .find(|(_, p)| p.name == name)
            .map(|(id, _)| id)
            .unwrap_or_else(|| panic!("no procedure {name}; have {:?}", self.procedure_names()))
    }

    /// The names of every procedure, in id order.
    pub fn procedure_names(&self) -> Vec<String> {
        self.program().procedures.values().map(|p| p.name.clone()).collect()
    }

    /// A procedure as printed (`program.display_procedure`).
    pub fn procedure(&self, name: &str) -> String {
        self.program().display_procedure(self.procedure_id(name)).to_string()
    }

    /// The commands of a procedure, one printed line each, without spans,
    /// with `regionN` and `lockN` replaced by their quoted names
    /// (`store "struct foo.a"[p] := tmp.1;`, `lock "struct foo.lock";`), in
    /// program order: the blocks in reverse postorder from the entry (a
    /// block after its predecessors, loops aside; the first target of a
    /// `goto` first), then the unreachable blocks by id.
    pub fn commands(&self, name: &str) -> Vec<String> {
        let id = self.procedure_id(name);
        let program = self.program();
        let procedure = &program.procedures[id];
        let mut out = Vec::new();
        for block in self.block_order(id) {
            for command in &procedure.blocks[block].commands {
                out.push(self.named(&program.display_command(id, command).to_string()));
            }
        }
        out
    }

    /// The blocks of a procedure in reverse postorder from the entry, the
    /// first target of each `goto` first, then the unreachable ones by id.
    fn block_order(&self, id: ProcId) -> Vec<BlockId> {
        let procedure = &self.program().procedures[id];
        let mut seen = HashSet::new();
        let mut post = Vec::new();
        // Iterative depth-first search: (block, next target index).
        let mut stack = vec![(procedure.entry, 0usize)];
        seen.insert(procedure.entry);
        while let Some((block, next)) = stack.pop() {
            let targets: Vec<BlockId> = match &procedure.blocks[block].terminator {
                Terminator::Goto(targets) => targets.iter().rev().copied().collect(),
                Terminator::Return | Terminator::Unreachable => Vec::new(),
            };
            match targets.get(next) {
                Some(&t) => {
                    stack.push((block, next + 1));
                    if seen.insert(t) {
                        stack.push((t, 0));
                    }
                }
                None => post.push(block),
            }
        }
        post.reverse();
        post.extend(procedure.blocks.ids().filter(|b| !seen.contains(b)));
        post
    }

    /// The commands of a procedure that touch locks or interrupt state:
    /// `lock`, `unlock`, `trylock`, `lock ?` and `control`, as in
    /// [`commands`](Self::commands), with the trylock's target variable
    /// dropped (`trylock "m";`).
    pub fn lock_commands(&self, name: &str) -> Vec<String> {
        self.commands(name)
            .into_iter()
            .filter_map(|c| {
                if let Some(at) = c.find(":= trylock") {
                    return Some(c[at + 3..].to_string());
                }
                let lockish = ["lock ", "lock.shared ", "unlock ", "unlock.shared ", "control "].iter().any(|p| c.starts_with(p));
                lockish.then_some(c)
            })
            .collect()
    }

    /// Every memory access of a procedure, in the order of
    /// [`commands`](Self::commands): `(load|store|load.atomic|store.atomic,
    /// region name)`.
    pub fn accesses(&self, name: &str) -> Vec<(String, String)> {
        let id = self.procedure_id(name);
        let program = self.program();
        let procedure = &program.procedures[id];
        let mut out = Vec::new();
        for block in self.block_order(id) {
            for command in &procedure.blocks[block].commands {
                let suffix = |a: &racewatch::ir::AccessKind| if *a == racewatch::ir::AccessKind::Atomic { ".atomic" } else { "" };
                match command {
                    Command::Load { region, access, .. } => out.push((format!("load{}", suffix(access)), program.regions[*region].name.clone())),
                    Command::Store { region, access, .. } => out.push((format!("store{}", suffix(access)), program.regions[*region].name.clone())),
                    _ => {}
                }
            }
        }
        out
    }

    /// The region names a procedure stores to (plain or atomic), in order,
    /// without duplicates.
    pub fn stored_regions(&self, name: &str) -> Vec<String> {
        dedup(self.accesses(name).into_iter().filter(|(k, _)| k.starts_with("store")).map(|(_, r)| r))
    }

    /// The region names a procedure loads from, in order, without
    /// duplicates.
    pub fn loaded_regions(&self, name: &str) -> Vec<String> {
        dedup(self.accesses(name).into_iter().filter(|(k, _)| k.starts_with("load")).map(|(_, r)| r))
    }

    /// The names of the procedures a procedure calls, in order.
    pub fn callees(&self, name: &str) -> Vec<String> {
        let id = self.procedure_id(name);
        let program = self.program();
        let procedure = &program.procedures[id];
        let mut out = Vec::new();
        for block in procedure.blocks.values() {
            for command in &block.commands {
                if let Command::Call { procedure, .. } = command {
                    out.push(program.procedures[*procedure].name.clone());
                }
            }
        }
        out
    }

    /// The warnings, each as `[check] message`.
    pub fn warnings(&self) -> Vec<String> {
        self.lowered.warnings.iter().map(|d| format!("[{}] {}", d.check, d.message)).collect()
    }

    /// The warnings of one check id (`unknown-lock`, …).
    pub fn warnings_of(&self, check: &str) -> Vec<String> {
        self.lowered.warnings.iter().filter(|d| d.check == check).map(|d| d.message.clone()).collect()
    }

    /// The locks that may be held before each command of a procedure whose
    /// printed text (as in [`commands`](Self::commands)) contains `needle`:
    /// one sorted list of lock names per way of reaching it. A path-
    /// insensitive walk of the procedure's blocks: `lock` adds, `unlock`
    /// removes, a `trylock` forks (taken or not), `assume`s are not
    /// evaluated, calls are not entered. Panics when no command matches.
    pub fn held_at(&self, name: &str, needle: &str) -> BTreeSet<Vec<String>> {
        let (at, _) = self.held_locks(name);
        let mut out = BTreeSet::new();
        let mut matched = false;
        for (text, held) in at {
            if text.contains(needle) {
                matched = true;
                out.extend(held);
            }
        }
        assert!(matched, "no command of {name} contains {needle:?}:\n{}", self.procedure(name));
        out
    }

    /// The locks that may be held when a procedure returns, as in
    /// [`held_at`](Self::held_at).
    pub fn held_at_return(&self, name: &str) -> BTreeSet<Vec<String>> {
        self.held_locks(name).1
    }

    /// (command text, held-lock sets before it) for every reachable command,
    /// and the held-lock sets at the return.
    fn held_locks(&self, name: &str) -> (Vec<(String, HeldSets)>, HeldSets) {
        let id = self.procedure_id(name);
        let program = self.program();
        let procedure = &program.procedures[id];
        let mut before: HashMap<(BlockId, usize), BTreeSet<Vec<String>>> = HashMap::new();
        let mut at_return = BTreeSet::new();
        let mut seen: HashSet<(BlockId, Vec<String>)> = HashSet::new();
        let mut work = vec![(procedure.entry, Vec::<String>::new())];
        while let Some((block_id, held)) = work.pop() {
            if held.len() > 4 || !seen.insert((block_id, held.clone())) {
                continue;
            }
            let block = &procedure.blocks[block_id];
            let mut states: BTreeSet<Vec<String>> = BTreeSet::from([held]);
            for (i, command) in block.commands.iter().enumerate() {
                before.entry((block_id, i)).or_default().extend(states.iter().cloned());
                let lock_name = |l: &racewatch::ir::LockId| program.locks[*l].name.clone();
                states = match command {
                    Command::Lock { lock, .. } => states
                        .into_iter()
                        .map(|mut h| {
                            h.push(lock_name(lock));
                            h.sort();
                            h
                        })
                        .collect(),
                    Command::Unlock { lock, .. } => states
                        .into_iter()
                        .map(|mut h| {
                            if let Some(at) = h.iter().position(|n| *n == lock_name(lock)) {
                                h.remove(at);
                            }
                            h
                        })
                        .collect(),
                    Command::TryLock { lock, .. } => states
                        .into_iter()
                        .flat_map(|h| {
                            let mut taken = h.clone();
                            taken.push(lock_name(lock));
                            taken.sort();
                            [h, taken]
                        })
                        .collect(),
                    _ => states,
                };
            }
            match &block.terminator {
                Terminator::Goto(targets) => {
                    for t in targets {
                        for h in &states {
                            work.push((*t, h.clone()));
                        }
                    }
                }
                Terminator::Return => at_return.extend(states),
                Terminator::Unreachable => {}
            }
        }
        let mut at: Vec<((BlockId, usize), HeldSets)> = before.into_iter().collect();
        at.sort_by_key(|((b, i), _)| (b.as_u32(), *i));
        let texts = at
            .into_iter()
            .map(|((b, i), held)| (self.named(&program.display_command(id, &procedure.blocks[b].commands[i]).to_string()), held))
            .collect();
        (texts, at_return)
    }

    /// Replaces `regionN` and `lockN` tokens by their quoted names.
    fn named(&self, line: &str) -> String {
        let program = self.program();
        let mut out = String::new();
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b'.');
            let replaced = boundary
                .then(|| {
                    for (prefix, is_region) in [("region", true), ("lock", false)] {
                        if !line[i..].starts_with(prefix) {
                            continue;
                        }
                        let digits: String = line[i + prefix.len()..].chars().take_while(|c| c.is_ascii_digit()).collect();
                        let end = i + prefix.len() + digits.len();
                        let after_ok = bytes.get(end).is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
                        if digits.is_empty() || !after_ok {
                            continue;
                        }
                        let n: usize = digits.parse().ok()?;
                        let name = if is_region {
                            program.regions.values().nth(n).map(|r| r.name.clone())
                        } else {
                            program.locks.values().nth(n).map(|l| l.name.clone())
                        }?;
                        return Some((format!("{name:?}"), end));
                    }
                    None
                })
                .flatten();
            match replaced {
                Some((text, end)) => {
                    out.push_str(&text);
                    i = end;
                }
                None => {
                    let ch = line[i..].chars().next().expect("in bounds");
                    out.push(ch);
                    i += ch.len_utf8();
                }
            }
        }
        out
    }
}

fn dedup(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}
