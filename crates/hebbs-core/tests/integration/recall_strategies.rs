//! The causal and analogical strategies, the multi-strategy executor and prime, on real stores,
//! each checked against a plain reference written out in the test.

use std::collections::{HashMap, VecDeque};

use hebbs_core::recall::{CAUSAL_DEPTH_DECAY, SAME_ENTITY_FACTOR};
use hebbs_core::{
    CausalDirection, Edge, EdgeType, Engine, HebbsError, MemoryId, PrimeRequest, RecallRequest,
    RememberInput, Strategy, StrategyConfig,
};
use serde_json::{json, Map, Value};

use crate::common::{normalized, open};

const DIM: usize = 8;

/// A unit vector mostly along `axis`, tilted towards `towards` by `tilt`.
fn axis(axis: usize, towards: usize, tilt: f32) -> Vec<f32> {
    let mut v = vec![0.0; DIM];
    v[axis] = 1.0;
    v[towards] += tilt;
    normalized(v)
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

fn remember(engine: &Engine, content: &str, vector: Vec<f32>, edges: Vec<Edge>) -> MemoryId {
    let input = RememberInput {
        edges,
        ..RememberInput::new(content, vector)
    };
    engine.remember(input).unwrap().id
}

fn edge(target: MemoryId, edge_type: EdgeType, confidence: f32) -> Edge {
    Edge {
        target,
        edge_type,
        confidence,
    }
}

/// An edge as the test wrote it: (holder, type, target, confidence).
type EdgeRow = (MemoryId, EdgeType, MemoryId, f32);

/// Plain BFS over an explicit edge list.
fn reference_walk(
    edges: &[EdgeRow],
    seed: MemoryId,
    direction: CausalDirection,
    types: Option<&[EdgeType]>,
    max_depth: u32,
) -> HashMap<MemoryId, (u32, f32)> {
    let mut best: HashMap<MemoryId, (u32, f32)> = HashMap::from([(seed, (0, 1.0))]);
    let mut queue = VecDeque::from([seed]);
    while let Some(node) = queue.pop_front() {
        let (depth, product) = best[&node];
        if depth == max_depth {
            continue;
        }
        for (holder, edge_type, target, confidence) in edges {
            if types.is_some_and(|types| !types.contains(edge_type)) {
                continue;
            }
            let next = match direction {
                CausalDirection::Causes if *holder == node => *target,
                CausalDirection::Effects if *target == node => *holder,
                CausalDirection::Both if *holder == node => *target,
                CausalDirection::Both if *target == node => *holder,
                _ => continue,
            };
            let through = product * confidence;
            match best.get_mut(&next) {
                None => {
                    best.insert(next, (depth + 1, through));
                    queue.push_back(next);
                }
                Some(entry) if entry.0 == depth + 1 && through > entry.1 => entry.1 = through,
                Some(_) => {}
            }
        }
    }
    best.remove(&seed);
    best
}

fn causal_graph(engine: &Engine) -> (Vec<MemoryId>, Vec<EdgeRow>) {
    let outage = remember(engine, "database outage", axis(0, 1, 0.0), vec![]);
    let alert = remember(
        engine,
        "pager alert fired",
        axis(1, 0, 0.1),
        vec![edge(outage, EdgeType::CausedBy, 0.9)],
    );
    let rollback = remember(
        engine,
        "team rolled back the release",
        axis(2, 0, 0.1),
        vec![
            edge(alert, EdgeType::CausedBy, 0.8),
            edge(outage, EdgeType::CausedBy, 0.3),
        ],
    );
    let postmortem = remember(
        engine,
        "postmortem written",
        axis(3, 0, 0.1),
        vec![edge(rollback, EdgeType::FollowedBy, 1.0)],
    );
    let unrelated = remember(
        engine,
        "a note about office plants",
        axis(4, 0, 0.1),
        vec![edge(outage, EdgeType::RelatedTo, 0.5)],
    );
    let ids = vec![outage, alert, rollback, postmortem, unrelated];
    let edges = vec![
        (alert, EdgeType::CausedBy, outage, 0.9),
        (rollback, EdgeType::CausedBy, alert, 0.8),
        (rollback, EdgeType::CausedBy, outage, 0.3),
        (postmortem, EdgeType::FollowedBy, rollback, 1.0),
        (unrelated, EdgeType::RelatedTo, outage, 0.5),
    ];
    (ids, edges)
}

#[test]
fn causal_walk_matches_a_plain_bfs_in_every_direction() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let (ids, edges) = causal_graph(&engine);
    let caused_by = [EdgeType::CausedBy];
    let cases: Vec<(MemoryId, CausalDirection, Option<&[EdgeType]>, usize)> = vec![
        (ids[3], CausalDirection::Causes, None, 5),
        (ids[0], CausalDirection::Effects, None, 5),
        (ids[0], CausalDirection::Effects, Some(&caused_by), 5),
        (ids[0], CausalDirection::Both, None, 1),
        (ids[4], CausalDirection::Both, None, 10),
        (ids[2], CausalDirection::Both, None, 2),
    ];
    for (seed, direction, types, max_depth) in cases {
        let request = RecallRequest {
            direction,
            edge_types: types.map(<[EdgeType]>::to_vec),
            max_depth,
            ..RecallRequest::causal(seed)
        };
        let output = engine.recall(&request).unwrap();
        let expected = reference_walk(&edges, seed, direction, types, max_depth as u32);
        assert_eq!(
            output.results.len(),
            expected.len(),
            "{direction:?} {types:?} from seed {seed}"
        );
        for result in &output.results {
            let detail = &result.strategy_details[0];
            let (depth, product) = expected[&result.memory.id];
            assert_eq!(detail.strategy, Strategy::Causal);
            assert_eq!(detail.depth, Some(depth));
            let relevance = product * CAUSAL_DEPTH_DECAY.powi(depth as i32 - 1);
            assert!((detail.relevance - relevance).abs() < 1e-6);
        }
    }
}

#[test]
fn causal_relevance_falls_with_depth_and_weak_links() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let (ids, _) = causal_graph(&engine);
    let output = engine
        .recall(&RecallRequest {
            direction: CausalDirection::Causes,
            scoring_weights: hebbs_core::ScoringWeights {
                w_relevance: 1.0,
                w_recency: 0.0,
                w_importance: 0.0,
                w_reinforcement: 0.0,
                ..Default::default()
            },
            ..RecallRequest::causal(ids[3])
        })
        .unwrap();
    let order: Vec<MemoryId> = output.results.iter().map(|r| r.memory.id).collect();
    assert_eq!(order, vec![ids[2], ids[1], ids[0]]);
    let depths: Vec<Option<u32>> = output
        .results
        .iter()
        .map(|r| r.strategy_details[0].depth)
        .collect();
    assert_eq!(depths, vec![Some(1), Some(2), Some(2)]);
}

#[test]
fn causal_without_seed_starts_from_the_memory_nearest_the_cue() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let (ids, _) = causal_graph(&engine);
    let request = RecallRequest {
        direction: CausalDirection::Causes,
        ..RecallRequest::similarity(axis(3, 0, 0.05)).with_strategies(&[Strategy::Causal])
    };
    let found: Vec<MemoryId> = engine
        .recall(&request)
        .unwrap()
        .results
        .iter()
        .map(|r| r.memory.id)
        .collect();
    assert_eq!(found.len(), 3);
    assert!(!found.contains(&ids[3]), "the seed itself is not a result");
    assert!(found.contains(&ids[0]) && found.contains(&ids[1]) && found.contains(&ids[2]));
}

#[test]
fn a_failing_strategy_reports_while_the_others_answer() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let (ids, _) = causal_graph(&engine);
    let mut request = RecallRequest::similarity(axis(0, 1, 0.0));
    request.strategies = vec![
        Strategy::Similarity.into(),
        StrategyConfig {
            seed_memory_id: Some(MemoryId::new()),
            ..Strategy::Causal.into()
        },
    ];
    let output = engine.recall(&request).unwrap();
    assert_eq!(output.results[0].memory.id, ids[0]);
    assert_eq!(output.strategy_errors.len(), 1);
    assert_eq!(output.strategy_errors[0].strategy, Strategy::Causal);
    assert!(output.strategy_errors[0].message.contains("not found"));
    request.strategies.remove(0);
    assert!(matches!(
        engine.recall(&request),
        Err(HebbsError::NotFound { .. })
    ));
}

#[test]
fn executor_deduplicates_keeps_every_detail_and_the_highest_relevance() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let (ids, _) = causal_graph(&engine);
    let mut request = RecallRequest {
        seed_memory_id: Some(ids[0]),
        entity_id: Some(String::new()),
        ..RecallRequest::similarity(axis(1, 0, 0.1))
    };
    request.strategies = vec![
        Strategy::Similarity.into(),
        Strategy::Causal.into(),
        StrategyConfig {
            top_k: Some(2),
            ..Strategy::Temporal.into()
        },
        Strategy::Analogical.into(),
    ];
    let output = engine.recall(&request).unwrap();
    assert!(output.strategy_errors.is_empty());
    let ids_found: Vec<MemoryId> = output.results.iter().map(|r| r.memory.id).collect();
    let mut unique = ids_found.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids_found.len(), "no duplicates");
    let alert = output
        .results
        .iter()
        .find(|r| r.memory.id == ids[1])
        .unwrap();
    let strategies: Vec<Strategy> = alert.strategy_details.iter().map(|d| d.strategy).collect();
    assert!(strategies.contains(&Strategy::Similarity) && strategies.contains(&Strategy::Causal));
    let temporal_hits = output
        .results
        .iter()
        .filter(|r| {
            r.strategy_details
                .iter()
                .any(|d| d.strategy == Strategy::Temporal)
        })
        .count();
    assert_eq!(temporal_hits, 2, "the temporal override of top_k applies");
    for window in output.results.windows(2) {
        assert!(window[0].score >= window[1].score);
    }
    request.top_k = 2;
    assert_eq!(engine.recall(&request).unwrap().results.len(), 2);
}

#[test]
fn analogical_ranks_by_structure_when_words_mislead() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let situation = object(json!({
        "entities": ["team", "database"], "action": "migrate", "outcome": "failure"
    }));
    let lookalike = engine
        .remember(RememberInput {
            context: object(json!({"note": "migration checklist", "pages": 4})),
            entity_id: Some("project-a".into()),
            ..RememberInput::new("database migration checklist", axis(0, 1, 0.6))
        })
        .unwrap()
        .id;
    let analogue = engine
        .remember(RememberInput {
            context: object(json!({
                "entities": ["baker", "oven"], "action": "replace", "outcome": "failure"
            })),
            entity_id: Some("bakery".into()),
            ..RememberInput::new("the new oven burned the first batch", axis(2, 0, 0.6))
        })
        .unwrap()
        .id;
    let cue = axis(0, 2, 0.1);
    let recall = |alpha: f32| {
        engine
            .recall(&RecallRequest {
                cue_context: Some(situation.clone()),
                analogical_alpha: alpha,
                entity_id: Some("project-a".into()),
                ..RecallRequest::similarity(cue.clone()).with_strategies(&[Strategy::Analogical])
            })
            .unwrap()
    };
    let blended = recall(0.5);
    assert_eq!(blended.results[0].memory.id, analogue);
    for result in &blended.results {
        let detail = &result.strategy_details[0];
        let embedding = detail.embedding_similarity.unwrap();
        let structural = detail.structural_similarity.unwrap();
        let vector = if result.memory.id == analogue {
            axis(2, 0, 0.6)
        } else {
            axis(0, 1, 0.6)
        };
        let cosine: f32 = normalized(cue.clone())
            .iter()
            .zip(&vector)
            .map(|(a, b)| a * b)
            .sum();
        assert!((embedding - cosine).abs() < 1e-3);
        let mut expected = 0.5 * embedding + 0.5 * structural;
        if result.memory.id == lookalike {
            expected *= SAME_ENTITY_FACTOR;
        }
        assert!((detail.relevance - expected).abs() < 1e-5);
    }
    let analogue_detail = &blended.results[0].strategy_details[0];
    let lookalike_detail = &blended.results[1].strategy_details[0];
    assert!(lookalike_detail.embedding_similarity > analogue_detail.embedding_similarity);
    assert!(analogue_detail.structural_similarity > lookalike_detail.structural_similarity);
    let words_only = recall(1.0);
    assert_eq!(words_only.results[0].memory.id, lookalike);
}

#[test]
fn analogical_from_a_seed_uses_its_structure_and_excludes_it() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let cause = remember(&engine, "cause", axis(5, 0, 0.0), vec![]);
    let with_roles = |content: &str, vector: Vec<f32>, entity: &str, edges: Vec<Edge>| {
        engine
            .remember(RememberInput {
                context: object(json!({"action": "launch", "outcome": "failure"})),
                entity_id: Some(entity.into()),
                edges,
                ..RememberInput::new(content, vector)
            })
            .unwrap()
            .id
    };
    let seed = with_roles(
        "launch of product A failed",
        axis(0, 1, 0.2),
        "a",
        vec![edge(cause, EdgeType::CausedBy, 1.0)],
    );
    let same_shape = with_roles(
        "launch of product B failed",
        axis(1, 0, 0.2),
        "b",
        vec![edge(cause, EdgeType::CausedBy, 1.0)],
    );
    let plain = remember(&engine, "launch party photos", axis(0, 1, 0.3), vec![]);
    let output = engine
        .recall(&RecallRequest {
            seed_memory_id: Some(seed),
            ..RecallRequest::causal(seed).with_strategies(&[Strategy::Analogical])
        })
        .unwrap();
    let found: Vec<MemoryId> = output.results.iter().map(|r| r.memory.id).collect();
    assert!(!found.contains(&seed));
    assert_eq!(found[0], same_shape);
    let structural = |id: MemoryId| {
        output
            .results
            .iter()
            .find(|r| r.memory.id == id)
            .unwrap()
            .strategy_details[0]
            .structural_similarity
            .unwrap()
    };
    assert!((structural(same_shape) - 1.0).abs() < 1e-6);
    assert!(structural(plain) < 0.5);
}

#[test]
fn prime_blends_the_entity_timeline_with_the_cue() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let base = 1_700_000_000_000_000u64;
    let mut ids = Vec::new();
    for i in 0..30u64 {
        let vector = if i == 0 {
            axis(7, 0, 0.0)
        } else {
            axis((i % 6) as usize, 6, 0.3)
        };
        let input = RememberInput {
            entity_id: Some("alice".into()),
            created_at: Some(base + i * 1_000_000),
            ..RememberInput::new(format!("alice memory {i}"), vector)
        };
        ids.push(engine.remember(input).unwrap().id);
    }
    remember(&engine, "someone else", axis(7, 0, 0.01), vec![]);
    let recent = engine
        .prime(&PrimeRequest {
            max_memories: 5,
            ..PrimeRequest::new("alice")
        })
        .unwrap();
    let newest: Vec<MemoryId> = ids.iter().rev().take(5).copied().collect();
    assert_eq!(
        recent
            .results
            .iter()
            .map(|r| r.memory.id)
            .collect::<Vec<_>>(),
        newest
    );
    assert_eq!((recent.temporal_count, recent.similarity_count), (5, 0));
    let primed = engine
        .prime(&PrimeRequest {
            cue_vector: Some(axis(7, 0, 0.0)),
            max_memories: 5,
            ..PrimeRequest::new("alice")
        })
        .unwrap();
    let found: Vec<MemoryId> = primed.results.iter().map(|r| r.memory.id).collect();
    assert!(found.contains(&ids[0]), "the oldest memory matches the cue");
    assert!(primed.similarity_count >= 1 && primed.temporal_count >= 1);
    assert!(primed
        .results
        .iter()
        .all(|r| r.memory.entity_id.as_deref() == Some("alice")));
    assert!(matches!(
        engine.prime(&PrimeRequest {
            max_memories: 0,
            ..PrimeRequest::new("alice")
        }),
        Err(HebbsError::InvalidInput { ref field, .. }) if field == "max_memories"
    ));
}

#[test]
fn bad_strategy_parameters_name_their_field() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let seed = remember(&engine, "seed", axis(0, 1, 0.0), vec![]);
    let cue = axis(0, 1, 0.0);
    let cases: Vec<(RecallRequest, &str)> = vec![
        (
            RecallRequest {
                max_depth: 11,
                ..RecallRequest::causal(seed)
            },
            "max_depth",
        ),
        (
            RecallRequest {
                max_depth: 0,
                ..RecallRequest::causal(seed)
            },
            "max_depth",
        ),
        (
            RecallRequest {
                analogical_alpha: 1.5,
                ..RecallRequest::similarity(cue.clone()).with_strategies(&[Strategy::Analogical])
            },
            "analogical_alpha",
        ),
        (
            RecallRequest {
                seed_memory_id: None,
                ..RecallRequest::causal(seed)
            },
            "seed_memory_id",
        ),
        (
            RecallRequest {
                strategies: vec![StrategyConfig {
                    top_k: Some(0),
                    ..Strategy::Similarity.into()
                }],
                ..RecallRequest::similarity(cue.clone())
            },
            "strategies[0].top_k",
        ),
        (
            RecallRequest {
                strategies: vec![StrategyConfig {
                    max_depth: Some(42),
                    ..Strategy::Causal.into()
                }],
                ..RecallRequest::causal(seed)
            },
            "strategies[0].max_depth",
        ),
        (
            RecallRequest::similarity(cue).with_strategies(&[Strategy::Causal, Strategy::Causal]),
            "strategies",
        ),
    ];
    for (request, field) in cases {
        match engine.recall(&request) {
            Err(HebbsError::InvalidInput { field: got, .. }) => assert_eq!(got, field),
            other => panic!("{field}: expected InvalidInput, got {other:?}"),
        }
    }
}
