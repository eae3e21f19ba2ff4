//! The streaming scans that `forget`, listings and audits need: memory headers in id order,
//! records after a cursor, one entity's timeline oldest first (from a time or after a key),
//! tombstones, and a scan of every column family for an id's bytes.

use rocksdb::{Direction, IteratorMode, ReadOptions};

use super::column_families::{ALL_COLUMN_FAMILIES, MEMORIES, TEMPORAL, TOMBSTONES};
use super::db::Store;
use super::keys::TemporalKey;
use crate::error::Result;
use crate::memory::{MemoryId, RecordHeader, StoredMemory, Tombstone};

impl Store {
    /// Every memory's id and header, streamed in id (creation) order.
    pub fn scan_headers(&self) -> impl Iterator<Item = Result<(MemoryId, RecordHeader)>> + '_ {
        self.db
            .iterator_cf(self.cf(MEMORIES), IteratorMode::Start)
            .map(|item| {
                let (key, value) = item?;
                Ok((
                    MemoryId::from_slice(&key, "memory key")?,
                    StoredMemory::peek_scoring_fields(&value)?,
                ))
            })
    }

    /// Every encoded record whose id sorts after `after` (all of them without one), streamed in id
    /// (creation) order: one seek, then a forward scan.
    pub fn records_after(
        &self,
        after: Option<MemoryId>,
    ) -> impl Iterator<Item = Result<(MemoryId, Box<[u8]>)>> + '_ {
        let mode = match &after {
            Some(id) => IteratorMode::From(id.as_bytes(), Direction::Forward),
            None => IteratorMode::Start,
        };
        self.db
            .iterator_cf(self.cf(MEMORIES), mode)
            .filter(move |item| match (item, &after) {
                (Ok((key, _)), Some(id)) => key.as_ref() != id.as_bytes(),
                _ => true,
            })
            .map(|item| {
                let (key, value) = item?;
                Ok((MemoryId::from_slice(&key, "memory key")?, value))
            })
    }

    /// The timeline of `entity` after `after` (exclusive; from its start without one), streamed
    /// oldest first: one seek, then a forward scan bounded to the entity's prefix.
    pub fn temporal_after(
        &self,
        entity: &str,
        after: Option<&TemporalKey>,
    ) -> impl Iterator<Item = Result<TemporalKey>> + '_ {
        let (lower, skip) = match after {
            Some(key) => {
                let encoded = key.encode();
                (encoded.clone(), Some(encoded))
            }
            None => (TemporalKey::prefix(entity), None),
        };
        let mut options = ReadOptions::default();
        options.set_iterate_upper_bound(TemporalKey::upper_bound(entity, u64::MAX));
        self.db
            .iterator_cf_opt(
                self.cf(TEMPORAL),
                options,
                IteratorMode::From(&lower, Direction::Forward),
            )
            .filter(move |item| match (item, &skip) {
                (Ok((key, _)), Some(skip)) => key.as_ref() != skip.as_slice(),
                _ => true,
            })
            .map(|item| TemporalKey::decode(&item?.0))
    }

    /// The memories of `entity` created in `[start_us, end_us]`, streamed oldest first.
    pub fn temporal_oldest_first(
        &self,
        entity: &str,
        start_us: u64,
        end_us: u64,
    ) -> impl Iterator<Item = Result<TemporalKey>> + '_ {
        let lower = TemporalKey::lower_bound(entity, start_us);
        let mut options = ReadOptions::default();
        options.set_iterate_upper_bound(TemporalKey::upper_bound(entity, end_us));
        self.db
            .iterator_cf_opt(
                self.cf(TEMPORAL),
                options,
                IteratorMode::From(&lower, Direction::Forward),
            )
            .map(|item| TemporalKey::decode(&item?.0))
    }

    /// The tombstone of `id`, if it was forgotten.
    pub fn tombstone(&self, id: &MemoryId) -> Result<Option<Tombstone>> {
        self.db
            .get_pinned_cf(self.cf(TOMBSTONES), id.as_bytes())?
            .map(|value| Tombstone::decode(id.as_bytes(), &value))
            .transpose()
    }

    /// Up to `limit` tombstones in id order, starting after `after` (exclusive) if given.
    pub fn tombstones(&self, after: Option<&MemoryId>, limit: usize) -> Result<Vec<Tombstone>> {
        let mode = match after {
            Some(id) => IteratorMode::From(id.as_bytes(), Direction::Forward),
            None => IteratorMode::Start,
        };
        self.db
            .iterator_cf(self.cf(TOMBSTONES), mode)
            .filter(|item| match (item, after) {
                (Ok((key, _)), Some(id)) => key.as_ref() != id.as_bytes(),
                _ => true,
            })
            .take(limit)
            .map(|item| {
                let (key, value) = item?;
                Tombstone::decode(&key, &value)
            })
            .collect()
    }

    /// Every `(column family, key)` whose key or value contains `needle`: a full streaming scan
    /// of the store, for audits (proving an erased id is gone) and tests.
    pub fn find_bytes(&self, needle: &[u8]) -> Result<Vec<(&'static str, Vec<u8>)>> {
        let mut found = Vec::new();
        for name in ALL_COLUMN_FAMILIES {
            for item in self.db.iterator_cf(self.cf(name), IteratorMode::Start) {
                let (key, value) = item?;
                if contains(&key, needle) || contains(&value, needle) {
                    found.push((name, key.to_vec()));
                }
            }
        }
        Ok(found)
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && haystack
            .windows(needle.len())
            .any(|window| window == needle)
}
