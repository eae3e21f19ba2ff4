//! [`VectorIndex`]: the `hnsw_rs` graph plus its [`SlotMap`] and the [`PendingQueue`] of vectors
//! not yet in the graph. Inserts and searches take `&self` and may run concurrently; the slot map
//! sits behind a read-write lock.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Once};

use anndists::dist::DistDot;
use hnsw_rs::hnsw::Hnsw;
use parking_lot::{Mutex, RwLock};

use super::checkpoint;
use super::drain_worker::{self, DrainSignal};
use super::params::{HnswParams, MAX_LAYERS};
use super::pending::PendingQueue;
use super::slots::SlotMap;
use crate::error::Result;
use crate::memory::MemoryId;

/// Allocation hint for a new graph (it grows past it).
const INITIAL_CAPACITY: usize = 10_000;
/// Most pending vectors one drain step moves into the graph.
const DRAIN_BATCH: usize = 1024;
/// Most vectors the pending buffer holds. Past it, writers insert into the graph themselves, so
/// a sustained write load is paced by the graph and the exact scan stays cheap.
pub const MAX_PENDING: usize = 256;

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
    pending: PendingQueue,
    /// Held while moving pending vectors into the graph: one drain at a time.
    drain_lock: Mutex<()>,
    /// Wakes the background drain worker.
    drain_signal: Arc<DrainSignal>,
    /// Starts the worker with the first deferred insert.
    drain_worker: Once,
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
        Self::from_parts(hnsw, SlotMap::default(), params, dimension)
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
            pending: PendingQueue::default(),
            drain_lock: Mutex::new(()),
            drain_signal: Arc::default(),
            drain_worker: Once::new(),
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
    /// Drains pending vectors first and blocks inserts while it runs, so the graph and the slot
    /// map agree.
    pub fn checkpoint(&self, dir: &Path, covered_seq: u64) -> Result<()> {
        self.drain();
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

    /// Inserts normalised `vector` for `id` into the graph now; a no-op if `id` is indexed.
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

    /// Makes `vector` searchable at once (exact scan of the pending buffer) and moves it into the
    /// graph in the background, so the caller does not wait for the graph insert. When
    /// [`MAX_PENDING`] vectors are already waiting it inserts into the graph directly.
    pub fn insert_deferred(self: &Arc<Self>, id: MemoryId, entity: Option<&str>, vector: Vec<f32>) {
        if self.pending.len() >= MAX_PENDING {
            self.insert(id, entity, &vector);
            return;
        }
        let slot = self.slots.write().assign(id, entity);
        if let Some(slot) = slot {
            self.pending.push(slot, vector);
            self.drain_worker.call_once(|| {
                drain_worker::spawn(Arc::downgrade(self), Arc::clone(&self.drain_signal));
            });
            self.drain_signal.notify();
        }
    }

    /// Moves every pending vector into the graph; returns when the buffer is empty.
    pub fn drain(&self) {
        let _one_drain = self.drain_lock.lock();
        loop {
            let batch = self.pending.front(DRAIN_BATCH);
            if batch.is_empty() {
                return;
            }
            if batch.len() == 1 {
                self.hnsw.insert_slice((&batch[0].vector, batch[0].slot));
            } else {
                let items: Vec<(&[f32], usize)> = batch
                    .iter()
                    .map(|item| (item.vector.as_slice(), item.slot))
                    .collect();
                self.hnsw.parallel_insert_slice(&items);
            }
            self.pending.remove_front(batch.len());
        }
    }

    /// Vectors waiting for their graph insert.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
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
        let mut hits: Vec<(usize, f32)> = if entity_index.is_none() && slots.deleted_len() == 0 {
            self.hnsw.search(query, k, ef)
        } else {
            let filter = |slot: &usize| slots.accepts(*slot, entity_index);
            self.hnsw.search_filter(query, k, ef, Some(&filter))
        }
        .into_iter()
        .map(|hit| (hit.d_id, hit.distance.max(0.0)))
        .collect();
        if !self.pending.is_empty() {
            hits.extend(
                self.pending
                    .scan(query, |slot| slots.accepts(slot, entity_index)),
            );
            hits.sort_by(|a, b| a.1.total_cmp(&b.1));
            let mut seen = HashSet::with_capacity(hits.len());
            hits.retain(|hit| seen.insert(hit.0));
            hits.truncate(k);
        }
        hits.into_iter()
            .filter_map(|(slot, distance)| slots.live_id(slot).map(|id| Neighbor { id, distance }))
            .collect()
    }

    /// Slots handed out, tombstoned ones included (what the graph holds).
    pub fn slot_count(&self) -> usize {
        self.slots.read().len()
    }

    /// Tombstoned slots: forgotten vectors the graph still holds until a rebuild.
    pub fn deleted_count(&self) -> usize {
        self.slots.read().deleted_len()
    }
}
