//! Indexes derived from the store: the HNSW vector index (rebuilt from RocksDB, never the other
//! way round). The temporal index is the `temporal` column family itself, see [`crate::store`].

pub mod vector;
