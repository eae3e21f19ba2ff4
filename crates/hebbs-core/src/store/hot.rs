//! Recall's in-memory view of the store: the access increments not yet written to RocksDB
//! (the *pending* overlay), a bounded cache of every recently scored memory's scoring fields
//! (record header and its RocksDB access statistics) and one of recently recalled records
//! (`record_cache.rs`), so a warm recall scores its candidates and assembles its results
//! without a RocksDB read and records its accesses without a write.
//!
//! One lock guards the maps and a generation counter. The invariants:
//! - what a reader reports is RocksDB's value plus the increments a flush is writing
//!   (*flushing*) plus the pending overlay. [`Store::flush_accesses`] moves the overlay to
//!   *flushing* under the exclusive lock, writes it as merge operands (one plain non-synced
//!   `db.write`) without holding the lock, so recalls go on meanwhile, then folds it into the
//!   cache and clears it under the exclusive lock again;
//! - a reader that takes access statistics from the cache needs nothing more: a cached entry
//!   holds RocksDB's value without what is flushing until the flush folds it in. A reader that
//!   reads them from RocksDB (or a batch that deletes memories) holds the *flush gate* shared,
//!   which a flush holds exclusively from start to end, so it never sees a write half done;
//! - a cached entry otherwise equals RocksDB's value: [`Store::commit`] drops the entries of
//!   every record a batch rewrote or deleted (and the pending increments of deleted memories)
//!   once the write has landed;
//! - a reader fills the cache from RocksDB only if the generation (bumped by every flush and
//!   every invalidation) did not move between its read and its fill.
//!
//! A crash loses at most the pending increments: one flush interval of access counts, never a
//! memory. [`Store::flush`] (called by `close`) writes them first.

use std::sync::Arc;

use rocksdb::{WriteBatch, WriteOptions};

use super::access::AccessStats;
use super::column_families::ACCESS;
use super::db::Store;
use super::record_cache::RecordCache;
use crate::error::Result;
use crate::memory::{IdMap, MemoryId, RecordHeader, StoredMemory};

/// Memories whose scoring fields are cached at most; past it the cache starts over (about
/// 100 bytes an entry).
pub const SCORING_CACHE_CAPACITY: usize = 1 << 18;
/// Distinct memories with pending access increments past which a flush is due before the
/// flush interval ends.
pub const ACCESS_FLUSH_PENDING_MAX: usize = 4096;

/// What the composite score reads of one memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoringFields {
    /// The record's fixed header.
    pub header: RecordHeader,
    /// Access statistics, pending increments included.
    pub access: AccessStats,
}

/// The maps behind the store's hot lock.
#[derive(Default)]
pub(super) struct HotState {
    /// Access increments recorded by recalls and not yet written to RocksDB.
    pending: IdMap<AccessStats>,
    /// Increments a flush is writing now; empty whenever the flush gate is free.
    flushing: IdMap<AccessStats>,
    /// Scoring fields with RocksDB's access statistics (without `pending`).
    cache: IdMap<ScoringFields>,
    /// Decoded records of recently recalled memories (see [`super::record_cache`]).
    pub(super) records: RecordCache,
    /// Bumped by every flush and invalidation: a fill read before a bump is stale.
    pub(super) generation: u64,
}

impl HotState {
    /// `stored` (RocksDB's value or its cached copy) plus what is flushing and pending.
    fn with_unflushed(&self, id: &MemoryId, stored: AccessStats) -> AccessStats {
        [&self.flushing, &self.pending]
            .into_iter()
            .filter_map(|increments| increments.get(id))
            .fold(stored, |total, increment| total.combine(*increment))
    }

    fn all_cached(&self, ids: &[MemoryId]) -> bool {
        ids.iter().all(|id| self.cache.contains_key(id))
    }
}

/// The ids whose lookup in `found` (in the same order) came back empty.
pub(super) fn missing_ids<T>(ids: &[MemoryId], found: &[Option<T>]) -> Vec<MemoryId> {
    ids.iter()
        .zip(found)
        .filter(|(_, found)| found.is_none())
        .map(|(id, _)| *id)
        .collect()
}

impl Store {
    /// Runs `read` under the shared hot lock. When `ids` are not all cached, `read` will take
    /// access statistics from RocksDB, so it runs with the flush gate held shared as well.
    fn read_hot<T>(
        &self,
        ids: &[MemoryId],
        read: impl FnOnce(&HotState) -> Result<T>,
    ) -> Result<T> {
        {
            let hot = self.hot.read();
            if hot.all_cached(ids) {
                return read(&hot);
            }
        }
        let _settled = self.flush_gate.read();
        read(&self.hot.read())
    }

    /// Access statistics of many ids, in input order: RocksDB's value (or the cached copy of
    /// it) plus the increments not yet written.
    pub fn access_stats(&self, ids: &[MemoryId]) -> Result<Vec<AccessStats>> {
        self.read_hot(ids, |hot| {
            let missing: Vec<MemoryId> = ids
                .iter()
                .filter(|id| !hot.cache.contains_key(id))
                .copied()
                .collect();
            let mut stored = self.stored_access_stats(&missing)?.into_iter();
            Ok(ids
                .iter()
                .map(|id| {
                    let base = match hot.cache.get(id) {
                        Some(fields) => fields.access,
                        None => stored.next().unwrap_or_default(),
                    };
                    hot.with_unflushed(id, base)
                })
                .collect())
        })
    }

    /// Scoring fields of many ids, in input order (`None` for a memory that does not exist):
    /// from the cache, reading RocksDB (records and access statistics in two multi-gets) only
    /// for the ids it lacks, which then fill it. With `keep_records` (a caller that will return
    /// most of `ids`), the records that read also fill the record cache, decoded, so
    /// [`Store::cached_records`] does not read them a second time.
    pub fn scoring_fields(
        &self,
        ids: &[MemoryId],
        keep_records: bool,
    ) -> Result<Vec<Option<ScoringFields>>> {
        let (out, fill, records_fill, generation) = self.read_hot(ids, |hot| {
            let mut out: Vec<Option<ScoringFields>> =
                ids.iter().map(|id| hot.cache.get(id).copied()).collect();
            let missing = missing_ids(ids, &out);
            let mut fill = Vec::with_capacity(missing.len());
            let mut records_fill = Vec::new();
            if !missing.is_empty() {
                let records = self.pinned_records(&missing)?;
                let access = self.stored_access_stats(&missing)?;
                for ((id, record), access) in missing.iter().zip(records).zip(access) {
                    let Some(record) = record else { continue };
                    let header = StoredMemory::peek_scoring_fields(&record)?;
                    fill.push((*id, ScoringFields { header, access }));
                    if keep_records && hot.records.get(id).is_none() {
                        let decoded = Arc::new(StoredMemory::decode(&record)?);
                        records_fill.push((*id, decoded, record.len()));
                    }
                }
                let mut filled = fill.iter().peekable();
                for (id, slot) in ids.iter().zip(out.iter_mut()) {
                    if slot.is_none() && filled.peek().is_some_and(|(next, _)| next == id) {
                        *slot = filled.next().map(|(_, fields)| *fields);
                    }
                }
            }
            for (id, slot) in ids.iter().zip(out.iter_mut()) {
                if let Some(fields) = slot {
                    fields.access = hot.with_unflushed(id, fields.access);
                }
            }
            Ok((out, fill, records_fill, hot.generation))
        })?;
        if !fill.is_empty() {
            let mut hot = self.hot.write();
            if hot.generation == generation {
                if hot.cache.len() + fill.len() > SCORING_CACHE_CAPACITY {
                    hot.cache.clear();
                }
                hot.cache.extend(fill);
                hot.records.extend(records_fill);
            }
        }
        Ok(out)
    }

    /// Records one access at `now_us` of each of `ids` in the pending overlay (no RocksDB
    /// write). Returns whether a flush is due.
    pub fn record_accesses<'i>(
        &self,
        ids: impl IntoIterator<Item = &'i MemoryId>,
        now_us: u64,
    ) -> bool {
        let mut hot = self.hot.write();
        for id in ids {
            hot.pending
                .entry(*id)
                .and_modify(|stats| *stats = stats.combine(AccessStats::one(now_us)))
                .or_insert(AccessStats::one(now_us));
        }
        hot.pending.len() >= ACCESS_FLUSH_PENDING_MAX
    }

    /// Writes the pending access increments to RocksDB as merge operands (one non-synced write,
    /// made without holding the hot lock) and folds them into the cache. On a failed write they
    /// go back to the overlay.
    pub fn flush_accesses(&self) -> Result<()> {
        let _flushing = self.flush_gate.write();
        let batch = {
            let mut hot = self.hot.write();
            if hot.pending.is_empty() {
                return Ok(());
            }
            let cf = self.cf(ACCESS);
            // In key order: each insert into the memtable's skip list then starts from where
            // the one before it ended, instead of searching from the top (in hash order the
            // searches were a fifth of the CPU of a process recalling in a loop).
            let mut increments: Vec<(&MemoryId, &AccessStats)> = hot.pending.iter().collect();
            increments.sort_unstable_by_key(|(id, _)| *id);
            let mut batch = WriteBatch::default();
            for (id, stats) in increments {
                batch.merge_cf(cf, id.as_bytes(), stats.encode());
            }
            let state = &mut *hot;
            state.flushing = std::mem::take(&mut state.pending);
            batch
        };
        let mut options = WriteOptions::default();
        options.set_sync(false);
        let written = self.db.write_opt(batch, &options);
        let mut hot = self.hot.write();
        let state = &mut *hot;
        let flushed = std::mem::take(&mut state.flushing);
        if let Err(error) = written {
            for (id, stats) in flushed {
                state
                    .pending
                    .entry(id)
                    .and_modify(|pending| *pending = pending.combine(stats))
                    .or_insert(stats);
            }
            return Err(error.into());
        }
        for (id, stats) in flushed {
            if let Some(fields) = state.cache.get_mut(&id) {
                fields.access = fields.access.combine(stats);
            }
        }
        state.generation += 1;
        Ok(())
    }

    /// Before a batch that deletes `erased` lands: their pending increments are dropped, so a
    /// flush cannot write a counter after the delete.
    pub(super) fn drop_pending(&self, erased: &[MemoryId]) {
        if erased.is_empty() {
            return;
        }
        let mut hot = self.hot.write();
        for id in erased {
            hot.pending.remove(id);
        }
    }

    /// The cache generation, read before a write whose new memories [`Store::admit_created`]
    /// then caches.
    pub(super) fn hot_generation(&self) -> u64 {
        self.hot.read().generation
    }

    /// After a batch that added `created` landed: caches their scoring fields (no access yet)
    /// and their records, so the first recall that meets a new memory reads nothing from
    /// RocksDB. Skipped if a flush or invalidation since `generation` may have written access
    /// counts for them.
    pub(super) fn admit_created(
        &self,
        created: Vec<(MemoryId, Arc<StoredMemory>, usize)>,
        generation: u64,
    ) {
        if created.is_empty() {
            return;
        }
        let mut hot = self.hot.write();
        if hot.generation != generation {
            return;
        }
        if hot.cache.len() + created.len() > SCORING_CACHE_CAPACITY {
            hot.cache.clear();
        }
        hot.cache.extend(created.iter().map(|(id, record, _)| {
            let access = AccessStats::default();
            let header = record.header();
            (*id, ScoringFields { header, access })
        }));
        hot.records.extend(created);
    }

    /// After a batch landed: forgets the cached fields of the records it rewrote or deleted, and
    /// the pending increments a recall recorded for a deleted memory meanwhile.
    pub(super) fn invalidate(&self, rewritten: &[MemoryId], erased: &[MemoryId]) {
        if rewritten.is_empty() && erased.is_empty() {
            return;
        }
        let mut hot = self.hot.write();
        for id in erased {
            hot.pending.remove(id);
            hot.cache.remove(id);
            hot.records.remove(id);
        }
        for id in rewritten {
            hot.cache.remove(id);
            hot.records.remove(id);
        }
        hot.generation += 1;
    }
}
