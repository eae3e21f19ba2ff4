//! The HNSW fast path checked against brute force: recall@10 on 20k clustered vectors, with and
//! without an entity filter and with tombstoned deletes.

use std::collections::HashSet;

use crate::common::{clustered, Rng};
use hebbs_core::index::vector::{dot, HnswParams, VectorIndex};
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
    let index = VectorIndex::new(HnswParams::default(), DIM, COUNT);
    let items: Vec<(MemoryId, Option<&str>, &[f32])> = ids
        .iter()
        .zip(&vectors)
        .enumerate()
        .map(|(i, (id, v))| (*id, Some(entity_of(i)), v.as_slice()))
        .collect();
    index.insert_many(&items);
    assert_eq!(index.len(), COUNT);

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
