//! The `hybrid` strategy: dense k-NN on the cue embedding and BM25 on the cue text, run in
//! parallel, fused by reciprocal rank: `rrf = sum over lists of 1 / (k + rank)`, ranks from 1,
//! `k` = `rrf_k` (default [`DEFAULT_RRF_K`]). Relevance is `rrf` scaled so a memory ranked first
//! in both lists scores 1. Each half contributes `max(top_k, HYBRID_MIN_POOL)` candidates; the
//! detail carries `dense_score` (cosine), `bm25_score` and `rrf_score`.

use std::collections::HashMap;

use super::executor::{Candidate, RecallContext};
use super::plan::StrategyPlan;
use super::result::StrategyDetail;
use super::similarity::{nearest, Fetch};
use super::strategy::Strategy;
use crate::error::Result;
use crate::memory::MemoryId;

/// The reciprocal-rank-fusion constant when the caller does not say.
pub const DEFAULT_RRF_K: u32 = 60;
/// Fewest candidates each half hands to the fusion.
pub const HYBRID_MIN_POOL: usize = 50;

pub(super) fn run(context: &RecallContext<'_>, plan: &StrategyPlan<'_>) -> Result<Vec<Candidate>> {
    let cue = context.cue.as_deref().unwrap_or_default();
    let text = context.request.cue_text.as_deref().unwrap_or_default();
    let pool = plan.top_k.max(HYBRID_MIN_POOL);
    let (dense, keyword) = rayon::join(
        || {
            let fetch = Fetch {
                filtered: true,
                widen: false,
            };
            nearest(context, cue, pool, plan.ef_search, plan.entity_id, fetch)
        },
        || context.text.search(text, pool, plan.entity_id),
    );
    let dense = dense?;
    let keyword = keyword?;
    let dense_ids: Vec<MemoryId> = dense.iter().map(|hit| hit.id).collect();
    let keyword_ids: Vec<MemoryId> = keyword.iter().map(|hit| hit.id).collect();
    let dense_score: HashMap<MemoryId, f32> = dense
        .iter()
        .map(|hit| (hit.id, (1.0 - hit.distance).clamp(0.0, 1.0)))
        .collect();
    let bm25_score: HashMap<MemoryId, f32> =
        keyword.iter().map(|hit| (hit.id, hit.score)).collect();
    let k = context.request.rrf_k;
    let best_possible = 2.0 / (k as f32 + 1.0);
    Ok(reciprocal_rank_fusion(&[&dense_ids, &keyword_ids], k)
        .into_iter()
        .map(|(id, rrf)| Candidate {
            id,
            detail: StrategyDetail {
                dense_score: dense_score.get(&id).copied(),
                bm25_score: bm25_score.get(&id).copied(),
                rrf_score: Some(rrf),
                ..StrategyDetail::new(Strategy::Hybrid, (rrf / best_possible).clamp(0.0, 1.0))
            },
        })
        .collect())
}

/// Fuses ranked lists: each id scores `sum 1 / (k + rank)` over the lists it is in (ranks from
/// 1). Best first; ties keep first-seen order.
pub fn reciprocal_rank_fusion(lists: &[&[MemoryId]], k: u32) -> Vec<(MemoryId, f32)> {
    let mut position: HashMap<MemoryId, usize> = HashMap::new();
    let mut fused: Vec<(MemoryId, f32)> = Vec::new();
    for list in lists {
        for (rank, id) in list.iter().enumerate() {
            let share = 1.0 / (k as f32 + rank as f32 + 1.0);
            match position.get(id) {
                Some(at) => fused[*at].1 += share,
                None => {
                    position.insert(*id, fused.len());
                    fused.push((*id, share));
                }
            }
        }
    }
    fused.sort_by(|a, b| b.1.total_cmp(&a.1));
    fused
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn fusion_matches_the_formula(
            a in proptest::collection::vec(0usize..30, 0..20),
            b in proptest::collection::vec(0usize..30, 0..20),
            k in 1u32..100,
        ) {
            let ids: Vec<MemoryId> = (0..30).map(|_| MemoryId::new()).collect();
            let dedupe = |list: &[usize]| {
                let mut seen = std::collections::HashSet::new();
                list.iter().filter(|i| seen.insert(**i)).map(|i| ids[*i]).collect::<Vec<_>>()
            };
            let (a, b) = (dedupe(&a), dedupe(&b));
            let fused = reciprocal_rank_fusion(&[&a, &b], k);
            for (id, score) in &fused {
                let mut expected = 0.0f64;
                for list in [&a, &b] {
                    if let Some(rank) = list.iter().position(|x| x == id) {
                        expected += 1.0 / (f64::from(k) + rank as f64 + 1.0);
                    }
                }
                prop_assert!((f64::from(*score) - expected).abs() < 1e-6);
            }
            let union: std::collections::HashSet<_> = a.iter().chain(&b).collect();
            prop_assert_eq!(fused.len(), union.len());
            for pair in fused.windows(2) {
                prop_assert!(pair[0].1 >= pair[1].1);
            }
        }
    }

    #[test]
    fn top_of_both_lists_scores_two_over_k_plus_one() {
        let ids: Vec<MemoryId> = (0..3).map(|_| MemoryId::new()).collect();
        let fused = reciprocal_rank_fusion(&[&ids, &ids[..1]], 60);
        assert_eq!(fused[0].0, ids[0]);
        assert!((fused[0].1 - 2.0 / 61.0).abs() < 1e-7);
    }
}
