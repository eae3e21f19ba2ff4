//! Named state of the layers above the engine (a reflection cursor per scope, the document
//! index's manifest): small values under `state/` keys of the `meta` column family, so they live
//! and die with the store and need no file of their own.

use rocksdb::{Direction, IteratorMode, ReadOptions};

use super::batch::StoreBatch;
use super::column_families::META;
use super::db::Store;
use crate::error::Result;

/// The prefix of every state key in the `meta` column family.
const STATE_PREFIX: &[u8] = b"state/";

fn state_key(name: &str) -> Vec<u8> {
    let mut key = STATE_PREFIX.to_vec();
    key.extend_from_slice(name.as_bytes());
    key
}

impl Store {
    /// The value stored under state `name`, if any.
    pub fn state_get(&self, name: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.db.get_cf(self.cf(META), state_key(name))?)
    }

    /// Stores `value` under state `name`, or deletes it when `value` is `None`.
    pub fn state_put(&self, name: &str, value: Option<&[u8]>) -> Result<()> {
        let cf = self.cf(META);
        match value {
            Some(value) => self.db.put_cf(cf, state_key(name), value)?,
            None => self.db.delete_cf(cf, state_key(name))?,
        }
        Ok(())
    }

    /// Every state entry whose name starts with `prefix`, in name order, at most `limit`.
    pub fn state_scan(&self, prefix: &str, limit: usize) -> Result<Vec<(String, Vec<u8>)>> {
        let start = state_key(prefix);
        let mut options = ReadOptions::default();
        options.set_iterate_range(rocksdb::PrefixRange(start.clone()));
        let mut found = Vec::new();
        let entries = self.db.iterator_cf_opt(
            self.cf(META),
            options,
            IteratorMode::From(&start, Direction::Forward),
        );
        for item in entries.take(limit) {
            let (key, value) = item?;
            let name = String::from_utf8_lossy(&key[STATE_PREFIX.len()..]).into_owned();
            found.push((name, value.to_vec()));
        }
        Ok(found)
    }
}

impl StoreBatch<'_> {
    /// Queues setting state `name` to `value`, or deleting it when `value` is `None`.
    pub fn put_state(&mut self, name: &str, value: Option<&[u8]>) {
        let cf = self.store.cf(META);
        match value {
            Some(value) => self.batch.put_cf(cf, state_key(name), value),
            None => self.batch.delete_cf(cf, state_key(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_scans_by_prefix_and_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.state_get("a/1").unwrap(), None);
        store.state_put("a/1", Some(b"one")).unwrap();
        store.state_put("a/2", Some(b"two")).unwrap();
        store.state_put("b/1", Some(b"other")).unwrap();
        assert_eq!(
            store.state_get("a/1").unwrap().as_deref(),
            Some(&b"one"[..])
        );
        let names: Vec<String> = store
            .state_scan("a/", 10)
            .unwrap()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert_eq!(names, ["a/1", "a/2"]);
        assert_eq!(store.state_scan("a/", 1).unwrap().len(), 1);
        store.state_put("a/1", None).unwrap();
        assert_eq!(store.state_get("a/1").unwrap(), None);
        assert_eq!(store.memory_count().unwrap(), 0, "state is not a memory");
    }
}
