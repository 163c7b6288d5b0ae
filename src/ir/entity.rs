//! Typed ids and the arenas they index, in the style of cranelift's
//! `entity` crate.
//!
//! Every IR object that others refer to lives in an [`Arena`] and is named by
//! a small `Copy` id ([`ProcId`], [`VarId`], …) rather than by a reference or
//! a raw index. Ids of different kinds cannot be mixed up, and the IR stays a
//! tree of plain values that can be cloned, compared and printed. A
//! [`SecondaryMap`] attaches analysis results to the ids of one arena without
//! touching the arena.
//!
//! An id is only meaningful for the arena that issued it: indexing another
//! arena with it is a logic error that the type system cannot catch (two
//! procedures both have a `bb0`). The validator (`validate.rs`) checks that
//! every id stored in a program exists.

use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A typed index into an [`Arena`].
pub trait EntityId: Copy + Eq + Ord + Hash + fmt::Debug {
    /// The id with this number. Ids are normally handed out by
    /// [`Arena::push`]; building one by hand is for tests of malformed IR.
    fn from_u32(number: u32) -> Self;

    /// The id's number, which is its position in its arena.
    fn as_u32(self) -> u32;
}

/// Defines a `u32` newtype id that prints (with `Debug` and `Display`) as
/// its prefix followed by its number.
macro_rules! entity_id {
    ($(#[$attribute:meta])* $name:ident, $prefix:literal) => {
        $(#[$attribute])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(u32);

        impl $name {
            /// The id with this number; see [`EntityId::from_u32`].
            pub const fn from_u32(number: u32) -> $name {
                $name(number)
            }

            /// The id's number, which is its position in its arena.
            pub const fn as_u32(self) -> u32 {
                self.0
            }
        }

        impl EntityId for $name {
            fn from_u32(number: u32) -> Self {
                $name(number)
            }

            fn as_u32(self) -> u32 {
                self.0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity_id!(
    /// A procedure of a [`Program`](super::Program); prints as `proc3`.
    ProcId,
    "proc"
);
entity_id!(
    /// A basic block of one procedure; prints as `bb3`.
    BlockId,
    "bb"
);
entity_id!(
    /// A variable (global, parameter, return or local); prints as `v3`.
    VarId,
    "v"
);
entity_id!(
    /// A memory region; prints as `region3`.
    RegionId,
    "region"
);
entity_id!(
    /// A lock; prints as `lock3`.
    LockId,
    "lock"
);
entity_id!(
    /// An uninterpreted function; prints as `fn3`.
    FuncId,
    "fn"
);
entity_id!(
    /// An entry point of the driver; prints as `entry3`.
    EntryPointId,
    "entry"
);

/// The position of an id in the vector behind an arena or side map.
fn slot<I: EntityId>(id: I) -> usize {
    id.as_u32() as usize
}

/// A vector of `T` indexed by the ids it hands out (cranelift's
/// `PrimaryMap`). Items are never removed, so ids stay valid.
pub struct Arena<I, T> {
    items: Vec<T>,
    ids: PhantomData<fn() -> I>,
}

impl<I: EntityId, T> Arena<I, T> {
    /// An empty arena.
    pub fn new() -> Arena<I, T> {
        Arena { items: Vec::new(), ids: PhantomData }
    }

    /// Adds an item and returns its id.
    ///
    /// # Panics
    ///
    /// When the arena already holds 2^32 items.
    pub fn push(&mut self, item: T) -> I {
        let id = self.next_id();
        self.items.push(item);
        id
    }

    /// The id the next [`push`](Arena::push) will return.
    pub fn next_id(&self) -> I {
        I::from_u32(u32::try_from(self.items.len()).expect("an arena holds fewer than 2^32 items"))
    }

    /// How many items the arena holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the arena holds no item.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether `id` names an item of this arena.
    pub fn contains(&self, id: I) -> bool {
        slot(id) < self.items.len()
    }

    /// The item `id` names, if it exists.
    pub fn get(&self, id: I) -> Option<&T> {
        self.items.get(slot(id))
    }

    /// The item `id` names, mutably, if it exists.
    pub fn get_mut(&mut self, id: I) -> Option<&mut T> {
        self.items.get_mut(slot(id))
    }

    /// Every id with its item, in id order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (I, &T)> + ExactSizeIterator {
        self.items.iter().enumerate().map(|(n, item)| (id_at(n), item))
    }

    /// Every id with its item, mutably, in id order.
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (I, &mut T)> + ExactSizeIterator {
        self.items.iter_mut().enumerate().map(|(n, item)| (id_at(n), item))
    }

    /// Every id, in order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = I> + ExactSizeIterator + use<I, T> {
        (0..self.items.len()).map(id_at)
    }

    /// Every item, in id order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator {
        self.items.iter()
    }
}

/// The id at position `n` of an arena, which [`Arena::next_id`] has checked
/// to fit a `u32`.
fn id_at<I: EntityId>(n: usize) -> I {
    I::from_u32(n as u32)
}

impl<I: EntityId, T> Default for Arena<I, T> {
    fn default() -> Self {
        Arena::new()
    }
}

impl<I, T: Clone> Clone for Arena<I, T> {
    fn clone(&self) -> Self {
        Arena { items: self.items.clone(), ids: PhantomData }
    }
}

impl<I, T: PartialEq> PartialEq for Arena<I, T> {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
    }
}

impl<I, T: Eq> Eq for Arena<I, T> {}

impl<I: EntityId, T: fmt::Debug> fmt::Debug for Arena<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<I: EntityId, T> Index<I> for Arena<I, T> {
    type Output = T;

    /// # Panics
    ///
    /// When `id` is not in the arena.
    fn index(&self, id: I) -> &T {
        let len = self.items.len();
        self.items.get(slot(id)).unwrap_or_else(|| panic!("{id:?} is not in this arena of {len} items"))
    }
}

impl<I: EntityId, T> IndexMut<I> for Arena<I, T> {
    /// # Panics
    ///
    /// When `id` is not in the arena.
    fn index_mut(&mut self, id: I) -> &mut T {
        let len = self.items.len();
        self.items.get_mut(slot(id)).unwrap_or_else(|| panic!("{id:?} is not in this arena of {len} items"))
    }
}

/// A side table from the ids of one arena to values, every id mapping to a
/// default value until written (cranelift's `SecondaryMap`). Reading never
/// grows the table; writing through `IndexMut` grows it up to the id.
#[derive(Clone)]
pub struct SecondaryMap<I, V> {
    values: Vec<V>,
    default: V,
    ids: PhantomData<fn() -> I>,
}

impl<I: EntityId, V: Clone + Default> SecondaryMap<I, V> {
    /// A map whose default value is `V::default()`.
    pub fn new() -> SecondaryMap<I, V> {
        SecondaryMap::with_default(V::default())
    }
}

impl<I: EntityId, V: Clone> SecondaryMap<I, V> {
    /// A map whose every id starts at `default`.
    pub fn with_default(default: V) -> SecondaryMap<I, V> {
        SecondaryMap { values: Vec::new(), default, ids: PhantomData }
    }

    /// The value of `id`: the default unless written.
    pub fn get(&self, id: I) -> &V {
        self.values.get(slot(id)).unwrap_or(&self.default)
    }

    /// The ids up to the highest written one, with their values (the
    /// default for ids never written in between).
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (I, &V)> + ExactSizeIterator {
        self.values.iter().enumerate().map(|(n, value)| (id_at(n), value))
    }

    /// Resets every id to the default.
    pub fn clear(&mut self) {
        self.values.clear();
    }
}

impl<I: EntityId, V: Clone + Default> Default for SecondaryMap<I, V> {
    fn default() -> Self {
        SecondaryMap::new()
    }
}

impl<I: EntityId, V: Clone + fmt::Debug> fmt::Debug for SecondaryMap<I, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecondaryMap").field("default", &self.default).field("values", &DebugEntries(self)).finish()
    }
}

/// The written part of a side map, printed as a map from id to value.
struct DebugEntries<'m, I, V>(&'m SecondaryMap<I, V>);

impl<I: EntityId, V: Clone + fmt::Debug> fmt::Debug for DebugEntries<'_, I, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.0.iter()).finish()
    }
}

impl<I: EntityId, V: Clone> Index<I> for SecondaryMap<I, V> {
    type Output = V;

    fn index(&self, id: I) -> &V {
        self.get(id)
    }
}

impl<I: EntityId, V: Clone> IndexMut<I> for SecondaryMap<I, V> {
    fn index_mut(&mut self, id: I) -> &mut V {
        let n = slot(id);
        if n >= self.values.len() {
            self.values.resize(n + 1, self.default.clone());
        }
        &mut self.values[n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_print_with_their_prefix() {
        assert_eq!(format!("{:?}", ProcId::from_u32(3)), "proc3");
        assert_eq!(BlockId::from_u32(0).to_string(), "bb0");
        assert_eq!(format!("{:?}", vec![VarId::from_u32(1), VarId::from_u32(2)]), "[v1, v2]");
    }

    #[test]
    fn arena_hands_out_ids_in_order_and_indexes_by_them() {
        let mut arena: Arena<LockId, &str> = Arena::new();
        let a = arena.push("a");
        let b = arena.push("b");
        assert_eq!((a, b), (LockId::from_u32(0), LockId::from_u32(1)));
        arena[b] = "c";
        assert_eq!(arena.iter().collect::<Vec<_>>(), [(a, &"a"), (b, &"c")]);
        assert_eq!(arena.ids().collect::<Vec<_>>(), [a, b]);
        assert!(!arena.contains(LockId::from_u32(2)));
        assert_eq!(arena.get(LockId::from_u32(2)), None);
        assert_eq!(format!("{arena:?}"), r#"{lock0: "a", lock1: "c"}"#);
    }

    #[test]
    #[should_panic(expected = "region5 is not in this arena of 1 items")]
    fn arena_index_out_of_range_names_the_id() {
        let mut arena: Arena<RegionId, u8> = Arena::new();
        arena.push(0);
        let _ = arena[RegionId::from_u32(5)];
    }

    #[test]
    fn secondary_map_reads_default_and_grows_on_write() {
        let mut map: SecondaryMap<BlockId, bool> = SecondaryMap::new();
        assert!(!map[BlockId::from_u32(7)]);
        map[BlockId::from_u32(2)] = true;
        assert!(map[BlockId::from_u32(2)]);
        assert!(!map[BlockId::from_u32(1)]);
        assert_eq!(map.iter().count(), 3);
        let mut counts: SecondaryMap<VarId, u32> = SecondaryMap::with_default(9);
        counts[VarId::from_u32(1)] += 1;
        assert_eq!((counts[VarId::from_u32(0)], counts[VarId::from_u32(1)]), (9, 10));
        counts.clear();
        assert_eq!(counts[VarId::from_u32(1)], 9);
    }
}
