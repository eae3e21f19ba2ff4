//! Exact re-scoring of the candidates of a quantised (int8) vector index: the index ranks by
//! approximate distances, so the nearest of its answer are read back as the exact `f32` vectors
//! the store keeps (RocksDB's `vectors` column family: one multi-get, whose point lookups use
//! the bloom filters, of blocks read in place through mmap) and sorted by exact cosine
//! distance. Results and their `relevance` are then exact cosines, as with the `f32` index.
//! (The re-rank stage's parallel iterator read, `Store::map_token_vector_values`, was slower
//! here: 0.54 against 0.34 ms p50 at 1M and ef 10, an iterator's seek visits every level.)

use crate::error::Result;
use crate::index::vector::{dot, Neighbor};
use crate::store::Store;

/// Candidates re-scored per result asked for: the int8 search returns at least this many
/// times `k` before the exact re-score keeps the best (Qdrant's oversampling; 3x holds
/// recall@10 within a point of the f32 index at equal `ef`, docs/scale.md).
pub const RESCORE_OVERSAMPLING: usize = 3;
/// Fewest candidates re-scored, whatever `k`.
pub const RESCORE_MIN_CANDIDATES: usize = 20;

/// How many candidates to fetch from a quantised index for a pool of `pool` (`k` asked for):
/// the pool itself or `RESCORE_OVERSAMPLING * k`, at least [`RESCORE_MIN_CANDIDATES`].
pub(super) fn candidates(k: usize, pool: usize) -> usize {
    pool.max(RESCORE_OVERSAMPLING.saturating_mul(k))
        .max(RESCORE_MIN_CANDIDATES)
}

/// `hits` with exact distances to normalised `query`, nearest first (memories whose vector is
/// gone from the store, forgotten since the search, are dropped).
pub(super) fn rescore(store: &Store, query: &[f32], hits: Vec<Neighbor>) -> Result<Vec<Neighbor>> {
    let ids: Vec<_> = hits.iter().map(|hit| hit.id).collect();
    let distances: Vec<Option<f32>> = store
        .vectors(&ids)?
        .into_iter()
        .map(|found| found.map(|vector| (1.0 - dot(query, &vector)).max(0.0)))
        .collect();
    let mut exact: Vec<Neighbor> = ids
        .into_iter()
        .zip(distances)
        .filter_map(|(id, distance)| {
            Some(Neighbor {
                id,
                distance: distance?,
            })
        })
        .collect();
    exact.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    Ok(exact)
}
