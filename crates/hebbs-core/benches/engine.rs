//! Criterion benchmarks of the engine's hot paths at 384 dimensions: the index search (f32 and
//! the int8 walk before its re-score), a full
//! similarity recall (search + record reads + scoring + access bump), a temporal recall, and a
//! single remember. The gap between
//! `hnsw_search` and `recall_similarity` is the engine's overhead around the index. Run with
//! `cargo bench -p hebbs-core`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use hebbs_core::index::vector::{HnswParams, VectorFormat, VectorIndex};
use hebbs_core::recall::RecallRequest;
use hebbs_core::{MemoryId, RememberInput};

mod common;

fn bench(c: &mut Criterion) {
    let loaded = common::load();
    let (index, engine) = (&loaded.index, &loaded.engine);
    let queries = &loaded.queries;
    let mut group = c.benchmark_group("engine_10k_384d");
    group
        .measurement_time(Duration::from_secs(5))
        .sample_size(50);
    let mut q = queries.iter().cycle();
    group.bench_function("hnsw_search_ef50", |b| {
        b.iter(|| black_box(index.search(q.next().expect("cycle"), 10, None, None)))
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
    let int8 = int8_index();
    for (name, ef) in [
        ("hnsw_search_int8_ef50", None),
        ("hnsw_search_int8_ef30", Some(30)),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| black_box(int8.search(q.next().expect("cycle"), 10, ef, None)))
        });
    }
    group.bench_function("recall_similarity_ef10", |b| {
        b.iter(|| {
            let mut request = RecallRequest::similarity(q.next().expect("cycle").clone());
            request.ef_search = Some(10);
            black_box(engine.recall(&request).expect("recall"))
        })
    });
    let mut entity = (0..common::ENTITIES).cycle();
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

/// The engine benches' vectors in an int8 index, every node linked.
fn int8_index() -> VectorIndex {
    let index = VectorIndex::new(HnswParams::default(), common::DIM, VectorFormat::Int8);
    let data = common::vectors(common::COUNT);
    let items: Vec<(MemoryId, Option<&str>, &[f32])> = data
        .iter()
        .map(|v| (MemoryId::new(), None, v.as_slice()))
        .collect();
    index.insert_many(&items);
    index.drain();
    index
}

criterion_group!(benches, bench);
criterion_main!(benches);
