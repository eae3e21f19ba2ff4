//! One atomic write: every column family touched by an operation goes into one `WriteBatch`.

use std::collections::HashSet;
use std::sync::Arc;

use rocksdb::WriteBatch;

use super::access::AccessStats;
use super::changelog::{ChangeOp, ChangelogEntry};
use super::column_families::{
    ACCESS, CHANGELOG, EDGES_IN, EDGES_OUT, MEMORIES, META, SESSIONS, TEMPORAL, TOMBSTONES, VECTORS,
};
use super::db::{Store, META_DIMENSION, META_MEMORY_COUNT, META_NEXT_SEQ};
use super::keys::{edge_key, encode_vector, SessionKey, TemporalKey};
use super::lookup_cache::IndexChange;
use super::purge::TouchedRanges;
use crate::memory::{Edge, MemoryId, StoredMemory, Tombstone};

/// Collects the writes of one operation; [`Store::commit`] applies them atomically.
pub struct StoreBatch<'a> {
    pub(super) store: &'a Store,
    pub(super) batch: WriteBatch,
    /// Key ranges of the deletes queued, for a purge after the commit.
    pub(super) touched: TouchedRanges,
    /// Existing memories whose record this batch rewrites.
    pub(super) rewritten: Vec<MemoryId>,
    /// New memories this batch adds, with their records and encoded sizes (written through to
    /// the scoring and record caches).
    pub(super) created: Vec<(MemoryId, Arc<StoredMemory>, usize)>,
    /// Memories this batch deletes.
    pub(super) erased: Vec<MemoryId>,
    /// Caller keys this batch points at a memory (`memory_keys.rs`).
    pub(super) claimed_keys: HashSet<String>,
    /// The context-value index keys this batch writes or deletes, for the lookup cache.
    pub(super) context_changes: Vec<IndexChange>,
}

impl<'a> StoreBatch<'a> {
    pub(super) fn new(store: &'a Store) -> Self {
        Self {
            store,
            batch: WriteBatch::default(),
            touched: TouchedRanges::default(),
            rewritten: Vec::new(),
            created: Vec::new(),
            erased: Vec::new(),
            claimed_keys: HashSet::new(),
            context_changes: Vec::new(),
        }
    }

    /// Adds a new memory: its record, vector, temporal entry, caller key, edges in both
    /// directions and the changelog entry `seq`.
    pub fn put_memory(
        &mut self,
        id: &MemoryId,
        record: &StoredMemory,
        vector: &[f32],
        edges: &[Edge],
        seq: u64,
    ) {
        let store = self.store;
        let encoded = record.encode();
        self.created
            .push((*id, Arc::new(record.clone()), encoded.len()));
        self.batch
            .put_cf(store.cf(MEMORIES), id.as_bytes(), encoded);
        self.batch
            .put_cf(store.cf(VECTORS), id.as_bytes(), encode_vector(vector));
        let temporal = TemporalKey {
            entity: record.entity_id.clone().unwrap_or_default(),
            created_at: record.created_at,
            id: *id,
        };
        self.batch.put_cf(store.cf(TEMPORAL), temporal.encode(), []);
        self.put_context_values(id, record);
        if let Some(key) = &record.key {
            self.claim_key(key, id);
        }
        for edge in edges {
            self.put_edge(id, edge);
        }
        let entry = ChangelogEntry {
            seq,
            op: ChangeOp::Insert,
            id: *id,
        };
        self.batch
            .put_cf(store.cf(CHANGELOG), ChangelogEntry::key(seq), entry.value());
    }

    /// Adds a memory as an export recorded it: like [`StoreBatch::put_memory`] (no edges), plus
    /// its access statistics. Caches learn it on first read, so they never hold it with the
    /// statistics of a new memory.
    pub fn put_restored(
        &mut self,
        id: &MemoryId,
        record: &StoredMemory,
        vector: &[f32],
        access: AccessStats,
        seq: u64,
    ) {
        self.put_memory(id, record, vector, &[], seq);
        if let Some((created, _, _)) = self.created.pop() {
            self.rewritten.push(created);
        }
        if access != AccessStats::default() {
            self.batch
                .put_cf(self.store.cf(ACCESS), id.as_bytes(), access.encode());
        }
    }

    /// Records that conversation `session` touched `id` at `at_us`.
    pub fn touch_session(&mut self, session: &str, at_us: u64, id: &MemoryId) {
        let key = SessionKey {
            session: session.to_owned(),
            touched_at: at_us,
            id: *id,
        };
        self.batch.put_cf(self.store.cf(SESSIONS), key.encode(), []);
    }

    /// Sets the persisted counters: total memories and the next changelog sequence.
    pub fn put_counters(&mut self, memory_count: u64, next_seq: u64) {
        let meta = self.store.cf(META);
        self.batch
            .put_cf(meta, META_MEMORY_COUNT, memory_count.to_le_bytes());
        self.batch
            .put_cf(meta, META_NEXT_SEQ, next_seq.to_le_bytes());
    }

    /// Fixes the store's embedding dimension (written with the first vector).
    pub fn put_dimension(&mut self, dimension: usize) {
        self.batch.put_cf(
            self.store.cf(META),
            META_DIMENSION,
            (dimension as u64).to_le_bytes(),
        );
    }

    /// Adds (or re-weights) the edge `source -> edge.target`, in both directions.
    pub fn put_edge(&mut self, source: &MemoryId, edge: &Edge) {
        let store = self.store;
        let confidence = edge.confidence.to_le_bytes();
        self.batch.put_cf(
            store.cf(EDGES_OUT),
            edge_key(source, edge.edge_type, &edge.target),
            confidence,
        );
        self.batch.put_cf(
            store.cf(EDGES_IN),
            edge_key(&edge.target, edge.edge_type, source),
            confidence,
        );
    }

    /// Rewrites the record of an existing memory (same id, same temporal key).
    pub fn put_record(&mut self, id: &MemoryId, record: &StoredMemory) {
        self.rewritten.push(*id);
        self.batch
            .put_cf(self.store.cf(MEMORIES), id.as_bytes(), record.encode());
    }

    /// Writes the audit record of a forgotten memory.
    pub fn put_tombstone(&mut self, tombstone: &Tombstone) {
        self.batch.put_cf(
            self.store.cf(TOMBSTONES),
            tombstone.id.as_bytes(),
            tombstone.encode(),
        );
    }

    /// Number of queued writes.
    pub fn len(&self) -> usize {
        self.batch.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.batch.is_empty()
    }
}
