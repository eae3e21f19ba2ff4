//! Vectors that have a slot but are not in the HNSW graph yet. A single `remember` appends here
//! and returns; a background drain moves them into the graph. Searches scan this buffer exactly
//! and merge it with the graph's answer, so a memory is findable as soon as `remember` returns.

use parking_lot::RwLock;

use super::dot;

/// One vector waiting for its graph insert.
#[derive(Clone)]
pub struct PendingVector {
    /// Its slot (already assigned in the slot map).
    pub slot: usize,
    /// The normalised vector.
    pub vector: Vec<f32>,
}

/// The buffer. Writers append at the back; only the drain removes, from the front, after the
/// graph holds those vectors (so a search may briefly see a vector in both places, never in
/// neither; callers deduplicate by slot).
#[derive(Default)]
pub struct PendingQueue {
    items: RwLock<Vec<PendingVector>>,
}

impl PendingQueue {
    /// Appends one vector.
    pub fn push(&self, slot: usize, vector: Vec<f32>) {
        self.items.write().push(PendingVector { slot, vector });
    }

    /// A copy of up to `limit` vectors from the front.
    pub fn front(&self, limit: usize) -> Vec<PendingVector> {
        let items = self.items.read();
        items[..items.len().min(limit)].to_vec()
    }

    /// Removes the first `count` vectors (the drain's batch, now in the graph).
    pub fn remove_front(&self, count: usize) {
        self.items.write().drain(..count);
    }

    /// Number of waiting vectors.
    pub fn len(&self) -> usize {
        self.items.read().len()
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.items.read().is_empty()
    }

    /// Exact `(slot, distance)` of every waiting vector `accept`s, for `query`.
    pub fn scan(&self, query: &[f32], accept: impl Fn(usize) -> bool) -> Vec<(usize, f32)> {
        self.items
            .read()
            .iter()
            .filter(|item| accept(item.slot))
            .map(|item| (item.slot, (1.0 - dot(query, &item.vector)).max(0.0)))
            .collect()
    }
}
