//! Criterion benchmarks of the engine's hot paths at 384 dimensions: the index search (its flat
//! copy of the graph), the same search on a bare `hnsw_rs` graph of the same vectors (the
//! baseline the copy is measured against), a full similarity recall (search + record reads +
//! scoring + access bump), a temporal recall, and a single remember. The gap between
//! `hnsw_search` and `recall_similarity` is the engine's overhead around the index. Run with
//! `cargo bench -p hebbs-core`.

use std::hint::black_box;
use std::time::Duration;

use anndists::dist::DistDot;
use criterion::{criterion_group, criterion_main, Criterion};
use hebbs_core::index::vector::{HnswParams, VectorIndex};
use hebbs_core::recall::RecallRequest;
use hebbs_core::{Engine, EngineConfig, MemoryId, RememberInput};
use hnsw_rs::hnsw::Hnsw;

const COUNT: usize = 10_000;
const DIM: usize = 384;
const CLUSTERS: usize = 100;
const ENTITIES: usize = 100;

fn vectors(count: usize) -> Vec<Vec<f32>> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let centres: Vec<Vec<f32>> = (0..CLUSTERS)
        .map(|_| (0..DIM).map(|_| next()).collect())
        .collect();
    (0..count)
        .map(|i| {
            let mut v: Vec<f32> = centres[i % CLUSTERS]
                .iter()
                .map(|c| c + 0.6 * next())
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            v
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let data = vectors(COUNT + 100);
    let (data, queries) = data.split_at(COUNT);

    let index = VectorIndex::new(HnswParams::default(), DIM, COUNT);
    let ids: Vec<MemoryId> = (0..COUNT).map(|_| MemoryId::new()).collect();
    let items: Vec<(MemoryId, Option<&str>, &[f32])> = ids
        .iter()
        .zip(data)
        .map(|(id, v)| (*id, None, v.as_slice()))
        .collect();
    index.insert_many(&items);
    let bare = Hnsw::<f32, DistDot>::new(16, COUNT, 16, 200, DistDot);
    let slots: Vec<(&[f32], usize)> = data.iter().map(Vec::as_slice).zip(0..).collect();
    bare.parallel_insert_slice(&slots);

    let dir = tempfile::tempdir().expect("temp dir");
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("open");
    let inputs = data
        .iter()
        .enumerate()
        .map(|(i, v)| RememberInput {
            entity_id: Some(format!("entity-{}", i % ENTITIES)),
            ..RememberInput::new(format!("memory {i}"), v.clone())
        })
        .collect();
    engine.remember_many(inputs).expect("bulk load");

    let mut group = c.benchmark_group("engine_10k_384d");
    group
        .measurement_time(Duration::from_secs(5))
        .sample_size(50);
    let mut q = queries.iter().cycle();
    group.bench_function("hnsw_search_ef50", |b| {
        b.iter(|| black_box(index.search(q.next().expect("cycle"), 10, None, None)))
    });
    group.bench_function("bare_hnsw_rs_search_ef50", |b| {
        b.iter(|| black_box(bare.search(q.next().expect("cycle"), 10, 50)))
    });
    group.bench_function("recall_similarity_ef50", |b| {
        b.iter(|| {
            let request = RecallRequest::similarity(q.next().expect("cycle").clone());
            black_box(engine.recall(&request).expect("recall"))
        })
    });
    group.bench_function("hnsw_search_ef10", |b| {
        b.iter(|| black_box(index.search(q.next().expect("cycle"), 10, Some(10), None)))
    });
    group.bench_function("recall_similarity_ef10", |b| {
        b.iter(|| {
            let mut request = RecallRequest::similarity(q.next().expect("cycle").clone());
            request.ef_search = Some(10);
            black_box(engine.recall(&request).expect("recall"))
        })
    });
    let mut entity = (0..ENTITIES).cycle();
    group.bench_function("recall_temporal", |b| {
        b.iter(|| {
            let request =
                RecallRequest::temporal(format!("entity-{}", entity.next().expect("cycle")));
            black_box(engine.recall(&request).expect("recall"))
        })
    });
    group.bench_function("remember", |b| {
        b.iter(|| {
            let input = RememberInput::new("a new memory", q.next().expect("cycle").clone());
            black_box(engine.remember(input).expect("remember"))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
