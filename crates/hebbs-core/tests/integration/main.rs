//! Integration tests of hebbs-core on real RocksDB stores, in one test binary.

mod common;
mod concurrency;
mod crash_recovery;
mod engine_api;
mod hnsw_recall;
mod hybrid;
mod recall_strategies;
mod subscribe;
mod watchdog;
