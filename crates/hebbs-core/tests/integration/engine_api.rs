//! The engine end to end on a real RocksDB store: remember, get, similarity and temporal recall,
//! access reinforcement, bad input that leaves the store unchanged, and reopen equality.

use crate::common::{field_of, input, normalized, open, Rng};
use hebbs_core::recall::{RecallRequest, Strategy};
use hebbs_core::{Edge, EdgeType, HebbsError, MemoryId};

const DIM: usize = 16;

#[test]
fn remember_get_and_similarity_recall() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(1);
    let vectors: Vec<Vec<f32>> = (0..50).map(|_| rng.vector(DIM)).collect();
    let mut ids = Vec::new();
    for (i, vector) in vectors.iter().enumerate() {
        ids.push(
            engine
                .remember(input(&format!("memory {i}"), vector.clone(), None, None))
                .unwrap()
                .id,
        );
    }
    let got = engine.get(&ids[7], true).unwrap();
    assert_eq!(got.content, "memory 7");
    assert_eq!(got.embedding.unwrap(), normalized(vectors[7].clone()));
    let output = engine
        .recall(&RecallRequest::similarity(vectors[7].clone()))
        .unwrap();
    assert_eq!(output.results[0].memory.id, ids[7]);
    let detail = &output.results[0].strategy_details[0];
    assert_eq!(detail.strategy, Strategy::Similarity);
    assert!((detail.relevance - 1.0).abs() < 1e-4, "{detail:?}");
    assert!(detail.distance.unwrap() < 1e-4);
    assert_eq!(output.results.len(), 10);
    assert!(output.results.windows(2).all(|w| w[0].score >= w[1].score));
    assert_eq!(engine.health().memory_count, 50);
}

#[test]
fn recall_bumps_access_count_and_reinforcement() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(2);
    let vector = rng.vector(DIM);
    let id = engine
        .remember(input("only", vector.clone(), None, None))
        .unwrap()
        .id;
    for expected in 1..=3 {
        let output = engine
            .recall(&RecallRequest::similarity(vector.clone()))
            .unwrap();
        assert_eq!(output.results[0].memory.access_count, expected);
    }
    let memory = engine.get(&id, false).unwrap();
    assert_eq!(memory.access_count, 3);
    assert!(memory.last_accessed_at >= memory.created_at);
}

#[test]
fn temporal_is_newest_first_with_ranges_and_same_microsecond() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(3);
    let base = 1_700_000_000_000_000u64;
    let mut expected = Vec::new();
    for i in 0..20u64 {
        let id = engine
            .remember(input(
                &format!("acme {i}"),
                rng.vector(DIM),
                Some("acme"),
                Some(base + i * 1000),
            ))
            .unwrap()
            .id;
        expected.push((base + i * 1000, id));
        engine
            .remember(input(
                &format!("other {i}"),
                rng.vector(DIM),
                Some("globex"),
                Some(base + i * 1000),
            ))
            .unwrap();
    }
    let twin_a = engine
        .remember(input(
            "twin a",
            rng.vector(DIM),
            Some("acme"),
            Some(base + 50_000),
        ))
        .unwrap()
        .id;
    let twin_b = engine
        .remember(input(
            "twin b",
            rng.vector(DIM),
            Some("acme"),
            Some(base + 50_000),
        ))
        .unwrap()
        .id;

    let mut request = RecallRequest::temporal("acme");
    request.top_k = 100;
    request.scoring_weights.w_relevance = 1.0;
    request.scoring_weights.w_recency = 0.0;
    request.scoring_weights.w_importance = 0.0;
    request.scoring_weights.w_reinforcement = 0.0;
    let output = engine.recall(&request).unwrap();
    assert_eq!(
        output.results.len(),
        22,
        "both memories of one microsecond are kept"
    );
    let got: Vec<MemoryId> = output.results.iter().map(|r| r.memory.id).collect();
    assert!(got[..2].contains(&twin_a) && got[..2].contains(&twin_b));
    let rest: Vec<MemoryId> = expected.iter().rev().map(|(_, id)| *id).collect();
    assert_eq!(&got[2..], &rest[..]);
    let ranks: Vec<u32> = output
        .results
        .iter()
        .map(|r| r.strategy_details[0].rank.unwrap())
        .collect();
    assert_eq!(ranks, (0..22).collect::<Vec<_>>());
    assert!(output
        .results
        .iter()
        .all(|r| r.memory.entity_id.as_deref() == Some("acme")));

    request.time_range = Some((base + 5000, base + 9000));
    let ranged = engine.recall(&request).unwrap();
    let times: Vec<u64> = ranged.results.iter().map(|r| r.memory.created_at).collect();
    assert_eq!(
        times,
        vec![
            base + 9000,
            base + 8000,
            base + 7000,
            base + 6000,
            base + 5000
        ]
    );

    request.time_range = None;
    request.top_k = 3;
    let top = engine.recall(&request).unwrap();
    assert_eq!(top.results.len(), 3);
}

#[test]
fn entity_scoped_similarity_only_returns_that_entity() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(4);
    let shared = rng.vector(DIM);
    engine
        .remember(input("globex twin", shared.clone(), Some("globex"), None))
        .unwrap();
    let acme = engine
        .remember(input(
            "acme near",
            shared.iter().map(|x| x + 0.3).collect(),
            Some("acme"),
            None,
        ))
        .unwrap();
    let mut request = RecallRequest::similarity(shared);
    request.entity_id = Some("acme".into());
    let output = engine.recall(&request).unwrap();
    assert_eq!(output.results.len(), 1);
    assert_eq!(output.results[0].memory.id, acme.id);
}

#[test]
fn multi_strategy_merges_details_of_one_memory() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(5);
    let vector = rng.vector(DIM);
    let id = engine
        .remember(input("both", vector.clone(), Some("acme"), None))
        .unwrap()
        .id;
    let mut request = RecallRequest::similarity(vector);
    request.strategies = vec![Strategy::Similarity.into(), Strategy::Temporal.into()];
    request.entity_id = Some("acme".into());
    let output = engine.recall(&request).unwrap();
    assert_eq!(output.results.len(), 1);
    assert_eq!(output.results[0].memory.id, id);
    let strategies: Vec<Strategy> = output.results[0]
        .strategy_details
        .iter()
        .map(|d| d.strategy)
        .collect();
    assert_eq!(strategies.len(), 2);
    assert!(strategies.contains(&Strategy::Similarity) && strategies.contains(&Strategy::Temporal));
}

#[test]
fn bad_input_is_typed_names_the_field_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(6);
    let good = engine
        .remember(input("good", rng.vector(DIM), Some("acme"), None))
        .unwrap();
    let v = rng.vector(DIM);
    let cases: Vec<(hebbs_core::RememberInput, &str)> = vec![
        (input("   ", v.clone(), None, None), "content"),
        (input(&"x".repeat(70_000), v.clone(), None, None), "content"),
        (
            hebbs_core::RememberInput {
                importance: 1.5,
                ..input("a", v.clone(), None, None)
            },
            "importance",
        ),
        (
            hebbs_core::RememberInput {
                importance: f32::NAN,
                ..input("a", v.clone(), None, None)
            },
            "importance",
        ),
        (input("a", vec![f32::NAN; DIM], None, None), "embedding"),
        (input("a", vec![0.0; DIM], None, None), "embedding"),
        (input("a", vec![1.0; DIM + 1], None, None), "embedding"),
        (input("a", v.clone(), Some(""), None), "entity_id"),
        (input("a", v.clone(), Some("bad\u{0}id"), None), "entity_id"),
        (input("a", v.clone(), None, Some(u64::MAX)), "created_at"),
        (
            hebbs_core::RememberInput {
                edges: vec![Edge {
                    target: good.id,
                    edge_type: EdgeType::CausedBy,
                    confidence: 2.0,
                }],
                ..input("a", v.clone(), None, None)
            },
            "edges[0].confidence",
        ),
        (
            hebbs_core::RememberInput {
                edges: vec![Edge::new(MemoryId::new(), EdgeType::RelatedTo)],
                ..input("a", v.clone(), None, None)
            },
            "edges[0].target",
        ),
    ];
    for (bad, field) in cases {
        assert_eq!(field_of(engine.remember(bad).unwrap_err()), field);
    }
    let batch = vec![
        input("fine", v.clone(), None, None),
        input("", v.clone(), None, None),
    ];
    assert_eq!(
        field_of(engine.remember_many(batch).unwrap_err()),
        "items[1].content"
    );
    assert_eq!(engine.health().memory_count, 1);
    let everything = engine
        .recall(&RecallRequest {
            top_k: 100,
            ..RecallRequest::similarity(v.clone())
        })
        .unwrap();
    assert_eq!(
        everything.results.len(),
        1,
        "no rejected memory reached the index"
    );

    let bad_requests: Vec<(RecallRequest, &str)> = vec![
        (
            RecallRequest {
                top_k: 0,
                ..RecallRequest::similarity(v.clone())
            },
            "top_k",
        ),
        (
            RecallRequest {
                top_k: 1001,
                ..RecallRequest::similarity(v.clone())
            },
            "top_k",
        ),
        (
            RecallRequest {
                ef_search: Some(501),
                ..RecallRequest::similarity(v.clone())
            },
            "ef_search",
        ),
        (
            RecallRequest {
                strategies: vec![],
                ..RecallRequest::similarity(v.clone())
            },
            "strategies",
        ),
        (
            RecallRequest {
                entity_id: None,
                ..RecallRequest::temporal("x")
            },
            "entity_id",
        ),
        (
            RecallRequest {
                time_range: Some((5, 1)),
                ..RecallRequest::temporal("x")
            },
            "time_range",
        ),
        (RecallRequest::similarity(vec![1.0; DIM + 2]), "cue"),
        (RecallRequest::similarity(vec![f32::INFINITY; DIM]), "cue"),
    ];
    for (request, field) in bad_requests {
        assert_eq!(field_of(engine.recall(&request).unwrap_err()), field);
    }
    assert!(matches!(
        engine.get(&MemoryId::new(), false),
        Err(HebbsError::NotFound { .. })
    ));
    assert!("similarity, temporal".parse::<Strategy>().is_err());
}

#[test]
fn edges_are_stored_in_both_directions() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(7);
    let cause = engine
        .remember(input("cause", rng.vector(DIM), None, None))
        .unwrap();
    let effect = engine
        .remember(hebbs_core::RememberInput {
            edges: vec![Edge {
                target: cause.id,
                edge_type: EdgeType::CausedBy,
                confidence: 0.9,
            }],
            ..input("effect", rng.vector(DIM), None, None)
        })
        .unwrap();
    let out = engine.edges_out(&effect.id).unwrap();
    assert_eq!(
        out,
        vec![Edge {
            target: cause.id,
            edge_type: EdgeType::CausedBy,
            confidence: 0.9
        }]
    );
    let incoming = engine.edges_in(&cause.id).unwrap();
    assert_eq!(
        incoming,
        vec![Edge {
            target: effect.id,
            edge_type: EdgeType::CausedBy,
            confidence: 0.9
        }]
    );
}

#[test]
fn reopen_answers_the_same_and_loads_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(8);
    let vectors = crate::common::clustered(&mut rng, 500, 10, DIM, 0.4);
    let queries: Vec<Vec<f32>> = (0..20).map(|_| rng.vector(DIM)).collect();
    let weights = hebbs_core::ScoringWeights {
        w_reinforcement: 0.0,
        w_recency: 0.0,
        ..Default::default()
    };
    let answer = |engine: &hebbs_core::Engine| -> Vec<Vec<MemoryId>> {
        queries
            .iter()
            .map(|q| {
                let request = RecallRequest {
                    scoring_weights: weights,
                    ..RecallRequest::similarity(q.clone())
                };
                engine
                    .recall(&request)
                    .unwrap()
                    .results
                    .iter()
                    .map(|r| r.memory.id)
                    .collect()
            })
            .collect()
    };
    let before = {
        let engine = open(dir.path());
        let inputs = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| input(&format!("m{i}"), v.clone(), Some("e"), None))
            .collect();
        engine.remember_many(inputs).unwrap();
        let before = answer(&engine);
        engine.close().unwrap();
        before
    };
    let engine = open(dir.path());
    let recovery = engine.recovery();
    assert!(recovery.from_checkpoint, "{recovery:?}");
    assert_eq!(
        recovery.inserted, 0,
        "a clean reopen must not re-insert vectors"
    );
    assert_eq!(answer(&engine), before);
    assert_eq!(engine.health().memory_count, 500);
    assert!(matches!(
        engine.remember(input("x", vec![1.0; DIM + 1], None, None)),
        Err(HebbsError::InvalidInput { .. })
    ));
}

#[test]
fn missing_checkpoint_is_rebuilt_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(9);
    let vectors: Vec<Vec<f32>> = (0..100).map(|_| rng.vector(DIM)).collect();
    let ids: Vec<MemoryId> = {
        let engine = open(dir.path());
        let inputs = vectors
            .iter()
            .map(|v| input("m", v.clone(), None, None))
            .collect();
        engine
            .remember_many(inputs)
            .unwrap()
            .into_iter()
            .map(|m| m.id)
            .collect()
    };
    std::fs::remove_dir_all(dir.path().join("hnsw")).unwrap();
    let engine = open(dir.path());
    assert!(!engine.recovery().from_checkpoint);
    assert_eq!(engine.recovery().inserted, 100);
    for (vector, id) in vectors.iter().zip(&ids).take(10) {
        let top = engine
            .recall(&RecallRequest::similarity(vector.clone()))
            .unwrap();
        assert_eq!(top.results[0].memory.id, *id);
    }
}

#[test]
fn optimize_keeps_every_answer_and_is_refused_after_close() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(12);
    let vectors: Vec<Vec<f32>> = (0..1500).map(|_| rng.vector(DIM)).collect();
    let ids: Vec<MemoryId> = engine
        .remember_many(
            vectors
                .iter()
                .enumerate()
                .map(|(i, v)| input(&format!("memory {i}"), v.clone(), None, None))
                .collect(),
        )
        .unwrap()
        .into_iter()
        .map(|memory| memory.id)
        .collect();
    let late_vector = rng.vector(DIM);
    let late = engine
        .remember(input("late", late_vector.clone(), None, None))
        .unwrap();
    let top = |vector: &[f32]| {
        engine
            .recall(&RecallRequest::similarity(vector.to_vec()))
            .unwrap()
            .results[0]
            .memory
            .id
    };
    let before: Vec<MemoryId> = vectors.iter().step_by(50).map(|v| top(v)).collect();
    engine.optimize().unwrap();
    let after: Vec<MemoryId> = vectors.iter().step_by(50).map(|v| top(v)).collect();
    assert_eq!(before, after);
    assert_eq!(after, ids.iter().step_by(50).copied().collect::<Vec<_>>());
    assert_eq!(top(&late_vector), late.id);
    engine.close().unwrap();
    assert!(matches!(engine.optimize(), Err(HebbsError::Closed)));
}

#[test]
fn calls_after_close_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    engine.close().unwrap();
    assert!(matches!(
        engine.get(&MemoryId::new(), false),
        Err(HebbsError::Closed)
    ));
    assert!(!engine.health().serving);
}

#[test]
fn temporal_alone_keeps_timeline_order_whatever_the_importance() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(10);
    let base = hebbs_core::engine::now_us() - 1_000_000_000;
    for i in 0..10u64 {
        let importance = if i % 2 == 0 { 1.0 } else { 0.0 };
        engine
            .remember(hebbs_core::RememberInput {
                importance,
                ..input(
                    &format!("{i}"),
                    rng.vector(DIM),
                    Some("acme"),
                    Some(base + i * 1000),
                )
            })
            .unwrap();
    }
    let output = engine.recall(&RecallRequest::temporal("acme")).unwrap();
    let order: Vec<&str> = output
        .results
        .iter()
        .map(|r| r.memory.content.as_str())
        .collect();
    assert_eq!(order, ["9", "8", "7", "6", "5", "4", "3", "2", "1", "0"]);
    assert!(
        output.results[1].score > output.results[0].score,
        "scores still reflect importance"
    );
}
