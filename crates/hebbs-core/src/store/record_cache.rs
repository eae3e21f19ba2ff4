//! The decoded records of recently recalled memories, so a warm recall assembles its results
//! without a RocksDB read (a multi-get costs about 2 µs a record even from the row cache).
//!
//! The cache lives in the store's hot state (see [`super::hot`]) and follows its rules: the
//! entries of every record a batch rewrites or deletes are dropped once the write has landed,
//! and a reader fills the cache only if the generation did not move between its read and its
//! fill. It is bounded by the encoded size of what it holds and starts over when full.

use std::sync::Arc;

use super::db::Store;
use super::hot::missing_ids;
use crate::error::Result;
use crate::memory::{IdMap, MemoryId, StoredMemory};

/// Encoded bytes of the records cached at most.
pub const RECORD_CACHE_BYTES: usize = 64 * 1024 * 1024;
/// Bytes an entry is charged on top of its encoded record (map slot, `Arc`, allocations).
const ENTRY_OVERHEAD_BYTES: usize = 128;

/// Decoded records by id, with the bytes they are charged.
#[derive(Default)]
pub(super) struct RecordCache {
    records: IdMap<(Arc<StoredMemory>, usize)>,
    bytes: usize,
}

impl RecordCache {
    pub(super) fn get(&self, id: &MemoryId) -> Option<Arc<StoredMemory>> {
        self.records.get(id).map(|(record, _)| Arc::clone(record))
    }

    pub(super) fn remove(&mut self, id: &MemoryId) {
        if let Some((_, size)) = self.records.remove(id) {
            self.bytes -= size;
        }
    }

    /// Adds `(id, record, encoded length)` entries, clearing the cache first if they would not
    /// fit (each is charged its encoded length plus [`ENTRY_OVERHEAD_BYTES`]).
    pub(super) fn extend(&mut self, entries: Vec<(MemoryId, Arc<StoredMemory>, usize)>) {
        let incoming: usize = entries
            .iter()
            .map(|entry| entry.2 + ENTRY_OVERHEAD_BYTES)
            .sum();
        if self.bytes + incoming > RECORD_CACHE_BYTES {
            self.records.clear();
            self.bytes = 0;
        }
        for (id, record, encoded) in entries {
            let size = encoded + ENTRY_OVERHEAD_BYTES;
            self.bytes += size;
            if let Some((_, replaced)) = self.records.insert(id, (record, size)) {
                self.bytes -= replaced;
            }
        }
    }
}

impl Store {
    /// The decoded records of many ids, in input order (`None` for a memory that does not
    /// exist): from the cache, reading RocksDB in one multi-get only for the ids it lacks,
    /// which then fill it.
    pub fn cached_records(&self, ids: &[MemoryId]) -> Result<Vec<Option<Arc<StoredMemory>>>> {
        let (mut out, generation) = {
            let hot = self.hot.read();
            let found: Vec<_> = ids.iter().map(|id| hot.records.get(id)).collect();
            (found, hot.generation)
        };
        let missing = missing_ids(ids, &out);
        if missing.is_empty() {
            return Ok(out);
        }
        let mut fill = Vec::with_capacity(missing.len());
        for (id, bytes) in missing.iter().zip(self.pinned_records(&missing)?) {
            if let Some(bytes) = bytes {
                let record = Arc::new(StoredMemory::decode(&bytes)?);
                fill.push((*id, record, bytes.len()));
            }
        }
        let mut filled = fill.iter().peekable();
        for (id, slot) in ids.iter().zip(out.iter_mut()) {
            if slot.is_none() && filled.peek().is_some_and(|(next, _, _)| next == id) {
                *slot = filled.next().map(|(_, record, _)| Arc::clone(record));
            }
        }
        let mut hot = self.hot.write();
        if hot.generation == generation {
            hot.records.extend(fill);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{RecordCache, ENTRY_OVERHEAD_BYTES, RECORD_CACHE_BYTES};
    use crate::memory::{MemoryId, MemoryKind, StoredMemory};

    fn record(content: &str) -> Arc<StoredMemory> {
        Arc::new(StoredMemory {
            kind: MemoryKind::Episode,
            importance: 0.5,
            created_at: 1,
            updated_at: 1,
            entity_id: None,
            content: content.to_owned(),
            context: serde_json::Map::new(),
            superseded: false,
            key: None,
        })
    }

    #[test]
    fn stays_within_its_byte_budget_and_starts_over_when_full() {
        let mut cache = RecordCache::default();
        let quarter = RECORD_CACHE_BYTES / 4 - ENTRY_OVERHEAD_BYTES;
        let ids: Vec<MemoryId> = (0..5).map(|_| MemoryId::new()).collect();
        for (i, id) in ids.iter().take(4).enumerate() {
            cache.extend(vec![(*id, record(&format!("r{i}")), quarter)]);
        }
        assert!(ids[..4].iter().all(|id| cache.get(id).is_some()));
        assert_eq!(cache.bytes, RECORD_CACHE_BYTES);
        cache.extend(vec![(ids[4], record("r4"), 1)]);
        assert!(ids[..4].iter().all(|id| cache.get(id).is_none()));
        assert_eq!(cache.get(&ids[4]).unwrap().content, "r4");
        assert_eq!(cache.bytes, 1 + ENTRY_OVERHEAD_BYTES);
        cache.extend(vec![(ids[4], record("r4 again"), 10)]);
        assert_eq!(cache.bytes, 10 + ENTRY_OVERHEAD_BYTES);
        cache.remove(&ids[4]);
        assert!(cache.get(&ids[4]).is_none());
        assert_eq!(cache.bytes, 0);
    }
}
