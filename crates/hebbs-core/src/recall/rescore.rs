//! Exact re-scoring of the candidates of a quantised (int8) vector index: the index ranks by
//! approximate distances, so the nearest of its answer are scored again with their exact `f32`
//! vectors and sorted by exact cosine distance. Results and their `relevance` are then exact
//! cosines, as with the `f32` index.
//!
//! The exact vectors are read from the index's own rows file by slot (`ExactRows`: one `pread`
//! a candidate, no lookup). A row that is missing or fails its check is read from the store
//! (RocksDB's `vectors` column family, the source of truth: one multi-get) and written back, so
//! the file heals as it is used. docs/scale.md compares the two reads.

use crate::error::Result;
use crate::index::vector::{dot, Neighbor, VectorIndex};
use crate::store::Store;

/// Candidates re-scored per result asked for: the int8 search returns at least this many
/// times `k` before the exact re-score keeps the best (Qdrant's oversampling). At 1M, a walk
/// of 30 re-scoring 2x `k` finds the same recall@10 as re-scoring 3x (0.976) and as the f32
/// index's walk of 30 (0.974), with a third fewer reads; 1x loses two points (0.958).
/// docs/scale.md has the figures.
pub const RESCORE_OVERSAMPLING: usize = 2;
/// Fewest candidates re-scored, whatever `k`.
pub const RESCORE_MIN_CANDIDATES: usize = 20;

/// How many candidates to fetch from a quantised index for a pool of `pool` (`k` asked for):
/// the pool itself or `RESCORE_OVERSAMPLING * k`, at least [`RESCORE_MIN_CANDIDATES`].
pub(super) fn candidates(k: usize, pool: usize) -> usize {
    pool.max(RESCORE_OVERSAMPLING.saturating_mul(k))
        .max(RESCORE_MIN_CANDIDATES)
}

/// `hits` with exact distances to normalised `query`, nearest first (memories forgotten since
/// the search are dropped), for a caller that keeps the `keep` nearest: hits that cannot be
/// among them, by their approximate distance and its error, are left out unread (see
/// [`VectorIndex::rescore`]).
pub(super) fn rescore(
    store: &Store,
    index: &VectorIndex,
    query: &[f32],
    hits: Vec<Neighbor>,
    keep: usize,
) -> Result<Vec<Neighbor>> {
    let (mut exact, missing) = index.rescore(query, hits, keep);
    if !missing.is_empty() {
        let stored = store.vectors(&missing)?;
        for (id, vector) in missing.into_iter().zip(stored) {
            let Some(vector) = vector else {
                continue;
            };
            index.heal(&id, &vector);
            exact.push(Neighbor::scored(id, (1.0 - dot(query, &vector)).max(0.0)));
        }
    }
    exact.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    Ok(exact)
}
