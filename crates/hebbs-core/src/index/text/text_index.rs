//! [`TextIndex`]: one tantivy index with the memory id (bytes, stored), its entity (raw term)
//! and its content (tokenised, BM25). Writes are buffered in the tantivy writer; a search first
//! commits pending writes, so every acknowledged memory is findable. Each commit records the
//! changelog sequence the index covers as its payload.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, Value, INDEXED, STORED, STRING, TEXT};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use crate::error::{HebbsError, Result};
use crate::memory::MemoryId;

/// Memory budget of the tantivy writer (one indexing thread).
pub const TEXT_WRITER_MEMORY_BYTES: usize = 32 * 1024 * 1024;
const ID: &str = "id";
const ENTITY: &str = "entity";
const CONTENT: &str = "content";

/// One keyword search hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KeywordHit {
    /// The memory.
    pub id: MemoryId,
    /// Its BM25 score for the query.
    pub score: f32,
}

/// The writer and what it has applied, kept together so a commit records a consistent sequence.
struct WriterState {
    writer: IndexWriter<TantivyDocument>,
    /// Changelog entries below this sequence are applied to the writer.
    applied_seq: u64,
}

/// The full-text index.
pub struct TextIndex {
    index: Index,
    reader: IndexReader,
    writer: Mutex<WriterState>,
    /// Whether the writer holds changes not yet committed.
    dirty: AtomicBool,
    id: Field,
    entity: Field,
    content: Field,
}

impl TextIndex {
    /// Opens (creating if needed) the index in `dir`. Returns it and the changelog sequence its
    /// last commit covers (`None` when it has never been committed: rebuild it).
    pub fn open(dir: &Path) -> Result<(Self, Option<u64>)> {
        std::fs::create_dir_all(dir).map_err(|e| HebbsError::io(dir, e))?;
        let mut schema = Schema::builder();
        let id = schema.add_bytes_field(ID, INDEXED | STORED);
        let entity = schema.add_text_field(ENTITY, STRING);
        let content = schema.add_text_field(CONTENT, TEXT);
        let directory =
            MmapDirectory::open(dir).map_err(|e| HebbsError::TextIndex { source: e.into() })?;
        let index = Index::open_or_create(directory, schema.build())?;
        let covered = index
            .load_metas()?
            .payload
            .and_then(|payload| payload.parse::<u64>().ok());
        let writer = index.writer_with_num_threads(1, TEXT_WRITER_MEMORY_BYTES)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let text = Self {
            index,
            reader,
            writer: Mutex::new(WriterState {
                writer,
                applied_seq: covered.unwrap_or(0),
            }),
            dirty: AtomicBool::new(false),
            id,
            entity,
            content,
        };
        Ok((text, covered))
    }

    /// Indexes memories (replacing any earlier document of the same id) and records that the
    /// changelog is applied below `applied_seq`.
    pub fn add<'a>(
        &self,
        memories: impl IntoIterator<Item = (MemoryId, Option<&'a str>, &'a str)>,
        applied_seq: u64,
    ) -> Result<()> {
        let mut state = self.writer.lock();
        for (id, entity, content) in memories {
            state
                .writer
                .delete_term(Term::from_field_bytes(self.id, id.as_bytes()));
            let mut doc = TantivyDocument::new();
            doc.add_bytes(self.id, id.as_bytes());
            doc.add_text(self.entity, entity.unwrap_or_default());
            doc.add_text(self.content, content);
            state.writer.add_document(doc)?;
        }
        state.applied_seq = state.applied_seq.max(applied_seq);
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }

    /// Removes the documents of `ids` and records that the changelog is applied below
    /// `applied_seq`.
    pub fn delete(&self, ids: &[MemoryId], applied_seq: u64) {
        let mut state = self.writer.lock();
        for id in ids {
            state
                .writer
                .delete_term(Term::from_field_bytes(self.id, id.as_bytes()));
        }
        state.applied_seq = state.applied_seq.max(applied_seq);
        self.dirty.store(true, Ordering::Release);
    }

    /// Removes every document (before a rebuild).
    pub fn clear(&self) -> Result<()> {
        self.writer.lock().writer.delete_all_documents()?;
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }

    /// Commits pending changes with the applied sequence as payload, and makes them searchable.
    pub fn commit(&self) -> Result<()> {
        let mut state = self.writer.lock();
        let payload = state.applied_seq.to_string();
        let mut prepared = state.writer.prepare_commit()?;
        prepared.set_payload(&payload);
        prepared.commit()?;
        self.dirty.store(false, Ordering::Release);
        drop(state);
        self.reader.reload()?;
        Ok(())
    }

    /// Commits if anything changed since the last commit.
    pub fn refresh(&self) -> Result<()> {
        if self.dirty.load(Ordering::Acquire) {
            self.commit()?;
        }
        Ok(())
    }

    /// The `k` memories whose content best matches `text` by BM25, best first; only `entity`'s
    /// when given. Query syntax errors are ignored (the text is read as plain words).
    pub fn search(&self, text: &str, k: usize, entity: Option<&str>) -> Result<Vec<KeywordHit>> {
        self.refresh()?;
        let parser = QueryParser::for_index(&self.index, vec![self.content]);
        let (words, _) = parser.parse_query_lenient(text);
        let query: Box<dyn Query> = match entity {
            Some(entity) => Box::new(BooleanQuery::new(vec![
                (Occur::Must, words),
                (
                    Occur::Must,
                    Box::new(TermQuery::new(
                        Term::from_field_text(self.entity, entity),
                        IndexRecordOption::Basic,
                    )),
                ),
            ])),
            None => words,
        };
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(k).order_by_score())?;
        top.into_iter()
            .map(|(score, address)| {
                let doc: TantivyDocument = searcher.doc(address)?;
                let bytes = doc
                    .get_first(self.id)
                    .and_then(|value| value.as_bytes())
                    .ok_or_else(|| HebbsError::corrupt("text index", "document without an id"))?;
                Ok(KeywordHit {
                    id: MemoryId::from_slice(bytes, "text index id")?,
                    score,
                })
            })
            .collect()
    }

    /// Number of committed documents.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Whether no committed document exists.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
