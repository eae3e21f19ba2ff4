//! The int8 vector format (`EngineConfig::vector_format`): the graph searches 8-bit codes, and
//! the final candidates are re-scored with the exact f32 vectors of the store, so `nearest`
//! answers exact cosines and, at a high `ef`, exactly the brute force's top-k; the checkpoint
//! holds the codes (an open does not re-quantise); another format on open rebuilds the index in
//! it; a damaged int8 checkpoint is rebuilt in int8; a damaged or missing file of exact rows
//! (what the re-score reads) is read around and healed.

use std::fs;
use std::path::Path;

use hebbs_core::index::vector::{HnswParams, VectorFormat};
use hebbs_core::recall::{RecallRequest, ScoringWeights};
use hebbs_core::{Engine, EngineConfig, MemoryId};
use proptest::prelude::*;

use crate::common::{clustered, input, Rng};

const K: usize = 10;

fn config(format: Option<VectorFormat>, ef_search: usize) -> EngineConfig {
    EngineConfig {
        hnsw: HnswParams {
            ef_search,
            ..HnswParams::default()
        },
        vector_format: format,
        ..EngineConfig::default()
    }
}

fn open_with(dir: &Path, format: Option<VectorFormat>) -> Engine {
    Engine::open(dir, config(format, HnswParams::default().ef_search)).unwrap()
}

fn exact_cosine(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum()
}

/// The brute force's `k` nearest: `(row, cosine)`, nearest first.
fn brute_force(data: &[Vec<f32>], query: &[f32], k: usize) -> Vec<(usize, f64)> {
    let mut all: Vec<(usize, f64)> = data
        .iter()
        .enumerate()
        .map(|(row, vector)| (row, exact_cosine(query, vector)))
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1));
    all.truncate(k);
    all
}

/// Stores `data` in `engine`; the ids in row order.
fn remember(engine: &Engine, data: &[Vec<f32>]) -> Vec<MemoryId> {
    let inputs = data
        .iter()
        .enumerate()
        .map(|(i, vector)| input(&format!("memory {i}"), vector.clone(), None, None))
        .collect();
    engine
        .remember_many(inputs)
        .unwrap()
        .into_iter()
        .map(|memory| memory.id)
        .collect()
}

/// Every answer's similarity is the exact cosine of its stored vector; returns the share of
/// the brute force's top-k found.
fn check_answers(
    engine: &Engine,
    ids: &[MemoryId],
    data: &[Vec<f32>],
    queries: &[Vec<f32>],
) -> f64 {
    let row_of: std::collections::HashMap<MemoryId, usize> =
        ids.iter().enumerate().map(|(row, id)| (*id, row)).collect();
    let mut found = 0;
    for query in queries {
        let answer = engine.nearest(query, K, None).unwrap();
        assert_eq!(answer.len(), K.min(data.len()));
        for (id, similarity) in &answer {
            let exact = exact_cosine(query, &data[row_of[id]]);
            assert!(
                (f64::from(*similarity) - exact).abs() < 1e-5,
                "similarity {similarity} is not the exact cosine {exact}"
            );
        }
        assert!(answer.windows(2).all(|pair| pair[0].1 >= pair[1].1));
        let truth: Vec<usize> = brute_force(data, query, K).iter().map(|t| t.0).collect();
        found += answer
            .iter()
            .filter(|(id, _)| truth.contains(&row_of[id]))
            .count();
    }
    found as f64 / (K * queries.len()) as f64
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// At `ef` 100 the int8 search with re-scoring finds at least 90 % of the brute force's
    /// top-10, with exact similarities (at the default 50, a parallel build of 1,335 points in
    /// 7 tight clusters once found 89 %: the graph, not the codes, the same case passing on
    /// its next builds).
    #[test]
    fn int8_search_with_rescoring_finds_the_top_k_with_exact_cosines(
        seed in any::<u64>(),
        count in 200usize..1500,
        dimension in prop::sample::select(vec![16usize, 48, 96]),
        clusters in 1usize..40,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), config(Some(VectorFormat::Int8), 100)).unwrap();
        let mut rng = Rng(seed);
        let data = clustered(&mut rng, count, clusters, dimension, 0.6);
        let queries = clustered(&mut rng, 20, clusters, dimension, 0.6);
        let ids = remember(&engine, &data);
        let recall = check_answers(&engine, &ids, &data, &queries);
        prop_assert!(recall >= 0.9, "recall@10 {recall}");
    }

    /// At an `ef` above the store's size the int8 answer is exactly the brute force's top-10.
    #[test]
    fn at_a_high_ef_int8_answers_the_brute_force(
        seed in any::<u64>(),
        count in 20usize..400,
        dimension in prop::sample::select(vec![8usize, 32, 64]),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), config(Some(VectorFormat::Int8), 500)).unwrap();
        let mut rng = Rng(seed);
        let data = clustered(&mut rng, count, 7, dimension, 0.8);
        let queries = clustered(&mut rng, 10, 7, dimension, 0.8);
        let ids = remember(&engine, &data);
        let recall = check_answers(&engine, &ids, &data, &queries);
        prop_assert_eq!(recall, 1.0);
    }
}

/// A similarity recall on an int8 store answers exact cosines whether the composite ranks a
/// wide pool (seed 000's weights: `max(top_k, ef)` candidates re-scored) or relevance alone
/// (the `top_k` nearest, `RESCORE_OVERSAMPLING * top_k` re-scored), and at an `ef` above the
/// store's size relevance alone answers the brute force's top-k in its order; a relevance
/// floor still counts what it drops over the whole pool.
#[test]
fn a_relevance_only_recall_rescores_only_what_it_returns_and_stays_exact() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), config(Some(VectorFormat::Int8), 50)).unwrap();
    let mut rng = Rng(5);
    let data = clustered(&mut rng, 400, 9, 32, 0.7);
    let queries = clustered(&mut rng, 12, 9, 32, 0.7);
    let ids = remember(&engine, &data);
    let relevance_only = ScoringWeights {
        w_relevance: 1.0,
        w_recency: 0.0,
        w_importance: 0.0,
        w_reinforcement: 0.0,
        ..ScoringWeights::default()
    };
    for query in &queries {
        let expected: Vec<MemoryId> = brute_force(&data, query, K)
            .into_iter()
            .map(|(row, _)| ids[row])
            .collect();
        for (weights, ef) in [
            (relevance_only, 500),
            (ScoringWeights::default(), 500),
            (relevance_only, 10),
        ] {
            let request = RecallRequest {
                top_k: K,
                ef_search: Some(ef),
                scoring_weights: weights,
                ..RecallRequest::similarity(query.clone())
            };
            let results = engine.recall(&request).unwrap().results;
            assert_eq!(results.len(), K);
            for result in &results {
                let row = ids.iter().position(|id| *id == result.memory.id).unwrap();
                let exact = exact_cosine(query, &data[row]);
                let relevance = f64::from(result.signals.relevance);
                assert!(
                    (relevance - exact).abs() < 1e-5,
                    "{relevance} is not {exact}"
                );
            }
            if weights == relevance_only && ef == 500 {
                let got: Vec<MemoryId> = results.iter().map(|r| r.memory.id).collect();
                assert_eq!(got, expected);
            }
        }
        // A relevance floor counts what it drops over the whole pool (every memory at ef 500).
        let floor = 0.5;
        let request = RecallRequest {
            top_k: K,
            ef_search: Some(500),
            scoring_weights: relevance_only,
            min_relevance: Some(floor),
            ..RecallRequest::similarity(query.clone())
        };
        let below = data
            .iter()
            .filter(|vector| exact_cosine(query, vector).clamp(0.0, 1.0) < f64::from(floor))
            .count();
        assert_eq!(engine.recall(&request).unwrap().below_threshold, below);
    }
}

/// A store of 600 clustered 32-d memories in int8, closed: its directory's data and ids.
fn int8_store(dir: &Path) -> (Vec<Vec<f32>>, Vec<MemoryId>, Vec<Vec<f32>>) {
    let mut rng = Rng(11);
    let data = clustered(&mut rng, 600, 12, 32, 0.7);
    let queries = clustered(&mut rng, 15, 12, 32, 0.7);
    let engine = open_with(dir, Some(VectorFormat::Int8));
    let ids = remember(&engine, &data);
    drop(engine);
    (data, ids, queries)
}

fn answers(engine: &Engine, queries: &[Vec<f32>]) -> Vec<Vec<(MemoryId, f32)>> {
    queries
        .iter()
        .map(|query| engine.nearest(query, K, None).unwrap())
        .collect()
}

fn vectors_bin(dir: &Path) -> u64 {
    fs::metadata(dir.join("hnsw").join("vectors.bin"))
        .unwrap()
        .len()
}

#[test]
fn the_checkpoint_keeps_the_int8_codes_and_a_reopen_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let (data, ids, queries) = int8_store(dir.path());
    // 32 codes and a 4-byte scale a memory: the rows as the index holds them, not f32.
    assert_eq!(vectors_bin(dir.path()), 600 * (32 + 4));
    let first = open_with(dir.path(), Some(VectorFormat::Int8));
    assert!(first.recovery().from_checkpoint);
    assert_eq!(first.recovery().inserted, 0, "the open re-quantised");
    assert_eq!(first.vector_format(), Some(VectorFormat::Int8));
    let before = answers(&first, &queries);
    assert!(check_answers(&first, &ids, &data, &queries) >= 0.9);
    drop(first);
    // Without a format the store keeps its own.
    let again = open_with(dir.path(), None);
    assert!(again.recovery().from_checkpoint);
    assert_eq!(again.vector_format(), Some(VectorFormat::Int8));
    assert_eq!(answers(&again, &queries), before);
}

#[test]
fn another_format_on_open_rebuilds_the_index_in_it_and_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (data, ids, queries) = int8_store(dir.path());
    let f32_engine = open_with(dir.path(), Some(VectorFormat::F32));
    assert!(!f32_engine.recovery().from_checkpoint);
    assert_eq!(f32_engine.recovery().inserted, 600);
    assert_eq!(f32_engine.vector_format(), Some(VectorFormat::F32));
    assert!(check_answers(&f32_engine, &ids, &data, &queries) >= 0.9);
    drop(f32_engine);
    assert_eq!(vectors_bin(dir.path()), 600 * 32 * 4);
    let kept = open_with(dir.path(), None);
    assert!(kept.recovery().from_checkpoint);
    assert_eq!(kept.vector_format(), Some(VectorFormat::F32));
    drop(kept);
    let back = open_with(dir.path(), Some(VectorFormat::Int8));
    assert!(!back.recovery().from_checkpoint);
    assert_eq!(back.vector_format(), Some(VectorFormat::Int8));
    assert!(check_answers(&back, &ids, &data, &queries) >= 0.9);
}

#[test]
fn a_damaged_int8_checkpoint_is_rebuilt_in_int8() {
    let dir = tempfile::tempdir().unwrap();
    let (data, ids, queries) = int8_store(dir.path());
    let path = dir.path().join("hnsw").join("vectors.bin");
    let mut bytes = fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    fs::write(&path, bytes).unwrap();
    let engine = open_with(dir.path(), None);
    assert!(!engine.recovery().from_checkpoint);
    assert_eq!(engine.recovery().inserted, 600);
    assert_eq!(engine.vector_format(), Some(VectorFormat::Int8));
    assert!(check_answers(&engine, &ids, &data, &queries) >= 0.9);
    drop(engine);
    assert_eq!(vectors_bin(dir.path()), 600 * (32 + 4));
}

#[test]
fn a_new_store_is_f32_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open_with(dir.path(), None);
    let mut rng = Rng(3);
    remember(&engine, &clustered(&mut rng, 5, 1, 8, 0.5));
    assert_eq!(engine.vector_format(), Some(VectorFormat::F32));
}

fn exact_rows_file(dir: &Path) -> std::path::PathBuf {
    dir.join("exact-vectors.bin")
}

/// The bytes of the exact rows of the first `rows` slots (`dimension`-d).
fn written_rows(dir: &Path, rows: usize, dimension: usize) -> Vec<u8> {
    let bytes = fs::read(exact_rows_file(dir)).unwrap();
    bytes[..rows * (16 + 4 * dimension + 4)].to_vec()
}

#[test]
fn the_exact_rows_are_written_with_the_store_and_a_damaged_or_lost_file_is_healed() {
    let dir = tempfile::tempdir().unwrap();
    let (data, ids, queries) = int8_store(dir.path());
    let written = written_rows(dir.path(), 600, 32);
    assert!(written.iter().any(|byte| *byte != 0));
    let engine = open_with(dir.path(), None);
    let before = answers(&engine, &queries);
    drop(engine);

    // Every row zeroed: each fails its check, is read from the store and written back.
    let length = fs::metadata(exact_rows_file(dir.path())).unwrap().len();
    fs::write(exact_rows_file(dir.path()), vec![0u8; length as usize]).unwrap();
    let engine = open_with(dir.path(), None);
    assert_eq!(answers(&engine, &queries), before);
    assert!(check_answers(&engine, &ids, &data, &queries) >= 0.9);
    drop(engine);
    let healed = written_rows(dir.path(), 600, 32);
    let row = 16 + 4 * 32 + 4;
    let rows_back = (0..600)
        .filter(|slot| {
            healed[slot * row..(slot + 1) * row] == written[slot * row..(slot + 1) * row]
        })
        .count();
    assert!(rows_back >= K, "only {rows_back} rows healed");

    // The file gone: the open makes a new one, and the answers stay the same.
    fs::remove_file(exact_rows_file(dir.path())).unwrap();
    let engine = open_with(dir.path(), None);
    assert_eq!(answers(&engine, &queries), before);
    drop(engine);
    assert!(exact_rows_file(dir.path()).exists());

    // An f32 store keeps no exact rows.
    drop(open_with(dir.path(), Some(VectorFormat::F32)));
    assert!(!exact_rows_file(dir.path()).exists());
}
