//! Memory regions: which accesses may touch the same bytes.
//!
//! # The split
//!
//! Memory is split by the *static* shape of each access, as STORM and
//! SMACK do: an access `p->f` to a scalar field goes to the region of field
//! `f` of the innermost named record declaring it (`struct file.f_pos`),
//! whatever the path that led there (`tp->wk.flags` and `w->flags` with `w`
//! a `struct rtl_wk *` are both `struct rtl_wk.flags`); a global scalar or
//! array has its own region (`global nvram_count`); a scalar reached
//! through a plain pointer goes to the region of its pointee type (`int
//! (pointee)`); an address-taken local has a thread-private region.
//! Addresses are byte addresses (`p + offsetof(f)`), so one region can hold
//! a field of many objects and the watched offset tells them apart.
//!
//! # Unification
//!
//! The rule that must hold: **two accesses that can touch the same byte
//! are in the same region.** The split alone breaks it where C code makes
//! storage overlap, so the lowering reports each such place and the regions
//! are merged (union-find) before the program is final:
//!
//! - the address of a scalar field or global escapes as a plain pointer
//!   (`int *p = &dev->count`): the field's region merges with `int
//!   (pointee)`;
//! - a pointer to a record is cast to a pointer to a scalar type (`(u8
//!   *)dev`, byte-wise access): every region of the record merges with that
//!   scalar type's pointee region;
//! - a pointer to one record type is cast to another record type (not
//!   through `void *`): the two records' regions merge;
//! - a union: all its members share one region; a record inside a union
//!   merges with it;
//! - bit-fields of one storage unit share a region keyed by the unit.
//!
//! # What does not merge
//!
//! An address that reaches no access at another type does not make storage
//! overlap, so it merges nothing:
//!
//! - the address of a scalar field, a global or an array of scalars (or a
//!   string literal) passed as an argument that a kernel function model
//!   does not keep (`keeps`: the bit, atomic, string and memory functions,
//!   printing, `dma_alloc_coherent`'s handle) and that is not the call's
//!   `returns kind="arg"` result: no pointer derived from it outlives the call,
//!   and the model's accesses through the argument use the storage's own
//!   region ([`FnLower::unescaped_argument`](super::context::FnLower)
//!   checks that the two keys agree and merges as before when they do
//!   not). The model's accesses stay inside the field: C forbids pointer
//!   arithmetic past the array object, and 6.12's FORTIFY_SOURCE warns on
//!   field-spanning memcpy/memset (include/linux/fortify-string.h);
//! - an address that is only compared, as the kernel's `bitop()` macro
//!   compares `(uintptr_t)(addr)` with NULL (include/linux/bitops.h);
//! - a cast to a pointer that differs only in qualifiers (`unsigned long *`
//!   to `volatile unsigned long *`), which is seen through.
//!
//! Anonymous members are named after their first named field (`struct
//! net_device_stats.<anonymous union rx_packets>`), so two anonymous unions
//! of one record are two regions.
//!
//! `racewatch ivl --stats` prints the largest merged regions with their
//! member count; with `-v`, each merge that built them, its reason and the
//! place (`file:line in function`) that asked for it.
//!
//! Pointer round trips through `void *` (`private_data`, `container_of`,
//! `dev_get_drvdata`) are assumed type-correct: the object is accessed at
//! the type it was stored with (docs/soundness.md).

use crate::ir::{Program, Region, RegionId, RegionKind, Sort};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The static name of a piece of memory, before unification.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegionKey {
    /// A scalar (or array-of-scalars) field of a named record:
    /// `struct file.f_pos`.
    Field {
        /// `struct file`.
        record: String,
        /// `f_pos`; a field of an anonymous member is written with the
        /// anonymous member's path (`u.val`).
        field: String,
    },
    /// The storage of a union (all members overlap): `union ktime`.
    Union {
        /// `union ktime`, or the anonymous union's path.
        name: String,
    },
    /// The storage unit of bit-fields: `struct foo bit-fields @8`.
    BitUnit {
        /// `struct foo`.
        record: String,
        /// Byte offset of the unit.
        offset: u64,
    },
    /// A global variable or static local: `global nvram_count`.
    Global {
        /// The C name; a static local is `function.name`.
        name: String,
    },
    /// Scalars reached through a plain pointer: `int (pointee)`.
    Pointee {
        /// The canonical pointee type.
        ty: String,
    },
    /// An address-taken local: `local fn.buf`, thread-private.
    Local {
        /// `function.name`.
        name: String,
    },
}

impl RegionKey {
    /// The name users read in race reports.
    pub fn display(&self) -> String {
        match self {
            RegionKey::Field { record, field } => format!("{record}.{field}"),
            RegionKey::Union { name } => name.clone(),
            RegionKey::BitUnit { record, offset } => format!("{record} bit-fields at +{offset}"),
            RegionKey::Global { name } => format!("global {name}"),
            RegionKey::Pointee { ty } => format!("{ty} (pointee)"),
            RegionKey::Local { name } => format!("local {name}"),
        }
    }

    fn kind(&self) -> RegionKind {
        match self {
            RegionKey::Field { .. } | RegionKey::Union { .. } | RegionKey::BitUnit { .. } => RegionKind::Field,
            RegionKey::Global { .. } => RegionKind::Global,
            RegionKey::Pointee { .. } => RegionKind::Pointee,
            RegionKey::Local { .. } => RegionKind::Global,
        }
    }
}

/// Why two regions were merged, for `racewatch ivl --stats` and the tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MergeReason {
    /// The address of a scalar escaped as a plain pointer.
    AddressTaken,
    /// A record pointer was cast to a scalar pointer.
    ByteAccess,
    /// A record pointer was cast to another record type.
    RecordCast,
    /// Union members overlap.
    Union,
}

impl MergeReason {
    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            MergeReason::AddressTaken => "address-taken",
            MergeReason::ByteAccess => "byte-access",
            MergeReason::RecordCast => "record-cast",
            MergeReason::Union => "union",
        }
    }
}

/// Region keys met during lowering, their provisional ids, and the merges.
#[derive(Debug, Default)]
pub struct RegionTable {
    keys: Vec<RegionKey>,
    index: HashMap<RegionKey, usize>,
    parent: Vec<usize>,
    /// How many merges of each reason were requested.
    pub merges: BTreeMap<MergeReason, usize>,
    /// Where the lowering is (`file:line in function`), for the merge log.
    pub site: String,
    /// Every merge that joined two classes: why, the two keys, and where.
    pub log: Vec<MergeRecord>,
}

/// One merge that joined two classes, for `racewatch ivl --stats -v`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeRecord {
    /// Why.
    pub reason: MergeReason,
    /// The two keys merged.
    pub keys: (RegionKey, RegionKey),
    /// Where the lowering was: `file:line in function`.
    pub site: String,
}

impl RegionTable {
    /// The provisional id of a key, created on first use. Until
    /// [`finish`](Self::finish) runs, provisional ids are indexes into the
    /// table, stored in the program as placeholder regions.
    pub fn id(&mut self, program: &mut Program, key: RegionKey) -> RegionId {
        if let Some(&i) = self.index.get(&key) {
            return RegionId::from_u32(i as u32);
        }
        let i = self.keys.len();
        let id = program.regions.push(Region {
            name: key.display(),
            element: Sort::Int,
            kind: key.kind(),
            thread_private: matches!(key, RegionKey::Local { .. }),
        });
        debug_assert_eq!(id.as_u32() as usize, i, "the region table owns the program's regions during lowering");
        self.keys.push(key.clone());
        self.index.insert(key, i);
        self.parent.push(i);
        id
    }

    /// Whether a key has been used.
    pub fn contains(&self, key: &RegionKey) -> bool {
        self.index.contains_key(key)
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    /// Records that the two keys' storage may overlap.
    pub fn merge(&mut self, program: &mut Program, a: RegionKey, b: RegionKey, reason: MergeReason) {
        let ia = self.id(program, a).as_u32() as usize;
        let ib = self.id(program, b).as_u32() as usize;
        let (ra, rb) = (self.find(ia), self.find(ib));
        if ra != rb {
            self.parent[ra.max(rb)] = ra.min(rb);
            *self.merges.entry(reason).or_default() += 1;
            self.log.push(MergeRecord { reason, keys: (self.keys[ia].clone(), self.keys[ib].clone()), site: self.site.clone() });
        }
    }

    /// Replaces the provisional regions with one region per class, and
    /// rewrites every access of the program to the class's region. Returns
    /// the final region of each key, for the tests and the statistics.
    pub fn finish(mut self, program: &mut Program) -> (BTreeMap<RegionKey, RegionId>, Vec<MergeRecord>) {
        let n = self.keys.len();
        let mut classes: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for i in 0..n {
            let root = self.find(i);
            classes.entry(root).or_default().insert(i);
        }
        let mut regions = crate::ir::Arena::new();
        let mut final_of = vec![RegionId::from_u32(0); n];
        for members in classes.values() {
            let mut names: Vec<String> = members.iter().map(|&i| self.keys[i].display()).collect();
            names.sort();
            let single = members.len() == 1;
            let first = *members.iter().next().expect("a class has a member");
            let region = Region {
                name: if single { names.remove(0) } else { names.join(" | ") },
                element: Sort::Int,
                kind: if single { self.keys[first].kind() } else { RegionKind::Merged },
                thread_private: members.iter().all(|&i| matches!(self.keys[i], RegionKey::Local { .. })),
            };
            let id = regions.push(region);
            for &i in members {
                final_of[i] = id;
            }
        }
        program.regions = regions;
        for (_, procedure) in program.procedures.iter_mut() {
            for (_, block) in procedure.blocks.iter_mut() {
                for command in &mut block.commands {
                    command.remap_regions(|r| final_of[r.as_u32() as usize]);
                }
            }
        }
        // The names of the accesses follow their regions.
        let names = std::mem::take(&mut program.access_names);
        for ((span, r), name) in names {
            program.access_names.entry((span, final_of[r.as_u32() as usize])).or_insert(name);
        }
        let log = std::mem::take(&mut self.log);
        (self.keys.iter().cloned().zip(final_of).collect(), log)
    }
}
