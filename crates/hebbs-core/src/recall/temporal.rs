//! The `temporal` strategy: one entity's memories, newest first, optionally inside a time range,
//! from one seek and a reverse scan of the `temporal` column family (O(log n + k)).
//! Relevance falls linearly with the position: `1 - rank / top_k` (the newest scores 1).

use super::executor::{Candidate, RecallContext};
use super::request::{Strategy, StrategyDetail};
use crate::error::Result;

pub(super) fn run(context: &RecallContext<'_>) -> Result<Vec<Candidate>> {
    let request = context.request;
    let entity = request.entity_id.as_deref().unwrap_or_default();
    let (start, end) = request.time_range.unwrap_or((0, u64::MAX));
    let keys = context
        .store
        .temporal_newest_first(entity, start, end, request.top_k)?;
    let top_k = request.top_k as f32;
    Ok(keys
        .into_iter()
        .enumerate()
        .map(|(rank, key)| Candidate {
            id: key.id,
            detail: StrategyDetail {
                strategy: Strategy::Temporal,
                relevance: 1.0 - rank as f32 / top_k,
                distance: None,
                timestamp: Some(key.created_at),
                rank: Some(rank as u32),
            },
        })
        .collect())
}
