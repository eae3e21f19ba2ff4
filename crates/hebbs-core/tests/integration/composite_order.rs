//! The composite decides the order of every recall, the re-ranked default one included: each
//! result's `score` is `ScoringWeights::combine` of its `signals`, results come best score
//! first, and the reinforcement signal is the memory's recall count gated by its relevance, so
//! a memory recalled often never displaces a clearly more relevant one.

use hebbs_core::recall::{Rerank, DEFAULT_RERANK, DEFAULT_STRATEGIES};
use hebbs_core::{
    Engine, MemoryId, RecallOutput, RecallRequest, RememberInput, ScoringWeights, Strategy,
    TokenVectors,
};
use proptest::prelude::*;

use crate::common::{input, normalized, open, Rng};

const DIM: usize = 4;
const DAY_US: u64 = 86_400_000_000;
const WORDS: [&str; 6] = ["invoice", "refund", "meeting", "launch", "budget", "travel"];

/// Token vectors of `rows` (any finite values) quantised like the engine's: per row
/// `max |v| / 127`.
fn quantised(rows: &[Vec<f32>]) -> TokenVectors {
    let mut codes = Vec::new();
    let mut scales = Vec::new();
    for row in rows {
        let scale = row.iter().fold(0.0f32, |m, v| m.max(v.abs())).max(1e-6) / 127.0;
        codes.extend(row.iter().map(|v| (v / scale).round() as i8));
        scales.push(scale);
    }
    TokenVectors {
        dimension: DIM,
        codes,
        scales,
    }
}

/// A store of `n` memories with random vectors, token vectors, words, importance, age (up to
/// 60 days) and conversation, and the time they were written.
fn random_store(engine: &Engine, rng: &mut Rng, n: usize) -> u64 {
    let now = now_us();
    let inputs: Vec<RememberInput> = (0..n)
        .map(|i| {
            let words: Vec<&str> = (0..3)
                .map(|_| WORDS[rng.next_u64() as usize % WORDS.len()])
                .collect();
            let tokens: Vec<Vec<f32>> = (0..1 + rng.next_u64() % 3)
                .map(|_| normalized(rng.vector(DIM)))
                .collect();
            RememberInput {
                importance: (rng.next_u64() % 11) as f32 / 10.0,
                session_id: Some(format!("s{}", rng.next_u64() % 3)),
                token_vectors: Some(quantised(&tokens)),
                ..input(
                    &format!("{} {i}", words.join(" ")),
                    normalized(rng.vector(DIM)),
                    None,
                    Some(now - rng.next_u64() % (60 * DAY_US)),
                )
            }
        })
        .collect();
    engine.remember_many(inputs).unwrap();
    now
}

fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64
}

/// Asserts the documented formula over each result's signals gives its score, the results
/// come in that order, and the reinforcement signal is the relevance times the log-scaled
/// count this recall scored with (one less than the count it returns).
fn assert_composite_order(request: &RecallRequest, output: &RecallOutput) {
    let weights = &request.scoring_weights;
    for result in &output.results {
        let s = result.signals;
        let formula = weights.w_relevance * s.relevance
            + weights.w_recency * s.recency
            + weights.w_importance * s.importance
            + weights.w_reinforcement * s.reinforcement;
        assert!((result.score - formula).abs() < 1e-5, "{result:?}");
        for signal in [s.relevance, s.recency, s.importance, s.reinforcement] {
            assert!((0.0..=1.0).contains(&signal), "{s:?}");
        }
        let counted = weights.reinforcement(result.memory.access_count - 1);
        assert!(
            (s.reinforcement - s.relevance * counted).abs() < 1e-5,
            "{s:?}"
        );
        assert_eq!(s.importance, result.memory.importance);
    }
    for pair in output.results.windows(2) {
        assert!(
            pair[0].score >= pair[1].score,
            "{} < {}",
            pair[0].score,
            pair[1].score
        );
    }
}

fn weights(w: [f32; 4]) -> ScoringWeights {
    ScoringWeights {
        w_relevance: w[0],
        w_recency: w[1],
        w_importance: w[2],
        w_reinforcement: w[3],
        ..ScoringWeights::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn every_recall_is_in_composite_order(
        seed in any::<u64>(),
        n in 5usize..40,
        w in proptest::array::uniform4(0.0f32..1.0),
        top_k in 1usize..15,
        top_n in 1usize..30,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let engine = open(dir.path());
        let mut rng = Rng(seed);
        random_store(&engine, &mut rng, n);
        for round in 0..6 {
            let cue = normalized(rng.vector(DIM));
            let tokens: Vec<Vec<f32>> = (0..2).map(|_| rng.vector(DIM)).collect();
            let text = WORDS[rng.next_u64() as usize % WORDS.len()];
            let default = RecallRequest {
                top_k,
                rerank_top_n: top_n,
                scoring_weights: weights(w),
                ..RecallRequest::cue(text, cue.clone(), tokens)
            };
            let others = [
                RecallRequest { top_k, scoring_weights: weights(w), ..RecallRequest::similarity(cue.clone()) },
                RecallRequest {
                    top_k,
                    cue_text: Some(text.into()),
                    scoring_weights: weights(w),
                    ..RecallRequest::similarity(cue.clone()).with_strategies(&[Strategy::Hybrid])
                },
            ];
            let request = if round % 2 == 0 { &default } else { &others[round / 2 % 2] };
            let output = engine.recall(request).unwrap();
            prop_assert!(!output.results.is_empty());
            assert_composite_order(request, &output);
        }
    }
}

#[test]
fn the_default_recall_is_hybrid_with_the_late_interaction_stage() {
    let request = RecallRequest::cue("acme", vec![1.0, 0.0, 0.0, 0.0], vec![vec![1.0; DIM]]);
    assert_eq!(DEFAULT_STRATEGIES, [Strategy::Hybrid]);
    assert!(request.runs(Strategy::Hybrid) && request.strategies.len() == 1);
    assert_eq!(request.rerank, DEFAULT_RERANK);
    assert_eq!(DEFAULT_RERANK, Rerank::LateInteraction);
    assert_eq!(request.scoring_weights, ScoringWeights::default());
    assert_eq!(request.cue_text.as_deref(), Some("acme"));
    request.validate().unwrap();
}

#[test]
fn the_stage_score_becomes_the_relevance_signal() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(7);
    random_store(&engine, &mut rng, 20);
    let cue = RecallRequest::cue(
        "invoice",
        normalized(rng.vector(DIM)),
        vec![rng.vector(DIM)],
    );
    for weights in [ScoringWeights::default(), weights([1.0, 0.0, 0.0, 0.0])] {
        let request = RecallRequest {
            scoring_weights: weights,
            ..cue.clone()
        };
        let output = engine.recall(&request).unwrap();
        assert_eq!(output.results.len(), 10);
        let mut by_stage: Vec<(f32, f32)> = output
            .results
            .iter()
            .map(|r| {
                let total = r.strategy_details[0]
                    .rerank_score
                    .expect("every result re-ranked");
                assert!(r
                    .strategy_details
                    .iter()
                    .all(|d| d.rerank_score == Some(total)));
                (total, r.signals.relevance)
            })
            .collect();
        by_stage.sort_by(|a, b| a.0.total_cmp(&b.0));
        for pair in by_stage.windows(2) {
            assert!(
                pair[0].1 <= pair[1].1,
                "relevance increases with the stage score"
            );
        }
    }
    let relevance_only = RecallRequest {
        scoring_weights: weights([1.0, 0.0, 0.0, 0.0]),
        ..cue
    };
    let best = engine.recall(&relevance_only).unwrap();
    assert_eq!(
        best.results[0].signals.relevance, 1.0,
        "the head's best stage score"
    );
}

/// Memory `recalled` at cosine `recalled_cos` to cue B, recalled 100 times by cue A first, and
/// memory `better` at cosine `better_cos` to cue B, never recalled: which comes first for B.
fn first_for_cue_b(recalled_cos: f32, better_cos: f32) -> (MemoryId, MemoryId, MemoryId) {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let now = now_us();
    // Cue B is axis 0; cue A is axis 2, which only `recalled` leans towards.
    let lean = 0.3f32;
    let rest = (1.0 - recalled_cos * recalled_cos - lean * lean).sqrt();
    let stored = engine
        .remember_many(vec![
            input(
                "recalled",
                vec![recalled_cos, rest, lean, 0.0],
                None,
                Some(now),
            ),
            input(
                "better",
                vec![better_cos, 0.0, 0.0, (1.0 - better_cos * better_cos).sqrt()],
                None,
                Some(now),
            ),
        ])
        .unwrap();
    for _ in 0..100 {
        let a = RecallRequest {
            top_k: 1,
            ..RecallRequest::similarity(vec![0.0, 0.0, 1.0, 0.0])
        };
        assert_eq!(
            engine.recall(&a).unwrap().results[0].memory.id,
            stored[0].id
        );
    }
    let b = engine
        .recall(&RecallRequest::similarity(vec![1.0, 0.0, 0.0, 0.0]))
        .unwrap();
    (stored[0].id, stored[1].id, b.results[0].memory.id)
}

#[test]
fn a_memory_recalled_often_does_not_displace_a_clearly_more_relevant_one() {
    // 0.92 / 0.75 is above 1 + 0.1 / 0.5: ungated, 100 recalls (+0.1) would put the recalled
    // memory first (0.475 against 0.46).
    let (_, better, first) = first_for_cue_b(0.75, 0.92);
    assert_eq!(first, better);
}

#[test]
fn reinforcement_still_breaks_a_near_tie() {
    // 0.9 / 0.85 is below the bound: the memory recalled before wins (0.51 against 0.45).
    let (recalled, _, first) = first_for_cue_b(0.85, 0.9);
    assert_eq!(first, recalled);
}
