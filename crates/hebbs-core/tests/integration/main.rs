//! Integration tests of hebbs-core on real RocksDB stores, in one test binary.

mod access_counts;
mod atomic_write;
mod checkpoint_corruption;
mod common;
mod composite_order;
mod concurrency;
mod crash_recovery;
mod edges_revise;
mod engine_api;
mod filtered_recall;
mod forget_cascade;
mod forget_purge;
mod hnsw_recall;
mod hybrid;
mod index_rebuild;
mod listing;
mod partial_success;
mod recall_request_fuzz;
mod recall_strategies;
mod relevance_ranking;
mod rerank;
mod restore;
mod state_nearest;
mod subscribe;
mod token_vectors;
mod watchdog;
