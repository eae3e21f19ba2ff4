//! RocksDB, the source of truth: column families, key codecs, atomic write batches and scans.

mod access;
mod batch;
mod changelog;
mod column_families;
mod db;
mod keys;

pub use access::AccessStats;
pub use batch::StoreBatch;
pub use changelog::{ChangeOp, ChangelogEntry};
pub use column_families::ALL_COLUMN_FAMILIES;
pub use db::Store;
pub use keys::{decode_vector, encode_vector, TemporalKey};
