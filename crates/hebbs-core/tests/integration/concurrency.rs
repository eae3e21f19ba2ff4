//! Several threads remembering and recalling at once, with a subscriber draining pushes: no
//! deadlock (a watchdog fails the test instead of hanging it) and no lost write (every
//! acknowledged id is readable and findable afterwards, also after a reopen, the memory count
//! is exact, and the subscriber saw every write once, in each writer's order).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use crate::common::{input, open, Rng};
use crate::watchdog::within_limit;
use hebbs_core::recall::RecallRequest;
use hebbs_core::subscribe::{SubscribeRequest, MAX_QUEUE_CAPACITY};
use hebbs_core::{MemoryId, SubscribePush};

const DIM: usize = 16;
const WRITERS: usize = 4;
const READERS: usize = 2;
/// Each writer stores this many single memories, then one batch big enough to take the parallel
/// graph insert path and several small batches.
const SINGLES: usize = 60;
const BIG_BATCH: usize = 80;
const SMALL_BATCHES: usize = 5;
const SMALL_BATCH: usize = 4;
const PER_WRITER: usize = SINGLES + BIG_BATCH + SMALL_BATCHES * SMALL_BATCH;

type Written = Vec<(MemoryId, Vec<f32>, String)>;

fn writer(engine: &hebbs_core::Engine, w: usize) -> Written {
    let mut rng = Rng(1000 + w as u64);
    let entity = format!("writer-{w}");
    let mut written = Written::new();
    let make = |i: usize, rng: &mut Rng| {
        let vector = rng.vector(DIM);
        (
            input(&format!("w{w} m{i}"), vector.clone(), Some(&entity), None),
            vector,
        )
    };
    let mut next = 0;
    for _ in 0..SINGLES {
        let (item, vector) = make(next, &mut rng);
        let memory = engine.remember(item).unwrap();
        written.push((memory.id, vector, memory.content));
        next += 1;
    }
    let mut batches = vec![BIG_BATCH];
    batches.extend([SMALL_BATCH; SMALL_BATCHES]);
    for size in batches {
        let (items, vectors): (Vec<_>, Vec<_>) =
            (0..size).map(|k| make(next + k, &mut rng)).unzip();
        next += size;
        let memories = engine.remember_many(items).unwrap();
        for (memory, vector) in memories.into_iter().zip(vectors) {
            written.push((memory.id, vector, memory.content));
        }
    }
    written
}

#[test]
fn concurrent_writers_readers_and_a_subscriber_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let engine = Arc::new(open(&path));
    let subscription = Arc::new(
        engine
            .subscribe(SubscribeRequest {
                confidence_threshold: 0.0,
                queue_capacity: MAX_QUEUE_CAPACITY,
                ..SubscribeRequest::new(Rng(5).vector(DIM))
            })
            .unwrap(),
    );
    let consumed = Arc::clone(&subscription);

    let run_engine = Arc::clone(&engine);
    let (written, pushes, recalls) =
        within_limit("concurrent remember, recall, subscribe", move || {
            let engine = run_engine;
            let writing = Arc::new(AtomicBool::new(true));
            thread::scope(|scope| {
                let consumer = scope.spawn(|| {
                    let mut pushes: Vec<SubscribePush> = Vec::new();
                    while pushes.len() < WRITERS * PER_WRITER {
                        match consumed.recv() {
                            Some(push) => pushes.push(push),
                            None => break,
                        }
                    }
                    pushes
                });
                let readers: Vec<_> = (0..READERS)
                    .map(|r| {
                        let engine = &engine;
                        let writing = Arc::clone(&writing);
                        scope.spawn(move || {
                            let mut rng = Rng(2000 + r as u64);
                            let mut recalls = 0usize;
                            while writing.load(Ordering::Acquire) {
                                let similar = engine
                                    .recall(&RecallRequest::similarity(rng.vector(DIM)))
                                    .unwrap();
                                assert!(similar.strategy_errors.is_empty());
                                let timeline = engine
                                    .recall(&RecallRequest::temporal(format!(
                                        "writer-{}",
                                        recalls % WRITERS
                                    )))
                                    .unwrap();
                                assert!(timeline.strategy_errors.is_empty());
                                recalls += 1;
                            }
                            recalls
                        })
                    })
                    .collect();
                let writers: Vec<_> = (0..WRITERS)
                    .map(|w| {
                        let engine = &engine;
                        scope.spawn(move || writer(engine, w))
                    })
                    .collect();
                let written: Vec<Written> =
                    writers.into_iter().map(|h| h.join().unwrap()).collect();
                writing.store(false, Ordering::Release);
                let recalls: usize = readers.into_iter().map(|h| h.join().unwrap()).sum();
                (written, consumer.join().unwrap(), recalls)
            })
        });
    assert!(recalls > 0, "readers ran alongside the writers");

    let total = WRITERS * PER_WRITER;
    assert_eq!(engine.health().memory_count, total as u64);
    let sequence: Vec<u64> = pushes.iter().map(|push| push.sequence_number).collect();
    assert_eq!(sequence, (1..=total as u64).collect::<Vec<_>>());
    let mut order_of: HashMap<MemoryId, usize> = HashMap::new();
    for (position, push) in pushes.iter().enumerate() {
        assert!(
            order_of.insert(push.memory.id, position).is_none(),
            "pushed twice"
        );
    }
    for writes in &written {
        assert_eq!(writes.len(), PER_WRITER);
        let positions: Vec<usize> = writes.iter().map(|(id, _, _)| order_of[id]).collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "a writer's memories must be pushed in its remember order"
        );
    }

    let check = |engine: &hebbs_core::Engine| {
        for (w, writes) in written.iter().enumerate() {
            let mut timeline = RecallRequest::temporal(format!("writer-{w}"));
            timeline.top_k = PER_WRITER + 1;
            let listed = engine.recall(&timeline).unwrap();
            assert_eq!(listed.results.len(), PER_WRITER);
            for (id, vector, content) in writes {
                assert_eq!(&engine.get(id, false).unwrap().content, content);
                let mut similar = RecallRequest::similarity(vector.clone());
                similar.ef_search = Some(hebbs_core::index::vector::MAX_EF_SEARCH);
                let found = engine.recall(&similar).unwrap();
                assert!(
                    found.results.iter().any(|result| result.memory.id == *id),
                    "{content} is not findable by its own vector"
                );
            }
        }
    };
    check(&engine);
    drop(subscription);
    let engine = Arc::try_unwrap(engine)
        .ok()
        .expect("no other engine handle left");
    engine.close().unwrap();
    drop(engine);
    let reopened = open(&path);
    assert_eq!(reopened.health().memory_count, total as u64);
    check(&reopened);
}
