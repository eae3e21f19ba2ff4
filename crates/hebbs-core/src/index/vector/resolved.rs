//! [`ResolvedSets`]: the slots of the shared id lists an index scanned recently, so a filter used
//! call after call is scanned without looking each id's slot up again (a hash probe that
//! misses the CPU caches: a quarter of a 10,000-memory scan at 1M). A list is known by its
//! allocation: the store's lookup cache hands out the same list until a write changes it, and
//! holding it here keeps that allocation from being reused for another list.
//!
//! An index only appends slots and tombstones them, so a resolved `(slot, id)` stays right for
//! the index's life except when its memory is forgotten: a scan checks its pairs again when the
//! index has more tombstones than when they were resolved, and remembers what it found. An id
//! that had no slot yet (still being indexed, or without a vector) is looked up again on each
//! use. A list used a second time also gets its rows packed (see `packed.rs`), once.

use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use super::packed::PackedRows;
use crate::memory::MemoryId;

/// Lists remembered at most; the least recently used goes first.
pub const RESOLVED_SETS: usize = 16;

/// The slots of one list, each memory once, in slot order.
#[derive(Debug, Default)]
pub struct Resolution {
    /// The slots, ascending.
    pub slots: Vec<u32>,
    /// The memory in each slot.
    pub ids: Vec<MemoryId>,
    /// The ids that had no live slot.
    pub unslotted: Vec<MemoryId>,
    /// The index's tombstones when it was made.
    pub deleted_seen: usize,
    /// The int8 copy of the rows of `slots`, made on the list's second use (None when the
    /// list is not worth packing).
    pub packed: OnceLock<Option<PackedRows>>,
}

/// A list with its resolution.
type Entry = (Arc<[MemoryId]>, Arc<Resolution>);

/// The remembered resolutions, most recently used last.
#[derive(Default)]
pub struct ResolvedSets {
    entries: Mutex<Vec<Entry>>,
}

impl ResolvedSets {
    /// The resolution of `list`, remembered or made by `resolve` (outside the lock) and kept,
    /// and whether it was remembered.
    pub fn get_or_resolve(
        &self,
        list: &Arc<[MemoryId]>,
        resolve: impl FnOnce() -> Resolution,
    ) -> (Arc<Resolution>, bool) {
        {
            let mut entries = self.entries.lock();
            if let Some(at) = entries
                .iter()
                .position(|(known, _)| Arc::ptr_eq(known, list))
            {
                let entry = entries.remove(at);
                let resolution = Arc::clone(&entry.1);
                entries.push(entry);
                return (resolution, true);
            }
        }
        let resolution = Arc::new(resolve());
        let mut entries = self.entries.lock();
        if !entries.iter().any(|(known, _)| Arc::ptr_eq(known, list)) {
            if entries.len() >= RESOLVED_SETS {
                entries.remove(0);
            }
            entries.push((Arc::clone(list), Arc::clone(&resolution)));
        }
        (resolution, false)
    }

    /// Remembers `resolution` for `list` instead of the one before, if `list` is still known.
    pub fn update(&self, list: &Arc<[MemoryId]>, resolution: Arc<Resolution>) {
        let mut entries = self.entries.lock();
        if let Some(entry) = entries
            .iter_mut()
            .find(|(known, _)| Arc::ptr_eq(known, list))
        {
            entry.1 = resolution;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(count: usize) -> Arc<[MemoryId]> {
        (0..count).map(|_| MemoryId::new()).collect()
    }

    #[test]
    fn a_list_is_resolved_once_and_known_by_its_allocation() {
        let sets = ResolvedSets::default();
        let first = list(3);
        let resolutions = std::cell::Cell::new(0);
        let resolve = || {
            resolutions.set(resolutions.get() + 1);
            Resolution {
                slots: vec![7],
                ..Resolution::default()
            }
        };
        let (resolution, remembered) = sets.get_or_resolve(&first, resolve);
        assert_eq!((resolution.slots.clone(), remembered), (vec![7], false));
        let (resolution, remembered) = sets.get_or_resolve(&first, resolve);
        assert_eq!((resolution.slots.clone(), remembered), (vec![7], true));
        assert_eq!(resolutions.get(), 1);
        // The same ids in another allocation are another list.
        let copy: Arc<[MemoryId]> = first.iter().copied().collect();
        sets.get_or_resolve(&copy, resolve);
        assert_eq!(resolutions.get(), 2);
    }

    #[test]
    fn an_update_replaces_a_known_lists_resolution_only() {
        let sets = ResolvedSets::default();
        let known = list(2);
        let resolved = |slot: u32| Resolution {
            slots: vec![slot],
            ..Resolution::default()
        };
        sets.get_or_resolve(&known, || resolved(1));
        sets.update(&known, Arc::new(resolved(2)));
        assert_eq!(sets.get_or_resolve(&known, || resolved(3)).0.slots, vec![2]);
        let unknown = list(2);
        sets.update(&unknown, Arc::new(resolved(4)));
        assert_eq!(
            sets.get_or_resolve(&unknown, || resolved(5)).0.slots,
            vec![5]
        );
    }

    #[test]
    fn the_least_recently_used_list_goes_first() {
        let sets = ResolvedSets::default();
        let lists: Vec<Arc<[MemoryId]>> = (0..=RESOLVED_SETS).map(|_| list(1)).collect();
        let resolutions = std::cell::Cell::new(0);
        let resolve = || {
            resolutions.set(resolutions.get() + 1);
            Resolution::default()
        };
        for list in &lists[..RESOLVED_SETS] {
            sets.get_or_resolve(list, resolve);
        }
        // Using the first makes the second the oldest; one more list pushes it out.
        sets.get_or_resolve(&lists[0], resolve);
        sets.get_or_resolve(&lists[RESOLVED_SETS], resolve);
        assert_eq!(resolutions.get(), RESOLVED_SETS + 1);
        sets.get_or_resolve(&lists[0], resolve);
        assert_eq!(resolutions.get(), RESOLVED_SETS + 1);
        sets.get_or_resolve(&lists[1], resolve);
        assert_eq!(resolutions.get(), RESOLVED_SETS + 2);
    }
}
