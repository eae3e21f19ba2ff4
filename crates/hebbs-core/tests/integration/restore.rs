//! `restore_many` / `restore_tombstones`: memories come back with their own ids, times, kinds,
//! superseded flags, access statistics, vectors (bit for bit when already unit length),
//! conversations and token vectors, are recalled like remembered ones, reopen intact, and bad
//! batches write nothing.

use hebbs_core::engine::RestoreInput;
use hebbs_core::memory::StoredMemory;
use hebbs_core::store::{AccessStats, ConversationTurn};
use hebbs_core::{MemoryId, MemoryKind, RecallRequest, TokenVectors, Tombstone};

use crate::common::{conflict_field_of, field_of, normalized, open, Rng};

const DIM: usize = 8;

fn restored(rng: &mut Rng, content: &str, access_count: u64) -> RestoreInput {
    RestoreInput {
        id: MemoryId::new(),
        record: StoredMemory {
            kind: MemoryKind::Revision,
            importance: 0.7,
            created_at: 1_000_000,
            updated_at: 2_000_000,
            entity_id: Some("acme".into()),
            content: content.into(),
            context: serde_json::json!({"k": [1, 2]})
                .as_object()
                .unwrap()
                .clone(),
            superseded: true,
            key: None,
        },
        embedding: normalized(rng.vector(DIM)),
        access: AccessStats {
            count: access_count,
            last_access_us: if access_count > 0 { 3_000_000 } else { 0 },
        },
        conversation: None,
        token_vectors: None,
    }
}

#[test]
fn restored_conversations_keep_their_order_and_token_vectors_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(5);
    let mut inputs: Vec<RestoreInput> = (0..4)
        .map(|i| {
            let mut input = restored(&mut rng, &format!("turn {i}"), 0);
            input.record.created_at = 1_000_000 + [30, 10, 20, 10][i];
            input.record.updated_at = input.record.created_at;
            input.conversation = Some(ConversationTurn {
                session_id: if i == 3 { "other" } else { "chat" }.into(),
                at: input.record.created_at,
            });
            input.token_vectors = Some(TokenVectors {
                dimension: 2,
                codes: vec![i as i8, -1, 3, 4],
                scales: vec![0.5, 0.25],
            });
            input
        })
        .collect();
    inputs.push(restored(&mut rng, "alone", 0));
    let ids: Vec<MemoryId> = inputs.iter().map(|input| input.id).collect();
    {
        let engine = open(dir.path());
        engine.restore_many(inputs.clone()).unwrap();
        engine.close().unwrap();
    }
    let engine = open(dir.path());
    assert_eq!(
        engine.conversation("chat", 10).unwrap(),
        vec![ids[1], ids[2], ids[0]]
    );
    assert_eq!(engine.conversation("other", 10).unwrap(), vec![ids[3]]);
    let turns = engine.conversation_turns(&ids).unwrap();
    let expected: Vec<Option<ConversationTurn>> = inputs
        .iter()
        .map(|input| input.conversation.clone())
        .collect();
    assert_eq!(turns, expected);
    let stored = engine.get_token_vectors(&ids).unwrap();
    for (input, stored) in inputs.iter().zip(stored) {
        assert_eq!(stored, input.token_vectors);
    }
    let mut bad = restored(&mut rng, "bad", 0);
    bad.conversation = Some(ConversationTurn {
        session_id: "a\u{0}b".into(),
        at: 0,
    });
    assert_eq!(
        field_of(engine.restore_many(vec![bad]).unwrap_err()),
        "items[0].session_id"
    );
    let mut bad = restored(&mut rng, "bad", 0);
    bad.token_vectors = Some(TokenVectors {
        dimension: 2,
        codes: vec![1, 2, 3],
        scales: vec![1.0],
    });
    assert!(
        field_of(engine.restore_many(vec![bad]).unwrap_err()).starts_with("items[0].token_vectors")
    );
    assert_eq!(engine.health().memory_count, 5);
}

#[test]
fn restored_memories_keep_every_field_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(7);
    let inputs = vec![
        restored(&mut rng, "first", 4),
        restored(&mut rng, "second", 0),
    ];
    {
        let engine = open(dir.path());
        engine.restore_many(inputs.clone()).unwrap();
        let vector = inputs[0].embedding.clone();
        let found = engine
            .recall(&RecallRequest {
                include_superseded: true,
                top_k: 1,
                ..RecallRequest::similarity(vector)
            })
            .unwrap();
        assert_eq!(found.results[0].memory.id, inputs[0].id);
        engine.close().unwrap();
    }
    let engine = open(dir.path());
    for input in &inputs {
        let memory = engine.get(&input.id, true).unwrap();
        assert_eq!(memory.content, input.record.content);
        assert_eq!(memory.kind, MemoryKind::Revision);
        assert!(memory.superseded);
        assert_eq!(
            (memory.created_at, memory.updated_at),
            (1_000_000, 2_000_000)
        );
        assert_eq!(memory.context, input.record.context);
        assert_eq!(
            memory.embedding.as_deref(),
            Some(input.embedding.as_slice())
        );
    }
    let first = engine.get(&inputs[0].id, false).unwrap();
    assert_eq!(first.access_count, 5);
    assert!(first.last_accessed_at > 3_000_000);
    let second = engine.get(&inputs[1].id, false).unwrap();
    assert_eq!(
        (second.access_count, second.last_accessed_at),
        (0, 1_000_000)
    );
    assert_eq!(engine.health().memory_count, 2);
}

#[test]
fn a_bad_batch_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(9);
    let good = restored(&mut rng, "kept", 0);
    engine.restore_many(vec![good.clone()]).unwrap();
    let mut empty = restored(&mut rng, "x", 0);
    empty.record.content = " ".into();
    let fresh = restored(&mut rng, "fresh", 0);
    let cases = [
        (vec![fresh.clone(), empty], "items[1].content"),
        (vec![fresh.clone(), fresh.clone()], "items[1].id"),
    ];
    for (batch, field) in cases {
        assert_eq!(field_of(engine.restore_many(batch).unwrap_err()), field);
    }
    let mut changed = good.clone();
    changed.record.content = "different content under a stored id".into();
    for existing in [good.clone(), changed] {
        let batch = vec![fresh.clone(), existing];
        let error = engine.restore_many(batch).unwrap_err();
        assert_eq!(conflict_field_of(error), "items[1].id");
    }
    assert_eq!(engine.get(&good.id, false).unwrap().content, "kept");
    let mut short = restored(&mut rng, "short", 0);
    short.embedding.truncate(4);
    assert_eq!(
        field_of(engine.restore_many(vec![short]).unwrap_err()),
        "items[0].embedding"
    );
    assert_eq!(engine.health().memory_count, 1);
    assert!(engine.get(&fresh.id, false).is_err());
}

#[test]
fn tombstones_come_back_but_never_over_a_memory() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(11);
    let memory = restored(&mut rng, "alive", 0);
    engine.restore_many(vec![memory.clone()]).unwrap();
    let tombstone = Tombstone {
        id: MemoryId::new(),
        entity_id: Some("acme".into()),
        kind: MemoryKind::Episode,
        created_at: 5,
        forgotten_at: 6,
        content_sha256: [7; 32],
    };
    engine
        .restore_tombstones(std::slice::from_ref(&tombstone))
        .unwrap();
    assert_eq!(
        engine.tombstone(&tombstone.id).unwrap(),
        Some(tombstone.clone())
    );
    let over = Tombstone {
        id: memory.id,
        ..tombstone
    };
    assert_eq!(
        conflict_field_of(engine.restore_tombstones(&[over]).unwrap_err()),
        "items[0].id"
    );
    assert!(engine.get(&memory.id, false).is_ok(), "the memory stays");
    assert_eq!(engine.tombstone(&memory.id).unwrap(), None, "no tombstone");
}
