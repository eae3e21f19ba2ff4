//! RocksDB, the source of truth: column families, key codecs, atomic write batches and scans,
//! and the deletes and compactions that erase a forgotten memory.

mod access;
mod batch;
mod changelog;
mod column_families;
mod context_values;
mod conversations;
mod db;
mod erase;
mod hot;
mod keys;
mod lookup_cache;
mod memory_keys;
mod purge;
mod record_cache;
mod runs;
mod scans;
mod state;
mod token_vectors;

pub use access::AccessStats;
pub use batch::StoreBatch;
pub use changelog::{ChangeOp, ChangelogEntry};
pub use column_families::{
    process_resources, ProcessResources, BLOCK_CACHE_BYTES, ROW_CACHE_BYTES, WRITE_BUFFERS_BYTES,
    WRITE_BUFFER_BYTES,
};
pub use column_families::{
    ACCESS, ALL_COLUMN_FAMILIES, CHANGELOG, CONTEXT_VALUES, CONVERSATIONS, EDGES_IN, EDGES_OUT,
    MEMORIES, META, TEMPORAL, TOKEN_VECTORS, TOMBSTONES, VECTORS,
};
pub use context_values::{IndexedField, IndexedPath, ValueLookup};
pub use conversations::{ConversationPlace, ConversationTurn};
pub use db::Store;
pub use hot::{ScoringFields, ACCESS_FLUSH_PENDING_MAX, SCORING_CACHE_CAPACITY};
pub use keys::{decode_vector, encode_vector, TemporalKey};
pub use lookup_cache::{LOOKUP_CACHE_ENTRIES, LOOKUP_CACHE_MAX_CHANGES};
pub use memory_keys::KeyRange;
pub use purge::TouchedRanges;
pub use record_cache::RECORD_CACHE_BYTES;
