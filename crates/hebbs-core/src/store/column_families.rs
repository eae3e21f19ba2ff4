//! Column family names, defined once, and the options each is opened with.

use rocksdb::{BlockBasedOptions, Cache, ColumnFamilyDescriptor, Options};

use super::access::merge_access;

/// id -> memory record.
pub const MEMORIES: &str = "memories";
/// id -> f32 little-endian L2-normalised embedding.
pub const VECTORS: &str = "vectors";
/// entity ‖ 0x00 ‖ created_at (BE) ‖ id -> empty: the (entity, time) B-tree.
pub const TEMPORAL: &str = "temporal";
/// source ‖ edge type ‖ target -> confidence.
pub const EDGES_OUT: &str = "edges_out";
/// target ‖ edge type ‖ source -> confidence.
pub const EDGES_IN: &str = "edges_in";
/// id -> access count and last access time, updated through a merge operator.
pub const ACCESS: &str = "access";
/// id -> audit record of a forgotten memory (never its content).
pub const TOMBSTONES: &str = "tombstones";
/// Schema version, counters, the vector dimension.
pub const META: &str = "meta";
/// sequence (BE) -> operation ‖ id: what the derived indexes replay.
pub const CHANGELOG: &str = "changelog";
/// session ‖ 0x00 ‖ touched_at (BE) ‖ id -> empty: which memories a conversation touched.
pub const SESSIONS: &str = "sessions";

/// id -> int8 per-token vectors and their scales (`memory::TokenVectors`), for re-ranking.
pub const TOKEN_VECTORS: &str = "token_vectors";
/// The memories of each conversation (`session_id`) in order, and each one's place in it
/// (`conversations.rs`).
pub const CONVERSATIONS: &str = "conversations";

/// context path ‖ 0x00 ‖ value ‖ id -> empty: which memories hold which context value
/// (`context_values.rs`), for filtered recall.
pub const CONTEXT_VALUES: &str = "context_values";

/// Every column family, in the order they are opened.
pub const ALL_COLUMN_FAMILIES: [&str; 13] = [
    MEMORIES,
    VECTORS,
    TEMPORAL,
    EDGES_OUT,
    EDGES_IN,
    ACCESS,
    TOMBSTONES,
    META,
    CHANGELOG,
    SESSIONS,
    TOKEN_VECTORS,
    CONVERSATIONS,
    CONTEXT_VALUES,
];

/// Block cache shared by all column families, in bytes.
const BLOCK_CACHE_BYTES: usize = 64 * 1024 * 1024;
/// Row cache of the whole database, in bytes: a point read that hits it skips the index and
/// data-block search of its table (a recall reads its `top_k` records this way, about half the
/// time of a block-cache hit).
const ROW_CACHE_BYTES: usize = 32 * 1024 * 1024;
/// Bloom filter bits per key for point-lookup column families.
const BLOOM_BITS_PER_KEY: f64 = 10.0;

/// Options for the whole database.
pub fn db_options() -> Options {
    let mut options = Options::default();
    options.create_if_missing(true);
    options.create_missing_column_families(true);
    options.increase_parallelism(
        std::thread::available_parallelism().map_or(2, |n| i32::try_from(n.get()).unwrap_or(2)),
    );
    options.set_compression_type(rocksdb::DBCompressionType::Lz4);
    options.set_row_cache(&Cache::new_lru_cache(ROW_CACHE_BYTES));
    // Table files are read through mmap: a block of an uncompressed family that no block cache
    // keeps (the token vectors) is then read in place from the page cache, with no copy into a
    // fresh heap buffer (docs/hybrid.md, "Recall latency with the stage").
    options.set_allow_mmap_reads(true);
    options
}

/// Descriptors for every column family, sharing one block cache.
pub fn descriptors() -> Vec<ColumnFamilyDescriptor> {
    let cache = Cache::new_lru_cache(BLOCK_CACHE_BYTES);
    ALL_COLUMN_FAMILIES
        .iter()
        .map(|name| ColumnFamilyDescriptor::new(*name, cf_options(name, &cache)))
        .collect()
}

fn cf_options(name: &str, cache: &Cache) -> Options {
    let mut block = BlockBasedOptions::default();
    if name == TOKEN_VECTORS {
        // A re-ranking query reads hundreds of its 11 KB values, far more than a shared cache
        // holds: caching them only evicts the other families' blocks.
        block.disable_cache();
    } else {
        block.set_block_cache(cache);
    }
    if matches!(name, MEMORIES | VECTORS | ACCESS | TOKEN_VECTORS) {
        block.set_bloom_filter(BLOOM_BITS_PER_KEY, false);
    }
    let mut options = Options::default();
    options.set_block_based_table_factory(&block);
    // int8 codes do not compress (LZ4 saved 0.1% on them), so their reads skip decompression.
    options.set_compression_type(if name == TOKEN_VECTORS {
        rocksdb::DBCompressionType::None
    } else {
        rocksdb::DBCompressionType::Lz4
    });
    if name == ACCESS {
        // No `max_successive_merges`: with it, every merge written looks its key up in the
        // memtable to count the operands there, 17% of the CPU of a process recalling in a
        // loop (docs/architecture.md, "Access statistics"). The operands of one key are folded
        // when the memtable is flushed, and a read folds them only on a scoring-cache miss.
        options.set_merge_operator_associative("hebbs_access", merge_access);
    }
    options
}
