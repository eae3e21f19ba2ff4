//! Access counts and composite scores against a plain reference: the number of recalls that
//! returned each memory, and the seed's formula over the fields the memory reports. Recall keeps
//! its increments in memory and a background thread writes them to RocksDB, so the checks run
//! across flushes, close and reopen (then against RocksDB's own values), revise and forget, and
//! with recalls racing readers and flushes.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crate::common::{input, open, Rng};
use crate::watchdog::within_limit;
use hebbs_core::recall::{composite_score, RecallRequest};
use hebbs_core::store::Store;
use hebbs_core::{Engine, ForgetRequest, HebbsError, MemoryId, RevisionInput};

const DIM: usize = 16;
const HOUR_US: u64 = 3_600_000_000;

/// Access counts as RocksDB holds them, read with the engine closed.
fn stored_counts(dir: &Path, ids: &[MemoryId]) -> Vec<u64> {
    let store = Store::open(&dir.join("store")).unwrap();
    store
        .access_stats(ids)
        .unwrap()
        .into_iter()
        .map(|stats| stats.count)
        .collect()
}

fn assert_counts(engine: &Engine, reference: &HashMap<MemoryId, u64>) {
    for (id, count) in reference {
        assert_eq!(engine.get(id, false).unwrap().access_count, *count, "{id}");
    }
}

#[test]
fn access_counts_and_scores_match_a_plain_reference() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = open(dir.path());
    let mut rng = Rng(77);
    let now = hebbs_core::engine::now_us();
    let mut reference: HashMap<MemoryId, u64> = HashMap::new();
    let mut superseded: HashSet<MemoryId> = HashSet::new();
    let mut forgotten: HashSet<MemoryId> = HashSet::new();
    // Revision -> the memory it superseded: forgetting the revision clears the flag again.
    let mut revised_from: HashMap<MemoryId, MemoryId> = HashMap::new();
    for i in 0..40u64 {
        let mut memory = input(
            &format!("m{i}"),
            rng.vector(DIM),
            None,
            Some(now - (i + 1) * 7 * HOUR_US),
        );
        memory.importance = (i % 10) as f32 / 10.0;
        reference.insert(engine.remember(memory).unwrap().id, 0);
    }
    for step in 0..400 {
        let live: Vec<MemoryId> = reference.keys().copied().collect();
        match rng.next_u64() % 40 {
            0 => {
                engine.close().unwrap();
                drop(engine);
                let ids: Vec<MemoryId> = reference.keys().copied().collect();
                let want: Vec<u64> = ids.iter().map(|id| reference[id]).collect();
                assert_eq!(stored_counts(dir.path(), &ids), want, "RocksDB after close");
                engine = open(dir.path());
                assert_counts(&engine, &reference);
            }
            1 => {
                let id = live[rng.next_u64() as usize % live.len()];
                engine.forget(&ForgetRequest::ids(vec![id])).unwrap();
                reference.remove(&id);
                superseded.remove(&id);
                if let Some(old) = revised_from.remove(&id) {
                    superseded.remove(&old);
                }
                forgotten.insert(id);
                assert!(matches!(
                    engine.get(&id, false),
                    Err(HebbsError::NotFound { .. })
                ));
            }
            2 => {
                let candidates: Vec<MemoryId> = live
                    .iter()
                    .filter(|id| !superseded.contains(id))
                    .copied()
                    .collect();
                let id = candidates[rng.next_u64() as usize % candidates.len()];
                let revision = RevisionInput {
                    importance: Some((rng.next_u64() % 11) as f32 / 10.0),
                    ..RevisionInput::default()
                };
                let new = engine.revise(&id, revision).unwrap();
                superseded.insert(id);
                revised_from.insert(new.id, id);
                reference.insert(new.id, 0);
            }
            3 => thread::sleep(Duration::from_millis(120)),
            _ => {
                let top_k = 1 + rng.next_u64() as usize % 8;
                let request = RecallRequest {
                    top_k,
                    ..RecallRequest::similarity(rng.vector(DIM))
                };
                let output = engine.recall(&request).unwrap();
                for result in &output.results {
                    let id = result.memory.id;
                    assert!(!superseded.contains(&id), "step {step}: superseded {id}");
                    assert!(!forgotten.contains(&id), "step {step}: forgotten {id}");
                    let before = reference[&id];
                    assert_eq!(result.memory.access_count, before + 1, "step {step}");
                    let want = composite_score(
                        &request.scoring_weights,
                        result.strategy_details[0].relevance,
                        result.memory.created_at,
                        result.memory.importance,
                        before,
                        result.memory.last_accessed_at,
                    );
                    assert!(
                        (result.score - want).abs() < 1e-6,
                        "step {step}: score {} want {want}",
                        result.score
                    );
                    *reference.get_mut(&id).unwrap() += 1;
                }
            }
        }
    }
    assert_counts(&engine, &reference);
    assert!(reference.values().any(|count| *count > 3));
    engine.close().unwrap();
    drop(engine);
    let ids: Vec<MemoryId> = reference.keys().copied().collect();
    let want: Vec<u64> = ids.iter().map(|id| reference[id]).collect();
    assert_eq!(stored_counts(dir.path(), &ids), want);
    let gone: Vec<MemoryId> = forgotten.into_iter().collect();
    assert!(stored_counts(dir.path(), &gone)
        .iter()
        .all(|count| *count == 0));
}

/// The same race at the store, for a reader that finds nothing cached and so reads RocksDB
/// while a flush may be writing: one thread records accesses of one id, one flushes, one reads
/// the count. Each count read lies between the increments recorded before the read began and
/// those recorded by the time it ended (plus the one in flight): a flush counted both in
/// RocksDB and as still flushing would overshoot by a whole batch, one counted in neither would
/// fall short.
#[test]
fn an_uncached_count_read_never_sees_a_flush_half_done() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let id = MemoryId::new();
    let recorded = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let reads_done = Arc::new(AtomicU64::new(0));
    let total = Arc::clone(&recorded);
    let reads = within_limit("racing uncached reads and flushes", {
        let store = Arc::clone(&store);
        let reads_done = Arc::clone(&reads_done);
        move || {
            let recorder = {
                let (store, recorded, done, reads_done) = (
                    Arc::clone(&store),
                    Arc::clone(&recorded),
                    Arc::clone(&done),
                    Arc::clone(&reads_done),
                );
                thread::spawn(move || {
                    // At least 200,000 increments, and on until the reader has raced them a
                    // while (on a loaded machine the reader may start late).
                    let mut at = 0u64;
                    while at < 200_000 || reads_done.load(Ordering::Acquire) < MIN_RACED_READS {
                        at += 1;
                        store.record_accesses([&id], at);
                        recorded.fetch_add(1, Ordering::AcqRel);
                    }
                    done.store(true, Ordering::Release);
                })
            };
            let flusher = {
                let (store, done) = (Arc::clone(&store), Arc::clone(&done));
                thread::spawn(move || {
                    while !done.load(Ordering::Acquire) {
                        store.flush_accesses().unwrap();
                    }
                })
            };
            let mut reads = 0u64;
            while !done.load(Ordering::Acquire) {
                let before = recorded.load(Ordering::Acquire);
                let count = store.access_stats(&[id]).unwrap()[0].count;
                let after = recorded.load(Ordering::Acquire);
                assert!(
                    (before..=after + 1).contains(&count),
                    "read {count} with {before}..={after} recorded"
                );
                reads += 1;
                reads_done.store(reads, Ordering::Release);
            }
            recorder.join().unwrap();
            flusher.join().unwrap();
            reads
        }
    });
    assert!(reads >= MIN_RACED_READS);
    store.flush_accesses().unwrap();
    let total = total.load(Ordering::Acquire);
    assert_eq!(store.access_stats(&[id]).unwrap()[0].count, total);
}

/// Count reads that must race the increments and flushes.
const MIN_RACED_READS: u64 = 100;

/// Recalls on two threads, a reader of one memory's count and a thread forcing flushes (an
/// audit scan writes the pending increments first): the count the reader sees never goes back,
/// as it would if a flush let it count an increment twice or not at all, and in the end it is
/// the number of recalls that returned the memory, in memory and in RocksDB.
#[test]
fn access_counts_stay_exact_while_flushes_race_recalls() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Arc::new(open(dir.path()));
    let mut rng = Rng(78);
    let cue = rng.vector(DIM);
    for i in 0..20 {
        engine
            .remember(input(&format!("m{i}"), rng.vector(DIM), None, None))
            .unwrap();
    }
    let request = RecallRequest {
        top_k: 5,
        ..RecallRequest::similarity(cue)
    };
    let first = engine.recall(&request).unwrap().results;
    let target = first[0].memory.id;
    let done = Arc::new(AtomicBool::new(false));
    let returned = within_limit("racing recalls and flushes", {
        let engine = Arc::clone(&engine);
        let done = Arc::clone(&done);
        move || {
            let recallers: Vec<_> = (0..2)
                .map(|_| {
                    let engine = Arc::clone(&engine);
                    let request = request.clone();
                    thread::spawn(move || {
                        let mut returned: HashMap<MemoryId, u64> = HashMap::new();
                        for _ in 0..3000 {
                            for result in engine.recall(&request).unwrap().results {
                                *returned.entry(result.memory.id).or_default() += 1;
                            }
                        }
                        returned
                    })
                })
                .collect();
            let reader = {
                let engine = Arc::clone(&engine);
                let done = Arc::clone(&done);
                thread::spawn(move || {
                    let mut last = 0;
                    let mut reads = 0u64;
                    while !done.load(Ordering::Acquire) {
                        let count = engine.get(&target, false).unwrap().access_count;
                        assert!(count >= last, "count went back from {last} to {count}");
                        last = count;
                        reads += 1;
                    }
                    reads
                })
            };
            let flusher = {
                let engine = Arc::clone(&engine);
                let done = Arc::clone(&done);
                thread::spawn(move || {
                    while !done.load(Ordering::Acquire) {
                        engine.find_bytes(b"no such bytes").unwrap();
                    }
                })
            };
            let mut returned: HashMap<MemoryId, u64> = HashMap::new();
            for recaller in recallers {
                for (id, count) in recaller.join().unwrap() {
                    *returned.entry(id).or_default() += count;
                }
            }
            done.store(true, Ordering::Release);
            assert!(reader.join().unwrap() > 0);
            flusher.join().unwrap();
            returned
        }
    });
    let mut want = returned;
    for result in first {
        *want.entry(result.memory.id).or_default() += 1;
    }
    let ids: Vec<MemoryId> = want.keys().copied().collect();
    for id in &ids {
        assert_eq!(engine.get(id, false).unwrap().access_count, want[id]);
    }
    engine.close().unwrap();
    drop(engine);
    let counts: Vec<u64> = ids.iter().map(|id| want[id]).collect();
    assert_eq!(stored_counts(dir.path(), &ids), counts);
}

/// Revises one of `heads` (replacing it by its revision) `rounds` times; returns every id made.
fn revise_chains(
    engine: &Engine,
    mut heads: Vec<MemoryId>,
    seed: u64,
    rounds: usize,
) -> Vec<MemoryId> {
    let mut rng = Rng(seed);
    let mut made = Vec::new();
    for _ in 0..rounds {
        let at = rng.next_u64() as usize % heads.len();
        let revision = RevisionInput {
            importance: Some((rng.next_u64() % 11) as f32 / 10.0),
            ..RevisionInput::default()
        };
        heads[at] = engine.revise(&heads[at], revision).unwrap().id;
        made.push(heads[at]);
    }
    made
}

/// Revisers, a thread that revises and forgets the revision again (clearing the superseded flag
/// of the old record), and recallers, all at once: afterwards the scoring cache agrees with
/// RocksDB. A recall returns exactly the live memories no revision supersedes (a stale cached
/// flag would hide one or let a superseded one through), and every access count is the number of
/// recalls that returned the memory.
#[test]
fn scoring_cache_stays_true_under_concurrent_revise_and_forget() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Arc::new(open(dir.path()));
    let mut rng = Rng(79);
    let mut initial = Vec::new();
    for i in 0..30 {
        let memory = input(&format!("m{i}"), rng.vector(DIM), None, None);
        initial.push(engine.remember(memory).unwrap().id);
    }
    let done = Arc::new(AtomicBool::new(false));
    let (made, forgotten, mut returned) = within_limit("revise, forget and recall at once", {
        let engine = Arc::clone(&engine);
        let done = Arc::clone(&done);
        let initial = initial.clone();
        move || {
            let revisers: Vec<_> = (0..2)
                .map(|r| {
                    let engine = Arc::clone(&engine);
                    let heads = initial[r * 10..(r + 1) * 10].to_vec();
                    thread::spawn(move || revise_chains(&engine, heads, 100 + r as u64, 40))
                })
                .collect();
            let forgetter = {
                let engine = Arc::clone(&engine);
                let owned = initial[20..].to_vec();
                thread::spawn(move || {
                    let mut forgotten = Vec::new();
                    for round in 0..30 {
                        let revision = RevisionInput {
                            importance: Some(0.9),
                            ..RevisionInput::default()
                        };
                        let new = engine
                            .revise(&owned[round % owned.len()], revision)
                            .unwrap();
                        engine.forget(&ForgetRequest::ids(vec![new.id])).unwrap();
                        forgotten.push(new.id);
                    }
                    forgotten
                })
            };
            let recallers: Vec<_> = (0..2)
                .map(|r| {
                    let engine = Arc::clone(&engine);
                    let done = Arc::clone(&done);
                    thread::spawn(move || {
                        let mut rng = Rng(200 + r);
                        let mut returned: HashMap<MemoryId, u64> = HashMap::new();
                        while !done.load(Ordering::Acquire) {
                            let request = RecallRequest {
                                top_k: 20,
                                ..RecallRequest::similarity(rng.vector(DIM))
                            };
                            for result in engine.recall(&request).unwrap().results {
                                *returned.entry(result.memory.id).or_default() += 1;
                            }
                        }
                        returned
                    })
                })
                .collect();
            let mut made = Vec::new();
            for reviser in revisers {
                made.extend(reviser.join().unwrap());
            }
            let forgotten = forgetter.join().unwrap();
            done.store(true, Ordering::Release);
            let mut returned: HashMap<MemoryId, u64> = HashMap::new();
            for recaller in recallers {
                for (id, count) in recaller.join().unwrap() {
                    *returned.entry(id).or_default() += count;
                }
            }
            (made, forgotten, returned)
        }
    });
    let gone: HashSet<MemoryId> = forgotten.into_iter().collect();
    let mut current = HashSet::new();
    for id in initial.iter().chain(&made) {
        if !engine.get(id, false).unwrap().superseded {
            current.insert(*id);
        }
    }
    for id in &gone {
        assert!(matches!(
            engine.get(id, false),
            Err(HebbsError::NotFound { .. })
        ));
    }
    for _ in 0..20 {
        let request = RecallRequest {
            top_k: 500,
            ef_search: Some(500),
            ..RecallRequest::similarity(rng.vector(DIM))
        };
        let results = engine.recall(&request).unwrap().results;
        let seen: HashSet<MemoryId> = results.iter().map(|result| result.memory.id).collect();
        assert_eq!(seen, current);
        for result in results {
            assert!(!result.memory.superseded);
            *returned.entry(result.memory.id).or_default() += 1;
        }
    }
    for id in initial.iter().chain(&made) {
        let want = returned.get(id).copied().unwrap_or(0);
        assert_eq!(engine.get(id, false).unwrap().access_count, want, "{id}");
    }
}

#[test]
fn a_read_only_recall_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path());
    let mut rng = Rng(5);
    let now = hebbs_core::engine::now_us();
    let ids: Vec<MemoryId> = (0..8u64)
        .map(|i| {
            let memory = input(&format!("m{i}"), rng.vector(DIM), None, Some(now - HOUR_US));
            engine.remember(memory).unwrap().id
        })
        .collect();
    let cue = rng.vector(DIM);
    let recorded = engine
        .recall(&RecallRequest {
            top_k: 3,
            ..RecallRequest::similarity(cue.clone())
        })
        .unwrap();
    let before: Vec<_> = ids
        .iter()
        .map(|id| engine.get(id, false).unwrap())
        .collect();
    let request = RecallRequest {
        top_k: 8,
        session_id: Some("chat".into()),
        ..RecallRequest::similarity(cue)
    };
    let output = engine.recall_read_only(&request).unwrap();
    assert_eq!(output.results.len(), 8);
    for result in &output.results {
        let stored = engine.get(&result.memory.id, false).unwrap();
        assert_eq!(result.memory.access_count, stored.access_count);
        assert_eq!(result.memory.last_accessed_at, stored.last_accessed_at);
    }
    let after: Vec<_> = ids
        .iter()
        .map(|id| engine.get(id, false).unwrap())
        .collect();
    for (old, new) in before.iter().zip(&after) {
        assert_eq!(old.access_count, new.access_count, "{}", old.id);
        assert_eq!(old.last_accessed_at, new.last_accessed_at, "{}", old.id);
    }
    assert_eq!(
        after.iter().map(|m| m.access_count).sum::<u64>(),
        recorded.results.len() as u64
    );
    assert!(engine.chat_context("chat", 10).unwrap().is_empty());
}
