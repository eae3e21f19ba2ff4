//! Caller keys: a key names one live memory, the newest; remembering under it again replaces
//! the memory (and every version of it) in one write; reads, forgets, listings and counts by
//! key; keys survive a reopen; a restore refuses a key that is taken; typed errors.

use hebbs_core::engine::{AtomicWrite, CountRequest, RestoreInput};
use hebbs_core::{
    EdgeType, Engine, ForgetRequest, HebbsError, ListRequest, MemoryId, RememberInput,
    RevisionInput,
};

use crate::common::{conflict_field_of, field_of, open, Rng};

const DIM: usize = 8;

fn keyed(content: &str, key: &str, rng: &mut Rng) -> RememberInput {
    RememberInput {
        key: Some(key.to_owned()),
        ..RememberInput::new(content, rng.vector(DIM))
    }
}

fn content_of(engine: &Engine, key: &str) -> Option<String> {
    engine.get_by_keys(&[key.to_owned()], false).unwrap()[0]
        .as_ref()
        .map(|memory| memory.content.clone())
}

fn listed_keys(engine: &Engine, prefix: &str) -> Vec<String> {
    let request = ListRequest {
        key_prefix: Some(prefix.to_owned()),
        limit: 2,
        ..ListRequest::default()
    };
    let mut keys = Vec::new();
    let mut request = request;
    loop {
        let page = engine.list_memories(&request).unwrap();
        keys.extend(page.memories.into_iter().filter_map(|memory| memory.key));
        match page.next_cursor {
            Some(cursor) => request.cursor = Some(cursor),
            None => return keys,
        }
    }
}

#[test]
fn remembering_under_a_key_again_replaces_the_memory() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(1);
    let first = engine
        .remember(keyed("first text", "doc/1", &mut rng))
        .unwrap();
    assert_eq!(first.key.as_deref(), Some("doc/1"));
    engine
        .remember(RememberInput::new("unkeyed", rng.vector(DIM)))
        .unwrap();
    let second = engine
        .remember(keyed("second text", "doc/1", &mut rng))
        .unwrap();
    assert_ne!(first.id, second.id);
    assert_eq!(content_of(&engine, "doc/1").as_deref(), Some("second text"));
    assert!(matches!(
        engine.get(&first.id, false),
        Err(HebbsError::NotFound { .. })
    ));
    assert_eq!(engine.health().memory_count, 2);
    assert!(engine.tombstone(&first.id).unwrap().is_some());
    assert_eq!(content_of(&engine, "doc/2"), None);
    drop(engine);
    let engine = open(dir.path());
    assert_eq!(content_of(&engine, "doc/1").as_deref(), Some("second text"));
    assert_eq!(
        engine.get(&second.id, false).unwrap().key.as_deref(),
        Some("doc/1")
    );
}

#[test]
fn a_revision_takes_the_key_and_replacing_it_erases_every_version() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(2);
    let original = engine.remember(keyed("v1", "k", &mut rng)).unwrap();
    let revision = engine
        .revise(
            &original.id,
            RevisionInput {
                importance: Some(0.9),
                ..RevisionInput::default()
            },
        )
        .unwrap();
    assert_eq!(revision.key.as_deref(), Some("k"));
    assert_eq!(engine.get(&original.id, false).unwrap().key, None);
    let got = engine.get_by_keys(&["k".to_owned()], false).unwrap();
    assert_eq!(got[0].as_ref().map(|memory| memory.id), Some(revision.id));
    engine.remember(keyed("v3", "k", &mut rng)).unwrap();
    for id in [original.id, revision.id] {
        assert!(matches!(
            engine.get(&id, false),
            Err(HebbsError::NotFound { .. })
        ));
    }
    assert_eq!(engine.health().memory_count, 1);
    assert_eq!(content_of(&engine, "k").as_deref(), Some("v3"));
}

#[test]
fn forget_by_key_lists_and_counts_by_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(3);
    let inputs: Vec<RememberInput> = ["a/1", "a/2", "a/3", "b/1", "a"]
        .iter()
        .map(|key| keyed(&format!("text of {key}"), key, &mut rng))
        .collect();
    engine.remember_many(inputs).unwrap();
    engine
        .remember(RememberInput::new("no key", rng.vector(DIM)))
        .unwrap();
    let mut under_a = listed_keys(&engine, "a/");
    under_a.sort();
    assert_eq!(under_a, ["a/1", "a/2", "a/3"]);
    assert_eq!(listed_keys(&engine, "").len(), 5);
    let count = |prefix: &str| {
        engine
            .count_memories(&CountRequest {
                key_prefix: Some(prefix.to_owned()),
                ..CountRequest::default()
            })
            .unwrap()
    };
    assert_eq!((count("a/"), count("a"), count("c")), (3, 4, 0));
    let result = engine
        .forget(&ForgetRequest {
            keys: Some(vec!["a/2".into(), "missing".into()]),
            ..ForgetRequest::default()
        })
        .unwrap();
    assert_eq!(result.forgotten_count, 1);
    assert_eq!(content_of(&engine, "a/2"), None);
    assert_eq!(count("a/"), 2);
    let got = engine
        .get_by_keys(&["a/3".into(), "a/2".into(), "a/1".into()], false)
        .unwrap();
    let contents: Vec<Option<&str>> = got
        .iter()
        .map(|memory| memory.as_ref().map(|memory| memory.content.as_str()))
        .collect();
    assert_eq!(contents, [Some("text of a/3"), None, Some("text of a/1")]);
}

#[test]
fn keys_are_checked_and_a_refused_write_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(4);
    engine.remember(keyed("kept", "k", &mut rng)).unwrap();
    let twice = vec![keyed("x", "dup", &mut rng), keyed("y", "dup", &mut rng)];
    assert_eq!(
        field_of(engine.remember_many(twice).unwrap_err()),
        "items[1].key"
    );
    assert_eq!(
        field_of(engine.remember(keyed("x", "", &mut rng)).unwrap_err()),
        "key"
    );
    let alone = vec![keyed("x", "", &mut rng)];
    assert_eq!(
        field_of(engine.remember_many(alone).unwrap_err()),
        "items[0].key"
    );
    let long = "k".repeat(hebbs_core::memory::MAX_KEY_BYTES + 1);
    assert_eq!(
        field_of(engine.remember(keyed("x", &long, &mut rng)).unwrap_err()),
        "key"
    );
    let mut wrong_dimension = keyed("replacement", "k", &mut rng);
    wrong_dimension.embedding = rng.vector(DIM + 1);
    assert_eq!(
        field_of(engine.remember(wrong_dimension).unwrap_err()),
        "embedding"
    );
    assert_eq!(content_of(&engine, "k").as_deref(), Some("kept"));
    assert_eq!(engine.health().memory_count, 1);
    assert_eq!(
        field_of(
            engine
                .get_by_keys(&["ok".into(), String::new()], false)
                .unwrap_err()
        ),
        "keys[1]"
    );
    let forget = ForgetRequest {
        keys: Some(vec![String::new()]),
        ..ForgetRequest::default()
    };
    assert_eq!(field_of(engine.forget(&forget).unwrap_err()), "keys[0]");
}

#[test]
fn an_atomic_write_replaces_by_key_and_a_restore_refuses_a_taken_key() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(5);
    let old = engine.remember(keyed("old", "k", &mut rng)).unwrap();
    let linked = RememberInput {
        edges: vec![hebbs_core::Edge::new(old.id, EdgeType::FollowedBy)],
        ..keyed("linked", "k", &mut rng)
    };
    let write = AtomicWrite {
        items: vec![linked],
        ..AtomicWrite::default()
    };
    assert_eq!(
        field_of(engine.write_atomic(write).unwrap_err()),
        "items[0].edges[0].target"
    );
    let write = AtomicWrite {
        items: vec![keyed("new", "k", &mut rng)],
        ..AtomicWrite::default()
    };
    engine.write_atomic(write).unwrap();
    assert_eq!(content_of(&engine, "k").as_deref(), Some("new"));
    let taken = engine
        .get_by_keys(&["k".into()], true)
        .unwrap()
        .remove(0)
        .unwrap();
    let restore = RestoreInput {
        id: MemoryId::new(),
        embedding: taken.embedding.clone().unwrap(),
        ..restore_input_of(&engine, &taken.id)
    };
    assert_eq!(
        conflict_field_of(engine.restore_many(vec![restore]).unwrap_err()),
        "items[0].key"
    );
}

fn restore_input_of(engine: &Engine, id: &MemoryId) -> RestoreInput {
    let memory = engine.get(id, true).unwrap();
    RestoreInput {
        id: *id,
        record: hebbs_core::memory::StoredMemory {
            kind: memory.kind,
            importance: memory.importance,
            created_at: memory.created_at,
            updated_at: memory.updated_at,
            entity_id: memory.entity_id,
            content: memory.content,
            context: memory.context,
            superseded: memory.superseded,
            key: memory.key,
        },
        embedding: memory.embedding.unwrap(),
        access: Default::default(),
        conversation: None,
        token_vectors: None,
    }
}

#[test]
fn the_filter_reads_keys_and_plans_them_from_the_key_index() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(6);
    let mut inputs: Vec<RememberInput> = (0..40)
        .map(|i| {
            keyed(
                &format!("note {i}"),
                &format!("ns{}/{i:02}", i % 3),
                &mut rng,
            )
        })
        .collect();
    inputs.push(RememberInput::new("unkeyed", rng.vector(DIM)));
    engine.remember_many(inputs).unwrap();
    let cue = rng.vector(DIM);
    let recalled = |filter: serde_json::Value| -> Vec<String> {
        let filter = hebbs_core::Filter::parse(&filter, "filter").unwrap();
        let request = hebbs_core::RecallRequest {
            top_k: 50,
            filter: Some(filter),
            ..hebbs_core::RecallRequest::similarity(cue.clone())
        };
        let mut keys: Vec<String> = engine
            .recall(&request)
            .unwrap()
            .results
            .into_iter()
            .map(|result| result.memory.key.unwrap_or_else(|| "-".into()))
            .collect();
        keys.sort();
        keys
    };
    let under_ns1 = recalled(serde_json::json!({"key": {"$gte": "ns1/", "$lt": "ns10"}}));
    assert_eq!(under_ns1.len(), 13);
    assert!(under_ns1.iter().all(|key| key.starts_with("ns1/")));
    assert_eq!(
        recalled(serde_json::json!({"key": {"$in": ["ns0/00", "ns2/02", "none"]}})),
        ["ns0/00", "ns2/02"]
    );
    assert_eq!(
        recalled(serde_json::json!({"key": {"$exists": false}})),
        ["-"]
    );
    assert_eq!(
        recalled(serde_json::json!({"key": {"$gt": "ns2/35"}})),
        ["ns2/38"]
    );
    let plan = |filter: serde_json::Value| {
        let filter = hebbs_core::Filter::parse(&filter, "filter").unwrap();
        let page = engine
            .list_memories(&ListRequest {
                filter: Some(filter),
                ..ListRequest::default()
            })
            .unwrap();
        page.memories.len()
    };
    assert_eq!(plan(serde_json::json!({"key": "ns0/03"})), 1);
    assert_eq!(plan(serde_json::json!({"key": {"$exists": true}})), 40);
    assert_eq!(plan(serde_json::json!({"key": {"$lte": "ns0/03"}})), 2);
}
