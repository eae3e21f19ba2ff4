//! The `token_vectors` column family: writing a memory's quantised per-token vectors into a
//! batch and reading many back, in one multi-get (the API's `get_token_vectors`) or with the
//! re-rank stage's read (`read_token_vector_values`). Forget deletes them with the memory
//! (`erase.rs`).

use std::ops::Range;

use rocksdb::ReadOptions;

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

    /// The stored values of many ids, copied one after another into `out` (a buffer the caller
    /// reuses); per id, in input order, its range in `out` (None where none are stored). This
    /// is the re-rank stage's read, so it is tuned for it: one iterator, seeking the ids in key
    /// order, which skips the database's row cache (a query's hundreds of 11 KB values would
    /// evict the small records it holds and cost a copy each on insert) and fills no block
    /// cache (the family has none, see `column_families.rs`); with mmap reads a value is copied
    /// once, from the page cache into `out`. Checksums are verified as on every read.
    pub fn read_token_vector_values(
        &self,
        ids: &[MemoryId],
        out: &mut Vec<u8>,
    ) -> Result<Vec<Option<Range<usize>>>> {
        let mut read = ReadOptions::default();
        read.fill_cache(false);
        let mut iter = self.db.raw_iterator_cf_opt(self.cf(TOKEN_VECTORS), read);
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_unstable_by_key(|i| ids[*i]);
        let mut ranges = vec![None; ids.len()];
        for i in order {
            let id = ids[i].as_bytes();
            iter.seek(id);
            if let (Some(key), Some(value)) = (iter.key(), iter.value()) {
                if key == id {
                    let start = out.len();
                    out.extend_from_slice(value);
                    ranges[i] = Some(start..out.len());
                }
            }
        }
        iter.status()?;
        Ok(ranges)
    }
}
