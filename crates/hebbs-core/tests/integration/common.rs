//! Helpers shared by the integration tests: deterministic vectors and engine set-up.

use hebbs_core::{Engine, EngineConfig, HebbsError, RememberInput};

/// A small deterministic generator (SplitMix64), so tests need no RNG dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    pub fn vector(&mut self, dimension: usize) -> Vec<f32> {
        (0..dimension).map(|_| self.unit()).collect()
    }
}

pub fn normalized(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// `count` vectors around `clusters` random centres (noise `spread`).
pub fn clustered(
    rng: &mut Rng,
    count: usize,
    clusters: usize,
    dimension: usize,
    spread: f32,
) -> Vec<Vec<f32>> {
    let centres: Vec<Vec<f32>> = (0..clusters).map(|_| rng.vector(dimension)).collect();
    (0..count)
        .map(|i| {
            let centre = &centres[i % clusters];
            normalized(centre.iter().map(|c| c + spread * rng.unit()).collect())
        })
        .collect()
}

pub fn open(dir: &std::path::Path) -> Engine {
    Engine::open(dir, EngineConfig::default()).expect("open engine")
}

pub fn input(
    content: &str,
    vector: Vec<f32>,
    entity: Option<&str>,
    created_at: Option<u64>,
) -> RememberInput {
    RememberInput {
        entity_id: entity.map(str::to_owned),
        created_at,
        ..RememberInput::new(content, vector)
    }
}

/// The field an `InvalidInput` names; panics on any other error.
pub fn field_of(error: HebbsError) -> String {
    match error {
        HebbsError::InvalidInput { field, .. } => field,
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

/// The field a `Conflict` names; panics on any other error.
pub fn conflict_field_of(error: HebbsError) -> String {
    match error {
        HebbsError::Conflict { field, .. } => field,
        other => panic!("expected Conflict, got {other:?}"),
    }
}
