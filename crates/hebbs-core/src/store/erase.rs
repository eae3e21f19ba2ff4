//! The deletes of `forget`: a memory's record, vector, temporal key, caller key, access counter
//! and token vectors, its edges in both directions, and the changelog entry that tells the vector index
//! to drop it. Every delete widens the batch's touched ranges, which a purge compacts afterwards.

use super::batch::StoreBatch;
use super::changelog::{ChangeOp, ChangelogEntry};
use super::column_families::{
    ACCESS, CHANGELOG, EDGES_IN, EDGES_OUT, MEMORIES, TEMPORAL, TOKEN_VECTORS, VECTORS,
};
use super::keys::{edge_key, TemporalKey};
use super::purge::TouchedRanges;
use crate::error::Result;
use crate::memory::{EdgeType, MemoryId, StoredMemory};

impl StoreBatch<'_> {
    /// Deletes memory `id` (whose record is `record`) from `memories`, `vectors`, `temporal`,
    /// `access`, `token_vectors`, `conversations` and its caller key, and logs the delete at changelog sequence `seq`. Its edges
    /// are deleted separately with [`StoreBatch::delete_edge`]. Its place in a conversation
    /// goes too (read from the store, hence the `Result`).
    pub fn delete_memory(&mut self, id: &MemoryId, record: &StoredMemory, seq: u64) -> Result<()> {
        let temporal = TemporalKey {
            entity: record.entity_id.clone().unwrap_or_default(),
            created_at: record.created_at,
            id: *id,
        }
        .encode();
        self.erased.push(*id);
        self.delete(MEMORIES, id.as_bytes());
        self.delete(VECTORS, id.as_bytes());
        self.delete(ACCESS, id.as_bytes());
        self.delete(TOKEN_VECTORS, id.as_bytes());
        self.delete(TEMPORAL, &temporal);
        self.delete_context_values(id, record);
        self.delete_conversation_turn(id)?;
        if let Some(key) = &record.key {
            self.release_key(key, id)?;
        }
        let entry = ChangelogEntry {
            seq,
            op: ChangeOp::Delete,
            id: *id,
        };
        self.batch.put_cf(
            self.store.cf(CHANGELOG),
            ChangelogEntry::key(seq),
            entry.value(),
        );
        Ok(())
    }

    /// Deletes the edge `source -[edge_type]-> target` in both directions.
    pub fn delete_edge(&mut self, source: &MemoryId, edge_type: EdgeType, target: &MemoryId) {
        self.delete(EDGES_OUT, &edge_key(source, edge_type, target));
        self.delete(EDGES_IN, &edge_key(target, edge_type, source));
    }

    /// The key ranges deleted so far, per column family.
    pub fn touched(&self) -> &TouchedRanges {
        &self.touched
    }

    pub(super) fn delete(&mut self, cf: &'static str, key: &[u8]) {
        self.batch.delete_cf(self.store.cf(cf), key);
        self.touched.touch(cf, key);
    }
}
