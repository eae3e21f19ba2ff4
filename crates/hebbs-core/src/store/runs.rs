//! How the re-rank stage's many-key reads (`token_vectors.rs`, `conversations.rs`) split their
//! keys into runs that rayon reads in parallel, each run with its own iterator.

use rayon::prelude::*;
use rayon::slice::Chunks;

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
