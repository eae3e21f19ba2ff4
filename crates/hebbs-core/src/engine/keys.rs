//! Caller keys on the engine's side (`remember(key=…)`, stored by `store::memory_keys`): the
//! checks of a write's keys, the memories a write's keys replace, and reads by key.

use std::collections::HashMap;

use super::input::RememberInput;
use super::{now_us, Engine};
use crate::error::{HebbsError, Result};
use crate::memory::checks::check_key;
use crate::memory::{Memory, MemoryId};
use crate::store::Store;

/// Refuses a key held by two items of one write (`items[i].key`, the second of them).
pub(super) fn check_unique_keys<'k>(
    keys: impl Iterator<Item = &'k Option<String>>,
    prefix: impl Fn(usize) -> String,
) -> Result<()> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, key) in keys.enumerate() {
        if let Some(key) = key {
            if let Some(first) = seen.insert(key.as_str(), i) {
                return Err(HebbsError::invalid(
                    format!("{}key", prefix(i)),
                    format!("{key:?} is the key of item {first} too"),
                ));
            }
        }
    }
    Ok(())
}

/// Refuses keys a restore cannot take: one twice in the batch, or one a memory holds already
/// (a `Conflict`: a restore adds memories, it never replaces one).
pub(super) fn check_keys_free<'k>(
    store: &Store,
    keys: impl Iterator<Item = &'k Option<String>> + Clone,
) -> Result<()> {
    check_unique_keys(keys.clone(), |i| format!("items[{i}]."))?;
    let (places, keys): (Vec<usize>, Vec<String>) = keys
        .enumerate()
        .filter_map(|(i, key)| key.clone().map(|key| (i, key)))
        .unzip();
    let held = store.ids_for_keys(&keys)?;
    if let Some(at) = held.iter().position(Option::is_some) {
        return Err(HebbsError::conflict(
            format!("items[{}].key", places[at]),
            format!("a memory holds the key {:?} already", keys[at]),
        ));
    }
    Ok(())
}

impl Engine {
    /// The memory each of `keys` names, in order (`None` for a key no memory holds), with its
    /// embedding if `include_embedding`. A key is checked as `remember` checks it
    /// (`keys[i]`).
    pub fn get_by_keys(
        &self,
        keys: &[String],
        include_embedding: bool,
    ) -> Result<Vec<Option<Memory>>> {
        let ids = self.ids_for_keys(keys)?;
        let present: Vec<MemoryId> = ids.iter().flatten().copied().collect();
        let records = self.store.records(&present)?;
        let stats = self.store.access_stats(&present)?;
        let now = now_us();
        let mut found: HashMap<MemoryId, Memory> = HashMap::with_capacity(present.len());
        for ((id, record), stats) in present.iter().zip(records).zip(stats) {
            if let Some(record) = record {
                let embedding = if include_embedding {
                    self.store.vector(id)?
                } else {
                    None
                };
                let memory = Memory::assemble(
                    *id,
                    record,
                    stats.count,
                    stats.last_access_us,
                    embedding,
                    now,
                );
                found.insert(*id, memory);
            }
        }
        Ok(ids
            .iter()
            .map(|id| id.and_then(|id| found.get(&id).cloned()))
            .collect())
    }

    /// The id of the memory each of `keys` names, in order (`keys[i]` in errors).
    pub fn ids_for_keys(&self, keys: &[String]) -> Result<Vec<Option<MemoryId>>> {
        self.check_open()?;
        for (i, key) in keys.iter().enumerate() {
            check_key(key, &format!("keys[{i}]"))?;
        }
        self.store.ids_for_keys(keys)
    }

    /// The memories that storing `items` replaces: every version of the memory each item's
    /// key names. Read under the writer lock.
    pub(super) fn replaced_by_keys(&self, items: &[RememberInput]) -> Result<Vec<MemoryId>> {
        let keys: Vec<String> = items.iter().filter_map(|item| item.key.clone()).collect();
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.store.keyed_versions(&keys)
    }
}
