//! Filtered reads on real stores: every recall strategy returns only what the filter selects,
//! and a similarity recall's top-k equals the brute-force filtered top-k, on the graph walk and
//! on the exact scan of a selective filter's memories alike; `prime`, `forget`, the paged
//! listing and `subscribe` take the same filter.

use hebbs_core::filter::{FilterView, EXACT_SCAN_MAX_MATCHES};
use hebbs_core::Strategy as RecallStrategy;
use hebbs_core::{Engine, Filter, Memory, MemoryId, RecallRequest, ScoringWeights};
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::common::{field_of, input, normalized, open, Rng};

const DIM: usize = 8;
const CHANNELS: [&str; 3] = ["email", "chat", "sms"];
const WORDS: [&str; 4] = ["invoice", "refund", "meeting", "launch"];

/// Remembers `n` memories with random vectors and a random context: `channel` (one of
/// [`CHANNELS`], or missing), `priority` (0..5, sometimes a string), `tags` (an array); the
/// rare channel `"pager"` for one memory in `rare_every`.
fn fill(engine: &Engine, rng: &mut Rng, n: usize, rare_every: u64) -> Vec<(Memory, Vec<f32>)> {
    let inputs = (0..n)
        .map(|i| {
            let vector = normalized(rng.vector(DIM));
            let mut context = serde_json::Map::new();
            let pick = rng.next_u64();
            if pick.is_multiple_of(rare_every) {
                context.insert("channel".into(), json!("pager"));
            } else if pick % 4 != 3 {
                context.insert("channel".into(), json!(CHANNELS[(pick % 4) as usize % 3]));
            }
            let priority = rng.next_u64() % 5;
            context.insert(
                "priority".into(),
                if priority == 4 {
                    json!("4")
                } else {
                    json!(priority)
                },
            );
            let tags: Vec<&str> = (0..rng.next_u64() % 3)
                .map(|_| WORDS[rng.next_u64() as usize % WORDS.len()])
                .collect();
            context.insert("tags".into(), json!(tags));
            context.insert(
                "ticket".into(),
                json!({"open": rng.next_u64().is_multiple_of(2)}),
            );
            let word = WORDS[rng.next_u64() as usize % WORDS.len()];
            let mut memory = input(
                &format!("{word} note {i}"),
                vector.clone(),
                Some(if i % 2 == 0 { "acme" } else { "globex" }),
                None,
            );
            memory.context = context;
            memory.importance = (rng.next_u64() % 11) as f32 / 10.0;
            (memory, vector)
        })
        .collect::<Vec<_>>();
    let vectors: Vec<Vec<f32>> = inputs.iter().map(|(_, vector)| vector.clone()).collect();
    let stored = engine
        .remember_many(inputs.into_iter().map(|(memory, _)| memory).collect())
        .unwrap();
    stored.into_iter().zip(vectors).collect()
}

fn selects(filter: &Filter, memory: &Memory) -> bool {
    filter.matches(&FilterView::of_memory(memory, None))
}

/// The `k` memories nearest `cue` among those `filter` selects, by brute force.
fn brute_force(
    memories: &[(Memory, Vec<f32>)],
    filter: &Filter,
    cue: &[f32],
    k: usize,
) -> Vec<MemoryId> {
    let mut scored: Vec<(f32, MemoryId)> = memories
        .iter()
        .filter(|(memory, _)| selects(filter, memory))
        .map(|(memory, vector)| {
            let cosine: f32 = vector.iter().zip(cue).map(|(a, b)| a * b).sum();
            (cosine, memory.id)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(k).map(|(_, id)| id).collect()
}

fn similarity(cue: Vec<f32>, filter: &Filter, k: usize) -> RecallRequest {
    RecallRequest {
        top_k: k,
        ef_search: Some(500),
        filter: Some(filter.clone()),
        scoring_weights: ScoringWeights {
            w_relevance: 1.0,
            w_recency: 0.0,
            w_importance: 0.0,
            w_reinforcement: 0.0,
            ..ScoringWeights::default()
        },
        ..RecallRequest::similarity(cue)
    }
}

fn ids(engine: &Engine, request: &RecallRequest) -> Vec<MemoryId> {
    engine
        .recall(request)
        .unwrap()
        .results
        .iter()
        .map(|result| result.memory.id)
        .collect()
}

fn condition() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0usize..4).prop_map(|c| {
            let channel = ["email", "chat", "sms", "pager"][c];
            json!({ "context.channel": channel })
        }),
        (0i64..5).prop_map(|p| json!({"context.priority": {"$gte": p}})),
        (0i64..5).prop_map(|p| json!({"context.priority": {"$lt": p}})),
        Just(json!({"context.priority": {"$in": ["4", 0]}})),
        (0usize..4).prop_map(|w| json!({"context.tags": {"$contains": WORDS[w]}})),
        Just(json!({"context.channel": {"$exists": false}})),
        Just(json!({"context.ticket.open": true})),
        Just(json!({"entity_id": "acme"})),
        (0i64..11).prop_map(|i| json!({"importance": {"$gte": i as f64 / 10.0}})),
    ]
}

fn random_filter() -> impl Strategy<Value = Value> {
    condition().prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 2..3).prop_map(|parts| json!({"$and": parts})),
            proptest::collection::vec(inner.clone(), 2..3).prop_map(|parts| json!({"$or": parts})),
            inner.prop_map(|part| json!({"$not": part})),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn similarity_finds_the_brute_force_filtered_top_k(
        seed in any::<u64>(),
        n in 20usize..200,
        filters in proptest::collection::vec(random_filter(), 4),
        k in 1usize..12,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let engine = open(dir.path());
        let mut rng = Rng(seed);
        let memories = fill(&engine, &mut rng, n, 50);
        for filter in filters {
            let filter = Filter::parse(&filter, "filter").unwrap();
            let cue = normalized(rng.vector(DIM));
            let got = ids(&engine, &similarity(cue.clone(), &filter, k));
            prop_assert_eq!(&got, &brute_force(&memories, &filter, &cue, k), "{:?}", filter);
        }
    }

    #[test]
    fn every_strategy_returns_only_what_the_filter_selects(
        seed in any::<u64>(),
        filter in random_filter(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let engine = open(dir.path());
        let mut rng = Rng(seed);
        let memories = fill(&engine, &mut rng, 120, 20);
        let filter = Filter::parse(&filter, "filter").unwrap();
        let selected = memories.iter().filter(|(memory, _)| selects(&filter, memory)).count();
        let cue = normalized(rng.vector(DIM));
        let strategies = [
            RecallStrategy::Similarity, RecallStrategy::Hybrid, RecallStrategy::Keyword,
            RecallStrategy::Temporal, RecallStrategy::Analogical, RecallStrategy::Regex,
        ];
        for strategy in strategies {
            let request = RecallRequest {
                cue_text: Some("invoice|refund".into()),
                entity_id: (strategy == RecallStrategy::Temporal).then(|| "acme".into()),
                top_k: 15,
                filter: Some(filter.clone()),
                ..RecallRequest::similarity(cue.clone()).with_strategies(&[strategy])
            };
            let output = engine.recall(&request).unwrap();
            for result in &output.results {
                prop_assert!(selects(&filter, &result.memory), "{strategy}: {:?}", result.memory.context);
            }
            if matches!(strategy, RecallStrategy::Similarity | RecallStrategy::Hybrid) {
                prop_assert_eq!(output.results.len(), selected.min(15), "{}", strategy);
            }
        }
    }
}

#[test]
fn a_selective_filter_is_scanned_exactly_and_a_broad_one_walks_the_graph() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(7);
    let memories = fill(&engine, &mut rng, 8000, 100);
    let rare = Filter::parse(&json!({"context.channel": "pager"}), "filter").unwrap();
    let broad = Filter::parse(
        &json!({"context.channel": {"$in": ["email", "chat", "sms"]}}),
        "filter",
    )
    .unwrap();
    let rare_count = memories.iter().filter(|(m, _)| selects(&rare, m)).count();
    let broad_count = memories.iter().filter(|(m, _)| selects(&broad, m)).count();
    assert!(rare_count > 10 && rare_count <= EXACT_SCAN_MAX_MATCHES);
    assert!(broad_count > EXACT_SCAN_MAX_MATCHES);
    for _ in 0..20 {
        let cue = normalized(rng.vector(DIM));
        for filter in [&rare, &broad] {
            let got = ids(&engine, &similarity(cue.clone(), filter, 10));
            assert_eq!(got, brute_force(&memories, filter, &cue, 10));
        }
    }
}

#[test]
fn forgotten_memories_leave_the_index_and_a_reopened_store_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(3);
    let (memories, gone) = {
        let engine = open(dir.path());
        let memories = fill(&engine, &mut rng, 300, 10);
        let rare = Filter::parse(&json!({"context.channel": "pager"}), "filter").unwrap();
        let gone: Vec<MemoryId> = memories
            .iter()
            .filter(|(m, _)| selects(&rare, m))
            .take(3)
            .map(|(m, _)| m.id)
            .collect();
        for id in &gone {
            engine
                .forget(&hebbs_core::ForgetRequest::ids(vec![*id]))
                .unwrap();
        }
        engine.close().unwrap();
        (memories, gone)
    };
    let engine = open(dir.path());
    let rare = Filter::parse(&json!({"context.channel": "pager"}), "filter").unwrap();
    let live: Vec<(Memory, Vec<f32>)> = memories
        .into_iter()
        .filter(|(m, _)| !gone.contains(&m.id))
        .collect();
    let cue = normalized(rng.vector(DIM));
    let got = ids(&engine, &similarity(cue.clone(), &rare, 50));
    assert_eq!(got, brute_force(&live, &rare, &cue, 50));
    assert!(got.iter().all(|id| !gone.contains(id)));
}

#[test]
fn a_bad_filter_is_an_error_naming_its_path() {
    let error = Filter::parse(
        &json!({"$and": [{"context.a": 1}, {"context.priority": {"$gte": null}}]}),
        "filter",
    )
    .unwrap_err();
    assert_eq!(field_of(error), "filter.$and[1].context.priority.$gte");
}

#[test]
fn prime_forget_listing_and_subscribe_take_the_filter() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(5);
    let memories = fill(&engine, &mut rng, 400, 10);
    let pager = Filter::parse(&json!({"context.channel": "pager"}), "filter").unwrap();
    let acme_pager: Vec<MemoryId> = memories
        .iter()
        .filter(|(m, _)| selects(&pager, m) && m.entity_id.as_deref() == Some("acme"))
        .map(|(m, _)| m.id)
        .collect();
    assert!(acme_pager.len() >= 3);

    let primed = engine
        .prime(&hebbs_core::recall::PrimeRequest {
            cue_vector: Some(normalized(rng.vector(DIM))),
            max_memories: 50,
            filter: Some(pager.clone()),
            ..hebbs_core::recall::PrimeRequest::new("acme")
        })
        .unwrap();
    let mut primed_ids: Vec<MemoryId> = primed.results.iter().map(|r| r.memory.id).collect();
    primed_ids.sort();
    let mut expected = acme_pager.clone();
    expected.sort();
    assert_eq!(primed_ids, expected);

    let mut listed = Vec::new();
    let mut cursor = None;
    loop {
        let page = engine
            .list_memories(&hebbs_core::ListRequest {
                cursor,
                limit: 7,
                filter: Some(pager.clone()),
                ..hebbs_core::ListRequest::default()
            })
            .unwrap();
        listed.extend(page.memories.iter().map(|m| m.id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let mut all_pager: Vec<MemoryId> = memories
        .iter()
        .filter(|(m, _)| selects(&pager, m))
        .map(|(m, _)| m.id)
        .collect();
    all_pager.sort();
    assert_eq!(listed, all_pager, "in id order, each once");

    let subscription = engine
        .subscribe(hebbs_core::SubscribeRequest {
            confidence_threshold: 0.0,
            filter: Some(pager.clone()),
            ..hebbs_core::SubscribeRequest::new(normalized(rng.vector(DIM)))
        })
        .unwrap();
    let mut email = input("an email", normalized(rng.vector(DIM)), None, None);
    email.context = serde_json::from_value(json!({"channel": "email"})).unwrap();
    let mut paged = input("a page", normalized(rng.vector(DIM)), None, None);
    paged.context = serde_json::from_value(json!({"channel": "pager"})).unwrap();
    engine.remember(email).unwrap();
    let paged = engine.remember(paged).unwrap();
    let push = subscription
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap();
    assert_eq!(push.memory.id, paged.id);

    let forgotten = engine
        .forget(&hebbs_core::ForgetRequest {
            entity_id: Some("acme".into()),
            filter: Some(pager.clone()),
            ..hebbs_core::ForgetRequest::default()
        })
        .unwrap();
    assert_eq!(forgotten.forgotten_count as usize, acme_pager.len());
    let everywhere = engine
        .forget(&hebbs_core::ForgetRequest {
            filter: Some(pager.clone()),
            ..hebbs_core::ForgetRequest::default()
        })
        .unwrap();
    assert_eq!(
        everywhere.forgotten_count as usize,
        all_pager.len() + 1 - acme_pager.len()
    );
    for (memory, _) in &memories {
        assert_eq!(
            engine.get(&memory.id, false).is_ok(),
            !selects(&pager, memory)
        );
    }
}

#[test]
fn a_write_between_two_filtered_recalls_is_seen_by_the_second() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(9);
    fill(&engine, &mut rng, 200, 1000);
    let pager = Filter::parse(&json!({"context.channel": "pager"}), "filter").unwrap();
    let cue = normalized(rng.vector(DIM));
    let before = ids(&engine, &similarity(cue.clone(), &pager, 10));
    let mut paged = input("a page", cue.clone(), None, None);
    paged.context = serde_json::from_value(json!({"channel": "pager"})).unwrap();
    let paged = engine.remember(paged).unwrap();
    let after = ids(&engine, &similarity(cue.clone(), &pager, 10));
    assert_eq!(after[0], paged.id);
    assert_eq!(after.len(), (before.len() + 1).min(10));
    engine
        .forget(&hebbs_core::ForgetRequest::ids(vec![paged.id]))
        .unwrap();
    assert_eq!(ids(&engine, &similarity(cue, &pager, 10)), before);
}

#[test]
fn a_selective_filter_the_index_cannot_plan_is_answered_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(21);
    let memories = fill(&engine, &mut rng, 8000, 2000);
    // The pager memories, named as "a channel, but none of the usual three": `$exists` finds
    // three quarters of the store (more than an exact scan takes, so the walk takes them
    // along), `$not` cannot be looked up, and a walk with ef 10 cannot find 10 of them (there
    // are fewer), so it gives up and scores the `$exists` set exactly, or sees every node:
    // either way the answer is exact.
    let rare = Filter::parse(
        &json!({"$and": [
            {"context.channel": {"$exists": true}},
            {"$not": {"context.channel": {"$in": ["email", "chat", "sms"]}}},
        ]}),
        "filter",
    )
    .unwrap();
    let chosen = memories.iter().filter(|(m, _)| selects(&rare, m)).count();
    assert!((1..10).contains(&chosen), "{chosen}");
    answers_exactly(&engine, &memories, &rare, 10, &mut rng);
}

/// Ten similarity recalls of random cues with `filter` at `ef_search` return the brute-force
/// filtered top 10.
fn answers_exactly(
    engine: &Engine,
    memories: &[(Memory, Vec<f32>)],
    filter: &Filter,
    ef_search: usize,
    rng: &mut Rng,
) {
    for _ in 0..10 {
        let cue = normalized(rng.vector(DIM));
        let request = RecallRequest {
            ef_search: Some(ef_search),
            ..similarity(cue.clone(), filter, 10)
        };
        assert_eq!(
            ids(engine, &request),
            brute_force(memories, filter, &cue, 10)
        );
    }
}

#[test]
fn a_planned_set_a_wide_walk_would_cross_slowly_is_scanned_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(22);
    let memories = fill(&engine, &mut rng, 8000, 2000);
    // `$exists` plans about 6,000 memories: more than the exact scan of a plan takes, but at
    // ef 500 a walk would expand more nodes than scoring them all (`scan_beats_walk`), so they
    // are scored exactly; at ef 10 the walk stays.
    let channel = Filter::parse(&json!({"context.channel": {"$exists": true}}), "filter").unwrap();
    let planned = memories
        .iter()
        .filter(|(m, _)| selects(&channel, m))
        .count();
    assert!(planned > EXACT_SCAN_MAX_MATCHES, "{planned}");
    assert!(hebbs_core::recall::scan_beats_walk(
        planned,
        500,
        memories.len()
    ));
    assert!(!hebbs_core::recall::scan_beats_walk(
        planned,
        10,
        memories.len()
    ));
    answers_exactly(&engine, &memories, &channel, 500, &mut rng);
}
