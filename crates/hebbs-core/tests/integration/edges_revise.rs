//! `add_edges` (both directions, all or nothing, typed errors) and `revise`/`lineage`
//! (supersession, recall filtering, inheritance, typed errors).

use hebbs_core::recall::{RecallRequest, Strategy};
use hebbs_core::{Edge, EdgeType, HebbsError, MemoryId, MemoryKind, RememberInput, RevisionInput};

use crate::common::{field_of, input, open, Rng};

const DIM: usize = 16;

#[test]
fn add_edges_stores_both_directions_and_rejects_bad_targets() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(3);
    let a = engine
        .remember(input("a", rng.vector(DIM), None, None))
        .unwrap();
    let b = engine
        .remember(input("b", rng.vector(DIM), None, None))
        .unwrap();
    let c = engine
        .remember(input("c", rng.vector(DIM), None, None))
        .unwrap();
    let edges = [
        Edge {
            target: b.id,
            edge_type: EdgeType::CausedBy,
            confidence: 0.9,
        },
        Edge::new(c.id, EdgeType::RelatedTo),
    ];
    engine.add_edges(&a.id, &edges).unwrap();
    let mut out = engine.edges_out(&a.id).unwrap();
    out.sort_by_key(|edge| edge.target);
    assert_eq!(out, edges.to_vec());
    let into_b = engine.edges_in(&b.id).unwrap();
    assert_eq!(into_b.len(), 1);
    assert_eq!(
        (into_b[0].target, into_b[0].edge_type, into_b[0].confidence),
        (a.id, EdgeType::CausedBy, 0.9)
    );
    assert_eq!(engine.edges_in(&c.id).unwrap()[0].target, a.id);

    let missing = MemoryId::new();
    let with_missing = [
        Edge::new(c.id, EdgeType::FollowedBy),
        Edge::new(missing, EdgeType::CausedBy),
    ];
    assert_eq!(
        field_of(engine.add_edges(&b.id, &with_missing).unwrap_err()),
        "edges[1].target"
    );
    assert!(
        engine.edges_out(&b.id).unwrap().is_empty(),
        "a rejected call writes no edge"
    );
    assert_eq!(
        field_of(
            engine
                .add_edges(&b.id, &[Edge::new(b.id, EdgeType::RelatedTo)])
                .unwrap_err()
        ),
        "edges[0].target"
    );
    let bad_confidence = Edge {
        confidence: 1.5,
        ..Edge::new(c.id, EdgeType::RelatedTo)
    };
    assert_eq!(
        field_of(engine.add_edges(&b.id, &[bad_confidence]).unwrap_err()),
        "edges[0].confidence"
    );
    assert!(matches!(
        engine.add_edges(&missing, &[Edge::new(a.id, EdgeType::RelatedTo)]),
        Err(HebbsError::NotFound { .. })
    ));
}

#[test]
fn remember_takes_episode_and_insight_kinds_but_not_revision() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(4);
    let insight = engine
        .remember(RememberInput {
            kind: MemoryKind::Insight,
            ..RememberInput::new("customers churn after price rises", rng.vector(DIM))
        })
        .unwrap();
    assert_eq!(
        engine.get(&insight.id, false).unwrap().kind,
        MemoryKind::Insight
    );
    let revision = RememberInput {
        kind: MemoryKind::Revision,
        ..RememberInput::new("sneaky", rng.vector(DIM))
    };
    assert_eq!(field_of(engine.remember(revision).unwrap_err()), "kind");
    assert_eq!(engine.health().memory_count, 1);
}

#[test]
fn revise_supersedes_and_recall_skips_superseded_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(5);
    let cue = rng.vector(DIM);
    let mut first_input = input("price is 10 dollars", cue.clone(), Some("acme"), None);
    first_input.importance = 0.3;
    first_input
        .context
        .insert("topic".into(), serde_json::json!("pricing"));
    let first = engine.remember(first_input).unwrap();
    let other = engine
        .remember(input("unrelated", rng.vector(DIM), Some("acme"), None))
        .unwrap();

    let second = engine
        .revise(
            &first.id,
            RevisionInput {
                importance: Some(0.9),
                ..RevisionInput::default()
            },
        )
        .unwrap();
    assert_eq!(second.kind, MemoryKind::Revision);
    assert_eq!(second.content, "price is 10 dollars", "content inherited");
    assert_eq!(second.context, first.context, "context inherited");
    assert_eq!(second.entity_id.as_deref(), Some("acme"));
    assert_eq!(second.importance, 0.9);
    assert_eq!(
        engine.edges_out(&second.id).unwrap(),
        vec![Edge::new(first.id, EdgeType::RevisedFrom)]
    );
    let third_vector = rng.vector(DIM);
    let third = engine
        .revise(
            &second.id,
            RevisionInput {
                content: Some("price is 12 dollars".into()),
                embedding: Some(third_vector.clone()),
                ..RevisionInput::default()
            },
        )
        .unwrap();
    assert_eq!(
        third.importance, 0.9,
        "importance inherited from the revision"
    );
    assert_eq!(engine.health().memory_count, 4);

    let ids = |request: &RecallRequest| -> Vec<MemoryId> {
        let mut ids: Vec<MemoryId> = engine
            .recall(request)
            .unwrap()
            .results
            .into_iter()
            .map(|result| result.memory.id)
            .collect();
        ids.sort();
        ids
    };
    let similar = RecallRequest {
        top_k: 10,
        ..RecallRequest::similarity(cue.clone())
    };
    let mut live = vec![other.id, third.id];
    live.sort();
    assert_eq!(
        ids(&similar),
        live,
        "superseded memories leave similarity recall"
    );
    let timeline = RecallRequest::temporal("acme");
    assert_eq!(ids(&timeline), live, "and temporal recall");
    let mut everything = vec![first.id, second.id, third.id, other.id];
    everything.sort();
    assert_eq!(
        ids(&RecallRequest {
            include_superseded: true,
            ..similar
        }),
        everything
    );
    assert_eq!(
        ids(&RecallRequest {
            include_superseded: true,
            strategies: vec![Strategy::Temporal.into()],
            ..timeline
        }),
        everything
    );

    let chain: Vec<MemoryId> = engine
        .lineage(&second.id)
        .unwrap()
        .into_iter()
        .map(|memory| memory.id)
        .collect();
    assert_eq!(chain, vec![first.id, second.id, third.id]);
    let flags: Vec<bool> = engine
        .lineage(&first.id)
        .unwrap()
        .iter()
        .map(|memory| memory.superseded)
        .collect();
    assert_eq!(flags, vec![true, true, false]);
    assert_eq!(engine.lineage(&other.id).unwrap().len(), 1);

    let count = engine.health().memory_count;
    let error = engine
        .revise(
            &first.id,
            RevisionInput {
                importance: Some(0.1),
                ..RevisionInput::default()
            },
        )
        .unwrap_err();
    match error {
        HebbsError::Conflict { field, reason } => {
            assert_eq!(field, "id");
            assert!(
                reason.contains(&second.id.to_hex()),
                "points at the newer one: {reason}"
            );
        }
        other => panic!("expected Conflict, got {other:?}"),
    }
    assert_eq!(engine.health().memory_count, count, "nothing written");
    assert_eq!(
        engine.lineage(&first.id).unwrap().len(),
        3,
        "no new revision"
    );
}

#[test]
fn revise_rejects_bad_input_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(6);
    let memory = engine
        .remember(input("base", rng.vector(DIM), None, None))
        .unwrap();
    let cases: Vec<(RevisionInput, &str)> = vec![
        (RevisionInput::default(), "content"),
        (
            RevisionInput {
                content: Some("new text".into()),
                ..RevisionInput::default()
            },
            "embedding",
        ),
        (
            RevisionInput {
                content: Some("  ".into()),
                embedding: Some(rng.vector(DIM)),
                ..RevisionInput::default()
            },
            "content",
        ),
        (
            RevisionInput {
                embedding: Some(vec![1.0; DIM + 1]),
                ..RevisionInput::default()
            },
            "embedding",
        ),
        (
            RevisionInput {
                importance: Some(f32::NAN),
                ..RevisionInput::default()
            },
            "importance",
        ),
        (
            RevisionInput {
                entity_id: Some(String::new()),
                ..RevisionInput::default()
            },
            "entity_id",
        ),
    ];
    for (revision, field) in cases {
        assert_eq!(
            field_of(engine.revise(&memory.id, revision).unwrap_err()),
            field
        );
    }
    assert!(matches!(
        engine.revise(
            &MemoryId::new(),
            RevisionInput {
                importance: Some(0.2),
                ..RevisionInput::default()
            }
        ),
        Err(HebbsError::NotFound { .. })
    ));
    assert_eq!(engine.health().memory_count, 1);
    assert!(engine.edges_in(&memory.id).unwrap().is_empty());
    assert_eq!(engine.lineage(&memory.id).unwrap().len(), 1);
}

#[test]
fn a_recall_after_a_revise_sees_the_rewritten_record_not_a_cached_one() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(11);
    let cue = rng.vector(DIM);
    let first = engine
        .remember(input("the door code is 1234", cue.clone(), None, None))
        .unwrap();
    let request = RecallRequest {
        include_superseded: true,
        ..RecallRequest::similarity(cue.clone())
    };
    let recalled = |engine: &hebbs_core::Engine| {
        engine
            .recall(&request)
            .unwrap()
            .results
            .into_iter()
            .find(|result| result.memory.id == first.id)
            .map(|result| result.memory)
    };
    for _ in 0..3 {
        assert!(!recalled(&engine).unwrap().superseded, "warms the caches");
    }
    engine
        .revise(
            &first.id,
            RevisionInput {
                content: Some("the door code is 9876".into()),
                embedding: Some(rng.vector(DIM)),
                ..RevisionInput::default()
            },
        )
        .unwrap();
    assert!(
        recalled(&engine).unwrap().superseded,
        "the superseded flag written by revise reaches recall"
    );
    engine
        .forget(&hebbs_core::ForgetRequest::ids(vec![first.id]))
        .unwrap();
    assert!(recalled(&engine).is_none(), "a forgotten memory is gone");
}
