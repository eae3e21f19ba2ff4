//! `restore_many` / `restore_tombstones`: memories come back with their own ids, times, kinds,
//! superseded flags, access statistics and vectors (bit for bit when already unit length), are
//! recalled like remembered ones, reopen intact, and bad batches write nothing.

use hebbs_core::engine::RestoreInput;
use hebbs_core::memory::StoredMemory;
use hebbs_core::store::AccessStats;
use hebbs_core::{MemoryId, MemoryKind, RecallRequest, Tombstone};

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
        },
        embedding: normalized(rng.vector(DIM)),
        access: AccessStats {
            count: access_count,
            last_access_us: if access_count > 0 { 3_000_000 } else { 0 },
        },
    }
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
