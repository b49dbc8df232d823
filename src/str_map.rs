//! A map from strings to values, in insertion order, for the crate's lookup
//! tables (call ids, tool names, summary sections, tips last shown).
//!
//! It replaces the crate's `BTreeMap`s (size, docs/performance.md): std's B-tree is
//! monomorphized per key and value type, so every map type put a copy of
//! its code in the wasm. Here the entries are a `Vec` and the index is one
//! `BTreeMap<Box<str>, u32>` from key to entry number, the same type in
//! every map, so the B-tree's code is in the wasm once and each map adds
//! only the few lines below. A B-tree rather than a hash table: lookups
//! and insertions stay O(log n) whatever the keys, where a table with an
//! unkeyed hash could be made quadratic by call ids chosen to collide (the
//! wasm has no entropy to key one with). The index holds its own copy of
//! each key.
//!
//! ```
//! use compaction_core::StrMap;
//! let mut m: StrMap<String, u64> = StrMap::new();
//! m.insert("b".into(), 1);
//! m.insert("a".into(), 2);
//! assert_eq!(m.insert("b".into(), 3), Some(1));
//! assert_eq!(m.get("b"), Some(&3));
//! assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "a"]);
//! ```

use crate::prelude::*;

use alloc::collections::BTreeMap;
use core::borrow::Borrow;
use core::fmt;

/// Strings to values, iterated in insertion order; see the module docs.
#[derive(Clone)]
pub struct StrMap<K, V> {
    entries: Vec<(K, V)>,
    /// Each key's entry number.
    index: BTreeMap<Box<str>, u32>,
}

impl<K, V> Default for StrMap<K, V> {
    fn default() -> Self {
        StrMap {
            entries: Vec::new(),
            index: BTreeMap::new(),
        }
    }
}

impl<K: Borrow<str>, V> StrMap<K, V> {
    /// An empty map (allocates nothing).
    pub fn new() -> Self {
        Self::default()
    }

    /// How many keys the map holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map holds no key.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.index.get(key).map(|&i| i as usize)
    }

    /// The value of `key`, if the map has it.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    /// The value of `key`, mutably, if the map has it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.position(key).map(|i| &mut self.entries[i].1)
    }

    /// Whether the map has `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// The value of `key`, inserting `make()` at the end first if the map
    /// does not have it.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.position(key.borrow()) {
            Some(i) => i,
            None => self.push(key, make()),
        };
        &mut self.entries[i].1
    }

    /// Sets `key` to `value`: a key already there keeps its place and its
    /// old value is returned; a new one goes at the end.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.position(key.borrow()) {
            Some(i) => Some(core::mem::replace(&mut self.entries[i].1, value)),
            None => {
                self.push(key, value);
                None
            }
        }
    }

    /// Appends a key the map does not have; returns its entry number.
    fn push(&mut self, key: K, value: V) -> usize {
        let i = self.entries.len();
        self.index.insert(key.borrow().into(), i as u32);
        self.entries.push((key, value));
        i
    }

    /// The keys, in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.borrow())
    }

    /// The values, in insertion order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The keys and values, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

/// Equal when both have the same keys with equal values, in any order.
impl<K: Borrow<str>, V: PartialEq> PartialEq for StrMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .entries
                .iter()
                .all(|(k, v)| other.get(k.borrow()) == Some(v))
    }
}

impl<K: Borrow<str>, V: Eq> Eq for StrMap<K, V> {}

impl<K: Borrow<str>, V> FromIterator<(K, V)> for StrMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(items: I) -> Self {
        let mut map = StrMap::new();
        for (k, v) in items {
            map.insert(k, v);
        }
        map
    }
}

impl<K: Borrow<str>, V, const N: usize> From<[(K, V); N]> for StrMap<K, V> {
    fn from(items: [(K, V); N]) -> Self {
        items.into_iter().collect()
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for StrMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_key_across_growth_and_keeps_order() {
        let mut m: StrMap<String, usize> = StrMap::new();
        for i in 0..5000 {
            assert_eq!(m.insert(format!("call_{i}"), i), None);
        }
        assert_eq!(m.len(), 5000);
        for i in 0..5000 {
            assert_eq!(m.get(&format!("call_{i}")), Some(&i));
        }
        assert_eq!(m.get("call_5000"), None);
        assert_eq!(m.insert("call_7".into(), 70), Some(7));
        assert_eq!(m.keys().nth(7), Some("call_7"));
        assert_eq!(m.values().nth(7), Some(&70));
        *m.get_or_insert_with("call_7".into(), || 0) += 1;
        *m.get_or_insert_with("new".into(), || 5) += 1;
        assert_eq!(
            (m.get("call_7"), m.get("new"), m.len()),
            (Some(&71), Some(&6), 5001)
        );
    }

    #[test]
    fn equality_ignores_order() {
        let a: StrMap<&str, bool> = [("x", true), ("y", false)].into_iter().collect();
        let b: StrMap<&str, bool> = [("y", false), ("x", true)].into_iter().collect();
        let c: StrMap<&str, bool> = [("y", true), ("x", true)].into_iter().collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(!a.contains_key("z") && StrMap::<&str, bool>::new().get("x").is_none());
    }
}
