//! The background HNSW rebuild: past the tombstone threshold a forget starts it, writes and
//! forgets keep going while it runs, nothing is lost when it swaps in, and the result survives
//! a reopen.

use std::collections::HashSet;

use hebbs_core::engine::INDEX_REBUILD_DELETED_FRACTION;
use hebbs_core::recall::RecallRequest;
use hebbs_core::{Engine, ForgetRequest, MemoryId, RememberInput};

use crate::common::{clustered, input, open, Rng};

const DIM: usize = 48;

fn top1(engine: &Engine, vector: &[f32]) -> Option<MemoryId> {
    let request = RecallRequest {
        top_k: 1,
        scoring_weights: hebbs_core::ScoringWeights {
            w_relevance: 1.0,
            w_recency: 0.0,
            w_importance: 0.0,
            w_reinforcement: 0.0,
            ..hebbs_core::ScoringWeights::default()
        },
        ..RecallRequest::similarity(vector.to_vec())
    };
    engine
        .recall(&request)
        .unwrap()
        .results
        .first()
        .map(|result| result.memory.id)
}

#[test]
fn rebuild_past_the_threshold_keeps_concurrent_writes_and_forgets() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(21);
    let vectors = clustered(&mut rng, 3000, 30, DIM, 0.4);
    let engine = open(dir.path());
    let inputs: Vec<RememberInput> = vectors
        .iter()
        .enumerate()
        .map(|(i, vector)| input(&format!("m{i}"), vector.clone(), None, None))
        .collect();
    let memories = engine.remember_many(inputs).unwrap();
    let mut live: Vec<(MemoryId, Vec<f32>)> = memories
        .iter()
        .map(|memory| memory.id)
        .zip(vectors)
        .collect();

    let below = (INDEX_REBUILD_DELETED_FRACTION * 3000.0) as usize - 10;
    let first: Vec<MemoryId> = live.drain(..below).map(|(id, _)| id).collect();
    engine.forget(&ForgetRequest::ids(first.clone())).unwrap();
    engine.wait_for_index_rebuild();
    assert_eq!(
        engine.index_rebuilds(),
        0,
        "below the threshold nothing is rebuilt"
    );
    assert_eq!(engine.index_slots(), (3000, below));

    let second: Vec<MemoryId> = live.drain(..100).map(|(id, _)| id).collect();
    engine.forget(&ForgetRequest::ids(second.clone())).unwrap();
    let (added, late_forgotten) = std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            let mut rng = Rng(22);
            (0..150)
                .map(|i| {
                    let vector = rng.vector(DIM);
                    let memory = engine
                        .remember(input(&format!("during {i}"), vector.clone(), None, None))
                        .unwrap();
                    (memory.id, vector)
                })
                .collect::<Vec<_>>()
        });
        let late: Vec<MemoryId> = live.drain(..50).map(|(id, _)| id).collect();
        engine.forget(&ForgetRequest::ids(late.clone())).unwrap();
        (writer.join().unwrap(), late)
    });
    engine.wait_for_index_rebuild();
    assert_eq!(engine.index_rebuilds(), 1, "one rebuild past the threshold");
    live.extend(added);
    let (slots, deleted) = engine.index_slots();
    assert_eq!(
        slots - deleted,
        live.len(),
        "every live vector and nothing else"
    );
    assert!(
        deleted <= late_forgotten.len(),
        "the rebuilt graph holds only what was forgotten while it ran"
    );
    let gone: HashSet<MemoryId> = first
        .iter()
        .chain(&second)
        .chain(&late_forgotten)
        .copied()
        .collect();
    let check = |engine: &Engine| {
        let mut misses = 0;
        for (id, vector) in &live {
            match top1(engine, vector) {
                Some(found) if found == *id => {}
                Some(found) => {
                    assert!(!gone.contains(&found), "a forgotten memory was recalled");
                    misses += 1;
                }
                None => misses += 1,
            }
        }
        assert!(
            misses * 100 <= live.len(),
            "{misses} of {} not found first",
            live.len()
        );
    };
    check(&engine);
    drop(engine);
    let engine = open(dir.path());
    assert!(engine.recovery().from_checkpoint);
    assert_eq!(engine.health().memory_count, live.len() as u64);
    check(&engine);
}

#[test]
fn a_rebuild_cut_short_by_close_resumes_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(23);
    let vectors = clustered(&mut rng, 2000, 20, DIM, 0.4);
    let engine = open(dir.path());
    let inputs: Vec<RememberInput> = vectors
        .iter()
        .enumerate()
        .map(|(i, vector)| input(&format!("m{i}"), vector.clone(), None, None))
        .collect();
    let ids: Vec<MemoryId> = engine
        .remember_many(inputs)
        .unwrap()
        .iter()
        .map(|memory| memory.id)
        .collect();
    engine
        .forget(&ForgetRequest::ids(ids[..600].to_vec()))
        .unwrap();
    drop(engine);
    let engine = open(dir.path());
    engine.wait_for_index_rebuild();
    assert_eq!(
        engine.index_slots(),
        (1400, 0),
        "whether the first rebuild finished before close or open started another"
    );
    assert_eq!(top1(&engine, &vectors[1000]), Some(ids[1000]));
}
