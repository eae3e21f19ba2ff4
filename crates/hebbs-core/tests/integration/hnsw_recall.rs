//! The HNSW fast path checked against brute force: recall@10 on 20k clustered vectors, with and
//! without an entity filter and with tombstoned deletes; and exact findability of every vector
//! as batches of every size arrive (single nodes, pending ones, and batches that cross the
//! vector store's sealed chunks).

use std::collections::HashSet;

use crate::common::{clustered, Rng};
use hebbs_core::index::vector::{dot, HnswParams, VectorFormat, VectorIndex};
use hebbs_core::MemoryId;

const COUNT: usize = 20_000;
const DIM: usize = 64;
const QUERIES: usize = 200;
const K: usize = 10;

fn brute_force(
    vectors: &[Vec<f32>],
    ids: &[MemoryId],
    query: &[f32],
    keep: impl Fn(usize) -> bool,
) -> Vec<MemoryId> {
    let mut scored: Vec<(f32, usize)> = vectors
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(i, v)| (dot(query, v), i))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(K).map(|(_, i)| ids[i]).collect()
}

fn recall_at_k(expected: &[Vec<MemoryId>], got: &[Vec<MemoryId>]) -> f64 {
    let hits: usize = expected
        .iter()
        .zip(got)
        .map(|(e, g)| {
            let e: HashSet<_> = e.iter().collect();
            g.iter().filter(|id| e.contains(id)).count()
        })
        .sum();
    hits as f64 / (expected.len() * K) as f64
}

#[test]
fn hnsw_matches_brute_force_on_clustered_vectors() {
    let mut rng = Rng(42);
    let mut vectors = clustered(&mut rng, COUNT + QUERIES, 200, DIM, 1.0);
    let queries = vectors.split_off(COUNT);
    let ids: Vec<MemoryId> = (0..COUNT).map(|_| MemoryId::new()).collect();
    let entity_of = |i: usize| {
        if i.is_multiple_of(4) {
            "quarter"
        } else {
            "rest"
        }
    };
    let index = VectorIndex::new(HnswParams::default(), DIM, VectorFormat::F32);
    let items: Vec<(MemoryId, Option<&str>, &[f32])> = ids
        .iter()
        .zip(&vectors)
        .enumerate()
        .map(|(i, (id, v))| (*id, Some(entity_of(i)), v.as_slice()))
        .collect();
    index.insert_many(&items);
    assert_eq!(index.len(), COUNT);
    index.drain();
    assert_eq!(index.pending_len(), 0);

    let expected: Vec<Vec<MemoryId>> = queries
        .iter()
        .map(|q| brute_force(&vectors, &ids, q, |_| true))
        .collect();
    let got: Vec<Vec<MemoryId>> = queries
        .iter()
        .map(|q| {
            index
                .search(q, K, None, None)
                .into_iter()
                .map(|n| n.id)
                .collect()
        })
        .collect();
    let recall = recall_at_k(&expected, &got);
    assert!(
        recall >= 0.95,
        "recall@10 at the default ef_search: {recall}"
    );

    let expected: Vec<Vec<MemoryId>> = queries
        .iter()
        .map(|q| brute_force(&vectors, &ids, q, |i| entity_of(i) == "quarter"))
        .collect();
    let got: Vec<Vec<MemoryId>> = queries
        .iter()
        .map(|q| {
            index
                .search(q, K, Some(200), Some("quarter"))
                .into_iter()
                .map(|n| n.id)
                .collect()
        })
        .collect();
    let recall = recall_at_k(&expected, &got);
    assert!(recall >= 0.95, "filtered recall@10: {recall}");

    for id in ids.iter().step_by(3) {
        assert!(index.delete(id));
    }
    let expected: Vec<Vec<MemoryId>> = queries
        .iter()
        .map(|q| brute_force(&vectors, &ids, q, |i| i % 3 != 0))
        .collect();
    let got: Vec<Vec<MemoryId>> = queries
        .iter()
        .map(|q| {
            index
                .search(q, K, None, None)
                .into_iter()
                .map(|n| n.id)
                .collect()
        })
        .collect();
    let deleted: HashSet<&MemoryId> = ids.iter().step_by(3).collect();
    assert!(
        got.iter().flatten().all(|id| !deleted.contains(id)),
        "a tombstoned vector was returned"
    );
    let recall = recall_at_k(&expected, &got);
    assert!(recall >= 0.95, "recall@10 with a third deleted: {recall}");
}

#[test]
fn deferred_inserts_are_searchable_before_and_after_the_drain() {
    let mut rng = Rng(7);
    let vectors = clustered(&mut rng, 2000, 20, DIM, 1.0);
    let ids: Vec<MemoryId> = (0..vectors.len()).map(|_| MemoryId::new()).collect();
    let index = std::sync::Arc::new(VectorIndex::new(
        HnswParams::default(),
        DIM,
        VectorFormat::F32,
    ));
    let (bulk, deferred) = vectors.split_at(1500);
    let items: Vec<(MemoryId, Option<&str>, &[f32])> = ids
        .iter()
        .zip(bulk)
        .map(|(id, v)| (*id, Some("bulk"), v.as_slice()))
        .collect();
    index.insert_many(&items);
    for (id, v) in ids[1500..].iter().zip(deferred) {
        index.insert_deferred(*id, Some("late"), v.clone());
    }
    let top1 = |i: usize, entity: Option<&str>| index.search(&vectors[i], 1, None, entity)[0].id;
    for i in (1500..2000).step_by(7) {
        assert_eq!(top1(i, None), ids[i]);
        assert_eq!(top1(i, Some("late")), ids[i]);
        assert_ne!(top1(i, Some("bulk")), ids[i]);
    }
    let unique: HashSet<MemoryId> = index
        .search(&vectors[1600], 50, None, None)
        .iter()
        .map(|h| h.id)
        .collect();
    assert_eq!(
        unique.len(),
        50,
        "no duplicates between the graph and the pending buffer"
    );
    assert!(index.delete(&ids[1999]));
    index.drain();
    assert_eq!(index.pending_len(), 0);
    assert_eq!(index.len(), 1999);
    for i in (1500..1999).step_by(7) {
        assert_eq!(top1(i, None), ids[i]);
    }
    let hits = index.search(&vectors[1999], 10, None, None);
    assert!(
        hits.iter().all(|hit| hit.id != ids[1999]),
        "a deleted vector was returned"
    );
}

#[test]
fn every_vector_is_found_as_batches_of_every_size_arrive() {
    let mut rng = Rng(11);
    let vectors = clustered(&mut rng, 6000, 30, DIM, 1.0);
    let ids: Vec<MemoryId> = (0..vectors.len()).map(|_| MemoryId::new()).collect();
    let index = VectorIndex::new(HnswParams::default(), DIM, VectorFormat::F32);
    let top1 = |i: usize| index.search(&vectors[i], 1, None, None)[0].id;
    let mut inserted = 0;
    // Batches of 1, a few and many; the 3200 crosses the first sealed chunk of 4096 vectors.
    for (round, size) in [1, 7, 40, 900, 3, 3200, 1849].into_iter().enumerate() {
        let chunk: Vec<(MemoryId, Option<&str>, &[f32])> = (inserted..inserted + size)
            .map(|i| (ids[i], None, vectors[i].as_slice()))
            .collect();
        index.insert_many(&chunk);
        inserted += size;
        for i in (0..inserted).step_by(13).chain(inserted - size..inserted) {
            assert_eq!(top1(i), ids[i], "vector {i} after round {round}");
        }
    }
    assert_eq!(inserted, vectors.len());
    index.drain();
    for i in (0..inserted).step_by(11) {
        assert_eq!(top1(i), ids[i], "vector {i} at the end");
    }
}

/// An exact scan of a list it remembers (a lookup answer the store keeps) answers as a fresh
/// scan and as brute force does, after its memories are forgotten and after ids that had no
/// vector yet get one.
#[test]
fn a_remembered_list_is_scanned_as_it_is_now() {
    let mut rng = Rng(7);
    let dimension = 16;
    let vectors = clustered(&mut rng, 3000, 20, dimension, 1.0);
    let ids: Vec<MemoryId> = (0..vectors.len()).map(|_| MemoryId::new()).collect();
    let query = clustered(&mut rng, 1, 20, dimension, 1.0).remove(0);
    let index = VectorIndex::new(HnswParams::default(), dimension, VectorFormat::F32);
    let items = |range: std::ops::Range<usize>| -> Vec<(MemoryId, Option<&str>, &[f32])> {
        range
            .map(|i| (ids[i], None, vectors[i].as_slice()))
            .collect()
    };
    index.insert_many(&items(0..2500));
    // Every third memory is listed, one of them twice; the last 500 have no vector yet.
    let mut listed: Vec<usize> = (0..vectors.len()).step_by(3).collect();
    listed.push(3);
    let list: std::sync::Arc<[MemoryId]> = listed.iter().map(|i| ids[*i]).collect();
    let mut forgotten: HashSet<usize> = HashSet::new();
    let mut indexed = 2500;
    let expect = |forgotten: &HashSet<usize>, indexed: usize| -> Vec<MemoryId> {
        let mut scored: Vec<(f32, usize)> = listed
            .iter()
            .copied()
            .collect::<HashSet<_>>()
            .into_iter()
            .filter(|i| *i < indexed && !forgotten.contains(i))
            .map(|i| (dot(&query, &vectors[i]), i))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored.into_iter().take(K).map(|(_, i)| ids[i]).collect()
    };
    let ids_of = |hits: Vec<hebbs_core::index::vector::Neighbor>| -> Vec<MemoryId> {
        hits.into_iter().map(|hit| hit.id).collect()
    };
    for step in 0..3 {
        let remembered = ids_of(index.exact(&query, &list, true, K));
        let fresh = ids_of(index.exact(&query, &list, false, K));
        assert_eq!(remembered, fresh, "step {step}");
        assert_eq!(remembered, expect(&forgotten, indexed), "step {step}");
        let all = index.exact(&query, &list, true, usize::MAX);
        let unique: HashSet<MemoryId> = all.iter().map(|hit| hit.id).collect();
        assert_eq!(unique.len(), all.len(), "each memory once");
        let late = all
            .iter()
            .filter(|hit| ids[2500..].contains(&hit.id))
            .count();
        let listed_late = listed.iter().filter(|i| **i >= 2500).count();
        assert_eq!(late, if indexed == 3000 { listed_late } else { 0 });
        match step {
            0 => {
                for hit in &remembered[..3] {
                    let at = ids.iter().position(|id| id == hit).unwrap();
                    assert!(index.delete(&ids[at]));
                    forgotten.insert(at);
                }
            }
            _ => {
                index.insert_many(&items(2500..3000));
                indexed = 3000;
            }
        }
    }
}
