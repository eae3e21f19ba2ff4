//! The `temporal` strategy: one entity's memories, newest first, optionally inside a time range,
//! from one seek and a reverse scan of the `temporal` column family (O(log n + k)).
//! Relevance falls linearly with the position: `1 - rank / top_k` (the newest scores 1).

use super::executor::{Candidate, RecallContext};
use super::plan::StrategyPlan;
use super::result::StrategyDetail;
use super::strategy::Strategy;
use crate::error::Result;

pub(super) fn run(context: &RecallContext<'_>, plan: &StrategyPlan<'_>) -> Result<Vec<Candidate>> {
    let entity = plan.entity_id.unwrap_or_default();
    let (start, end) = plan.time_range.unwrap_or((0, u64::MAX));
    let keys = context
        .store
        .temporal_newest_first(entity, start, end, plan.top_k)?;
    let top_k = plan.top_k as f32;
    Ok(keys
        .into_iter()
        .enumerate()
        .map(|(rank, key)| Candidate {
            id: key.id,
            detail: StrategyDetail {
                timestamp: Some(key.created_at),
                rank: Some(rank as u32),
                ..StrategyDetail::new(Strategy::Temporal, 1.0 - rank as f32 / top_k)
            },
        })
        .collect())
}
