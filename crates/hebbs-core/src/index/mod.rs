//! Indexes derived from the store, rebuilt from RocksDB and never the other way round: the HNSW
//! vector index and the BM25 full-text index. The temporal index is the `temporal` column family
//! itself, see [`crate::store`].

pub mod text;
pub mod vector;
