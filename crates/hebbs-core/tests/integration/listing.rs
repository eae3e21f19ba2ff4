//! `list_memories`: pages cover a listing exactly once in its order (ids without an entity,
//! `created_at` with one), cursors survive forgets, kind and supersession filters, the scan
//! budget, access counts left alone, typed errors; and a proptest against a naive filter of
//! every memory, which `count_memories` must count too.

use std::collections::HashSet;

use hebbs_core::engine::{CountRequest, COUNT_BATCH, LIST_SCAN_MAX, MAX_LIST_PAGE};
use hebbs_core::{
    Engine, Filter, ForgetRequest, ListRequest, Memory, MemoryId, MemoryKind, MemoryPage,
    RecallRequest, RememberInput, RevisionInput,
};
use proptest::prelude::*;

use crate::common::{field_of, input, open, Rng};

const DIM: usize = 8;
const DAY_US: u64 = 86_400_000_000;

/// Every page of `request`, following cursors; asserts no page is longer than its limit.
fn all_pages(engine: &Engine, request: &ListRequest) -> Vec<MemoryPage> {
    let mut pages = Vec::new();
    let mut request = request.clone();
    loop {
        let page = engine.list_memories(&request).unwrap();
        assert!(page.memories.len() <= request.limit);
        let next = page.next_cursor;
        pages.push(page);
        match next {
            Some(cursor) => request.cursor = Some(cursor),
            None => return pages,
        }
    }
}

fn listed_ids(engine: &Engine, request: &ListRequest) -> Vec<MemoryId> {
    all_pages(engine, request)
        .into_iter()
        .flat_map(|page| page.memories)
        .map(|memory| memory.id)
        .collect()
}

fn entity_request(entity: &str, limit: usize) -> ListRequest {
    ListRequest {
        entity_id: Some(entity.into()),
        limit,
        ..ListRequest::default()
    }
}

/// 60 memories over entities `a`, `b` and none, every third an insight, with `created_at`s that
/// run backwards in time so an entity's timeline order differs from id order.
fn seed(engine: &Engine, rng: &mut Rng) -> Vec<Memory> {
    let start = hebbs_core::engine::now_us() - DAY_US;
    let inputs = (0..60u64)
        .map(|i| {
            let entity = [Some("a"), Some("b"), None][(i % 3) as usize];
            let mut input = input(
                &format!("memory {i}"),
                rng.vector(DIM),
                entity,
                Some(start - i * 1_000),
            );
            if i % 4 == 0 {
                input.kind = MemoryKind::Insight;
            }
            input
        })
        .collect();
    engine.remember_many(inputs).unwrap()
}

#[test]
fn pages_cover_every_memory_once_in_id_order() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let stored = seed(&engine, &mut Rng(1));
    let mut expected: Vec<MemoryId> = stored.iter().map(|m| m.id).collect();
    expected.sort();
    for limit in [1, 7, 60, MAX_LIST_PAGE] {
        let request = ListRequest {
            limit,
            ..ListRequest::default()
        };
        let pages = all_pages(&engine, &request);
        assert_eq!(pages.len(), 60_usize.div_ceil(limit), "limit {limit}");
        let ids: Vec<MemoryId> = pages
            .iter()
            .flat_map(|p| &p.memories)
            .map(|m| m.id)
            .collect();
        assert_eq!(ids, expected, "limit {limit}");
    }
    let first = engine.list_memories(&ListRequest::default()).unwrap();
    assert_eq!(first.next_cursor, None, "60 memories fit one default page");
    assert_eq!(first.memories[0].content, stored[0].content);
    assert!(first.memories.iter().all(|m| m.embedding.is_none()));
}

#[test]
fn entity_listing_follows_the_timeline_and_kind_filters() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let stored = seed(&engine, &mut Rng(2));
    let mut of_a: Vec<&Memory> = stored
        .iter()
        .filter(|m| m.entity_id.as_deref() == Some("a"))
        .collect();
    of_a.sort_by_key(|m| (m.created_at, m.id));
    let expected: Vec<MemoryId> = of_a.iter().map(|m| m.id).collect();
    assert_eq!(listed_ids(&engine, &entity_request("a", 3)), expected);
    assert_ne!(
        expected.first(),
        stored
            .iter()
            .find(|m| m.entity_id.as_deref() == Some("a"))
            .map(|m| &m.id),
        "timeline order (created_at) is not id order here"
    );

    let insights_of_a = ListRequest {
        kind: Some(MemoryKind::Insight),
        ..entity_request("a", 2)
    };
    let expected: Vec<MemoryId> = of_a
        .iter()
        .filter(|m| m.kind == MemoryKind::Insight)
        .map(|m| m.id)
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(listed_ids(&engine, &insights_of_a), expected);

    let episodes = ListRequest {
        kind: Some(MemoryKind::Episode),
        limit: 5,
        ..ListRequest::default()
    };
    let listed = all_pages(&engine, &episodes);
    let memories: Vec<&Memory> = listed.iter().flat_map(|p| &p.memories).collect();
    assert_eq!(
        memories.len(),
        stored
            .iter()
            .filter(|m| m.kind == MemoryKind::Episode)
            .count()
    );
    assert!(memories.iter().all(|m| m.kind == MemoryKind::Episode));
    assert!(listed_ids(&engine, &entity_request("nobody", 10)).is_empty());
}

#[test]
fn superseded_revisions_are_listed_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(3);
    let old = engine
        .remember(input("old", rng.vector(DIM), Some("e"), None))
        .unwrap();
    let revision = engine
        .revise(
            &old.id,
            RevisionInput {
                importance: Some(0.9),
                ..RevisionInput::default()
            },
        )
        .unwrap();
    assert_eq!(
        listed_ids(&engine, &ListRequest::default()),
        vec![revision.id]
    );
    assert_eq!(
        listed_ids(&engine, &entity_request("e", 5)),
        vec![revision.id]
    );
    let everything = ListRequest {
        include_superseded: true,
        ..entity_request("e", 5)
    };
    let listed = all_pages(&engine, &everything).remove(0).memories;
    assert_eq!(
        listed
            .iter()
            .map(|m| (m.id, m.superseded))
            .collect::<Vec<_>>(),
        vec![(old.id, true), (revision.id, false)]
    );
    let revisions = ListRequest {
        kind: Some(MemoryKind::Revision),
        include_superseded: true,
        ..ListRequest::default()
    };
    assert_eq!(listed_ids(&engine, &revisions), vec![revision.id]);
}

#[test]
fn a_listing_leaves_access_counts_alone() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(4);
    let vector = rng.vector(DIM);
    let memory = engine
        .remember(input("m", vector.clone(), None, None))
        .unwrap();
    engine.recall(&RecallRequest::similarity(vector)).unwrap();
    for _ in 0..3 {
        let page = engine.list_memories(&ListRequest::default()).unwrap();
        assert_eq!(
            page.memories[0].access_count, 1,
            "the recall's access shows"
        );
    }
    assert_eq!(engine.get(&memory.id, false).unwrap().access_count, 1);
}

#[test]
fn cursors_survive_forgetting_the_cursor_memory() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let stored = seed(&engine, &mut Rng(5));
    for request in [
        ListRequest {
            limit: 4,
            ..ListRequest::default()
        },
        entity_request("b", 4),
    ] {
        let expected = listed_ids(&engine, &request);
        let first = engine.list_memories(&request).unwrap();
        let cursor = first.next_cursor.unwrap();
        assert_eq!(cursor, first.memories[3].id);
        engine.forget(&ForgetRequest::ids(vec![cursor])).unwrap();
        let rest = listed_ids(
            &engine,
            &ListRequest {
                cursor: Some(cursor),
                ..request.clone()
            },
        );
        assert_eq!(rest, expected[4..].to_vec());
    }
    assert_eq!(stored.len(), 60);
}

#[test]
fn a_rare_kind_ends_a_page_early_at_the_scan_budget() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(6);
    let mut inputs: Vec<RememberInput> = (0..LIST_SCAN_MAX)
        .map(|i| input(&format!("e{i}"), rng.vector(DIM), None, None))
        .collect();
    let mut insight = input("the insight", rng.vector(DIM), None, None);
    insight.kind = MemoryKind::Insight;
    inputs.push(insight);
    let stored = engine.remember_many(inputs).unwrap();
    let request = ListRequest {
        kind: Some(MemoryKind::Insight),
        ..ListRequest::default()
    };
    let first = engine.list_memories(&request).unwrap();
    assert!(first.memories.is_empty());
    let cursor = first
        .next_cursor
        .expect("the budget ran out before the end");
    let second = engine
        .list_memories(&ListRequest {
            cursor: Some(cursor),
            ..request
        })
        .unwrap();
    assert_eq!(second.memories.len(), 1);
    assert_eq!(second.memories[0].id, stored[LIST_SCAN_MAX].id);
    assert_eq!(second.next_cursor, None);
}

#[test]
fn bad_requests_name_their_field_and_closed_engines_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(7);
    let of_a = engine
        .remember(input("a", rng.vector(DIM), Some("a"), None))
        .unwrap();
    let of_none = engine
        .remember(input("n", rng.vector(DIM), None, None))
        .unwrap();
    let cases = [
        (
            ListRequest {
                limit: 0,
                ..ListRequest::default()
            },
            "limit",
        ),
        (
            ListRequest {
                limit: MAX_LIST_PAGE + 1,
                ..ListRequest::default()
            },
            "limit",
        ),
        (entity_request("", 5), "entity_id"),
        (entity_request("bad\u{7}", 5), "entity_id"),
        (entity_request(&"x".repeat(300), 5), "entity_id"),
        (
            ListRequest {
                cursor: Some(MemoryId::new()),
                ..entity_request("a", 5)
            },
            "cursor",
        ),
        (
            ListRequest {
                cursor: Some(of_none.id),
                ..entity_request("a", 5)
            },
            "cursor",
        ),
    ];
    for (request, field) in cases {
        assert_eq!(
            field_of(engine.list_memories(&request).unwrap_err()),
            field,
            "{request:?}"
        );
    }
    let unknown_position = ListRequest {
        cursor: Some(MemoryId::new()),
        ..ListRequest::default()
    };
    assert!(
        engine
            .list_memories(&unknown_position)
            .unwrap()
            .memories
            .is_empty(),
        "without an entity any id is a position: a fresh id sorts after every memory"
    );
    assert_eq!(listed_ids(&engine, &entity_request("a", 1)), vec![of_a.id]);
    engine.close().unwrap();
    assert!(matches!(
        engine.list_memories(&ListRequest::default()),
        Err(hebbs_core::HebbsError::Closed)
    ));
}

/// One step of the proptest: remember (entity 0..3 or none, insight or not, created_at offset),
/// revise the n-th live memory, or forget it.
#[derive(Clone, Debug)]
enum Op {
    Remember(Option<u8>, bool, u32),
    Revise(usize),
    Forget(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (proptest::option::of(0u8..3), any::<bool>(), 0u32..1000)
            .prop_map(|(e, insight, t)| Op::Remember(e, insight, t)),
        1 => (0usize..64).prop_map(Op::Revise),
        1 => (0usize..64).prop_map(Op::Forget),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn paging_equals_a_naive_filter_of_every_memory(
        ops in proptest::collection::vec(op(), 1..40),
        entity in proptest::option::of(0u8..3),
        kind in proptest::option::of(0usize..3),
        include_superseded in any::<bool>(),
        limit in 1usize..6,
        key_prefix in proptest::option::of(prop_oneof![Just(""), Just("k0/"), Just("k1")]),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let engine = open(dir.path());
        let mut rng = Rng(8);
        let start = hebbs_core::engine::now_us() - DAY_US;
        let mut ids: Vec<MemoryId> = Vec::new();
        for op in ops {
            match op {
                Op::Remember(e, insight, t) => {
                    let name = e.map(|e| format!("e{e}"));
                    let mut input = input("m", rng.vector(DIM), name.as_deref(), Some(start + u64::from(t)));
                    if insight { input.kind = MemoryKind::Insight; }
                    // Every third memory is keyed, and keys repeat: a repeat replaces.
                    input.key = (t % 3 == 0).then(|| format!("k{}/{}", t % 2, t % 7));
                    ids.push(engine.remember(input).unwrap().id);
                    ids.retain(|other| engine.get(other, false).is_ok());
                }
                Op::Revise(n) if !ids.is_empty() => {
                    let id = ids[n % ids.len()];
                    if let Ok(revision) = engine.revise(&id, RevisionInput { importance: Some(0.7), ..RevisionInput::default() }) {
                        ids.push(revision.id);
                    }
                }
                Op::Forget(n) if !ids.is_empty() => {
                    let id = ids.remove(n % ids.len());
                    engine.forget(&ForgetRequest::ids(vec![id])).unwrap();
                    ids.retain(|other| engine.get(other, false).is_ok());
                }
                _ => {}
            }
        }
        let request = ListRequest {
            entity_id: entity.map(|e| format!("e{e}")),
            kind: kind.map(|k| MemoryKind::ALL[k]),
            cursor: None,
            limit,
            include_superseded,
            filter: None,
            key_prefix: key_prefix.map(str::to_owned),
        };
        let mut naive: Vec<Memory> = ids
            .iter()
            .map(|id| engine.get(id, false).unwrap())
            .filter(|m| request.entity_id.is_none() || m.entity_id == request.entity_id)
            .filter(|m| request.kind.is_none_or(|kind| m.kind == kind))
            .filter(|m| include_superseded || !m.superseded)
            .filter(|m| key_prefix.is_none_or(|prefix| m.key.as_deref().is_some_and(|key| key.starts_with(prefix))))
            .collect();
        if request.entity_id.is_some() && key_prefix.is_none() {
            naive.sort_by_key(|m| (m.created_at, m.id));
        } else {
            naive.sort_by_key(|m| m.id);
        }
        let listed = listed_ids(&engine, &request);
        prop_assert_eq!(listed.iter().collect::<HashSet<_>>().len(), listed.len(), "no memory twice");
        prop_assert_eq!(listed, naive.iter().map(|m| m.id).collect::<Vec<_>>());
        let counted = engine.count_memories(&CountRequest {
            entity_id: request.entity_id.clone(),
            kind: request.kind,
            include_superseded,
            filter: None,
            key_prefix: request.key_prefix.clone(),
        }).unwrap();
        prop_assert_eq!(counted, naive.len() as u64);
    }
}

#[test]
fn a_filtered_count_equals_the_filtered_listing_across_batches() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(11);
    let total = COUNT_BATCH * 2 + 300;
    let inputs = (0..total)
        .map(|i| {
            let entity = if i % 2 == 0 { Some("even") } else { None };
            let mut input = input(&format!("memory {i}"), rng.vector(DIM), entity, None);
            input.context = serde_json::json!({"n": i % 7}).as_object().unwrap().clone();
            input
        })
        .collect();
    engine.remember_many(inputs).unwrap();
    let filter = Filter::parse(&serde_json::json!({"context.n": 3}), "filter").unwrap();
    for entity_id in [None, Some("even".to_string())] {
        let listed = listed_ids(
            &engine,
            &ListRequest {
                entity_id: entity_id.clone(),
                limit: MAX_LIST_PAGE,
                filter: Some(filter.clone()),
                ..ListRequest::default()
            },
        );
        let counted = engine
            .count_memories(&CountRequest {
                entity_id: entity_id.clone(),
                filter: Some(filter.clone()),
                ..CountRequest::default()
            })
            .unwrap();
        assert_eq!(counted, listed.len() as u64);
        let expected = (0..total)
            .filter(|i| i % 7 == 3 && (entity_id.is_none() || i % 2 == 0))
            .count();
        assert_eq!(counted, expected as u64);
    }
    let everything = engine.count_memories(&CountRequest::default()).unwrap();
    assert_eq!(everything, total as u64);
    let error = engine
        .count_memories(&CountRequest {
            entity_id: Some(String::new()),
            ..CountRequest::default()
        })
        .unwrap_err();
    assert_eq!(field_of(error), "entity_id");
}
