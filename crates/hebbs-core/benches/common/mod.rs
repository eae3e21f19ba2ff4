//! The data set of the engine benches: `COUNT` clustered 384-d unit vectors (plus queries from
//! the same clusters) loaded into a vector index and into an engine, so the gap between the two
//! is the engine's own work around the search. Both have every node linked before timing.
//! (The index against hnswlib is `benches/engine_bench.py`.)

use hebbs_core::index::vector::{HnswParams, VectorFormat, VectorIndex};
use hebbs_core::{Engine, EngineConfig, MemoryId, RememberInput};

pub const COUNT: usize = 10_000;
pub const DIM: usize = 384;
const CLUSTERS: usize = 100;
/// Entities the memories are spread over (round robin).
pub const ENTITIES: usize = 100;

/// `count` clustered unit vectors, the same on every call.
pub fn vectors(count: usize) -> Vec<Vec<f32>> {
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

/// The loaded index and engine, and the queries.
pub struct Loaded {
    pub index: VectorIndex,
    pub engine: Engine,
    pub queries: Vec<Vec<f32>>,
    /// The engine's directory, removed when dropped (after the engine, the field before it).
    pub _dir: tempfile::TempDir,
}

/// Loads 10k vectors into an index and an engine; 100 more are the queries.
pub fn load() -> Loaded {
    let data = vectors(COUNT + 100);
    let (data, queries) = data.split_at(COUNT);
    let queries = queries.to_vec();

    let index = VectorIndex::new(HnswParams::default(), DIM, VectorFormat::F32);
    let ids: Vec<MemoryId> = (0..COUNT).map(|_| MemoryId::new()).collect();
    let items: Vec<(MemoryId, Option<&str>, &[f32])> = ids
        .iter()
        .zip(data)
        .map(|(id, v)| (*id, None, v.as_slice()))
        .collect();
    index.insert_many(&items);
    index.drain();

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
    engine.optimize().expect("optimize");

    Loaded {
        index,
        engine,
        queries,
        _dir: dir,
    }
}
