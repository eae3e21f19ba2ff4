//! Full-text and hybrid recall, the relevance floor, graph context, regex mode, sessions and
//! orphans, on real stores.

use hebbs_core::recall::{RecallRequest, Strategy, StrategyConfig};
use hebbs_core::{Edge, EdgeType, Engine, HebbsError, MemoryId, RememberInput};

use crate::common::{normalized, open};

const DIM: usize = 8;

fn axis(axis: usize, tilt: f32) -> Vec<f32> {
    let mut v = vec![0.01; DIM];
    v[axis] = 1.0;
    v[(axis + 1) % DIM] += tilt;
    normalized(v)
}

fn remember(engine: &Engine, content: &str, vector: Vec<f32>) -> MemoryId {
    engine
        .remember(RememberInput::new(content, vector))
        .unwrap()
        .id
}

fn text_request(strategy: Strategy, text: &str, vector: Option<Vec<f32>>) -> RecallRequest {
    RecallRequest {
        cue_vector: vector,
        cue_text: Some(text.to_owned()),
        ..RecallRequest::similarity(Vec::new()).with_strategies(&[strategy])
    }
}

fn ids(output: &hebbs_core::RecallOutput) -> Vec<MemoryId> {
    output.results.iter().map(|r| r.memory.id).collect()
}

#[test]
fn keyword_finds_exact_terms_and_respects_entities() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let ticket = engine
        .remember(RememberInput {
            entity_id: Some("support".into()),
            ..RememberInput::new("Ticket INC4711 was escalated to tier two", axis(0, 0.0))
        })
        .unwrap()
        .id;
    remember(&engine, "The tier two team met on Monday", axis(1, 0.0));
    remember(&engine, "Nothing to see here", axis(2, 0.0));
    let found = engine
        .recall(&text_request(Strategy::Keyword, "INC4711", None))
        .unwrap();
    assert_eq!(ids(&found), vec![ticket]);
    let detail = &found.results[0].strategy_details[0];
    assert_eq!(detail.strategy, Strategy::Keyword);
    assert!(detail.bm25_score.unwrap() > 0.0);
    assert!((detail.relevance - 1.0).abs() < 1e-6);
    let both = engine
        .recall(&text_request(Strategy::Keyword, "tier two", None))
        .unwrap();
    assert_eq!(both.results.len(), 2);
    let scoped = engine
        .recall(&RecallRequest {
            entity_id: Some("support".into()),
            ..text_request(Strategy::Keyword, "tier two", None)
        })
        .unwrap();
    assert_eq!(ids(&scoped), vec![ticket]);
}

#[test]
fn hybrid_fuses_both_searches_by_reciprocal_rank() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let both = remember(&engine, "kubernetes pod eviction storm", axis(0, 0.05));
    let dense_only = remember(&engine, "containers were killed for memory", axis(0, 0.2));
    let words_only = remember(&engine, "kubernetes certification course", axis(5, 0.0));
    let output = engine
        .recall(&text_request(
            Strategy::Hybrid,
            "kubernetes pod eviction",
            Some(axis(0, 0.0)),
        ))
        .unwrap();
    assert_eq!(output.results[0].memory.id, both);
    let detail = |id: MemoryId| {
        output
            .results
            .iter()
            .find(|r| r.memory.id == id)
            .unwrap()
            .strategy_details[0]
            .clone()
    };
    let top = detail(both);
    assert!((top.rrf_score.unwrap() - 2.0 / 61.0).abs() < 1e-7);
    assert!((top.relevance - 1.0).abs() < 1e-6);
    assert!(top.dense_score.unwrap() > 0.9 && top.bm25_score.unwrap() > 0.0);
    let dense = detail(dense_only);
    assert!(dense.dense_score.is_some() && dense.bm25_score.is_none());
    let words = detail(words_only);
    assert!(words.bm25_score.is_some());
    for hit in &output.results {
        let d = &hit.strategy_details[0];
        let expected = d.rrf_score.unwrap() / (2.0 / 61.0);
        assert!((d.relevance - expected).abs() < 1e-6);
    }
    let missing_text = RecallRequest {
        cue_text: None,
        ..text_request(Strategy::Hybrid, "x", Some(axis(0, 0.0)))
    };
    assert!(matches!(
        engine.recall(&missing_text),
        Err(HebbsError::InvalidInput { ref field, .. }) if field == "cue"
    ));
}

#[test]
fn full_text_index_survives_reopen_and_is_rebuilt_when_missing() {
    let dir = tempfile::tempdir().unwrap();
    let wanted = {
        let engine = open(dir.path());
        for i in 0..50 {
            remember(
                &engine,
                &format!("filler memory number {i}"),
                axis(i % DIM, 0.1),
            );
        }
        remember(&engine, "the zebra escaped", axis(3, 0.0))
    };
    let search = |engine: &Engine| {
        ids(&engine
            .recall(&text_request(Strategy::Keyword, "zebra", None))
            .unwrap())
    };
    {
        let engine = open(dir.path());
        assert_eq!(engine.recovery().text_replayed, 0);
        assert_eq!(search(&engine), vec![wanted]);
    }
    std::fs::remove_dir_all(dir.path().join("text")).unwrap();
    {
        let engine = open(dir.path());
        assert_eq!(engine.recovery().text_replayed, 51);
        assert_eq!(search(&engine), vec![wanted]);
    }
    std::fs::write(dir.path().join("text").join("meta.json"), b"not an index").unwrap();
    let engine = open(dir.path());
    assert_eq!(
        engine.recovery().text_replayed,
        51,
        "a damaged index is rebuilt"
    );
    assert_eq!(search(&engine), vec![wanted]);
}

#[test]
fn regex_mode_scans_content_and_context_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let order = remember(&engine, "customer asked about order #12345", axis(0, 0.0));
    remember(&engine, "customer asked about order #99", axis(1, 0.0));
    let tagged = engine
        .remember(RememberInput {
            context: serde_json::json!({"ticket": "JIRA-88231"})
                .as_object()
                .unwrap()
                .clone(),
            ..RememberInput::new("a ticket was filed", axis(2, 0.0))
        })
        .unwrap()
        .id;
    let found = engine
        .recall(&text_request(Strategy::Regex, r"#\d{5}\b", None))
        .unwrap();
    assert_eq!(ids(&found), vec![order]);
    let in_context = engine
        .recall(&text_request(Strategy::Regex, r"^[A-Z]+-\d+$", None))
        .unwrap();
    assert_eq!(ids(&in_context), vec![tagged]);
    let limited = engine
        .recall(&RecallRequest {
            top_k: 1,
            ..text_request(Strategy::Regex, "customer", None)
        })
        .unwrap();
    assert_eq!(limited.results.len(), 1);
    assert!(matches!(
        engine.recall(&text_request(Strategy::Regex, "(unclosed", None)),
        Err(HebbsError::InvalidInput { ref field, .. }) if field == "cue"
    ));
}

#[test]
fn relevance_floor_drops_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let close = remember(&engine, "close", axis(0, 0.0));
    remember(&engine, "far", axis(4, 0.0));
    remember(&engine, "farther", axis(6, 0.0));
    let mut request = RecallRequest::similarity(axis(0, 0.01));
    request.min_relevance = Some(0.9);
    let output = engine.recall(&request).unwrap();
    assert_eq!(ids(&output), vec![close]);
    assert_eq!(output.below_threshold, 2);
    request.min_relevance = Some(1.5);
    assert!(matches!(
        engine.recall(&request),
        Err(HebbsError::InvalidInput { ref field, .. }) if field == "min_relevance"
    ));
}

#[test]
fn each_result_carries_its_strongest_relationships() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let weak = remember(&engine, "a weakly related note", axis(3, 0.0));
    let cause = remember(
        &engine,
        "the disk filled up on the database host",
        axis(4, 0.0),
    );
    let hub = engine
        .remember(RememberInput {
            edges: vec![
                Edge {
                    target: cause,
                    edge_type: EdgeType::CausedBy,
                    confidence: 0.9,
                },
                Edge {
                    target: weak,
                    edge_type: EdgeType::RelatedTo,
                    confidence: 0.2,
                },
            ],
            ..RememberInput::new("payments failed", axis(0, 0.0))
        })
        .unwrap()
        .id;
    let effect = engine
        .remember(RememberInput {
            edges: vec![Edge::new(hub, EdgeType::FollowedBy)],
            ..RememberInput::new("the team wrote a postmortem", axis(5, 0.0))
        })
        .unwrap()
        .id;
    let mut request = RecallRequest::similarity(axis(0, 0.0));
    request.top_k = 1;
    request.graph_context = 2;
    let output = engine.recall(&request).unwrap();
    let context = &output.results[0].expansion_context;
    assert_eq!(output.results[0].memory.id, hub);
    assert_eq!(context.len(), 2);
    assert_eq!(
        (
            context[0].neighbor_id,
            context[0].outgoing,
            context[0].confidence
        ),
        (effect, false, 1.0)
    );
    assert_eq!(context[0].edge_type, EdgeType::FollowedBy);
    assert_eq!(
        (
            context[1].neighbor_id,
            context[1].outgoing,
            context[1].edge_type
        ),
        (cause, true, EdgeType::CausedBy)
    );
    assert_eq!(
        context[1].preview,
        "the disk filled up on the database host"
    );
    request.graph_context = 0;
    assert!(engine.recall(&request).unwrap().results[0]
        .expansion_context
        .is_empty());
}

#[test]
fn sessions_record_what_a_conversation_touched_and_orphans_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let said = |content: &str, vector: Vec<f32>| {
        engine
            .remember(RememberInput {
                session_id: Some("chat-1".into()),
                ..RememberInput::new(content, vector)
            })
            .unwrap()
            .id
    };
    let first = said("user asked about refunds", axis(0, 0.0));
    let second = said("agent explained the refund policy", axis(1, 0.0));
    let earlier = remember(&engine, "refund policy changed last year", axis(2, 0.0));
    let linked = engine
        .remember(RememberInput {
            edges: vec![Edge::new(earlier, EdgeType::RelatedTo)],
            ..RememberInput::new("a linked memory", axis(6, 0.0))
        })
        .unwrap()
        .id;
    let mut request = RecallRequest::similarity(axis(2, 0.0));
    request.top_k = 1;
    request.session_id = Some("chat-1".into());
    assert_eq!(ids(&engine.recall(&request).unwrap()), vec![earlier]);
    request.session_id = Some("chat-1".into());
    engine.recall(&request).unwrap();
    let context: Vec<MemoryId> = engine
        .chat_context("chat-1", 100)
        .unwrap()
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(context, vec![first, second, earlier]);
    assert!(engine.chat_context("other", 100).unwrap().is_empty());
    assert_eq!(engine.chat_context("chat-1", 2).unwrap().len(), 2);
    assert!(matches!(
        engine.chat_context("", 10),
        Err(HebbsError::InvalidInput { ref field, .. }) if field == "session_id"
    ));
    let orphans: Vec<MemoryId> = engine
        .list_orphans(100)
        .unwrap()
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(orphans, vec![second, first]);
    assert!(!orphans.contains(&linked) && !orphans.contains(&earlier));
    request.strategies = vec![StrategyConfig::from(Strategy::Similarity)];
    request.session_id = Some("bad\u{0}id".into());
    assert!(matches!(
        engine.recall(&request),
        Err(HebbsError::InvalidInput { ref field, .. }) if field == "session_id"
    ));
}

#[test]
fn uncommitted_documents_score_like_committed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    for i in 0..40 {
        remember(
            &engine,
            &format!("background note {i} about the weather"),
            axis(i % DIM, 0.1),
        );
    }
    engine.checkpoint().unwrap();
    let fresh = [
        remember(&engine, "the storm flooded the storm drains", axis(1, 0.0)),
        remember(&engine, "a storm warning was issued", axis(2, 0.0)),
        remember(&engine, "weather storm", axis(3, 0.0)),
    ];
    let search = || {
        engine
            .recall(&text_request(Strategy::Keyword, "storm weather", None))
            .unwrap()
            .results
            .iter()
            .map(|r| (r.memory.id, r.strategy_details[0].bm25_score.unwrap()))
            .collect::<Vec<_>>()
    };
    let before = search();
    engine.checkpoint().unwrap();
    let after = search();
    let top = |hits: &[(MemoryId, f32)]| hits[..3].iter().map(|(id, _)| *id).collect::<Vec<_>>();
    let mut expected = fresh.to_vec();
    expected.sort();
    let mut found = top(&before);
    found.sort();
    assert_eq!(found, expected, "the three fresh memories rank first");
    assert_eq!(top(&before), top(&after));
    for ((_, uncommitted), (_, committed)) in before.iter().zip(&after).take(3) {
        assert!(
            (uncommitted - committed).abs() <= 0.1 * committed,
            "{uncommitted} vs {committed}"
        );
    }
}
