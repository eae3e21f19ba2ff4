//! The data model of seed 003: memories, their ids, kinds and edges, the limits on each field,
//! the tombstone a forgotten memory leaves for audit, and the quantised
//! per-token vectors a late-interaction re-ranker stores with a memory.

pub(crate) mod checks;
mod edge;
mod id;
mod kind;
mod limits;
mod record;
mod token_vectors;
mod tombstone;

pub use edge::{Edge, EdgeType, DEFAULT_EDGE_CONFIDENCE};
pub use id::{IdMap, IdSet, MemoryId};
pub use kind::MemoryKind;
pub use limits::{
    MAX_CONTENT_BYTES, MAX_CONTEXT_BYTES, MAX_EDGES_PER_MEMORY, MAX_ENTITY_ID_BYTES, MAX_KEY_BYTES,
    MAX_VECTOR_DIMENSION,
};
pub use record::{Memory, RecordHeader, StoredMemory};
pub use token_vectors::{TokenVectors, TokenVectorsView, MAX_TOKENS_PER_MEMORY};
pub use tombstone::{content_sha256, Tombstone};
