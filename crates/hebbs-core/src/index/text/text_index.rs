//! [`TextIndex`]: one tantivy index with the memory id (bytes, stored), its entity (raw term)
//! and its content (tokenised, BM25). Writes go to the tantivy writer and, until the next
//! commit, to the [`Uncommitted`] buffer that searches score directly, so every acknowledged
//! memory is findable at once without paying for a commit. A background thread commits every
//! [`TEXT_COMMIT_INTERVAL`] when something changed, and a writer commits itself when
//! [`MAX_UNCOMMITTED_DOCS`] are waiting. Each commit records the changelog sequence the index
//! covers as its payload. The tantivy writer (its indexing, segment-updating and merging
//! threads and its arena) is opened at the first change, not at open: a store that is only
//! read, as most of a server's many tenants are at a time, never pays for it.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, INDEXED, STORED,
    STRING,
};
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, TantivyError, Term};

use super::pending::{CommittedStats, PendingDoc, Uncommitted};
use crate::error::{HebbsError, Result};
use crate::memory::MemoryId;

/// How often the background thread commits pending changes.
pub const TEXT_COMMIT_INTERVAL: Duration = Duration::from_secs(1);
/// Uncommitted documents past which the writer commits before returning.
pub const MAX_UNCOMMITTED_DOCS: usize = 4096;

/// Memory budget of the tantivy writer (one indexing thread).
pub const TEXT_WRITER_MEMORY_BYTES: usize = 32 * 1024 * 1024;
/// The content analyzer: words, lower-cased, overlong tokens dropped (tantivy's default), then
/// English stemming (tantivy's Snowball stemmer). An English stop-word filter was measured on
/// LoCoMo and made recall@10 worse (keyword 0.518 -> 0.514, hybrid 0.582 -> 0.564), so it is
/// not used; stemming is measured in docs/hybrid.md. The name is part of the schema: an index
/// written with another analyzer does not open with this one and is rebuilt from the store.
const ANALYZER: &str = "hebbs_words_en";
/// Times a purge's merge is tried. tantivy's own merge policy keeps merging segments in the
/// background, and one that ends while the purge merges may drop a segment of the purge's set
/// (an emptied one) from the segment manager; the purge's merge then fails with
/// `InvalidArgument` and is tried again on the segments of that moment.
const PURGE_MERGE_ATTEMPTS: usize = 20;
/// Wait before a purge's merge is tried again.
const PURGE_MERGE_RETRY_WAIT: Duration = Duration::from_millis(20);
/// Tokens longer than this many bytes are dropped (base64 blobs and the like).
const MAX_TOKEN_BYTES: usize = 40;
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
    /// Opened at the first change (None until then: nothing to commit).
    writer: Option<IndexWriter<TantivyDocument>>,
    /// Changelog entries below this sequence are applied to the writer.
    applied_seq: u64,
}

impl WriterState {
    /// The writer, opened on first use. A process killed during a commit leaves files its
    /// commit never published (a segment's `.del` file, say); a later commit that writes the
    /// same name would fail, so a new writer first removes them.
    fn writer(&mut self, index: &Index) -> Result<&mut IndexWriter<TantivyDocument>> {
        let writer = match self.writer.take() {
            Some(writer) => writer,
            None => {
                let writer = index.writer_with_num_threads(1, TEXT_WRITER_MEMORY_BYTES)?;
                writer.garbage_collect_files().wait()?;
                writer
            }
        };
        Ok(self.writer.insert(writer))
    }
}

/// The full-text index.
pub struct TextIndex {
    index: Index,
    reader: IndexReader,
    writer: Mutex<WriterState>,
    /// Whether the writer holds changes not yet committed.
    dirty: AtomicBool,
    /// What the writer holds beyond the last commit, searched directly.
    uncommitted: RwLock<Uncommitted>,
    analyzer: TextAnalyzer,
    id: Field,
    entity: Field,
    content: Field,
}

impl TextIndex {
    /// Opens (creating if needed) the index in `dir` and starts its background committer.
    /// Returns it and the changelog sequence its last commit covers (`None` when it has never
    /// been committed: rebuild it). An index that cannot be opened or whose files fail their
    /// checksums is wiped and starts empty, never committed.
    pub fn open(dir: &Path) -> Result<(Arc<Self>, Option<u64>)> {
        std::fs::create_dir_all(dir).map_err(|e| HebbsError::io(dir, e))?;
        let mut schema = Schema::builder();
        let id = schema.add_bytes_field(ID, INDEXED | STORED);
        let entity = schema.add_text_field(ENTITY, STRING);
        let content_options = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let content = schema.add_text_field(CONTENT, content_options);
        let schema = schema.build();
        let index = match open_in(dir, schema.clone()).and_then(checked) {
            Ok(index) => index,
            Err(_unreadable) => {
                std::fs::remove_dir_all(dir).map_err(|e| HebbsError::io(dir, e))?;
                std::fs::create_dir_all(dir).map_err(|e| HebbsError::io(dir, e))?;
                open_in(dir, schema)?
            }
        };
        index.tokenizers().register(ANALYZER, analyzer());
        let covered = index
            .load_metas()?
            .payload
            .and_then(|payload| payload.parse::<u64>().ok());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let analyzer = index.tokenizer_for_field(content)?;
        let text = Arc::new(Self {
            index,
            reader,
            uncommitted: RwLock::new(Uncommitted::default()),
            analyzer,
            writer: Mutex::new(WriterState {
                writer: None,
                applied_seq: covered.unwrap_or(0),
            }),
            dirty: AtomicBool::new(false),
            id,
            entity,
            content,
        });
        spawn_committer(Arc::downgrade(&text));
        Ok((text, covered))
    }

    /// The lower-cased tokens of `text`, as the index splits content.
    fn tokens(&self, text: &str) -> Vec<String> {
        let mut analyzer = self.analyzer.clone();
        let mut stream = analyzer.token_stream(text);
        let mut tokens = Vec::new();
        while stream.advance() {
            tokens.push(stream.token().text.clone());
        }
        tokens
    }

    /// Indexes memories (replacing any earlier document of the same id) and records that the
    /// changelog is applied below `applied_seq`.
    pub fn add<'a>(
        &self,
        memories: impl IntoIterator<Item = (MemoryId, Option<&'a str>, &'a str)>,
        applied_seq: u64,
    ) -> Result<()> {
        let mut state = self.writer.lock();
        let writer = state.writer(&self.index)?;
        for (id, entity, content) in memories {
            writer.delete_term(Term::from_field_bytes(self.id, id.as_bytes()));
            let mut doc = TantivyDocument::new();
            doc.add_bytes(self.id, id.as_bytes());
            doc.add_text(self.entity, entity.unwrap_or_default());
            doc.add_text(self.content, content);
            writer.add_document(doc)?;
            self.uncommitted.write().add(PendingDoc {
                id,
                entity: entity.map(str::to_owned),
                tokens: self.tokens(content),
            });
        }
        state.applied_seq = state.applied_seq.max(applied_seq);
        self.dirty.store(true, Ordering::Release);
        if self.uncommitted.read().len() >= MAX_UNCOMMITTED_DOCS {
            self.commit_locked(&mut state)?;
        }
        Ok(())
    }

    /// Removes the documents of `ids` and records that the changelog is applied below
    /// `applied_seq`.
    pub fn delete(&self, ids: &[MemoryId], applied_seq: u64) -> Result<()> {
        let mut state = self.writer.lock();
        let writer = state.writer(&self.index)?;
        for id in ids {
            writer.delete_term(Term::from_field_bytes(self.id, id.as_bytes()));
            self.uncommitted.write().delete(*id);
        }
        state.applied_seq = state.applied_seq.max(applied_seq);
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }

    /// Removes every document (before a rebuild).
    pub fn clear(&self) -> Result<()> {
        self.writer
            .lock()
            .writer(&self.index)?
            .delete_all_documents()?;
        self.uncommitted.write().clear();
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }

    /// Commits pending changes with the applied sequence as payload and makes them searchable
    /// from the committed segments.
    pub fn commit(&self) -> Result<()> {
        let mut state = self.writer.lock();
        self.commit_locked(&mut state)
    }

    fn commit_locked(&self, state: &mut WriterState) -> Result<()> {
        let payload = state.applied_seq.to_string();
        let Some(writer) = state.writer.as_mut() else {
            // Never written since the open: the last commit covers everything.
            return Ok(());
        };
        let mut prepared = writer.prepare_commit()?;
        prepared.set_payload(&payload);
        prepared.commit()?;
        self.reader.reload()?;
        self.uncommitted.write().clear();
        self.dirty.store(false, Ordering::Release);
        Ok(())
    }

    /// Commits, then rewrites the index into one segment without deleted documents and removes
    /// the old files, so the terms of erased content are gone from disk (`forget(purge=true)`).
    pub fn purge(&self) -> Result<()> {
        let mut state = self.writer.lock();
        self.commit_locked(&mut state)?;
        for attempt in 1..=PURGE_MERGE_ATTEMPTS {
            let segments = self.index.searchable_segment_ids()?;
            if segments.is_empty() {
                break;
            }
            match state.writer(&self.index)?.merge(&segments).wait() {
                Ok(_) => break,
                Err(TantivyError::InvalidArgument(_)) if attempt < PURGE_MERGE_ATTEMPTS => {
                    std::thread::sleep(PURGE_MERGE_RETRY_WAIT);
                }
                Err(error) => return Err(error.into()),
            }
        }
        self.reader.reload()?;
        state.writer(&self.index)?.garbage_collect_files().wait()?;
        Ok(())
    }

    /// Whether the tantivy writer is open (it opens at the first change).
    pub fn writer_is_open(&self) -> bool {
        self.writer.lock().writer.is_some()
    }

    /// Whether changes wait for a commit.
    pub fn is_dirty(&self) -> bool {
        self.dirty.load(Ordering::Acquire)
    }

    /// The `k` memories whose content best matches `text` by BM25, best first (equal scores
    /// newest first); only `entity`'s when given. Query syntax errors are ignored (the text is read as plain words).
    /// Uncommitted documents are scored alongside the committed ones.
    pub fn search(&self, text: &str, k: usize, entity: Option<&str>) -> Result<Vec<KeywordHit>> {
        let searcher = self.reader.searcher();
        let uncommitted = self.uncommitted.read();
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
        let limit = k + uncommitted.deleted_len();
        let top = searcher.search(&query, &TopDocs::with_limit(limit).order_by_score())?;
        let mut best: HashMap<MemoryId, f32> = HashMap::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument = searcher.doc(address)?;
            let bytes = doc
                .get_first(self.id)
                .and_then(|value| value.as_bytes())
                .ok_or_else(|| HebbsError::corrupt("text index", "document without an id"))?;
            let id = MemoryId::from_slice(bytes, "text index id")?;
            if !uncommitted.is_deleted(&id) {
                best.insert(id, score);
            }
        }
        if uncommitted.len() > 0 {
            let mut terms = self.tokens(text);
            terms.sort();
            terms.dedup();
            let stats = CommittedStats {
                docs: searcher.num_docs(),
                tokens: searcher
                    .segment_readers()
                    .iter()
                    .map(|segment| {
                        segment
                            .inverted_index(self.content)
                            .map(|index| index.total_num_tokens())
                    })
                    .sum::<tantivy::Result<u64>>()?,
            };
            let frequency = |term: &str| {
                searcher
                    .doc_freq(&Term::from_field_text(self.content, term))
                    .unwrap_or(0)
            };
            for (id, score) in uncommitted.score(&terms, entity, &stats, frequency) {
                let entry = best.entry(id).or_insert(score);
                *entry = entry.max(score);
            }
        }
        let mut hits: Vec<KeywordHit> = best
            .into_iter()
            .map(|(id, score)| KeywordHit { id, score })
            .collect();
        // Equal scores (the same text twice) newest first, as recall breaks ties: the hits
        // come out of a hash map, whose order differs from call to call and process to process.
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| b.id.cmp(&a.id)));
        hits.truncate(k);
        Ok(hits)
    }

    /// Documents written since the last commit.
    pub fn uncommitted_len(&self) -> usize {
        self.uncommitted.read().len()
    }
}

/// Opens or creates the index in `dir`. An index that cannot be opened with `schema` (written
/// by another version, or damaged) is an error the caller answers by rebuilding it: it is
/// derived from the store.
fn open_in(dir: &Path, schema: Schema) -> Result<Index> {
    let directory =
        MmapDirectory::open(dir).map_err(|e| HebbsError::TextIndex { source: e.into() })?;
    Ok(Index::open_or_create(directory, schema)?)
}

/// `index` if every file of its last commit matches the checksum in its footer: a truncated
/// or bit-flipped segment is never searched (the caller rebuilds the index from the store).
fn checked(index: Index) -> Result<Index> {
    let corrupted = index.validate_checksum()?;
    if corrupted.is_empty() {
        Ok(index)
    } else {
        Err(HebbsError::corrupt(
            "full-text index",
            format!("{} files fail their checksum", corrupted.len()),
        ))
    }
}

fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(LowerCaser)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Commits `index` every [`TEXT_COMMIT_INTERVAL`] while it lives and has changes. A failed
/// background commit leaves the changes dirty, so the next commit (checkpoint, close, or this
/// thread) retries and reports; the changelog keeps them replayable meanwhile.
fn spawn_committer(index: Weak<TextIndex>) {
    std::thread::Builder::new()
        .name("hebbs-text-commit".into())
        .spawn(move || loop {
            std::thread::sleep(TEXT_COMMIT_INTERVAL);
            let Some(index) = index.upgrade() else { return };
            if index.is_dirty() {
                let _retried_later = index.commit();
            }
        })
        .expect("spawning the full-text commit thread");
}

#[cfg(test)]
mod tests {
    use super::TextIndex;
    use crate::memory::MemoryId;

    /// Every commit makes a segment, so tantivy's merge policy keeps merging in the background
    /// while purges merge explicitly: no purge may fail on segments a background merge took.
    #[test]
    fn purges_race_background_merges_without_failing() {
        let dir = tempfile::tempdir().unwrap();
        let (index, _) = TextIndex::open(dir.path()).unwrap();
        let mut ids = Vec::new();
        for round in 0..120u64 {
            let id = MemoryId::new();
            ids.push(id);
            let content = format!("note {round} about word{round}");
            index.add([(id, None, content.as_str())], round).unwrap();
            index.commit().unwrap();
            if round % 4 == 3 {
                index
                    .delete(&ids[ids.len() - 2..ids.len() - 1], round)
                    .unwrap();
                index.purge().unwrap();
            }
        }
        assert_eq!(index.search("note", 200, None).unwrap().len(), 90);
    }

    /// A store that is only read never opens the writer (its threads and arena): not at open,
    /// not for a search, not for a commit with nothing to commit; the first change opens it.
    #[test]
    fn the_writer_opens_at_the_first_change_only() {
        let dir = tempfile::tempdir().unwrap();
        let id = MemoryId::new();
        {
            let (index, covered) = TextIndex::open(dir.path()).unwrap();
            assert_eq!(covered, None);
            assert!(!index.writer_is_open());
            assert!(index.search("pricing", 5, None).unwrap().is_empty());
            index.commit().unwrap();
            assert!(!index.writer_is_open());
            index.add([(id, None, "pricing notes")], 7).unwrap();
            assert!(index.writer_is_open());
            index.commit().unwrap();
        }
        let (index, covered) = TextIndex::open(dir.path()).unwrap();
        assert_eq!(covered, Some(7));
        assert!(!index.writer_is_open());
        let found = index.search("pricing", 5, None).unwrap();
        assert_eq!(found.iter().map(|hit| hit.id).collect::<Vec<_>>(), vec![id]);
        index.commit().unwrap();
        assert!(!index.writer_is_open());
        index.delete(&[id], 8).unwrap();
        assert!(index.writer_is_open());
        index.commit().unwrap();
        assert!(index.search("pricing", 5, None).unwrap().is_empty());
    }

    /// Memories with the same text score the same: they come back newest first, the same on
    /// every call (which of them a cut at `k` keeps is tantivy's choice, by document order).
    #[test]
    fn equal_scores_come_back_newest_first_every_time() {
        let dir = tempfile::tempdir().unwrap();
        let (index, _) = TextIndex::open(dir.path()).unwrap();
        let ids: Vec<MemoryId> = (0..12).map(|_| MemoryId::new()).collect();
        for (round, id) in ids.iter().enumerate() {
            index
                .add([(*id, None, "the same words")], round as u64)
                .unwrap();
        }
        index.commit().unwrap();
        let search = |k| -> Vec<MemoryId> {
            let hits = index.search("same words", k, None).unwrap();
            hits.iter().map(|hit| hit.id).collect()
        };
        let mut newest_first = ids.clone();
        newest_first.sort_unstable_by(|a, b| b.cmp(a));
        let cut = search(8);
        assert_eq!(cut.len(), 8);
        assert!(cut.windows(2).all(|pair| pair[0] > pair[1]));
        for _ in 0..20 {
            assert_eq!(search(12), newest_first);
            assert_eq!(search(8), cut);
        }
    }
}
