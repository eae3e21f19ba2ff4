//! Subscriptions end to end on a real store: pushes in remember order with consecutive sequence
//! numbers, the confidence threshold, the entity filter, the drop-oldest overflow policy (writers
//! never blocked), unsubscribe and engine close waking blocked receivers, and bad input.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::common::{input, normalized, open, Rng};
use crate::watchdog::within_limit;
use hebbs_core::subscribe::{SubscribeRequest, DEFAULT_CONFIDENCE_THRESHOLD, MAX_QUEUE_CAPACITY};
use hebbs_core::{HebbsError, MemoryId, RecvError, Subscription};

const DIM: usize = 8;

fn axis(i: usize) -> Vec<f32> {
    let mut v = vec![0.0; DIM];
    v[i] = 1.0;
    v
}

/// A vector at cosine `cos` to `axis(0)`, in the plane of axes 0 and 1.
fn at_cosine(cos: f32) -> Vec<f32> {
    let mut v = vec![0.0; DIM];
    v[0] = cos;
    v[1] = (1.0 - cos * cos).sqrt();
    v
}

fn everything(cue: Vec<f32>) -> SubscribeRequest {
    SubscribeRequest {
        confidence_threshold: 0.0,
        ..SubscribeRequest::new(cue)
    }
}

fn drain(subscription: &Subscription) -> Vec<hebbs_core::SubscribePush> {
    std::iter::from_fn(|| subscription.try_recv().ok()).collect()
}

#[test]
fn pushes_follow_remember_order_with_consecutive_sequence_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(11);
    engine
        .remember(input("before", rng.vector(DIM), None, None))
        .unwrap();
    let subscription = engine.subscribe(everything(rng.vector(DIM))).unwrap();
    let mut expected: Vec<MemoryId> = Vec::new();
    for i in 0..20 {
        let memory = engine
            .remember(input(&format!("single {i}"), rng.vector(DIM), None, None))
            .unwrap();
        expected.push(memory.id);
    }
    let batch = (0..10)
        .map(|i| input(&format!("batch {i}"), rng.vector(DIM), None, None))
        .collect();
    expected.extend(engine.remember_many(batch).unwrap().iter().map(|m| m.id));
    let pushes = drain(&subscription);
    let ids: Vec<MemoryId> = pushes.iter().map(|push| push.memory.id).collect();
    assert_eq!(
        ids, expected,
        "pushes must follow remember order, nothing before subscribe"
    );
    let sequence: Vec<u64> = pushes.iter().map(|push| push.sequence_number).collect();
    assert_eq!(sequence, (1..=30).collect::<Vec<u64>>());
    for push in &pushes {
        assert_eq!(push.subscription_id, subscription.id());
        assert!(push.push_timestamp_us >= push.memory.created_at);
        assert!((0.0..=1.0).contains(&push.confidence));
    }
    assert_eq!(pushes[20].memory.content, "batch 0");
    assert_eq!(subscription.dropped(), 0);
}

#[test]
fn threshold_pushes_matches_with_their_cosine_and_skips_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let subscription = engine
        .subscribe(SubscribeRequest {
            confidence_threshold: 0.6,
            ..SubscribeRequest::new(axis(0).iter().map(|x| x * 3.0).collect())
        })
        .unwrap();
    let near = engine
        .remember(input("near", at_cosine(0.8), None, None))
        .unwrap();
    engine
        .remember(input("far", at_cosine(0.3), None, None))
        .unwrap();
    engine
        .remember(input("opposite", at_cosine(-0.9), None, None))
        .unwrap();
    let pushes = drain(&subscription);
    assert_eq!(pushes.len(), 1, "{pushes:?}");
    assert_eq!(pushes[0].memory.id, near.id);
    assert_eq!(pushes[0].memory.content, "near");
    assert!(
        (pushes[0].confidence - 0.8).abs() < 1e-5,
        "{}",
        pushes[0].confidence
    );

    let everything_sub = engine.subscribe(everything(axis(0))).unwrap();
    engine
        .remember(input("opposite again", at_cosine(-0.9), None, None))
        .unwrap();
    let pushes = drain(&everything_sub);
    assert_eq!(pushes.len(), 1);
    assert_eq!(pushes[0].confidence, 0.0, "negative cosine clamps to 0");
    assert_eq!(drain(&subscription).len(), 0);
}

#[test]
fn default_threshold_is_the_named_constant() {
    assert_eq!(
        SubscribeRequest::new(axis(0)).confidence_threshold,
        DEFAULT_CONFIDENCE_THRESHOLD
    );
}

#[test]
fn entity_filter_pushes_only_that_entity() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let acme = engine
        .subscribe(SubscribeRequest {
            entity_id: Some("acme".into()),
            ..everything(axis(0))
        })
        .unwrap();
    let all = engine.subscribe(everything(axis(0))).unwrap();
    let mut rng = Rng(12);
    let kept = engine
        .remember(input("acme 1", rng.vector(DIM), Some("acme"), None))
        .unwrap();
    engine
        .remember(input("globex", rng.vector(DIM), Some("globex"), None))
        .unwrap();
    engine
        .remember(input("nobody", rng.vector(DIM), None, None))
        .unwrap();
    let pushes = drain(&acme);
    assert_eq!(pushes.len(), 1);
    assert_eq!(pushes[0].memory.id, kept.id);
    assert_eq!(pushes[0].memory.entity_id.as_deref(), Some("acme"));
    assert_eq!(drain(&all).len(), 3);
    assert_ne!(acme.id(), all.id());
}

#[test]
fn full_queue_drops_the_oldest_without_blocking_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Arc::new(open(dir.path()));
    let subscription = engine
        .subscribe(SubscribeRequest {
            queue_capacity: 2,
            ..everything(axis(0))
        })
        .unwrap();
    let writer = Arc::clone(&engine);
    let ids = within_limit("writes to a subscription nobody reads", move || {
        let mut rng = Rng(13);
        (0..5)
            .map(|i| {
                writer
                    .remember(input(&format!("m{i}"), rng.vector(DIM), None, None))
                    .unwrap()
                    .id
            })
            .collect::<Vec<_>>()
    });
    assert_eq!(subscription.dropped(), 3);
    let pushes = drain(&subscription);
    let sequence: Vec<u64> = pushes.iter().map(|push| push.sequence_number).collect();
    assert_eq!(
        sequence,
        vec![4, 5],
        "the newest survive; the gap shows the loss"
    );
    assert_eq!(pushes[0].memory.id, ids[3]);
    assert_eq!(pushes[1].memory.id, ids[4]);
    assert_eq!(subscription.try_recv().unwrap_err(), RecvError::Empty);
    assert_eq!(engine.health().memory_count, 5);
}

#[test]
fn unsubscribe_wakes_a_blocked_receiver_and_stops_pushes() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let subscription = Arc::new(engine.subscribe(everything(axis(0))).unwrap());
    assert_eq!(engine.subscription_count(), 1);
    let receiver = Arc::clone(&subscription);
    let blocked = thread::spawn(move || receiver.recv());
    thread::sleep(Duration::from_millis(50));
    subscription.unsubscribe();
    let received = within_limit("a receiver blocked across unsubscribe", move || {
        blocked.join().unwrap()
    });
    assert!(received.is_none());
    assert!(subscription.is_closed());
    assert_eq!(engine.subscription_count(), 0);
    engine
        .remember(input("after", axis(0), None, None))
        .unwrap();
    assert_eq!(subscription.try_recv().unwrap_err(), RecvError::Closed);
    assert_eq!(
        subscription
            .recv_timeout(Duration::from_secs(60))
            .unwrap_err(),
        RecvError::Closed
    );

    let dropped = engine.subscribe(everything(axis(0))).unwrap();
    assert_eq!(engine.subscription_count(), 1);
    drop(dropped);
    assert_eq!(engine.subscription_count(), 0);
}

#[test]
fn recv_timeout_reports_empty_when_nothing_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let subscription = engine.subscribe(everything(axis(0))).unwrap();
    assert_eq!(
        subscription
            .recv_timeout(Duration::from_millis(20))
            .unwrap_err(),
        RecvError::Empty
    );
    engine.remember(input("x", axis(1), None, None)).unwrap();
    let push = subscription.recv_timeout(Duration::from_secs(60)).unwrap();
    assert_eq!(push.memory.content, "x");
}

#[test]
fn engine_close_ends_every_subscription_after_its_queue() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Arc::new(open(dir.path()));
    let queued = engine.subscribe(everything(axis(0))).unwrap();
    let idle = Arc::new(
        engine
            .subscribe(SubscribeRequest {
                entity_id: Some("nobody".into()),
                ..everything(axis(0))
            })
            .unwrap(),
    );
    let stored = engine.remember(input("kept", axis(0), None, None)).unwrap();
    let receiver = Arc::clone(&idle);
    let blocked = thread::spawn(move || receiver.recv());
    thread::sleep(Duration::from_millis(50));
    engine.close().unwrap();
    let received = within_limit("a receiver blocked across close", move || {
        blocked.join().unwrap()
    });
    assert!(received.is_none());
    assert!(idle.is_closed() && queued.is_closed());
    assert_eq!(queued.recv().unwrap().memory.id, stored.id);
    assert!(queued.recv().is_none());
    assert!(matches!(
        engine.subscribe(everything(axis(0))),
        Err(HebbsError::Closed)
    ));
    assert_eq!(engine.subscription_count(), 0);
}

fn field_of(result: hebbs_core::Result<Subscription>) -> String {
    match result {
        Err(HebbsError::InvalidInput { field, .. }) => field,
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

#[test]
fn bad_input_is_typed_and_names_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let first = engine.subscribe(everything(axis(0))).unwrap();
    assert_eq!(
        engine.dimension(),
        Some(DIM),
        "the cue fixes an empty store's dimension"
    );
    let cases: Vec<(SubscribeRequest, &str)> = vec![
        (SubscribeRequest::new(vec![1.0; DIM + 1]), "cue"),
        (SubscribeRequest::new(Vec::new()), "cue"),
        (SubscribeRequest::new(vec![0.0; DIM]), "cue"),
        (
            SubscribeRequest::new({
                let mut v = axis(0);
                v[3] = f32::NAN;
                v
            }),
            "cue",
        ),
        (
            SubscribeRequest {
                confidence_threshold: 1.5,
                ..SubscribeRequest::new(axis(0))
            },
            "confidence_threshold",
        ),
        (
            SubscribeRequest {
                confidence_threshold: f32::NAN,
                ..SubscribeRequest::new(axis(0))
            },
            "confidence_threshold",
        ),
        (
            SubscribeRequest {
                confidence_threshold: -0.1,
                ..SubscribeRequest::new(axis(0))
            },
            "confidence_threshold",
        ),
        (
            SubscribeRequest {
                queue_capacity: 0,
                ..SubscribeRequest::new(axis(0))
            },
            "queue_capacity",
        ),
        (
            SubscribeRequest {
                queue_capacity: MAX_QUEUE_CAPACITY + 1,
                ..SubscribeRequest::new(axis(0))
            },
            "queue_capacity",
        ),
        (
            SubscribeRequest {
                entity_id: Some(String::new()),
                ..SubscribeRequest::new(axis(0))
            },
            "entity_id",
        ),
    ];
    for (request, field) in cases {
        assert_eq!(field_of(engine.subscribe(request)), field);
    }
    assert_eq!(
        engine.subscription_count(),
        1,
        "rejected requests register nothing"
    );
    let wrong = engine.remember(input("4-d", vec![1.0; 4], None, None));
    assert!(matches!(wrong, Err(HebbsError::InvalidInput { field, .. }) if field == "embedding"));
    assert_eq!(engine.health().memory_count, 0);
    drop(first);
}

#[test]
fn vectors_are_normalised_before_matching() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let subscription = engine
        .subscribe(SubscribeRequest {
            confidence_threshold: 0.99,
            ..SubscribeRequest::new(axis(2).iter().map(|x| x * 0.01).collect())
        })
        .unwrap();
    let long: Vec<f32> = axis(2).iter().map(|x| x * 40.0).collect();
    engine.remember(input("long", long, None, None)).unwrap();
    let push = subscription.try_recv().unwrap();
    assert!((push.confidence - 1.0).abs() < 1e-5);
    let unit = normalized(vec![1.0; DIM]);
    engine
        .remember(input("diagonal", unit, None, None))
        .unwrap();
    assert_eq!(subscription.try_recv().unwrap_err(), RecvError::Empty);
}
