//! The filter language: what each operator selects, the errors' paths, and the round trip
//! through [`Filter::to_json`].

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::{Field, Filter, FilterView, Op};
use crate::error::HebbsError;
use crate::memory::MemoryKind;

fn view(context: &Map<String, Value>) -> FilterView<'_> {
    FilterView {
        kind: MemoryKind::Episode,
        entity_id: Some("acme"),
        session_id: Some("chat-1"),
        created_at: 1_700_000_000_000_000,
        importance: 0.7,
        context,
        key: Some("notes/acme/1"),
    }
}

fn selects(filter: Value, context: Value) -> bool {
    let context: Map<String, Value> = serde_json::from_value(context).unwrap();
    Filter::parse(&filter, "filter")
        .unwrap()
        .matches(&view(&context))
}

fn error_field(filter: Value) -> String {
    match Filter::parse(&filter, "filter") {
        Err(HebbsError::InvalidInput { field, .. }) => field,
        other => panic!("expected an invalid-input error, got {other:?}"),
    }
}

#[test]
fn each_operator_selects_what_the_docs_say() {
    let ctx = json!({"channel": "email", "priority": 2, "tags": ["billing", "urgent"],
                     "ticket": {"state": "open"}, "note": null, "ratio": 0.5});
    let cases = [
        (json!({"context.channel": "email"}), true),
        (json!({"context.channel": {"$eq": "chat"}}), false),
        (json!({"context.priority": 2.0}), true),
        (json!({"context.priority": "2"}), false),
        (json!({"context.priority": {"$gte": 2, "$lt": 3}}), true),
        (json!({"context.priority": {"$gt": 2}}), false),
        (json!({"context.priority": {"$gt": "1"}}), false),
        (json!({"context.channel": {"$lt": "f"}}), true),
        (json!({"context.ticket.state": "open"}), true),
        (json!({"context.ticket.missing": {"$ne": "x"}}), true),
        (json!({"context.missing": {"$nin": [1]}}), true),
        (json!({"context.missing": {"$in": [1]}}), false),
        (json!({"context.missing": {"$exists": false}}), true),
        (json!({"context.note": {"$exists": true}}), true),
        (json!({"context.tags": {"$contains": "urgent"}}), true),
        (json!({"context.channel": {"$contains": "mai"}}), true),
        (json!({"context.priority": {"$in": [1, 2]}}), true),
        (json!({"context.tags": ["billing", "urgent"]}), true),
        (json!({"key": "notes/acme/1"}), true),
        (json!({"key": {"$gte": "notes/", "$lt": "notes0"}}), true),
        (json!({"key": {"$gte": "notes/b", "$lt": "notes0"}}), false),
        (json!({"key": {"$in": ["x", "notes/acme/1"]}}), true),
        (json!({"key": {"$exists": false}}), false),
        (
            json!({"kind": "episode", "entity_id": "acme", "session_id": "chat-1"}),
            true,
        ),
        (json!({"kind": {"$in": ["insight", "document"]}}), false),
        (json!({"importance": {"$gte": 0.7}}), true),
        (
            json!({"created_at": {"$lt": 1_700_000_000_000_000u64}}),
            false,
        ),
        (
            json!({"$or": [{"context.channel": "chat"}, {"context.ratio": 0.5}]}),
            true,
        ),
        (json!({"$not": {"context.channel": "email"}}), false),
        (
            json!({"$and": [{"context.priority": {"$lte": 2}}, {"$not": {"context.tags": {"$contains": "spam"}}}]}),
            true,
        ),
        (json!({}), true),
    ];
    for (filter, expected) in cases {
        assert_eq!(selects(filter.clone(), ctx.clone()), expected, "{filter}");
    }
}

#[test]
fn a_bad_filter_names_its_path() {
    let cases = [
        (json!([1]), "filter"),
        (json!({"channel": "email"}), "filter.channel"),
        (json!({"context.": 1}), "filter.context."),
        (
            json!({"$and": [{"context.a": 1}, {"context.priority": {"$gte": [2]}}]}),
            "filter.$and[1].context.priority.$gte",
        ),
        (json!({"$or": []}), "filter.$or"),
        (json!({"$nor": [{}]}), "filter.$nor"),
        (json!({"context.a": {"$in": 3}}), "filter.context.a.$in"),
        (
            json!({"context.a": {"$exists": "yes"}}),
            "filter.context.a.$exists",
        ),
        (
            json!({"context.a": {"$regex": "x"}}),
            "filter.context.a.$regex",
        ),
        (
            json!({"kind": {"$in": ["episode", "diary"]}}),
            "filter.kind.$in[1]",
        ),
        (json!({"importance": "high"}), "filter.importance"),
        (json!({"$not": {"entity_id": 5}}), "filter.$not.entity_id"),
    ];
    for (filter, path) in cases {
        assert_eq!(error_field(filter.clone()), path, "{filter}");
    }
}

#[test]
fn nesting_and_size_are_bounded() {
    let mut deep = json!({"context.a": 1});
    for _ in 0..40 {
        deep = json!({ "$not": deep });
    }
    assert!(error_field(deep).starts_with("filter.$not.$not"));
    let many: Vec<Value> = (0..1100).map(|i| json!({ "context.a": i })).collect();
    assert_eq!(
        error_field(json!({ "$or": many })),
        "filter.$or[1024].context.a"
    );
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..5).prop_map(|n| json!(n)),
        (-4.0f64..4.0).prop_map(|x| json!((x * 4.0).round() / 4.0)),
        "[a-c]{0,2}".prop_map(Value::String),
    ]
}

fn condition() -> impl Strategy<Value = Filter> {
    let key = prop_oneof![Just("a"), Just("b"), Just("n.c")];
    (
        key,
        0usize..10,
        scalar(),
        proptest::collection::vec(scalar(), 0..3),
    )
        .prop_map(|(key, op, value, list)| {
            let field = Field::Context(key.split('.').map(str::to_string).collect());
            let (op, value) = match op {
                0 => (Op::Eq, value),
                1 => (Op::Ne, value),
                2..=5 if !value.is_number() && !value.is_string() => (Op::Eq, value),
                2 => (Op::Gt, value),
                3 => (Op::Gte, value),
                4 => (Op::Lt, value),
                5 => (Op::Lte, value),
                6 => (Op::In, Value::Array(list)),
                7 => (Op::Nin, Value::Array(list)),
                8 => (Op::Exists, Value::Bool(value.as_bool().unwrap_or(true))),
                _ => (Op::Contains, value),
            };
            Filter::Condition { field, op, value }
        })
}

/// Random filters in canonical form (what `Filter::parse` gives back).
fn filter() -> impl Strategy<Value = Filter> {
    condition().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 2..4).prop_map(Filter::And),
            proptest::collection::vec(inner.clone(), 1..4).prop_map(Filter::Or),
            inner.prop_map(|f| Filter::Not(Box::new(f))),
        ]
    })
}

proptest! {
    #[test]
    fn the_canonical_json_parses_back(filter in filter()) {
        let parsed = Filter::parse(&filter.to_json(), "filter").unwrap();
        prop_assert_eq!(parsed, filter);
    }

    #[test]
    fn negations_select_the_complement(
        filter in filter(),
        a in scalar(),
        c in scalar(),
        tags in proptest::collection::vec(scalar(), 0..3),
    ) {
        let context: Map<String, Value> =
            serde_json::from_value(json!({"a": a, "b": tags, "n": {"c": c}})).unwrap();
        let not = Filter::Not(Box::new(filter.clone()));
        prop_assert_eq!(not.matches(&view(&context)), !filter.matches(&view(&context)));
    }
}
