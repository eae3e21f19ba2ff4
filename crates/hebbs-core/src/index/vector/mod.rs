//! The HNSW vector index (`hnsw_rs`, dot product on L2-normalised vectors = cosine), with
//! tombstones for deletes, an on-disk checkpoint and changelog replay.

mod checkpoint;
mod drain_worker;
mod flat_graph;
mod hnsw_index;
mod params;
mod pending;
mod slots;
mod snapshot;
mod wake;

pub use hnsw_index::{Neighbor, VectorIndex, MAX_PENDING};
pub use params::{
    check_ef_search, HnswParams, DEFAULT_EF_CONSTRUCTION, DEFAULT_EF_SEARCH, DEFAULT_M,
    MAX_EF_SEARCH,
};

/// L2-normalises `vector` in place; returns false (leaving it unchanged) if its norm is zero or
/// not finite.
pub fn normalize(vector: &mut [f32]) -> bool {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return false;
    }
    vector.iter_mut().for_each(|x| *x /= norm);
    true
}

/// Independent partial sums in [`dot`]: they break the add-latency chain and let the compiler
/// vectorise the loop (a single running sum cannot be reordered, so it stays scalar).
const DOT_LANES: usize = 8;

/// Dot product over the common length: the cosine similarity of two normalised vectors.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let len = a.len().min(b.len());
    let (a, b) = (&a[..len], &b[..len]);
    let mut lanes = [0.0f32; DOT_LANES];
    let (a_chunks, b_chunks) = (a.chunks_exact(DOT_LANES), b.chunks_exact(DOT_LANES));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..DOT_LANES {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::dot;

    proptest! {
        #[test]
        fn dot_matches_the_naive_sum(
            pairs in proptest::collection::vec((-1.0f32..1.0, -1.0f32..1.0), 0..70),
            extra in proptest::collection::vec(-1.0f32..1.0, 0..5),
        ) {
            let a: Vec<f32> = pairs.iter().map(|p| p.0).collect();
            let mut b: Vec<f32> = pairs.iter().map(|p| p.1).collect();
            let naive: f64 = pairs.iter().map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
            b.extend(extra);
            let fast = f64::from(dot(&a, &b));
            prop_assert!((fast - naive).abs() <= 1e-5 * (1.0 + naive.abs()), "{fast} vs {naive}");
        }
    }
}
