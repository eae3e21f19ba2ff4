//! The `token_vectors` column family: writing a memory's quantised per-token vectors into a
//! batch and reading many back, in one multi-get (the API's `get_token_vectors`) or with the
//! re-rank stage's read (`map_token_vector_values`). Forget deletes them with the memory
//! (`erase.rs`).

use rayon::prelude::*;
use rocksdb::ReadOptions;

use super::batch::StoreBatch;
use super::column_families::TOKEN_VECTORS;
use super::db::Store;
use super::runs::runs;
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

    /// `read(value)` of the stored value of each of `ids`, in input order (None where none is
    /// stored). This is the re-rank stage's read, so it is tuned for it. The ids are sorted
    /// and split into runs (`runs.rs`) that rayon reads in parallel, each with its own
    /// iterator seeking its ids in key order; `read` gets the value in place (with mmap reads
    /// and no block cache, a slice of the table file's page-cache pages), so nothing is copied
    /// and the values' costs (seek, checksum, match) are split across the threads. The
    /// iterator skips the database's row cache (a query's hundreds of 11 KB values would
    /// evict the small records it holds and cost a copy each on insert) and fills no block
    /// cache (the family has none, see `column_families.rs`). Checksums are verified as on
    /// every read. The first error in key order is returned.
    pub fn map_token_vector_values<T, F>(&self, ids: &[MemoryId], read: F) -> Result<Vec<Option<T>>>
    where
        T: Send,
        F: Fn(&[u8]) -> Result<T> + Sync,
    {
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_unstable_by_key(|i| ids[*i]);
        let found: Vec<Vec<(usize, T)>> = runs(&order)
            .map(|run| {
                let mut options = ReadOptions::default();
                options.fill_cache(false);
                let mut iter = self.db.raw_iterator_cf_opt(self.cf(TOKEN_VECTORS), options);
                let mut found = Vec::with_capacity(run.len());
                for i in run {
                    let id = ids[*i].as_bytes();
                    iter.seek(id);
                    if let (Some(key), Some(value)) = (iter.key(), iter.value()) {
                        if key == id {
                            found.push((*i, read(value)?));
                        }
                    }
                }
                iter.status()?;
                Ok(found)
            })
            .collect::<Result<_>>()?;
        let mut out: Vec<Option<T>> = std::iter::repeat_with(|| None).take(ids.len()).collect();
        for (i, value) in found.into_iter().flatten() {
            out[i] = Some(value);
        }
        Ok(out)
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
