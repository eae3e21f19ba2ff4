//! A relevance-only recall (recency, importance and reinforcement weighted 0) reads the scoring
//! fields of its most relevant candidates only: a proptest checks its answer against the seed's
//! formula applied to every candidate, with ties (equal vectors) broken newest first and
//! revisions superseding the memories they replace.

use hebbs_core::index::vector::dot;
use hebbs_core::recall::ScoringWeights;
use hebbs_core::{MemoryId, RecallRequest, RevisionInput};
use proptest::prelude::*;

use crate::common::{input, normalized, open, Rng};

const DIM: usize = 8;
const ENTITY: &str = "e";

/// `(score, created_at)` of each result, as the answer ranks them.
type Ranking = Vec<(f32, u64)>;

fn weights(w_relevance: f32) -> ScoringWeights {
    ScoringWeights {
        w_relevance,
        w_recency: 0.0,
        w_importance: 0.0,
        w_reinforcement: 0.0,
        ..ScoringWeights::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn a_relevance_only_recall_ranks_as_the_formula_over_every_candidate(
        seed in any::<u64>(),
        count in 1usize..40,
        distinct_vectors in 1usize..6,
        revised in proptest::collection::vec(any::<bool>(), 40),
        top_k in 1usize..12,
        w_relevance in prop::sample::select(vec![0.0f32, 0.7, 1.0]),
        include_superseded in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let engine = open(dir.path());
        let mut rng = Rng(seed);
        let pool: Vec<Vec<f32>> = (0..distinct_vectors).map(|_| rng.vector(DIM)).collect();
        let mut ids: Vec<MemoryId> = Vec::new();
        for i in 0..count {
            let vector = pool[i % distinct_vectors].clone();
            let created = Some(1_000 + 10 * i as u64);
            let memory = engine
                .remember(input(&format!("m{i}"), vector, Some(ENTITY), created))
                .unwrap();
            ids.push(memory.id);
        }
        for (i, id) in ids.clone().iter().enumerate() {
            if revised[i] {
                let revision = RevisionInput {
                    importance: Some(0.9),
                    ..RevisionInput::default()
                };
                ids.push(engine.revise(id, revision).unwrap().id);
            }
        }
        let cue = normalized(rng.vector(DIM));
        let request = RecallRequest {
            entity_id: Some(ENTITY.to_owned()),
            top_k,
            ef_search: Some(500),
            scoring_weights: weights(w_relevance),
            include_superseded,
            ..RecallRequest::similarity(cue.clone())
        };

        let mut expected: Ranking = Vec::new();
        for id in &ids {
            let memory = engine.get(id, true).unwrap();
            if memory.superseded && !include_superseded {
                continue;
            }
            let vector = memory.embedding.unwrap();
            let distance = (1.0 - dot(&cue, &vector)).max(0.0);
            let relevance = (1.0 - distance).clamp(0.0, 1.0);
            expected.push((w_relevance * relevance, memory.created_at));
        }
        expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        expected.truncate(top_k);

        let answer = engine.recall(&request).unwrap();
        let got: Ranking = answer
            .results
            .iter()
            .map(|result| (result.score, result.memory.created_at))
            .collect();
        prop_assert_eq!(got.len(), expected.len());
        for (g, e) in got.iter().zip(&expected) {
            prop_assert!((g.0 - e.0).abs() <= 1e-6, "{got:?} vs {expected:?}");
            prop_assert_eq!(g.1, e.1, "{:?} vs {:?}", got, expected);
        }
    }
}

/// After a reopen (empty caches) a relevance-only recall keeps the records its scoring read
/// for its results: they must equal `get`'s, and a write that rewrites one (a revision marks
/// the old memory superseded) must not leave the kept copy behind.
#[test]
fn records_kept_from_the_scoring_read_match_the_store_and_follow_a_revision() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(11);
    let cue = normalized(rng.vector(DIM));
    let ids: Vec<MemoryId> = {
        let engine = open(dir.path());
        (0..30)
            .map(|i| {
                let vector = normalized(rng.vector(DIM));
                let created = Some(1_000 + i as u64);
                engine
                    .remember(input(&format!("m{i}"), vector, Some(ENTITY), created))
                    .unwrap()
                    .id
            })
            .collect()
    };
    let engine = open(dir.path());
    let request = RecallRequest {
        top_k: 5,
        scoring_weights: weights(1.0),
        include_superseded: true,
        ..RecallRequest::similarity(cue.clone())
    };
    let first = engine.recall(&request).unwrap();
    assert_eq!(first.results.len(), 5);
    for result in &first.results {
        let stored = engine.get(&result.memory.id, false).unwrap();
        assert_eq!(result.memory.content, stored.content);
        assert_eq!(result.memory.created_at, stored.created_at);
        assert!(!result.memory.superseded);
        assert!(ids.contains(&result.memory.id));
    }
    let top = first.results[0].memory.id;
    let revision = RevisionInput {
        importance: Some(0.9),
        ..RevisionInput::default()
    };
    engine.revise(&top, revision).unwrap();
    let second = engine.recall(&request).unwrap();
    let old = second
        .results
        .iter()
        .find(|result| result.memory.id == top)
        .expect("the superseded memory is still recalled with include_superseded");
    assert!(old.memory.superseded);
    assert!(engine.get(&top, false).unwrap().superseded);
}
