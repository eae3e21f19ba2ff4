//! The `token_vectors` column family: writing a memory's quantised per-token vectors into a
//! batch and reading many back in one multi-get. Forget deletes them with the memory
//! (`erase.rs`).

use rocksdb::DBPinnableSlice;

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

    /// The stored values of many ids in one multi-get, pinned in place (no copy), in input
    /// order: for a reader that parses them with `TokenVectorsView::parse` (the re-rank stage).
    pub fn token_vector_values(
        &self,
        ids: &[MemoryId],
    ) -> Result<Vec<Option<DBPinnableSlice<'_>>>> {
        let cf = self.cf(TOKEN_VECTORS);
        self.db
            .batched_multi_get_cf(cf, ids.iter().map(|id| id.as_bytes()), false)
            .into_iter()
            .map(|found| found.map_err(Into::into))
            .collect()
    }
}
