//! How the re-rank stage's many-key reads (`token_vectors.rs`, `conversations.rs`) and an int8
//! index's re-score split their keys into runs that rayon reads in parallel, each run with its
//! own iterator ([`Store::map_values`]).

use rayon::prelude::*;
use rayon::slice::Chunks;
use rocksdb::ReadOptions;

use super::db::Store;
use crate::error::Result;
use crate::memory::MemoryId;

/// Runs per rayon thread: a thread that finishes early (its core less busy) takes another
/// run, while a small read is not cut into runs whose iterators cost more than their seeks.
const RUNS_PER_THREAD: usize = 2;
/// Fewest keys in a run: an iterator's creation costs a few of its seeks.
const MIN_RUN: usize = 4;

/// `items` in consecutive runs of equal length (the last shorter), about
/// [`RUNS_PER_THREAD`] per rayon thread and at least [`MIN_RUN`] items each.
pub(super) fn runs<T: Sync>(items: &[T]) -> Chunks<'_, T> {
    let count = RUNS_PER_THREAD * rayon::current_num_threads();
    items.par_chunks(items.len().div_ceil(count).max(MIN_RUN))
}

impl Store {
    /// `read(value)` of the stored value in `family` of each of `ids`, in input order (None
    /// where none is stored): the read of many values at random (the re-rank stage's token
    /// vectors, an int8 index's re-score of its candidates), tuned for it. The ids are sorted
    /// and split into runs (`runs.rs`) that rayon reads in parallel, each with its own
    /// iterator seeking its ids in key order; `read` gets the value in place (with mmap reads
    /// and no block cache, a slice of the table file's page-cache pages), so nothing is copied
    /// and the values' costs (seek, checksum, match) are split across the threads. The
    /// iterator skips the database's row cache (a query's hundreds of 11 KB values would
    /// evict the small records it holds and cost a copy each on insert) and fills no block
    /// cache (the families read this way have none, see `column_families.rs`). Checksums are verified as on
    /// every read. The first error in key order is returned.
    pub fn map_values<T, F>(
        &self,
        family: &str,
        ids: &[MemoryId],
        read: F,
    ) -> Result<Vec<Option<T>>>
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
                let mut iter = self.db.raw_iterator_cf_opt(self.cf(family), options);
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
