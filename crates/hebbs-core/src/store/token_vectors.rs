//! The `token_vectors` column family: writing a memory's quantised per-token vectors into a
//! batch and reading many back, in one multi-get (the API's `get_token_vectors`) or with the
//! re-rank stage's read (`map_token_vector_values`). Forget deletes them with the memory
//! (`erase.rs`).

use super::batch::StoreBatch;
use super::column_families::TOKEN_VECTORS;
use super::db::Store;
use crate::error::Result;
use crate::memory::{MemoryId, TokenVectors};

impl StoreBatch<'_> {
    /// Stores (or replaces) the token vectors of memory `id`.
    pub fn put_token_vectors(&mut self, id: &MemoryId, vectors: &TokenVectors) {
        self.batch.put_cf(
            self.store.cf(TOKEN_VECTORS),
            id.as_bytes(),
            vectors.encode(),
        );
    }
}

impl Store {
    /// Token vectors of many ids in one multi-get, in input order (None where none are stored).
    pub fn token_vectors(&self, ids: &[MemoryId]) -> Result<Vec<Option<TokenVectors>>> {
        let cf = self.cf(TOKEN_VECTORS);
        self.db
            .batched_multi_get_cf(cf, ids.iter().map(|id| id.as_bytes()), false)
            .into_iter()
            .map(|found| found?.map(|bytes| TokenVectors::decode(&bytes)).transpose())
            .collect()
    }

    /// `read(value)` of the stored token vectors of each of `ids`, in input order (None where
    /// none are stored): the re-rank stage's read, see [`Store::map_values`].
    pub fn map_token_vector_values<T, F>(&self, ids: &[MemoryId], read: F) -> Result<Vec<Option<T>>>
    where
        T: Send,
        F: Fn(&[u8]) -> Result<T> + Sync,
    {
        self.map_values(TOKEN_VECTORS, ids, read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vectors(seed: usize) -> TokenVectors {
        let tokens = 1 + seed % 5;
        TokenVectors {
            dimension: 4,
            codes: (0..tokens * 4).map(|i| ((seed + i) % 255) as i8).collect(),
            scales: vec![0.01 * (1 + seed) as f32; tokens],
        }
    }

    /// The parallel read answers each id in input order, like the multi-get, across many runs,
    /// for ids stored, missing and repeated, some in the memtable and some in table files.
    #[test]
    fn the_parallel_read_answers_like_the_multi_get() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let stored: Vec<MemoryId> = (0..100).map(|_| MemoryId::new()).collect();
        for (half, ids) in stored.chunks(stored.len() / 2).enumerate() {
            let mut batch = store.batch();
            for (i, id) in ids.iter().enumerate() {
                batch.put_token_vectors(id, &vectors(half * 1000 + i));
            }
            store.commit(batch, false).unwrap();
            if half == 0 {
                store.db.flush_cf(store.cf(TOKEN_VECTORS)).unwrap();
            }
        }
        let mut ids: Vec<MemoryId> = stored.iter().rev().step_by(2).copied().collect();
        ids.extend((0..10).map(|_| MemoryId::new()));
        ids.extend(stored.iter().step_by(3).copied());
        let expected = store.token_vectors(&ids).unwrap();
        let read = store
            .map_token_vector_values(&ids, TokenVectors::decode)
            .unwrap();
        assert_eq!(read, expected);
        assert!(read.iter().any(Option::is_none) && read.iter().any(Option::is_some));
    }
}
