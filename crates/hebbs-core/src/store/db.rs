//! The opened RocksDB database and the reads the engine needs. Scans stream through bounded
//! iterators; nothing loads a whole column family.

use std::path::Path;

use parking_lot::RwLock;
use rocksdb::{
    ColumnFamily, DBPinnableSlice, Direction, IteratorMode, ReadOptions, WriteBatch, WriteOptions,
    DB,
};

use super::access::AccessStats;
use super::batch::StoreBatch;
use super::changelog::ChangelogEntry;
use super::column_families::{
    self, ACCESS, CHANGELOG, EDGES_IN, EDGES_OUT, MEMORIES, META, SESSIONS, TEMPORAL, VECTORS,
};
use super::hot::HotState;
use super::keys::{decode_edge_key, decode_vector, SessionKey, TemporalKey};
use super::lookup_cache::LookupCache;
use crate::error::{HebbsError, Result};
use crate::index::vector::VectorFormat;
use crate::memory::{Edge, MemoryId, StoredMemory};

/// Current on-disk schema version, stored under [`META_SCHEMA_VERSION`].
pub const SCHEMA_VERSION: u64 = 1;
pub(super) const META_SCHEMA_VERSION: &[u8] = b"schema_version";
pub(super) const META_MEMORY_COUNT: &[u8] = b"memory_count";
pub(super) const META_NEXT_SEQ: &[u8] = b"next_seq";
pub(super) const META_DIMENSION: &[u8] = b"dimension";
/// The vector index's format (`f32` or `int8`), recorded on open; absent in older stores (f32).
pub(super) const META_VECTOR_FORMAT: &[u8] = b"vector_format";

/// The RocksDB store of one hebbs database.
pub struct Store {
    pub(super) db: DB,
    /// Pending access increments and cached scoring fields (see [`super::hot`]).
    pub(super) hot: RwLock<HotState>,
    /// Held exclusively by an access flush from start to end, shared by whatever must not see
    /// one half done (see [`super::hot`]).
    pub(super) flush_gate: RwLock<()>,
    /// Recent answers of the context-values index (see [`super::lookup_cache`]).
    pub(super) lookups: LookupCache,
}

impl Store {
    /// Opens (creating if needed) the database at `path` with every column family.
    pub fn open(path: &Path) -> Result<Self> {
        let db = DB::open_cf_descriptors(
            &column_families::db_options(table_files(path)?),
            path,
            column_families::descriptors(),
        )?;
        remove_options_files(path)?;
        let store = Self {
            db,
            hot: RwLock::default(),
            flush_gate: RwLock::default(),
            lookups: LookupCache::default(),
        };
        match store.meta_u64(META_SCHEMA_VERSION)? {
            None => store.db.put_cf(
                store.cf(META),
                META_SCHEMA_VERSION,
                SCHEMA_VERSION.to_le_bytes(),
            )?,
            Some(SCHEMA_VERSION) => {}
            Some(other) => {
                return Err(HebbsError::corrupt(
                    "store",
                    format!("schema version {other}, this build reads {SCHEMA_VERSION}"),
                ))
            }
        }
        store.index_context_values()?;
        Ok(store)
    }

    /// The handle of a column family opened by [`Store::open`].
    pub(super) fn cf(&self, name: &str) -> &ColumnFamily {
        self.db
            .cf_handle(name)
            .expect("every column family is opened with the database")
    }

    /// A new empty batch.
    pub fn batch(&self) -> StoreBatch<'_> {
        StoreBatch::new(self)
    }

    /// Applies `batch` atomically; with `sync` the WAL is fsynced before returning. The
    /// pending access increments and cached scoring fields of the memories it deletes or
    /// rewrites are dropped around the write, and the memories it adds enter the scoring cache.
    pub fn commit(&self, batch: StoreBatch<'_>, sync: bool) -> Result<()> {
        let mut options = WriteOptions::default();
        options.set_sync(sync);
        // A flush writing an erased memory's counter after this delete would bring it back.
        let _settled = (!batch.erased.is_empty()).then(|| self.flush_gate.read());
        self.drop_pending(&batch.erased);
        let generation = self.hot_generation();
        self.db.write_opt(batch.batch, &options)?;
        self.lookups.apply(&batch.context_changes);
        self.invalidate(&batch.rewritten, &batch.erased);
        self.admit_created(batch.created, generation);
        Ok(())
    }

    /// The stored record of `id`.
    pub fn record(&self, id: &MemoryId) -> Result<Option<StoredMemory>> {
        self.db
            .get_pinned_cf(self.cf(MEMORIES), id.as_bytes())?
            .map(|bytes| StoredMemory::decode(&bytes))
            .transpose()
    }

    /// Records of many ids in one multi-get, in input order.
    pub fn records(&self, ids: &[MemoryId]) -> Result<Vec<Option<StoredMemory>>> {
        let cf = self.cf(MEMORIES);
        self.db
            .batched_multi_get_cf(cf, ids.iter().map(|id| id.as_bytes()), false)
            .into_iter()
            .map(|found| found?.map(|bytes| StoredMemory::decode(&bytes)).transpose())
            .collect()
    }

    /// The encoded records of many ids, pinned in place (no copy), in input order: recall reads
    /// the scoring fields of every candidate and decodes only the winners.
    pub fn pinned_records(&self, ids: &[MemoryId]) -> Result<Vec<Option<DBPinnableSlice<'_>>>> {
        let cf = self.cf(MEMORIES);
        self.db
            .batched_multi_get_cf(cf, ids.iter().map(|id| id.as_bytes()), false)
            .into_iter()
            .map(|found| found.map_err(Into::into))
            .collect()
    }

    /// Access statistics of many ids as RocksDB holds them (without pending increments), in
    /// input order.
    pub(super) fn stored_access_stats(&self, ids: &[MemoryId]) -> Result<Vec<AccessStats>> {
        let cf = self.cf(ACCESS);
        self.db
            .batched_multi_get_cf(cf, ids.iter().map(|id| id.as_bytes()), false)
            .into_iter()
            .map(|found| {
                Ok(found?
                    .map(|bytes| AccessStats::decode(&bytes))
                    .unwrap_or_default())
            })
            .collect()
    }

    /// Whether a memory with this id exists.
    pub fn contains(&self, id: &MemoryId) -> Result<bool> {
        Ok(self
            .db
            .get_pinned_cf(self.cf(MEMORIES), id.as_bytes())?
            .is_some())
    }

    /// The stored (normalised) vector of `id`.
    pub fn vector(&self, id: &MemoryId) -> Result<Option<Vec<f32>>> {
        self.db
            .get_pinned_cf(self.cf(VECTORS), id.as_bytes())?
            .map(|bytes| decode_vector(&bytes))
            .transpose()
    }

    /// Stored vectors of many ids, in input order.
    pub fn vectors(&self, ids: &[MemoryId]) -> Result<Vec<Option<Vec<f32>>>> {
        let cf = self.cf(VECTORS);
        self.db
            .batched_multi_get_cf(cf, ids.iter().map(|id| id.as_bytes()), false)
            .into_iter()
            .map(|found| found?.map(|bytes| decode_vector(&bytes)).transpose())
            .collect()
    }

    /// Every stored vector, streamed in id order.
    pub fn scan_vectors(&self) -> impl Iterator<Item = Result<(MemoryId, Vec<f32>)>> + '_ {
        self.db
            .iterator_cf(self.cf(VECTORS), IteratorMode::Start)
            .map(|item| {
                let (key, value) = item?;
                Ok((
                    MemoryId::from_slice(&key, "vector key")?,
                    decode_vector(&value)?,
                ))
            })
    }

    /// Every stored record, streamed in id order.
    pub fn scan_records(&self) -> impl Iterator<Item = Result<(MemoryId, StoredMemory)>> + '_ {
        self.records_in(IteratorMode::Start)
    }

    /// Every stored record, newest id first (ids are UUIDv7, so this is creation order of the
    /// writes, not of `created_at`).
    pub fn scan_records_newest_first(
        &self,
    ) -> impl Iterator<Item = Result<(MemoryId, StoredMemory)>> + '_ {
        self.records_in(IteratorMode::End)
    }

    fn records_in(
        &self,
        mode: IteratorMode<'_>,
    ) -> impl Iterator<Item = Result<(MemoryId, StoredMemory)>> + '_ {
        self.db.iterator_cf(self.cf(MEMORIES), mode).map(|item| {
            let (key, value) = item?;
            Ok((
                MemoryId::from_slice(&key, "memory key")?,
                StoredMemory::decode(&value)?,
            ))
        })
    }

    /// Outgoing edges of `id` (targets it points at), one prefix scan.
    pub fn edges_out(&self, id: &MemoryId) -> Result<Vec<Edge>> {
        self.edges(EDGES_OUT, id, usize::MAX)
    }

    /// Incoming edges of `id`: each edge's `target` is the memory that points at `id`.
    pub fn edges_in(&self, id: &MemoryId) -> Result<Vec<Edge>> {
        self.edges(EDGES_IN, id, usize::MAX)
    }

    /// At most `limit` edges of `id`: outgoing if `outgoing`, else incoming (bounded graph walks).
    pub fn edges_up_to(&self, id: &MemoryId, outgoing: bool, limit: usize) -> Result<Vec<Edge>> {
        self.edges(if outgoing { EDGES_OUT } else { EDGES_IN }, id, limit)
    }

    fn edges(&self, cf: &str, id: &MemoryId, limit: usize) -> Result<Vec<Edge>> {
        let mut options = ReadOptions::default();
        let mut upper = id.as_bytes().to_vec();
        upper.push(u8::MAX);
        options.set_iterate_upper_bound(upper);
        let iter = self.db.iterator_cf_opt(
            self.cf(cf),
            options,
            IteratorMode::From(id.as_bytes(), Direction::Forward),
        );
        iter.take(limit)
            .map(|item| {
                let (key, value) = item?;
                let (_, edge_type, other) = decode_edge_key(&key)?;
                let confidence = value
                    .as_ref()
                    .try_into()
                    .map(f32::from_le_bytes)
                    .map_err(|_| HebbsError::corrupt("edge", "confidence is not 4 bytes"))?;
                Ok(Edge {
                    target: other,
                    edge_type,
                    confidence,
                })
            })
            .collect()
    }

    /// Up to `limit` memories of `entity` created in `[start_us, end_us]`, newest first:
    /// one seek then a reverse scan, O(log n + k).
    pub fn temporal_newest_first(
        &self,
        entity: &str,
        start_us: u64,
        end_us: u64,
        limit: usize,
    ) -> Result<Vec<TemporalKey>> {
        let mut options = ReadOptions::default();
        options.set_iterate_lower_bound(TemporalKey::lower_bound(entity, start_us));
        let upper = TemporalKey::upper_bound(entity, end_us);
        options.set_iterate_upper_bound(upper.clone());
        let iter = self.db.iterator_cf_opt(
            self.cf(TEMPORAL),
            options,
            IteratorMode::From(&upper, Direction::Reverse),
        );
        iter.take(limit)
            .map(|item| TemporalKey::decode(&item?.0))
            .collect()
    }

    /// Up to `limit` touches of conversation `session`, oldest first.
    pub fn session_touches(&self, session: &str, limit: usize) -> Result<Vec<SessionKey>> {
        let mut options = ReadOptions::default();
        let lower = TemporalKey::lower_bound(session, 0);
        options.set_iterate_upper_bound(TemporalKey::upper_bound(session, u64::MAX));
        self.db
            .iterator_cf_opt(
                self.cf(SESSIONS),
                options,
                IteratorMode::From(&lower, Direction::Forward),
            )
            .take(limit)
            .map(|item| SessionKey::decode(&item?.0))
            .collect()
    }

    /// Changelog entries with a sequence number of at least `from_seq`, in order.
    pub fn changelog_from(
        &self,
        from_seq: u64,
    ) -> impl Iterator<Item = Result<ChangelogEntry>> + '_ {
        let start = ChangelogEntry::key(from_seq);
        self.db
            .iterator_cf(
                self.cf(CHANGELOG),
                IteratorMode::From(&start, Direction::Forward),
            )
            .map(|item| {
                let (key, value) = item?;
                ChangelogEntry::decode(&key, &value)
            })
    }

    /// Drops changelog entries below `seq` (they are covered by an index checkpoint), one point
    /// delete each in one batch: RocksDB refuses range deletes on a database with a row cache.
    pub fn truncate_changelog_below(&self, seq: u64) -> Result<()> {
        let cf = self.cf(CHANGELOG);
        let mut options = ReadOptions::default();
        options.set_iterate_upper_bound(ChangelogEntry::key(seq));
        let mut batch = WriteBatch::default();
        for item in self.db.iterator_cf_opt(cf, options, IteratorMode::Start) {
            let (key, _) = item?;
            batch.delete_cf(cf, key);
        }
        self.db.write(batch)?;
        Ok(())
    }

    /// Persisted number of live memories.
    pub fn memory_count(&self) -> Result<u64> {
        Ok(self.meta_u64(META_MEMORY_COUNT)?.unwrap_or(0))
    }

    /// The next changelog sequence number to hand out.
    pub fn next_seq(&self) -> Result<u64> {
        Ok(self.meta_u64(META_NEXT_SEQ)?.unwrap_or(0))
    }

    /// The embedding dimension fixed by the first stored vector, if any.
    pub fn dimension(&self) -> Result<Option<usize>> {
        Ok(self.meta_u64(META_DIMENSION)?.map(|d| d as usize))
    }

    /// Fixes the embedding dimension (done once, with the first vector).
    pub fn set_dimension(&self, dimension: usize) -> Result<()> {
        self.db.put_cf(
            self.cf(META),
            META_DIMENSION,
            (dimension as u64).to_le_bytes(),
        )?;
        Ok(())
    }

    /// The vector index format recorded by the last open, if any.
    pub fn vector_format(&self) -> Result<Option<VectorFormat>> {
        let Some(bytes) = self.db.get_pinned_cf(self.cf(META), META_VECTOR_FORMAT)? else {
            return Ok(None);
        };
        let name = std::str::from_utf8(&bytes)
            .map_err(|_| HebbsError::corrupt("meta", "vector_format is not UTF-8"))?;
        VectorFormat::parse(name, "vector_format")
            .map(Some)
            .map_err(|_| HebbsError::corrupt("meta", format!("unknown vector_format {name:?}")))
    }

    /// Records the vector index format.
    pub fn set_vector_format(&self, format: VectorFormat) -> Result<()> {
        self.db
            .put_cf(self.cf(META), META_VECTOR_FORMAT, format.name())?;
        Ok(())
    }

    /// Writes the pending access increments, then flushes memtables and the WAL to disk.
    pub fn flush(&self) -> Result<()> {
        self.flush_accesses()?;
        self.db.flush_wal(true)?;
        for name in column_families::ALL_COLUMN_FAMILIES {
            self.db.flush_cf(self.cf(name))?;
        }
        Ok(())
    }

    fn meta_u64(&self, key: &[u8]) -> Result<Option<u64>> {
        self.db
            .get_pinned_cf(self.cf(META), key)?
            .map(|bytes| {
                bytes
                    .as_ref()
                    .try_into()
                    .map(u64::from_le_bytes)
                    .map_err(|_| HebbsError::corrupt("meta", "counter is not 8 bytes"))
            })
            .transpose()
    }
}

/// How many table files (`*.sst`) the store at `path` holds; 0 for a new store.
fn table_files(path: &Path) -> Result<usize> {
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(HebbsError::io(path, e)),
    };
    let mut count = 0;
    for entry in entries {
        let entry = entry.map_err(|e| HebbsError::io(path, e))?;
        if entry.file_name().to_string_lossy().ends_with(".sst") {
            count += 1;
        }
    }
    Ok(count)
}

/// Deletes the `OPTIONS-*` files RocksDB writes on every open: a text dump of every option of
/// every column family, about 80 KB a store, which RocksDB itself never reads back (a store is
/// always opened with the options of [`column_families`]) and which the tools that read it
/// (`ldb`) do not need. A server's thousand tiny tenants would otherwise keep 80 MB of them.
fn remove_options_files(path: &Path) -> Result<()> {
    let entries = std::fs::read_dir(path).map_err(|e| HebbsError::io(path, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| HebbsError::io(path, e))?;
        if entry.file_name().to_string_lossy().starts_with("OPTIONS-") {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(HebbsError::io(entry.path(), e)),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::changelog::ChangeOp;
    use super::*;

    #[test]
    fn truncating_the_changelog_drops_exactly_the_entries_below_the_sequence() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for seq in 0..50u64 {
            let entry = ChangelogEntry {
                seq,
                op: ChangeOp::Insert,
                id: MemoryId::new(),
            };
            store
                .db
                .put_cf(store.cf(CHANGELOG), ChangelogEntry::key(seq), entry.value())
                .unwrap();
        }
        let left = |store: &Store| -> Vec<u64> {
            store
                .changelog_from(0)
                .map(|entry| entry.unwrap().seq)
                .collect()
        };
        store.truncate_changelog_below(30).unwrap();
        assert_eq!(left(&store), (30..50).collect::<Vec<_>>());
        store.truncate_changelog_below(30).unwrap();
        store.truncate_changelog_below(0).unwrap();
        assert_eq!(left(&store), (30..50).collect::<Vec<_>>());
        store.truncate_changelog_below(u64::MAX).unwrap();
        assert!(left(&store).is_empty());
    }
}
