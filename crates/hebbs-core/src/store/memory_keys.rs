//! Caller keys: the key a caller chose for a memory (`remember(key=…)`) -> the memory's id,
//! under `key/` entries of the `meta` column family, written in the batch that stores or
//! erases the memory. A key names one live memory; storing another under it replaces the first
//! (the engine forgets it in the same batch), so the entry always points at the newest.

use rocksdb::{Direction, IteratorMode, ReadOptions};

use super::batch::StoreBatch;
use super::column_families::META;
use super::db::Store;
use crate::error::{HebbsError, Result};
use crate::memory::{EdgeType, MemoryId};

/// A range of caller keys, by their UTF-8 bytes; a missing bound is open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyRange {
    /// The lowest key, if bounded below.
    pub lower: Option<String>,
    /// Whether `lower` itself is in the range.
    pub lower_inclusive: bool,
    /// The highest key, if bounded above.
    pub upper: Option<String>,
    /// Whether `upper` itself is in the range.
    pub upper_inclusive: bool,
}

impl KeyRange {
    fn admits(&self, key: &[u8]) -> bool {
        let above = self.lower.as_ref().is_none_or(|lower| {
            key > lower.as_bytes() || (self.lower_inclusive && key == lower.as_bytes())
        });
        let below = self.upper.as_ref().is_none_or(|upper| {
            key < upper.as_bytes() || (self.upper_inclusive && key == upper.as_bytes())
        });
        above && below
    }
}

/// The prefix of every key entry in the `meta` column family.
const KEY_PREFIX: &[u8] = b"key/";

fn entry(key: &str) -> Vec<u8> {
    let mut entry = KEY_PREFIX.to_vec();
    entry.extend_from_slice(key.as_bytes());
    entry
}

fn id_of(value: &[u8]) -> Result<MemoryId> {
    MemoryId::from_slice(value, "memory key")
        .map_err(|_| HebbsError::corrupt("memory key", "value is not a 16-byte id"))
}

impl Store {
    /// The memory each of `keys` names, in order (`None` for a key no memory holds).
    pub fn ids_for_keys(&self, keys: &[String]) -> Result<Vec<Option<MemoryId>>> {
        let cf = self.cf(META);
        self.db
            .multi_get_cf(keys.iter().map(|key| (cf, entry(key))))
            .into_iter()
            .map(|value| value?.map(|bytes| id_of(&bytes)).transpose())
            .collect()
    }

    /// Every version of the memories `keys` name: each named memory (the newest version) and
    /// the memories it was revised from, following `revised_from` edges back. What replacing
    /// or forgetting by key erases.
    pub fn keyed_versions(&self, keys: &[String]) -> Result<Vec<MemoryId>> {
        let mut versions = Vec::new();
        for id in self.ids_for_keys(keys)?.into_iter().flatten() {
            let mut at = Some(id);
            while let Some(id) = at.filter(|id| !versions.contains(id)) {
                versions.push(id);
                at = self
                    .edges_out(&id)?
                    .into_iter()
                    .filter(|edge| edge.edge_type == EdgeType::RevisedFrom)
                    .map(|edge| edge.target)
                    .max();
            }
        }
        Ok(versions)
    }

    /// The memories whose key lies in `range`, None when more than `limit` do (what a
    /// filter's planner asks: `filter/plan.rs`).
    pub fn keys_in_range(&self, range: &KeyRange, limit: usize) -> Result<Option<Vec<MemoryId>>> {
        let start = entry(range.lower.as_deref().unwrap_or(""));
        let mut options = ReadOptions::default();
        options.set_iterate_range(rocksdb::PrefixRange(KEY_PREFIX.to_vec()));
        let entries = self.db.iterator_cf_opt(
            self.cf(META),
            options,
            IteratorMode::From(&start, Direction::Forward),
        );
        let mut found = Vec::new();
        for item in entries {
            let (name, value) = item?;
            let key = &name[KEY_PREFIX.len()..];
            if range
                .upper
                .as_ref()
                .is_some_and(|upper| key > upper.as_bytes())
            {
                break;
            }
            if range.admits(key) {
                if found.len() == limit {
                    return Ok(None);
                }
                found.push(id_of(&value)?);
            }
        }
        Ok(Some(found))
    }

    /// The memories whose key starts with `prefix`, in key order, at most `limit`: each key
    /// with its memory's id.
    pub fn keys_with_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<(String, MemoryId)>> {
        let start = entry(prefix);
        let mut options = ReadOptions::default();
        options.set_iterate_range(rocksdb::PrefixRange(start.clone()));
        let entries = self.db.iterator_cf_opt(
            self.cf(META),
            options,
            IteratorMode::From(&start, Direction::Forward),
        );
        let mut found = Vec::new();
        for item in entries.take(limit) {
            let (name, value) = item?;
            let key = String::from_utf8(name[KEY_PREFIX.len()..].to_vec())
                .map_err(|_| HebbsError::corrupt("memory key", "key is not UTF-8"))?;
            found.push((key, id_of(&value)?));
        }
        Ok(found)
    }
}

impl StoreBatch<'_> {
    /// Points `key` at memory `id`; a later [`StoreBatch::release_key`] of the same batch
    /// leaves it in place (the memory a new one replaces is erased after the new one is put).
    pub fn claim_key(&mut self, key: &str, id: &MemoryId) {
        self.claimed_keys.insert(key.to_owned());
        self.batch
            .put_cf(self.store.cf(META), entry(key), id.as_bytes());
    }

    /// Removes `key`, which the erased memory `id` held, unless this batch gave it to another
    /// memory or it already names another (a revision took it over).
    pub fn release_key(&mut self, key: &str, id: &MemoryId) -> Result<()> {
        if self.claimed_keys.contains(key) {
            return Ok(());
        }
        if self.store.ids_for_keys(&[key.to_owned()])?[0] == Some(*id) {
            self.batch.delete_cf(self.store.cf(META), entry(key));
        }
        Ok(())
    }
}
