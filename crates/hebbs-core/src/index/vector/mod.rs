//! The HNSW vector index (our own graph on hnswlib's layout, dot product on L2-normalised
//! vectors = cosine), with tombstones for deletes, an on-disk checkpoint and changelog replay.

mod any_graph;
mod checkpoint;
mod code_dot;
mod dot;
mod drain_worker;
mod exact_rows;
mod format;
mod graph;
mod hnsw_index;
mod links;
mod packed;
mod page_buffer;
mod params;
mod pending;
mod resolved;
mod scan;
mod slots;
mod summed;
mod vectors;
mod wake;

pub use code_dot::int8_dot;
pub use dot::{dot, dot_in};
pub use exact_rows::ExactRows;
pub use format::VectorFormat;
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
