//! Nodes that have a slot and a stored vector but are not linked into the HNSW graph yet. A
//! single `remember` appends here and returns; a background drain links them. Searches scan
//! these exactly and merge them with the graph's answer, so a memory is findable as soon as
//! `remember` returns.

use parking_lot::RwLock;

/// The buffer of slots. Writers append at the back; only the drain removes, from the front,
/// after the graph links those nodes (so a search may briefly find a node both ways, never
/// neither; callers deduplicate by slot).
#[derive(Default)]
pub struct PendingQueue {
    slots: RwLock<Vec<usize>>,
}

impl PendingQueue {
    /// Appends one slot.
    pub fn push(&self, slot: usize) {
        self.slots.write().push(slot);
    }

    /// A copy of up to `limit` slots from the front.
    pub fn front(&self, limit: usize) -> Vec<usize> {
        let slots = self.slots.read();
        slots[..slots.len().min(limit)].to_vec()
    }

    /// Removes the first `count` slots (the drain's batch, now linked).
    pub fn remove_front(&self, count: usize) {
        self.slots.write().drain(..count);
    }

    /// Number of waiting nodes.
    pub fn len(&self) -> usize {
        self.slots.read().len()
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.slots.read().is_empty()
    }

    /// `(slot, distance)` of every waiting node `accept`s, by a scan (`distance` of a slot is
    /// its distance to the query, in the index's format).
    pub fn scan(
        &self,
        distance: impl Fn(usize) -> Option<f32>,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        self.slots
            .read()
            .iter()
            .filter(|slot| accept(**slot))
            .filter_map(|&slot| Some((slot, distance(slot)?.max(0.0))))
            .collect()
    }
}
