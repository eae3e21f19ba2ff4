//! The BM25 full-text index over memory content (tantivy), derived from the store like the
//! HNSW: fed from the changelog, committed with the changelog sequence it covers, replayed on
//! open, rebuilt from the `memories` column family when missing. Documents written since the last
//! commit are searched from an in-memory buffer, so writes are findable at once.

mod pending;
mod text_index;

pub use text_index::{
    KeywordHit, TextIndex, MAX_UNCOMMITTED_DOCS, TEXT_COMMIT_INTERVAL, TEXT_WRITER_MEMORY_BYTES,
};
