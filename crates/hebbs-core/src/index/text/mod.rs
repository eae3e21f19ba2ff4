//! The BM25 full-text index over memory content (tantivy), derived from the store like the
//! HNSW: fed from the changelog, committed with the changelog sequence it covers, replayed on
//! open, rebuilt from the `memories` column family when missing.

mod text_index;

pub use text_index::{KeywordHit, TextIndex, TEXT_WRITER_MEMORY_BYTES};
