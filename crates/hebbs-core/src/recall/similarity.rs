//! The `similarity` strategy: k-NN on the cue embedding; relevance is the cosine similarity
//! (`1 - distance`). It returns `max(top_k, ef_search)` candidates, the pool the HNSW search
//! explores anyway, so the composite score (recency, importance, reinforcement) can rank more
//! than the `top_k` nearest; raise `ef_search` for a larger pool. Entity-scoped searches are planned: a small entity is scanned exactly, a
//! large one is searched in the HNSW graph with an entity filter.

use super::executor::{Candidate, RecallContext};
use super::request::{Strategy, StrategyDetail};
use crate::error::Result;
use crate::index::vector::{dot, Neighbor};

/// Entities with at most this many memories are scanned exactly instead of searched.
pub const EXACT_SCAN_MAX_ENTITY_SIZE: usize = 2048;

pub(super) fn run(context: &RecallContext<'_>) -> Result<Vec<Candidate>> {
    let request = context.request;
    let Some(index) = context.index else {
        return Ok(Vec::new());
    };
    let query = context.cue.as_deref().unwrap_or_default();
    let ef = request.ef_search.unwrap_or(index.default_ef_search());
    let pool = request.top_k.max(ef);
    let neighbors = match &request.entity_id {
        Some(entity) => {
            let members = context.store.temporal_newest_first(
                entity,
                0,
                u64::MAX,
                EXACT_SCAN_MAX_ENTITY_SIZE + 1,
            )?;
            if members.len() <= EXACT_SCAN_MAX_ENTITY_SIZE {
                let ids: Vec<_> = members.into_iter().map(|key| key.id).collect();
                exact_scan(context, query, &ids, pool)?
            } else {
                index.search(query, pool, Some(ef), Some(entity))
            }
        }
        None => index.search(query, pool, Some(ef), None),
    };
    Ok(neighbors
        .into_iter()
        .map(|hit| Candidate {
            id: hit.id,
            detail: StrategyDetail {
                strategy: Strategy::Similarity,
                relevance: (1.0 - hit.distance).clamp(0.0, 1.0),
                distance: Some(hit.distance),
                timestamp: None,
                rank: None,
            },
        })
        .collect())
}

fn exact_scan(
    context: &RecallContext<'_>,
    query: &[f32],
    ids: &[crate::memory::MemoryId],
    pool: usize,
) -> Result<Vec<Neighbor>> {
    let vectors = context.store.vectors(ids)?;
    let mut hits: Vec<Neighbor> = ids
        .iter()
        .zip(vectors)
        .filter_map(|(id, vector)| {
            vector.map(|vector| Neighbor {
                id: *id,
                distance: (1.0 - dot(query, &vector)).max(0.0),
            })
        })
        .collect();
    hits.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    hits.truncate(pool);
    Ok(hits)
}
