//! Fuzzing of recall's validation: any `RecallRequest` (any strategies, sizes, weights, times,
//! vectors with NaN or of the wrong length, seeds, texts) on a real store answers `Ok` or a
//! typed input error (`InvalidInput`, or `NotFound` for a seed that does not exist), never a
//! panic and never another error. `HEBBS_FUZZ_CASES` sets the case count (default 256).

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;

use crate::common::{input, open, Rng};
use hebbs_core::recall::{CausalDirection, RecallRequest, Strategy as Kind};
use hebbs_core::{Edge, EdgeType, Engine, HebbsError, MemoryId, ScoringWeights};

const DIM: usize = 8;

fn cases() -> u32 {
    std::env::var("HEBBS_FUZZ_CASES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(256)
}

/// Mostly a value in `range`, sometimes anything a float can be.
fn float_in(range: std::ops::Range<f32>) -> impl Strategy<Value = f32> {
    prop_oneof![
        12 => range,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => -2.0f32..0.0,
        1 => any::<f32>(),
    ]
}

/// Mostly a value in `range`, sometimes zero or the largest.
fn size_in(range: std::ops::Range<usize>) -> impl Strategy<Value = usize> {
    prop_oneof![12 => range, 1 => Just(0usize), 1 => Just(usize::MAX)]
}

fn strategies() -> impl Strategy<Value = Vec<Kind>> {
    proptest::sample::subsequence(
        vec![
            Kind::Similarity,
            Kind::Temporal,
            Kind::Causal,
            Kind::Analogical,
            Kind::Hybrid,
            Kind::Keyword,
            Kind::Regex,
        ],
        0..=7,
    )
}

fn store() -> (tempfile::TempDir, Engine, Vec<MemoryId>) {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(3);
    let mut ids = Vec::new();
    for i in 0..40u64 {
        let mut memory = input(
            &format!("memory {i} about billing"),
            rng.vector(DIM),
            Some(["a", "b"][i as usize % 2]),
            Some(1_000 + i),
        );
        if let Some(previous) = ids.last() {
            memory.edges = vec![Edge::new(*previous, EdgeType::CausedBy)];
        }
        ids.push(engine.remember(memory).unwrap().id);
    }
    (dir, engine, ids)
}

/// Everything of a request but its strategies, drawn at random.
#[derive(Debug)]
struct Drawn {
    vector: Option<Vec<f32>>,
    text: Option<String>,
    top_k: usize,
    ef: Option<usize>,
    entity: Option<String>,
    range: Option<(u64, u64)>,
    seed: usize,
    depth: usize,
    direction: CausalDirection,
    alpha: f32,
    rrf_k: u32,
    floor: Option<f32>,
    graph_context: usize,
    weights: (f32, f32, f32, f32, u64, u64),
}

fn drawn() -> impl Strategy<Value = Drawn> {
    let cue = (
        prop_oneof![
            6 => proptest::collection::vec(-1.0f32..1.0, DIM).prop_map(Some),
            1 => proptest::option::of(proptest::collection::vec(float_in(-1.0..1.0), 0..12)),
        ],
        proptest::option::of(prop_oneof![
            Just(String::new()),
            Just("billing".to_owned()),
            Just("(unclosed".to_owned()),
            "[a-z ]{0,12}",
            Just("\u{0}\u{ffff}".to_owned()),
        ]),
        size_in(1..20),
        proptest::option::of(size_in(1..500)),
        proptest::option::of(prop_oneof![
            Just("a".to_owned()),
            Just(String::new()),
            "[a-z]{0,300}"
        ]),
        proptest::option::of((any::<u64>(), any::<u64>())),
    );
    let walk = (
        0usize..45,
        size_in(1..12),
        prop_oneof![
            Just(CausalDirection::Causes),
            Just(CausalDirection::Effects),
            Just(CausalDirection::Both)
        ],
        float_in(0.0..1.0),
        prop_oneof![12 => 1u32..100, 1 => any::<u32>()],
        proptest::option::of(float_in(0.0..1.0)),
        size_in(0..5),
        (
            float_in(0.0..1.0),
            float_in(0.0..1.0),
            float_in(0.0..1.0),
            float_in(0.0..1.0),
            prop_oneof![12 => 1u64..u64::MAX, 1 => Just(0u64)],
            prop_oneof![12 => 1u64..1000, 1 => any::<u64>()],
        ),
    );
    (cue, walk).prop_map(|(cue, walk)| Drawn {
        vector: cue.0,
        text: cue.1,
        top_k: cue.2,
        ef: cue.3,
        entity: cue.4,
        range: cue.5,
        seed: walk.0,
        depth: walk.1,
        direction: walk.2,
        alpha: walk.3,
        rrf_k: walk.4,
        floor: walk.5,
        graph_context: walk.6,
        weights: walk.7,
    })
}

#[test]
fn any_recall_request_is_answered_or_refused_by_field() {
    let (_dir, engine, ids) = store();
    let answered = AtomicUsize::new(0);
    let refused = AtomicUsize::new(0);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(cases()));
    runner
        .run(&(strategies(), drawn()), |(chosen, d)| {
            let request = RecallRequest {
                cue_vector: d.vector,
                cue_text: d.text,
                top_k: d.top_k,
                entity_id: d.entity,
                time_range: d.range,
                ef_search: d.ef,
                seed_memory_id: ids
                    .get(d.seed)
                    .copied()
                    .or_else(|| (d.seed == 44).then(MemoryId::new)),
                max_depth: d.depth,
                direction: d.direction,
                analogical_alpha: d.alpha,
                rrf_k: d.rrf_k,
                min_relevance: d.floor,
                graph_context: d.graph_context,
                scoring_weights: ScoringWeights {
                    w_relevance: d.weights.0,
                    w_recency: d.weights.1,
                    w_importance: d.weights.2,
                    w_reinforcement: d.weights.3,
                    max_age_us: d.weights.4,
                    reinforcement_cap: d.weights.5,
                },
                ..RecallRequest::similarity(Vec::new()).with_strategies(&chosen)
            };
            match engine.recall(&request) {
                Ok(output) => {
                    answered.fetch_add(1, Ordering::Relaxed);
                    prop_assert!(output.results.len() <= d.top_k);
                }
                Err(HebbsError::InvalidInput { field, .. }) => {
                    refused.fetch_add(1, Ordering::Relaxed);
                    prop_assert!(!field.is_empty());
                }
                Err(HebbsError::NotFound { .. }) => {}
                Err(other) => prop_assert!(false, "unexpected error {other:?}"),
            }
            Ok(())
        })
        .unwrap();
    let (answered, refused) = (answered.into_inner(), refused.into_inner());
    eprintln!("recall fuzz: {answered} answered, {refused} refused");
    assert!(
        answered > 0 && refused > 0,
        "{answered} answered, {refused} refused"
    );
}
