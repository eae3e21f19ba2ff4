//! The `similarity` strategy: k-NN on the cue embedding; relevance is the cosine similarity
//! (`1 - distance`). Entity-scoped searches are planned: a small entity is scanned exactly, a
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
                exact_scan(context, query, &ids)?
            } else {
                index.search(query, request.top_k, request.ef_search, Some(entity))
            }
        }
        None => index.search(query, request.top_k, request.ef_search, None),
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
    hits.truncate(context.request.top_k);
    Ok(hits)
}
