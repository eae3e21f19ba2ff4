//! [`VectorIndex`]: the `hnsw_rs` graph (searched through its flat copy, see `snapshot.rs`) plus
//! its [`SlotMap`] and the [`PendingQueue`] of vectors not yet in the graph. Inserts and searches
//! take `&self` and may run concurrently; the slot map sits behind a read-write lock.

use std::path::Path;
use std::sync::{Arc, Once};

use anndists::dist::DistDot;
use hnsw_rs::hnsw::Hnsw;
use parking_lot::{Mutex, RwLock};

use super::checkpoint;
use super::drain_worker;
use super::params::{HnswParams, MAX_LAYERS};
use super::pending::PendingQueue;
use super::slots::SlotMap;
use super::snapshot::{sort_dedup_truncate, Graph};
use super::wake::WakeSignal;
use crate::error::Result;
use crate::memory::MemoryId;

/// Allocation hint for a new graph (it grows past it).
const INITIAL_CAPACITY: usize = 10_000;
/// Most pending vectors one drain step moves into the graph.
const DRAIN_BATCH: usize = 1024;
/// Most vectors the pending buffer holds. Past it, writers insert into the graph themselves, so
/// a sustained write load is paced by the graph and the exact scan stays cheap.
pub const MAX_PENDING: usize = 256;

/// An empty `hnsw_rs` graph for `params`, sized for about `capacity_hint` vectors.
pub(super) fn empty_hnsw(params: HnswParams, capacity_hint: usize) -> Hnsw<'static, f32, DistDot> {
    Hnsw::new(
        params.m,
        capacity_hint.max(INITIAL_CAPACITY),
        MAX_LAYERS,
        params.ef_construction,
        DistDot,
    )
}

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
    graph: Arc<Graph>,
    slots: RwLock<SlotMap>,
    pending: PendingQueue,
    /// Held while moving pending vectors into the graph: one drain at a time.
    drain_lock: Mutex<()>,
    /// Wakes the background drain worker.
    drain_signal: Arc<WakeSignal>,
    /// Starts the worker with the first deferred insert.
    drain_worker: Once,
    params: HnswParams,
    dimension: usize,
}

impl VectorIndex {
    /// An empty index for vectors of `dimension`.
    pub fn new(params: HnswParams, dimension: usize, capacity_hint: usize) -> Self {
        Self::from_parts(
            empty_hnsw(params, capacity_hint),
            SlotMap::default(),
            params,
            dimension,
        )
    }

    pub(super) fn from_parts(
        hnsw: Hnsw<'static, f32, DistDot>,
        slots: SlotMap,
        params: HnswParams,
        dimension: usize,
    ) -> Self {
        Self {
            graph: Graph::new(hnsw, dimension),
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
        checkpoint::write(dir, self.graph.hnsw(), &slots, covered_seq, self.dimension)
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
            self.graph.insert(&[(vector, slot)]);
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
            let items: Vec<(&[f32], usize)> = batch
                .iter()
                .map(|item| (item.vector.as_slice(), item.slot))
                .collect();
            self.graph.insert(&items);
            self.pending.remove_front(batch.len());
        }
    }

    /// Retakes the flat search copy of the graph now, after moving pending vectors into the
    /// graph. The background worker does this once inserts pause; calling it after a bulk load
    /// makes the next searches fast at once. Inserts wait while it runs.
    pub fn refresh_search_copy(&self) {
        self.drain();
        self.graph.refresh();
    }

    /// Whether the flat search copy holds every vector in the graph (no insert since it was
    /// taken).
    pub fn search_copy_is_current(&self) -> bool {
        !self.graph.is_stale()
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
        self.graph.insert(&batch);
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
        let filtered = entity_index.is_some() || slots.deleted_len() > 0;
        let accept = |slot: usize| slots.accepts(slot, entity_index);
        let mut hits = self.graph.search(query, k, ef, filtered, accept);
        if !self.pending.is_empty() {
            hits.extend(self.pending.scan(query, accept));
            sort_dedup_truncate(&mut hits, k);
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
