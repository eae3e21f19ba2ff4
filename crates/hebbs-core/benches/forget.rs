//! Criterion benchmarks of `forget` in a large store with a realistic edge graph (each memory
//! holds two edges to earlier ones, 384-d vectors, 100 entities): forgetting one id, and
//! erasing an entity of 1,000 memories (each with its two edges). Every timed forget works on
//! memories stored just before it, outside the timed region. The store size defaults to
//! 100,000 memories; set `HEBBS_FORGET_BENCH_MEMORIES` to change it. Run with
//! `cargo bench -p hebbs-core --bench forget`.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use hebbs_core::{Edge, EdgeType, Engine, EngineConfig, ForgetRequest, MemoryId, RememberInput};

const DEFAULT_MEMORIES: usize = 100_000;
const DIM: usize = 384;
const ENTITIES: usize = 100;
const LOAD_BATCH: usize = 2_000;
const EDGES_PER_MEMORY: usize = 2;
const ENTITY_SIZE: usize = 1_000;

/// A xorshift generator, so the bench needs no RNG dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn vector(&mut self) -> Vec<f32> {
        (0..DIM)
            .map(|_| (self.next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
            .collect()
    }

    fn edges(&mut self, earlier: &[MemoryId]) -> Vec<Edge> {
        if earlier.is_empty() {
            return Vec::new();
        }
        (0..EDGES_PER_MEMORY)
            .map(|i| {
                let target = earlier[self.next() as usize % earlier.len()];
                let kind = [EdgeType::CausedBy, EdgeType::FollowedBy][i % 2];
                Edge::new(target, kind)
            })
            .collect()
    }
}

fn item(rng: &mut Rng, content: String, entity: String, earlier: &[MemoryId]) -> RememberInput {
    RememberInput {
        entity_id: Some(entity),
        edges: rng.edges(earlier),
        ..RememberInput::new(content, rng.vector())
    }
}

fn bench(c: &mut Criterion) {
    let memories = std::env::var("HEBBS_FORGET_BENCH_MEMORIES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(DEFAULT_MEMORIES);
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = Engine::open(dir.path(), EngineConfig::default()).expect("open");
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut ids: Vec<MemoryId> = Vec::with_capacity(memories);
    let started = Instant::now();
    while ids.len() < memories {
        let batch: Vec<RememberInput> = (ids.len()..(ids.len() + LOAD_BATCH).min(memories))
            .map(|i| {
                item(
                    &mut rng,
                    format!("memory {i}"),
                    format!("entity-{}", i % ENTITIES),
                    &ids,
                )
            })
            .collect();
        ids.extend(
            engine
                .remember_many(batch)
                .expect("load")
                .iter()
                .map(|m| m.id),
        );
    }
    eprintln!(
        "loaded {memories} memories with {EDGES_PER_MEMORY} edges each in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // Flat sampling with short times keeps the number of forgets (each adds a tombstoned slot)
    // well below the rebuild threshold, so no background rebuild competes with the timing.
    let mut group = c.benchmark_group(format!("forget_in_{memories}"));
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(20);
    group.warm_up_time(Duration::from_millis(200));
    group.measurement_time(Duration::from_secs(1));
    group.bench_function("one_id", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for i in 0..iters {
                let input = item(&mut rng, format!("one {i}"), "single".into(), &ids);
                let memory = engine.remember(input).expect("remember");
                let request = ForgetRequest::ids(vec![memory.id]);
                let start = Instant::now();
                let result = engine.forget(&request).expect("forget");
                total += start.elapsed();
                assert_eq!(result.tombstone_count, 1);
            }
            total
        });
    });
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(1));
    group.measurement_time(Duration::from_millis(100));
    let mut round = 0;
    group.bench_function("entity_of_1000", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                round += 1;
                let entity = format!("erase-{round}");
                let batch: Vec<RememberInput> = (0..ENTITY_SIZE)
                    .map(|i| item(&mut rng, format!("{entity} {i}"), entity.clone(), &ids))
                    .collect();
                engine.remember_many(batch).expect("load entity");
                let request = ForgetRequest::entity(entity);
                let start = Instant::now();
                let result = engine.forget(&request).expect("forget");
                total += start.elapsed();
                assert_eq!(result.forgotten_count, ENTITY_SIZE as u64);
                assert!(!result.truncated);
            }
            total
        });
    });
    group.finish();
    let (slots, deleted) = engine.index_slots();
    eprintln!(
        "index: {slots} slots, {deleted} tombstoned, {} background rebuilds",
        engine.index_rebuilds()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
