//! [`VectorIndex`]: the `hnsw_rs` graph plus its [`SlotMap`]. Inserts and searches take `&self`
//! and may run concurrently; the slot map sits behind a read-write lock.

use std::path::Path;

use anndists::dist::DistDot;
use hnsw_rs::hnsw::Hnsw;
use parking_lot::RwLock;

use super::checkpoint;
use super::params::{HnswParams, MAX_LAYERS};
use super::slots::SlotMap;
use crate::error::Result;
use crate::memory::MemoryId;

/// Allocation hint for a new graph (it grows past it).
const INITIAL_CAPACITY: usize = 10_000;

/// One search hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbor {
    /// The memory.
    pub id: MemoryId,
    /// Cosine distance, `1 - cosine similarity`.
    pub distance: f32,
}

/// The HNSW index over memory vectors.
pub struct VectorIndex {
    hnsw: Hnsw<'static, f32, DistDot>,
    slots: RwLock<SlotMap>,
    params: HnswParams,
    dimension: usize,
}

impl VectorIndex {
    /// An empty index for vectors of `dimension`.
    pub fn new(params: HnswParams, dimension: usize, capacity_hint: usize) -> Self {
        let hnsw = Hnsw::new(
            params.m,
            capacity_hint.max(INITIAL_CAPACITY),
            MAX_LAYERS,
            params.ef_construction,
            DistDot,
        );
        Self {
            hnsw,
            slots: RwLock::new(SlotMap::default()),
            params,
            dimension,
        }
    }

    pub(super) fn from_parts(
        hnsw: Hnsw<'static, f32, DistDot>,
        slots: SlotMap,
        params: HnswParams,
        dimension: usize,
    ) -> Self {
        Self {
            hnsw,
            slots: RwLock::new(slots),
            params,
            dimension,
        }
    }

    /// Loads the checkpoint in `dir`; `None` if there is none. Returns the index and the
    /// changelog sequence it covers (replay from there).
    pub fn load(dir: &Path, params: HnswParams) -> Result<Option<(Self, u64)>> {
        checkpoint::load(dir, params)
    }

    /// Writes a checkpoint covering changelog entries below `covered_seq` into `dir`, atomically.
    /// Blocks inserts while it runs so the graph and the slot map agree.
    pub fn checkpoint(&self, dir: &Path, covered_seq: u64) -> Result<()> {
        let slots = self.slots.write();
        checkpoint::write(dir, &self.hnsw, &slots, covered_seq, self.dimension)
    }

    pub(super) fn into_hnsw(self) -> Hnsw<'static, f32, DistDot> {
        self.hnsw
    }

    /// The `ef_search` used when a call does not give one.
    pub fn default_ef_search(&self) -> usize {
        self.params.ef_search
    }

    /// The vector dimension.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Inserts normalised `vector` for `id`; a no-op if `id` is already indexed.
    ///
    /// The slot is assigned under the lock, the graph insert runs after it is released so
    /// searches proceed meanwhile. Callers serialise inserts with checkpoints (the engine's
    /// writer lock), so a checkpoint never sees a slot whose graph insert is in flight.
    pub fn insert(&self, id: MemoryId, entity: Option<&str>, vector: &[f32]) {
        let slot = self.slots.write().assign(id, entity);
        if let Some(slot) = slot {
            self.hnsw.insert_slice((vector, slot));
        }
    }

    /// Inserts many vectors in parallel (ids already indexed are skipped); see [`Self::insert`].
    pub fn insert_many(&self, items: &[(MemoryId, Option<&str>, &[f32])]) {
        let batch: Vec<(&[f32], usize)> = {
            let mut slots = self.slots.write();
            items
                .iter()
                .filter_map(|(id, entity, vector)| {
                    slots.assign(*id, *entity).map(|slot| (*vector, slot))
                })
                .collect()
        };
        self.hnsw.parallel_insert_slice(&batch);
    }

    /// Tombstones `id`: it no longer appears in results.
    pub fn delete(&self, id: &MemoryId) -> bool {
        self.slots.write().delete(id)
    }

    /// Whether `id` has been indexed (even if since deleted).
    pub fn contains(&self, id: &MemoryId) -> bool {
        self.slots.read().contains(id)
    }

    /// Number of live vectors.
    pub fn len(&self) -> usize {
        let slots = self.slots.read();
        slots.len() - slots.deleted_len()
    }

    /// Whether no live vector is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `k` nearest live vectors to normalised `query`, nearest first, searching with
    /// `ef_search` candidates (default from the params); only `entity`'s memories if given.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        ef_search: Option<usize>,
        entity: Option<&str>,
    ) -> Vec<Neighbor> {
        let ef = ef_search.unwrap_or(self.params.ef_search).max(k);
        let slots = self.slots.read();
        let entity_index = match entity {
            Some(name) => match slots.entity(name) {
                Some(index) => Some(index),
                None => return Vec::new(),
            },
            None => None,
        };
        let hits = if entity_index.is_none() && slots.deleted_len() == 0 {
            self.hnsw.search(query, k, ef)
        } else {
            let filter = |slot: &usize| slots.accepts(*slot, entity_index);
            self.hnsw.search_filter(query, k, ef, Some(&filter))
        };
        hits.into_iter()
            .filter_map(|hit| {
                slots.live_id(hit.d_id).map(|id| Neighbor {
                    id,
                    distance: hit.distance.max(0.0),
                })
            })
            .collect()
    }
}
