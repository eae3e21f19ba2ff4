//! [`VectorIndex`]: the [`HnswGraph`] plus its [`SlotMap`] and the [`PendingQueue`] of nodes
//! not linked into the graph yet. Inserts and searches take `&self` and may run concurrently;
//! the slot map sits behind a read-write lock, and a slot is assigned and its vector appended
//! under it, so slots and vectors stay in the same order. An int8 index also writes each
//! vector's exact row (see [`ExactRows`]) and re-scores its final candidates with them.

use std::path::Path;
use std::sync::{Arc, Once, OnceLock};

use parking_lot::{Mutex, RwLock};
use rayon::prelude::*;

use super::any_graph::{each, AnyGraph};
use super::checkpoint;
use super::drain_worker;
use super::exact_rows::ExactRows;
use super::format::{Int8, VectorFormat, RESCORE_SKIP_SIGMAS};
use super::packed::PackedRows;
use super::params::HnswParams;
use super::pending::PendingQueue;
use super::resolved::{Resolution, ResolvedSets};
use super::slots::SlotMap;
use super::vectors::slot_u32;
use super::wake::WakeSignal;
use crate::error::Result;
use crate::memory::MemoryId;

/// Most pending nodes one drain step links into the graph.
const DRAIN_BATCH: usize = 1024;
/// Most nodes the pending buffer holds. Past it, writers link into the graph themselves, so
/// a sustained write load is paced by the graph and the exact scan stays cheap.
pub const MAX_PENDING: usize = 256;

/// One search hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbor {
    /// The memory.
    pub id: MemoryId,
    /// Cosine distance, `1 - cosine similarity`.
    pub distance: f32,
    /// The index slot the hit was read from, when it came from the graph: saves the re-score
    /// of an int8 index a lookup by id (used only while the slot is still that memory's, so a
    /// stale one only costs that lookup).
    pub slot: Option<u32>,
}

impl Neighbor {
    /// A hit scored outside the index (from the store's vectors).
    pub fn scored(id: MemoryId, distance: f32) -> Self {
        Self {
            id,
            distance,
            slot: None,
        }
    }
}

/// The HNSW index over memory vectors.
pub struct VectorIndex {
    graph: AnyGraph,
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
    /// The exact vectors by slot, for an approximate (int8) index that has them.
    exact: Option<Arc<ExactRows>>,
    /// The slots of the shared lists recently scanned exactly.
    resolved: ResolvedSets,
}

impl VectorIndex {
    /// An empty index for vectors of `dimension`, held in memory in `format`.
    pub fn new(params: HnswParams, dimension: usize, format: VectorFormat) -> Self {
        Self::from_parts(
            AnyGraph::new(format, dimension, params.m, params.ef_construction),
            SlotMap::default(),
            params,
            dimension,
        )
    }

    pub(super) fn from_parts(
        graph: AnyGraph,
        slots: SlotMap,
        params: HnswParams,
        dimension: usize,
    ) -> Self {
        Self {
            graph,
            slots: RwLock::new(slots),
            pending: PendingQueue::default(),
            drain_lock: Mutex::new(()),
            drain_signal: Arc::default(),
            drain_worker: Once::new(),
            params,
            dimension,
            exact: None,
            resolved: ResolvedSets::default(),
        }
    }

    /// The index, writing each vector it adds to `rows` and re-scoring from them (see
    /// [`VectorIndex::rescore`]).
    pub fn with_exact_rows(mut self, rows: Option<Arc<ExactRows>>) -> Self {
        self.exact = rows;
        self
    }

    /// The exact rows this index writes, if any.
    pub fn exact_rows(&self) -> Option<&Arc<ExactRows>> {
        self.exact.as_ref()
    }

    /// Loads the checkpoint in `dir`; `None` if there is none, or if it holds another format
    /// than `format` (when given) or another `M`. Returns the index and the changelog sequence
    /// it covers (replay from there).
    pub fn load(
        dir: &Path,
        params: HnswParams,
        format: Option<VectorFormat>,
    ) -> Result<Option<(Self, u64)>> {
        checkpoint::load(dir, params, format)
    }

    /// How the vectors are held in memory.
    pub fn format(&self) -> VectorFormat {
        self.graph.format()
    }

    /// Whether distances are approximate (int8): a caller re-scores the final candidates with
    /// the exact vectors from the store.
    pub fn is_approximate(&self) -> bool {
        self.format() != VectorFormat::F32
    }

    /// Writes a checkpoint covering changelog entries below `covered_seq` into `dir`, atomically.
    /// Drains pending vectors first and blocks inserts while it runs, so the graph and the slot
    /// map agree.
    pub fn checkpoint(&self, dir: &Path, covered_seq: u64) -> Result<()> {
        self.drain();
        let _one_drain = self.drain_lock.lock();
        let slots = self.slots.write();
        if let Some(rows) = &self.exact {
            rows.sync()?;
        }
        checkpoint::write(dir, &self.graph, &slots, covered_seq)
    }

    /// The `ef_search` used when a call does not give one.
    pub fn default_ef_search(&self) -> usize {
        self.params.ef_search
    }

    /// The vector dimension.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Assigns `id` its slot and appends its vector; `None` if `id` is indexed already.
    fn add(
        &self,
        slots: &mut SlotMap,
        id: MemoryId,
        entity: Option<&str>,
        vector: &[f32],
    ) -> Option<usize> {
        let slot = slots.assign(id, entity)?;
        let stored = self.graph.push(vector);
        debug_assert_eq!(
            slot, stored,
            "slots and vectors are appended in the same order"
        );
        self.write_exact(slot, &id, vector);
        Some(slot)
    }

    /// Writes the exact row of `slot`, if the index keeps them. A failed write (a full disk)
    /// leaves the row to fail its check, so the re-score reads that vector from the store.
    fn write_exact(&self, slot: usize, id: &MemoryId, vector: &[f32]) {
        if let Some(rows) = &self.exact {
            if let Err(error) = rows.write(slot, id, vector) {
                log::warn!("could not write the exact vector of slot {slot}: {error}");
            }
        }
    }

    /// `hits` with exact distances to normalised `query` from the exact rows, and the ids
    /// whose row is missing or fails its check (the caller reads those from the store and
    /// hands them to [`VectorIndex::heal`]). Hits forgotten since the search are dropped.
    ///
    /// Only the `keep` nearest are wanted: the hits are read nearest first by their
    /// approximate distance, and once `keep` exact distances are in, a hit whose approximate
    /// distance exceeds the `keep`-th of them by more than [`RESCORE_SKIP_SIGMAS`] times its
    /// int8 error's standard deviation is left unread (it is not returned).
    pub fn rescore(
        &self,
        query: &[f32],
        mut hits: Vec<Neighbor>,
        keep: usize,
    ) -> (Vec<Neighbor>, Vec<MemoryId>) {
        hits.sort_by(|a, b| a.distance.total_cmp(&b.distance));
        let slots = self.slots.read();
        let resolved: Vec<(Neighbor, usize)> = hits
            .into_iter()
            .filter_map(|hit| {
                // The slot the search found it at if that is still its slot, else a lookup.
                let hinted = hit
                    .slot
                    .map(|slot| slot as usize)
                    .filter(|&slot| slots.live_id(slot) == Some(hit.id));
                hinted
                    .or_else(|| slots.live_slot(&hit.id))
                    .map(|slot| (hit, slot))
            })
            .collect();
        let scales = if resolved.len() > keep {
            let found: Vec<u32> = resolved.iter().map(|(_, slot)| slot_u32(*slot)).collect();
            self.graph.row_scales(&found)
        } else {
            vec![None; resolved.len()]
        };
        let query_scale = Int8::scale_of(query);
        let mut exact = Vec::with_capacity(resolved.len());
        let mut missing = Vec::new();
        let mut nearest: Vec<f32> = Vec::with_capacity(keep + 1);
        let mut row = Vec::new();
        for ((hit, slot), scale) in resolved.into_iter().zip(scales) {
            if let (Some(scale), Some(&bound)) = (
                scale,
                keep.checked_sub(1).and_then(|last| nearest.get(last)),
            ) {
                let margin = RESCORE_SKIP_SIGMAS * Int8::error_sigma(scale, query_scale);
                if hit.distance - margin > bound {
                    continue;
                }
            }
            match self
                .exact
                .as_ref()
                .and_then(|rows| rows.distance(slot, &hit.id, query, &mut row))
            {
                Some(distance) => {
                    let at = nearest.partition_point(|&d| d <= distance);
                    if at < keep {
                        nearest.insert(at, distance);
                        nearest.truncate(keep);
                    }
                    exact.push(Neighbor { distance, ..hit });
                }
                None => missing.push(hit.id),
            }
        }
        (exact, missing)
    }

    /// Rewrites the exact row of `id` from its stored `vector` (after the row failed its
    /// check); a no-op without exact rows or if `id` is not live.
    pub fn heal(&self, id: &MemoryId, vector: &[f32]) {
        let slot = self.slots.read().live_slot(id);
        if let Some(slot) = slot {
            self.write_exact(slot, id, vector);
        }
    }

    /// Inserts normalised `vector` for `id` into the graph now; a no-op if `id` is indexed.
    ///
    /// The slot is assigned and the vector appended under the slot lock; the graph links the
    /// node after it is released, so searches and other inserts proceed meanwhile.
    pub fn insert(&self, id: MemoryId, entity: Option<&str>, vector: &[f32]) {
        let slot = self.add(&mut self.slots.write(), id, entity, vector);
        if let Some(slot) = slot {
            self.graph.link(slot);
        }
    }

    /// Makes `vector` searchable at once (exact scan of the pending buffer) and links it into
    /// the graph in the background, so the caller does not wait for the graph insert. When
    /// [`MAX_PENDING`] nodes are already waiting it links into the graph directly.
    pub fn insert_deferred(self: &Arc<Self>, id: MemoryId, entity: Option<&str>, vector: Vec<f32>) {
        if self.pending.len() >= MAX_PENDING {
            self.insert(id, entity, &vector);
            return;
        }
        let slot = self.add(&mut self.slots.write(), id, entity, &vector);
        if let Some(slot) = slot {
            self.pending.push(slot);
            self.drain_worker.call_once(|| {
                drain_worker::spawn(Arc::downgrade(self), Arc::clone(&self.drain_signal));
            });
            self.drain_signal.notify();
        }
    }

    /// Links every pending node into the graph; returns when the buffer is empty.
    pub fn drain(&self) {
        let _one_drain = self.drain_lock.lock();
        loop {
            let batch = self.pending.front(DRAIN_BATCH);
            if batch.is_empty() {
                return;
            }
            batch.par_iter().for_each(|&slot| self.graph.link(slot));
            self.pending.remove_front(batch.len());
        }
    }

    /// Nodes waiting for their graph insert.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Inserts many vectors, linking them in parallel (ids already indexed are skipped); see
    /// [`Self::insert`].
    pub fn insert_many(&self, items: &[(MemoryId, Option<&str>, &[f32])]) {
        let added: Vec<usize> = {
            let mut slots = self.slots.write();
            items
                .iter()
                .filter_map(|(id, entity, vector)| self.add(&mut slots, *id, *entity, vector))
                .collect()
        };
        added.par_iter().for_each(|&slot| self.graph.link(slot));
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
        self.search_where(
            query,
            k,
            ef_search,
            entity,
            None::<fn(&MemoryId) -> bool>,
            usize::MAX,
        )
        .0
    }

    /// [`VectorIndex::search`] among the memories `keep` lets through (when given): the graph
    /// is walked through every node, and only those are returned (hnswlib's filter functor).
    /// The walk expands at most `budget` nodes; the flag says whether that stopped it (see
    /// `HnswGraph::search_budgeted`).
    pub fn search_where(
        &self,
        query: &[f32],
        k: usize,
        ef_search: Option<usize>,
        entity: Option<&str>,
        keep: Option<impl Fn(&MemoryId) -> bool>,
        budget: usize,
    ) -> (Vec<Neighbor>, bool) {
        let ef = ef_search.unwrap_or(self.params.ef_search).max(k);
        let slots = self.slots.read();
        let entity_index = match entity {
            Some(name) => match slots.entity(name) {
                Some(index) => Some(index),
                None => return (Vec::new(), false),
            },
            None => None,
        };
        let filtered = entity_index.is_some() || slots.deleted_len() > 0 || keep.is_some();
        let accept = |slot: usize| {
            slots.accepts(slot, entity_index)
                && keep
                    .as_ref()
                    .is_none_or(|keep| slots.live_id(slot).is_some_and(|id| keep(&id)))
        };
        // The pending buffer is scanned before the graph is searched: the drain removes a node
        // from the buffer only once the graph links it, so a node the scan misses is linked
        // before the search starts, and no node is missed by both.
        let waiting = if self.pending.is_empty() {
            Vec::new()
        } else {
            self.pending.scan(self.graph.scorer(query), accept)
        };
        let (mut hits, stopped) = if filtered {
            each!(&self.graph, graph => graph.search_budgeted(query, k, ef, accept, budget))
        } else {
            each!(&self.graph, graph => graph.search_budgeted(query, k, ef, |_| true, budget))
        };
        if !waiting.is_empty() {
            hits.extend(waiting);
            sort_dedup_truncate(&mut hits, k);
        }
        let hits = hits
            .into_iter()
            .filter_map(|(slot, distance)| {
                slots.live_id(slot).map(|id| Neighbor {
                    id,
                    distance,
                    slot: Some(slot_u32(slot)),
                })
            })
            .collect();
        (hits, stopped)
    }

    /// The `k` of `ids` nearest normalised `query`, nearest first, by a scan of their vectors
    /// in memory (exact in the f32 format; ids not indexed, or forgotten, are skipped; an id
    /// listed twice is scored once). Only the `k` nearest are sorted (a selection finds them
    /// first). With `remember`, `ids` is a list the caller will pass again (a lookup answer the
    /// store keeps), and the slots of its ids are remembered by it (see `resolved.rs`); from
    /// its second use an f32 index scans its packed rows first (see `packed.rs`).
    pub fn exact(
        &self,
        query: &[f32],
        ids: &Arc<[MemoryId]>,
        remember: bool,
        k: usize,
    ) -> Vec<Neighbor> {
        // The slot map's lock is not held while the scan runs on the thread pool: a task it
        // picks up there may be another read that waits behind a queued write.
        let (current, remembered) = {
            let slots = self.slots.read();
            let (resolution, remembered) = if remember {
                self.resolved.get_or_resolve(ids, || resolve(&slots, ids))
            } else {
                (Arc::new(resolve(&slots, ids)), false)
            };
            // Tombstones only grow: an unchanged count means no listed memory was forgotten.
            let forgotten = slots.deleted_len() != resolution.deleted_seen;
            // A fresh resolution is current; a remembered one may have ids that have slots now.
            let late = if remember {
                resolve(&slots, &resolution.unslotted)
            } else {
                Resolution::default()
            };
            if forgotten || !late.slots.is_empty() {
                let current = Arc::new(bring_up_to_date(&slots, &resolution, late));
                self.resolved.update(ids, Arc::clone(&current));
                (current, remembered)
            } else {
                (resolution, remembered)
            }
        };
        // A list used again is scanned over its packed rows, and only the rows that may be
        // among the `k` nearest are scored exactly.
        let packed = match &self.graph {
            AnyGraph::F32(graph) if remembered && k < current.slots.len() => current
                .packed
                .get_or_init(|| {
                    PackedRows::pack(&graph.vectors().view(), &current.slots, self.dimension)
                })
                .as_ref(),
            _ => None,
        };
        let mut hits = match packed {
            Some(packed) => {
                let chosen = packed.candidates(query, k);
                let slots: Vec<u32> = chosen.iter().map(|at| current.slots[*at]).collect();
                neighbors(
                    chosen.iter().map(|at| current.ids[*at]),
                    self.graph.distances(query, &slots),
                )
            }
            None => neighbors(
                current.ids.iter().copied(),
                self.graph.distances(query, &current.slots),
            ),
        };
        if k < hits.len() {
            hits.select_nth_unstable_by(k, |a, b| a.distance.total_cmp(&b.distance));
            hits.truncate(k);
        }
        hits.sort_by(|a, b| a.distance.total_cmp(&b.distance));
        hits
    }

    /// Every live memory with its distance to normalised `query`, in slot order, not sorted
    /// (only `entity`'s when given): the brute force a filter falls back on (exact in the f32
    /// format), whose caller picks the nearest it needs.
    pub fn exact_all(&self, query: &[f32], entity: Option<&str>) -> Vec<Neighbor> {
        let slots = self.slots.read();
        let entity_index = match entity {
            Some(name) => match slots.entity(name) {
                Some(index) => Some(index),
                None => return Vec::new(),
            },
            None => None,
        };
        let (order, ids): (Vec<u32>, Vec<MemoryId>) = (0..slots.len())
            .filter(|slot| slots.accepts(*slot, entity_index))
            .filter_map(|slot| Some((slot_u32(slot), slots.live_id(slot)?)))
            .unzip();
        // Not held while the scan runs on the thread pool (see `exact`).
        drop(slots);
        neighbors(ids, self.graph.distances(query, &order))
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

/// The live slots of `ids`, each memory once, in slot order, and the ids without one.
fn resolve(slots: &SlotMap, ids: &[MemoryId]) -> Resolution {
    let mut unslotted = Vec::new();
    let mut pairs: Vec<(u32, MemoryId)> = Vec::with_capacity(ids.len());
    for id in ids {
        match slots.live_slot(id) {
            Some(slot) => pairs.push((slot_u32(slot), *id)),
            None => unslotted.push(*id),
        }
    }
    pairs.sort_unstable_by_key(|(slot, _)| *slot);
    pairs.dedup_by_key(|(slot, _)| *slot);
    unslotted.sort_unstable();
    unslotted.dedup();
    let deleted_seen = slots.deleted_len();
    let (slots, ids) = pairs.into_iter().unzip();
    Resolution {
        slots,
        ids,
        unslotted,
        deleted_seen,
        packed: OnceLock::new(),
    }
}

/// `resolution` without the memories forgotten since, and with `late`: the slots its ids
/// without one have now.
fn bring_up_to_date(slots: &SlotMap, resolution: &Resolution, late: Resolution) -> Resolution {
    let mut pairs: Vec<(u32, MemoryId)> = resolution
        .slots
        .iter()
        .zip(&resolution.ids)
        .filter(|(slot, id)| slots.live_id(**slot as usize) == Some(**id))
        .map(|(slot, id)| (*slot, *id))
        .chain(late.slots.into_iter().zip(late.ids))
        .collect();
    pairs.sort_unstable_by_key(|(slot, _)| *slot);
    let deleted_seen = slots.deleted_len();
    let (slots, ids) = pairs.into_iter().unzip();
    Resolution {
        slots,
        ids,
        unslotted: late.unslotted,
        deleted_seen,
        packed: OnceLock::new(),
    }
}

/// `ids` with their `distances` (in the same order), those stored, distances clamped at 0.
fn neighbors(
    ids: impl IntoIterator<Item = MemoryId>,
    distances: Vec<Option<f32>>,
) -> Vec<Neighbor> {
    ids.into_iter()
        .zip(distances)
        .filter_map(|(id, distance)| Some(Neighbor::scored(id, distance?.max(0.0))))
        .collect()
}

/// Sorts hits by distance, keeps the first of each slot and the `k` nearest.
fn sort_dedup_truncate(hits: &mut Vec<(usize, f32)>, k: usize) {
    hits.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut seen = std::collections::HashSet::with_capacity(hits.len());
    hits.retain(|hit| seen.insert(hit.0));
    hits.truncate(k);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::vector::dot;

    /// An int8 index of three 4-d unit vectors with its exact rows in `dir`.
    fn int8_index(dir: &Path) -> (VectorIndex, Vec<MemoryId>, Vec<Vec<f32>>) {
        let rows = ExactRows::open(&dir.join("exact.f32"), 4).unwrap();
        let index = VectorIndex::new(HnswParams::default(), 4, VectorFormat::Int8)
            .with_exact_rows(Some(Arc::new(rows)));
        let vectors = vec![
            vec![1.0, 0.0, 0.0, 0.0],
            vec![0.6, 0.8, 0.0, 0.0],
            vec![0.0, 0.0, 0.6, 0.8],
        ];
        let ids: Vec<MemoryId> = vectors.iter().map(|_| MemoryId::new()).collect();
        for (id, vector) in ids.iter().zip(&vectors) {
            index.insert(*id, None, vector);
        }
        (index, ids, vectors)
    }

    #[test]
    fn the_rescore_trusts_a_slot_hint_only_while_it_is_that_memorys_slot() {
        let dir = tempfile::tempdir().unwrap();
        let (index, ids, vectors) = int8_index(dir.path());
        let query = [0.8, 0.6, 0.0, 0.0];
        let exact = |row: usize| (1.0 - dot(&query, &vectors[row])).max(0.0);
        let hit = |row: usize, slot: Option<u32>| Neighbor {
            id: ids[row],
            distance: 0.5,
            slot,
        };
        // Its own slot, another memory's slot, none: each is scored with its own vector.
        let (scored, missing) = index.rescore(
            &query,
            vec![hit(0, Some(0)), hit(1, Some(2)), hit(2, None)],
            3,
        );
        assert!(missing.is_empty());
        for (at, row) in [0, 1, 2].into_iter().enumerate() {
            assert_eq!(scored[at].id, ids[row]);
            assert!((scored[at].distance - exact(row)).abs() < 1e-6);
        }
        // A forgotten memory is dropped, whatever its hint.
        assert!(index.delete(&ids[1]));
        let (scored, missing) = index.rescore(&query, vec![hit(1, Some(1)), hit(0, Some(1))], 2);
        assert!(missing.is_empty());
        assert_eq!(scored.len(), 1);
        assert_eq!(scored[0].id, ids[0]);
        assert!((scored[0].distance - exact(0)).abs() < 1e-6);
    }

    #[test]
    fn search_hits_carry_their_slots() {
        let dir = tempfile::tempdir().unwrap();
        let (index, ids, _) = int8_index(dir.path());
        let hits = index.search(&[1.0, 0.0, 0.0, 0.0], 3, None, None);
        for hit in hits {
            let slot = ids.iter().position(|id| *id == hit.id).unwrap();
            assert_eq!(hit.slot, Some(slot as u32));
        }
    }

    /// An int8 index of `vectors` (normalised here) with its exact rows in `dir`.
    fn int8_index_of(dir: &Path, vectors: &mut [Vec<f32>]) -> VectorIndex {
        let dimension = vectors[0].len();
        let rows = ExactRows::open(&dir.join("exact.f32"), dimension).unwrap();
        let index = VectorIndex::new(HnswParams::default(), dimension, VectorFormat::Int8)
            .with_exact_rows(Some(Arc::new(rows)));
        for vector in vectors.iter_mut() {
            let norm = dot(vector, vector).sqrt().max(1e-6);
            vector.iter_mut().for_each(|x| *x /= norm);
            index.insert(MemoryId::new(), None, vector);
        }
        index
    }

    /// The `keep` nearest of a re-score that reads every hit and of one told to keep `keep`.
    fn both_rescores(
        index: &VectorIndex,
        query: &[f32],
        keep: usize,
    ) -> (Vec<Neighbor>, Vec<Neighbor>, usize, usize) {
        let hits = index.search(query, 60, Some(200), None);
        let (mut all, _) = index.rescore(query, hits.clone(), hits.len());
        let (mut kept, _) = index.rescore(query, hits, keep);
        let read = (all.len(), kept.len());
        for scored in [&mut all, &mut kept] {
            scored.sort_by(|a, b| a.distance.total_cmp(&b.distance));
            scored.truncate(keep);
        }
        (all, kept, read.0, read.1)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        #[test]
        fn a_rescore_that_keeps_k_leaves_unread_only_what_cannot_be_among_them(
            mut vectors in proptest::collection::vec(
                proptest::collection::vec(-1.0f32..1.0, 48), 120..240),
            query in proptest::collection::vec(-1.0f32..1.0, 48),
            keep in 1usize..15,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let index = int8_index_of(dir.path(), &mut vectors);
            let norm = dot(&query, &query).sqrt().max(1e-6);
            let query: Vec<f32> = query.iter().map(|x| x / norm).collect();
            let (all, kept, _, _) = both_rescores(&index, &query, keep);
            proptest::prop_assert_eq!(
                all.iter().map(|hit| hit.id).collect::<Vec<_>>(),
                kept.iter().map(|hit| hit.id).collect::<Vec<_>>()
            );
            for (a, b) in all.iter().zip(&kept) {
                proptest::prop_assert_eq!(a.distance, b.distance, "exact distances");
            }
        }
    }

    #[test]
    fn a_rescore_that_keeps_few_reads_fewer_rows() {
        let dir = tempfile::tempdir().unwrap();
        let mut vectors: Vec<Vec<f32>> = (0..300)
            .map(|row| {
                (0..48)
                    .map(|d| ((row * 31 + d * 7) as f32 * 0.37).sin())
                    .collect()
            })
            .collect();
        let index = int8_index_of(dir.path(), &mut vectors);
        let (all, kept, read_all, read_kept) = both_rescores(&index, &vectors[5], 5);
        assert_eq!(all, kept);
        assert_eq!(read_all, 60);
        assert!(read_kept < 30, "read {read_kept} of 60 rows to keep 5");
    }
}
