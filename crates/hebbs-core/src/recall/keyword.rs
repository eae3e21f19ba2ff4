//! The `keyword` strategy: BM25 over memory content (the full-text index) for the cue's text,
//! scoped to an entity when given. Relevance is the BM25 score divided by the best score of the
//! call (the top hit scores 1); the raw score is in the detail's `bm25_score`.

use super::executor::{Candidate, RecallContext};
use super::plan::StrategyPlan;
use super::result::StrategyDetail;
use super::strategy::Strategy;
use crate::error::Result;

pub(super) fn run(context: &RecallContext<'_>, plan: &StrategyPlan<'_>) -> Result<Vec<Candidate>> {
    let text = context.request.cue_text.as_deref().unwrap_or_default();
    let hits = context.text.search(text, plan.top_k, plan.entity_id)?;
    let best = hits
        .first()
        .map_or(1.0, |hit| hit.score.max(f32::MIN_POSITIVE));
    Ok(hits
        .into_iter()
        .map(|hit| Candidate {
            id: hit.id,
            detail: StrategyDetail {
                bm25_score: Some(hit.score),
                ..StrategyDetail::new(Strategy::Keyword, (hit.score / best).clamp(0.0, 1.0))
            },
        })
        .collect())
}
