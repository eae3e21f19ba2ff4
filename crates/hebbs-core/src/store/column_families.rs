//! Column family names, defined once, and the options each is opened with.

use std::sync::OnceLock;

use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamilyDescriptor, InfoLogger, LogLevel, Options,
    WriteBufferManager,
};

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

/// Block cache of the process, in bytes: one LRU cache shared by every column family of every
/// store the process opens (a server's thousand tenants share it rather than each holding its
/// own).
pub const BLOCK_CACHE_BYTES: usize = 64 * 1024 * 1024;
/// Row cache of the process, in bytes, shared by every store like the block cache: a point read
/// that hits it skips the index and data-block search of its table (a recall reads its `top_k`
/// records this way, about half the time of a block-cache hit).
pub const ROW_CACHE_BYTES: usize = 32 * 1024 * 1024;
/// Memtables of every store of the process together, in bytes (one `WriteBufferManager`): past
/// about 90% of it, the store being written flushes its largest memtable.
pub const WRITE_BUFFERS_BYTES: usize = 256 * 1024 * 1024;
/// Memtable size of one column family, in bytes. It also sizes the write-ahead log's
/// preallocation blocks and the memtables' arena blocks (an eighth of it), so it is kept small
/// for the many tiny stores of a server; a bulk load flushes more often (measured in
/// docs/architecture.md, "Store options").
pub const WRITE_BUFFER_BYTES: usize = 16 * 1024 * 1024;
/// Bloom filter bits per key for point-lookup column families.
const BLOOM_BITS_PER_KEY: f64 = 10.0;
/// Database options only settable through RocksDB's options string: no `fallocate` (RocksDB
/// would otherwise preallocate every open write-ahead log by 1.1 memtables, tens of MB a
/// store, and the manifest by 4 MB) and no `IDENTITY` file (a unique id hebbs never reads).
const DB_OPTIONS_STRING: &str = "allow_fallocate=false;write_identity_file=false";
/// Table files a store opens on the calling thread. RocksDB opens a store's table files on up
/// to `max_file_opening_threads` threads (16 by default), and starts those threads for every
/// column family, even one of no file: 195 threads started and joined for each open of a
/// 13-family store, 11 of the 20 ms of a tiny store's open (docs/server.md, "Many tenants").
/// A store of more files than this opens them on one thread a core.
pub const SERIAL_TABLE_FILES: usize = 64;

/// The RocksDB objects every store of the process shares.
struct Shared {
    block_cache: Cache,
    row_cache: Cache,
    write_buffers: WriteBufferManager,
}

static SHARED: OnceLock<Shared> = OnceLock::new();

fn shared() -> &'static Shared {
    SHARED.get_or_init(|| Shared {
        block_cache: Cache::new_lru_cache(BLOCK_CACHE_BYTES),
        row_cache: Cache::new_lru_cache(ROW_CACHE_BYTES),
        write_buffers: WriteBufferManager::new_write_buffer_manager(WRITE_BUFFERS_BYTES, false),
    })
}

/// What the process-wide RocksDB resources hold now (see [`process_resources`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessResources {
    /// Bytes in the shared block cache.
    pub block_cache_usage: usize,
    /// Bytes in the shared row cache.
    pub row_cache_usage: usize,
    /// Bound of all memtables of the process, in bytes.
    pub write_buffers_capacity: usize,
    /// Bytes held by the memtables of every open store.
    pub write_buffers_usage: usize,
}

/// The usage of the caches and write buffers every store of the process shares (their
/// capacities are [`BLOCK_CACHE_BYTES`], [`ROW_CACHE_BYTES`] and [`WRITE_BUFFERS_BYTES`]).
pub fn process_resources() -> ProcessResources {
    let shared = shared();
    ProcessResources {
        block_cache_usage: shared.block_cache.get_usage(),
        row_cache_usage: shared.row_cache.get_usage(),
        write_buffers_capacity: shared.write_buffers.get_buffer_size(),
        write_buffers_usage: shared.write_buffers.get_usage(),
    }
}

/// RocksDB's info log: its warnings and errors, as `log` records (target
/// `hebbs_core::store::column_families`). A store keeps no `LOG` file (RocksDB's own wrote one
/// of about 190 KB a store, mostly its options, on every open).
fn info_logger() -> InfoLogger {
    InfoLogger::new_callback_logger(LogLevel::Warn, |level, message| match level {
        LogLevel::Warn => log::warn!("rocksdb: {}", message.trim_end()),
        LogLevel::Error | LogLevel::Fatal => log::error!("rocksdb: {}", message.trim_end()),
        LogLevel::Debug | LogLevel::Info | LogLevel::Header => {}
    })
}

/// The cores of the machine, as RocksDB counts threads (2 when unknown).
fn cores() -> i32 {
    std::thread::available_parallelism().map_or(2, |n| i32::try_from(n.get()).unwrap_or(2))
}

/// The threads RocksDB opens a store's `table_files` table files on (see
/// [`SERIAL_TABLE_FILES`]).
pub fn file_opening_threads(table_files: usize) -> i32 {
    if table_files <= SERIAL_TABLE_FILES {
        1
    } else {
        cores()
    }
}

/// Options for the whole database, whose folder holds `table_files` table files.
pub fn db_options(table_files: usize) -> Options {
    let mut options = Options::default()
        .get_options_from_string(DB_OPTIONS_STRING)
        .expect("the options string names options of this RocksDB");
    options.create_if_missing(true);
    options.create_missing_column_families(true);
    options.increase_parallelism(cores());
    options.set_compression_type(rocksdb::DBCompressionType::Lz4);
    options.set_row_cache(&shared().row_cache);
    options.set_write_buffer_manager(&shared().write_buffers);
    options.set_info_logger(info_logger());
    options.set_max_file_opening_threads(file_opening_threads(table_files));
    // Table files are read through mmap: a block of an uncompressed family that no block cache
    // keeps (the token vectors) is then read in place from the page cache, with no copy into a
    // fresh heap buffer (docs/hybrid.md, "Recall latency with the stage").
    options.set_allow_mmap_reads(true);
    options
}

/// Descriptors for every column family, sharing the process's block cache.
pub fn descriptors() -> Vec<ColumnFamilyDescriptor> {
    ALL_COLUMN_FAMILIES
        .iter()
        .map(|name| ColumnFamilyDescriptor::new(*name, cf_options(name, &shared().block_cache)))
        .collect()
}

fn cf_options(name: &str, cache: &Cache) -> Options {
    let mut block = BlockBasedOptions::default();
    if matches!(name, TOKEN_VECTORS | VECTORS) {
        // A re-ranking query reads hundreds of its 11 KB values, far more than a shared cache
        // holds: caching them only evicts the other families' blocks. The same for the f32
        // vectors an int8 index re-scores (tens a query, at random, from a family of 1.5 KB a
        // memory): read in place through mmap, not copied into the cache and evicted.
        block.disable_cache();
    } else {
        block.set_block_cache(cache);
    }
    if matches!(name, MEMORIES | VECTORS | ACCESS | TOKEN_VECTORS) {
        block.set_bloom_filter(BLOOM_BITS_PER_KEY, false);
    }
    let mut options = Options::default();
    options.set_block_based_table_factory(&block);
    options.set_write_buffer_size(WRITE_BUFFER_BYTES);
    // int8 codes and f32 vectors do not compress (LZ4 saved 0.1% on the codes), so their reads
    // skip decompression, and an uncompressed block is read in place.
    options.set_compression_type(if matches!(name, TOKEN_VECTORS | VECTORS) {
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

#[cfg(test)]
mod tests {
    use super::super::db::Store;
    use super::*;

    /// Bytes of values read through one store so that its blocks fill the block cache.
    const READ_BYTES: usize = 4 * 1024 * 1024;
    const VALUE_BYTES: usize = 1024;

    /// The block cache usage one store reports for one of its column families.
    fn reported_block_cache_usage(store: &Store) -> u64 {
        store
            .db
            .property_int_value_cf(store.cf(TEMPORAL), "rocksdb.block-cache-usage")
            .unwrap()
            .expect("RocksDB reports its block cache usage")
    }

    #[test]
    fn a_store_of_few_table_files_opens_them_on_the_calling_thread() {
        assert_eq!(file_opening_threads(0), 1);
        assert_eq!(file_opening_threads(SERIAL_TABLE_FILES), 1);
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        assert_eq!(
            file_opening_threads(SERIAL_TABLE_FILES + 1),
            i32::try_from(cores).unwrap()
        );
    }

    #[test]
    fn the_stores_of_a_process_share_one_block_cache() {
        let (a_dir, b_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = Store::open(a_dir.path()).unwrap();
        let b = Store::open(b_dir.path()).unwrap();
        let cf = a.cf(TEMPORAL);
        for i in 0..READ_BYTES / VALUE_BYTES {
            let value: Vec<u8> = (0..VALUE_BYTES).map(|j| (i * 31 + j * 7) as u8).collect();
            a.db.put_cf(cf, (i as u64).to_be_bytes(), value).unwrap();
        }
        a.db.flush_cf(cf).unwrap();
        let read: usize =
            a.db.iterator_cf(cf, rocksdb::IteratorMode::Start)
                .map(|item| item.unwrap().1.len())
                .sum();
        assert_eq!(read, READ_BYTES);
        // `b` never read anything: it reports the cache that `a`'s reads filled.
        assert!(reported_block_cache_usage(&b) as usize >= READ_BYTES / 2);
        assert!(process_resources().block_cache_usage >= READ_BYTES / 2);
    }

    #[test]
    fn one_write_buffer_bound_counts_the_memtables_of_every_store() {
        let (a_dir, b_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = Store::open(a_dir.path()).unwrap();
        let b = Store::open(b_dir.path()).unwrap();
        for store in [&a, &b] {
            for i in 0..1024u64 {
                let value = vec![i as u8; VALUE_BYTES];
                store
                    .db
                    .put_cf(store.cf(SESSIONS), i.to_be_bytes(), value)
                    .unwrap();
            }
        }
        let resources = process_resources();
        assert_eq!(resources.write_buffers_capacity, WRITE_BUFFERS_BYTES);
        assert!(resources.write_buffers_usage >= 2 * 1024 * VALUE_BYTES);
    }
}
