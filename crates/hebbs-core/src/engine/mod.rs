//! The public [`Engine`]: opens a store, keeps the vector index in line with it, and serves
//! `remember`, `get`, `recall` and `health`; `write_atomic` (memories, their edges, forgets
//! and state in one batch), `add_edges`, `revise`/`lineage`,
//! `forget`/`forget_decayed`, `list_memories` and `put_token_vectors`/`get_token_vectors` live
//! in their own files. It takes vectors; embedding text is the caller's job.
//!
//! On-disk layout under the engine's directory: `store/` (RocksDB, the source of truth), `hnsw/`
//! (the vector index checkpoint) and `text/` (the full-text index).

mod access_flush;
mod atomic_write;
mod auto_forget;
mod config;
mod conversation;
mod count;
mod edges;
mod forget;
mod health;
pub(crate) mod input;
mod keys;
mod list;
mod nearest;
mod rebuild;
mod recovery;
mod restore;
mod revise;
mod shared;
mod state;
mod token_vectors;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Mutex, RwLock};

pub use crate::clock::now_us;
pub use access_flush::ACCESS_FLUSH_INTERVAL;
pub use atomic_write::{AtomicWrite, AtomicWriteOutput, ItemEdge};
pub use config::{
    AutoForget, EngineConfig, DEFAULT_AUTO_FORGET_INTERVAL, DEFAULT_CHECKPOINT_INTERVAL,
};
pub use count::{CountRequest, COUNT_BATCH};
pub use forget::DEFAULT_TOMBSTONE_PAGE;
pub use health::HealthStatus;
pub use input::{RememberInput, DEFAULT_IMPORTANCE, MAX_FUTURE_SKEW_US};
pub use list::{ListRequest, MemoryPage, DEFAULT_LIST_PAGE, LIST_SCAN_MAX, MAX_LIST_PAGE};
pub use rebuild::INDEX_REBUILD_DELETED_FRACTION;
pub use recovery::Recovery;
pub use restore::RestoreInput;
pub use revise::RevisionInput;
pub use state::{MAX_STATE_NAME_BYTES, MAX_STATE_SCAN, MAX_STATE_VALUE_BYTES};

use access_flush::AccessFlusher;
use auto_forget::AutoForgetWorker;
use rebuild::RebuildSlot;

use crate::error::{HebbsError, Result};
use crate::index::text::TextIndex;
use crate::index::vector::{normalize, VectorIndex};
use crate::memory::{checks, Memory, MemoryId, StoredMemory};
use crate::recall::{
    execute, PrimeOutput, PrimeRequest, RecallContext, RecallFilter, RecallOutput, RecallRequest,
};
use crate::store::Store;
use crate::subscribe::{SubscribeRequest, Subscription, SubscriptionHub};

const STORE_DIR: &str = "store";
/// Batches up to this size return before their graph insert: their vectors are searched exactly
/// from the index's pending buffer until a background drain moves them into the graph. Larger
/// batches are inserted into the graph in parallel before the call returns.
pub const DEFERRED_INSERT_MAX_BATCH: usize = 64;
const INDEX_DIR: &str = "hnsw";
const TEXT_DIR: &str = "text";
/// Memories `chat_context` and `list_orphans` return when the caller does not say.
pub const DEFAULT_LIST_LIMIT: usize = 100;
/// Most memories `list_orphans` examines in one call.
pub const ORPHAN_SCAN_MAX: usize = 100_000;

/// Counters owned by the single writer.
struct WriterState {
    next_seq: u64,
    memory_count: u64,
    checkpointed_seq: u64,
    /// Whether the store has recorded its vector dimension (done with the first write).
    dimension_stored: bool,
    /// While a background index rebuild runs: the changelog sequence it replays from, which
    /// checkpoints must keep.
    rebuild_from: Option<u64>,
}

impl WriterState {
    /// Changelog entries below this may be dropped after a checkpoint.
    fn truncatable_below(&self) -> u64 {
        self.rebuild_from
            .map_or(self.next_seq, |from| from.min(self.next_seq))
    }
}

/// An open hebbs database. All methods take `&self` and are safe to call from many threads:
/// writes are serialised, reads run concurrently.
pub struct Engine {
    dir: PathBuf,
    store: Arc<Store>,
    index: Arc<RwLock<Option<Arc<VectorIndex>>>>,
    text: Arc<TextIndex>,
    writer: Arc<Mutex<WriterState>>,
    /// The background index rebuild, if one runs.
    rebuild: Arc<RebuildSlot>,
    /// The automatic decay pass, when configured.
    auto_forget: Mutex<Option<AutoForgetWorker>>,
    /// Writes the access increments recalls leave pending in the store.
    access_flusher: AccessFlusher,
    config: EngineConfig,
    opened_at: Instant,
    recovery: Recovery,
    closed: AtomicBool,
    subscriptions: Arc<SubscriptionHub>,
}

impl Engine {
    /// Opens (creating if needed) the database in directory `dir`.
    pub fn open(dir: impl AsRef<Path>, config: EngineConfig) -> Result<Self> {
        config.validate()?;
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| HebbsError::io(&dir, e))?;
        let store = Store::open(&dir.join(STORE_DIR))?;
        let stored_dimension = store.dimension()?;
        let dimension = match (stored_dimension, config.dimension) {
            (Some(stored), Some(wanted)) if stored != wanted => {
                return Err(HebbsError::invalid(
                    "dimension",
                    format!("the store holds {stored}-d vectors, not {wanted}-d"),
                ))
            }
            (stored, wanted) => stored.or(wanted),
        };
        let stored_format = store.vector_format()?;
        let format = config.vector_format.or(stored_format).unwrap_or_default();
        if stored_format != Some(format) {
            store.set_vector_format(format)?;
        }
        let next_seq = store.next_seq()?;
        let mut recovery = Recovery::default();
        let index = match stored_dimension {
            Some(dimension) => {
                let (index, done) = recovery::open_index(
                    &store,
                    &dir.join(INDEX_DIR),
                    config.hnsw,
                    dimension,
                    format,
                    recovery::exact_rows(&dir, dimension, format)?,
                )?;
                recovery = done;
                Some(Arc::new(index))
            }
            None => match dimension {
                Some(dimension) => Some(Arc::new(
                    VectorIndex::new(config.hnsw, dimension, format)
                        .with_exact_rows(recovery::exact_rows(&dir, dimension, format)?),
                )),
                None => None,
            },
        };
        let (text, text_replayed) = recovery::open_text_index(&store, &dir.join(TEXT_DIR))?;
        recovery.text_replayed = text_replayed;
        let store = Arc::new(store);
        let engine = Self {
            access_flusher: AccessFlusher::spawn(Arc::clone(&store)),
            writer: Arc::new(Mutex::new(WriterState {
                next_seq,
                memory_count: store.memory_count()?,
                checkpointed_seq: next_seq,
                dimension_stored: stored_dimension.is_some(),
                rebuild_from: None,
            })),
            dir,
            store,
            index: Arc::new(RwLock::new(index)),
            text,
            rebuild: Arc::default(),
            auto_forget: Mutex::new(None),
            config,
            opened_at: Instant::now(),
            recovery,
            closed: AtomicBool::new(false),
            subscriptions: Arc::default(),
        };
        if engine.recovery.inserted > 0
            || engine.recovery.deleted > 0
            || engine.recovery.text_replayed > 0
        {
            engine.checkpoint()?;
        }
        if let Some(index) = engine.current_index() {
            engine
                .shared()
                .maybe_rebuild(&mut engine.writer.lock(), &index);
        }
        if let Some(policy) = engine.config.auto_forget {
            *engine.auto_forget.lock() = Some(AutoForgetWorker::spawn(engine.shared(), policy));
        }
        log::info!(
            "opened {}: {} memories; {} vectors and {} text entries replayed since the checkpoint",
            engine.dir.display(),
            engine.writer.lock().memory_count,
            engine.recovery.inserted,
            engine.recovery.text_replayed,
        );
        Ok(engine)
    }

    /// How the vector index was brought up to date when this engine opened.
    pub fn recovery(&self) -> Recovery {
        self.recovery
    }

    /// The embedding dimension, once fixed by configuration or the first vector.
    pub fn dimension(&self) -> Option<usize> {
        self.current_index().map(|index| index.dimension())
    }

    /// How the vector index holds the vectors in memory, once the store has a dimension.
    pub fn vector_format(&self) -> Option<crate::index::vector::VectorFormat> {
        self.current_index().map(|index| index.format())
    }

    /// The directory this engine was opened on.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            Err(HebbsError::Closed)
        } else {
            Ok(())
        }
    }

    fn current_index(&self) -> Option<Arc<VectorIndex>> {
        self.index.read().clone()
    }

    /// Stores one memory and returns it.
    pub fn remember(&self, input: RememberInput) -> Result<Memory> {
        let mut memories = self.remember_with(vec![input], &|_| String::new())?;
        Ok(memories.remove(0))
    }

    /// Stores many memories in one atomic write and one parallel index insert; returns them in
    /// input order. If any input is invalid nothing is stored, and the error names its field
    /// as `items[i].<field>`. An input with a caller key replaces the memory that holds it
    /// (see [`RememberInput::key`]) in the same write.
    pub fn remember_many(&self, inputs: Vec<RememberInput>) -> Result<Vec<Memory>> {
        self.remember_with(inputs, &|i| format!("items[{i}]."))
    }

    /// `remember_many`, naming input `i`'s fields after `prefix(i)`.
    fn remember_with(
        &self,
        inputs: Vec<RememberInput>,
        prefix: &dyn Fn(usize) -> String,
    ) -> Result<Vec<Memory>> {
        self.check_open()?;
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let write = AtomicWrite {
            items: inputs,
            ..AtomicWrite::default()
        };
        Ok(self.commit_write(write, prefix)?.memories)
    }

    /// Queues the new memory `slot.id` from `input` (plus `extra` edges, to memories of the
    /// same batch) into `batch`, after checking its dimension against `index` and that its
    /// edges' targets exist.
    fn prepare_new(
        &self,
        batch: &mut crate::store::StoreBatch<'_>,
        index: &VectorIndex,
        input: RememberInput,
        extra: &[crate::memory::Edge],
        slot: NewSlot<'_>,
    ) -> Result<(MemoryId, StoredMemory, Vec<f32>)> {
        let NewSlot {
            id,
            seq,
            now,
            prefix,
        } = slot;
        if input.embedding.len() != index.dimension() {
            return Err(HebbsError::invalid(
                format!("{prefix}embedding"),
                format!(
                    "dimension {} does not match the store's {}",
                    input.embedding.len(),
                    index.dimension()
                ),
            ));
        }
        for (e, edge) in input.edges.iter().enumerate() {
            if !self.store.contains(&edge.target)? {
                return Err(HebbsError::invalid(
                    format!("{prefix}edges[{e}].target"),
                    format!("no memory with id {}", edge.target),
                ));
            }
        }
        let mut vector = input.embedding;
        normalize(&mut vector);
        let created_at = input.created_at.unwrap_or(now);
        let record = StoredMemory {
            key: input.key,
            kind: input.kind,
            importance: input.importance,
            created_at,
            updated_at: now,
            entity_id: input.entity_id,
            content: input.content,
            context: input.context,
            superseded: false,
        };
        let mut edges = input.edges;
        edges.extend_from_slice(extra);
        batch.put_memory(&id, &record, &vector, &edges, seq);
        if let Some(session) = &input.session_id {
            batch.touch_session(session, now, &id);
            batch.put_conversation_turn(session, created_at, seq, &id);
        }
        if let Some(vectors) = &input.token_vectors {
            batch.put_token_vectors(&id, vectors);
        }
        Ok((id, record, vector))
    }

    /// The conversation memory `id` was remembered in, for a subscription's filter. The
    /// memory is committed and acknowledged when this runs, so a failed read cannot fail the
    /// write: the memory is then pushed as if it had no conversation.
    fn session_of(&self, id: &MemoryId) -> Option<String> {
        match self.store.conversation_turns(std::slice::from_ref(id)) {
            Ok(mut turns) => turns.pop().flatten().map(|turn| turn.session_id),
            Err(_) => None,
        }
    }

    /// Tells the subscriptions about memories just committed.
    fn publish_new(&self, prepared: &[(MemoryId, StoredMemory, Vec<f32>)], now: u64) {
        self.subscriptions.publish(
            prepared
                .iter()
                .map(|(id, record, vector)| (id, record, vector.as_slice())),
            now,
            |id| self.session_of(id),
        );
    }

    /// Commits `batch`, which adds the memories `prepared` (with the counters and, for the
    /// first vector, the dimension), then indexes them.
    fn commit_new(
        &self,
        writer: &mut WriterState,
        mut batch: crate::store::StoreBatch<'_>,
        index: &Arc<VectorIndex>,
        prepared: &[(MemoryId, StoredMemory, Vec<f32>)],
    ) -> Result<()> {
        let count = prepared.len() as u64;
        batch.put_counters(writer.memory_count + count, writer.next_seq + count);
        if !writer.dimension_stored {
            batch.put_dimension(index.dimension());
        }
        self.store.commit(batch, self.config.sync_writes)?;
        writer.dimension_stored = true;
        writer.memory_count += count;
        writer.next_seq += count;
        self.index_committed(writer, index, prepared)
    }

    /// Adds memories just committed to the text and vector indexes.
    fn index_committed(
        &self,
        writer: &WriterState,
        index: &Arc<VectorIndex>,
        prepared: &[(MemoryId, StoredMemory, Vec<f32>)],
    ) -> Result<()> {
        self.text.add(
            prepared
                .iter()
                .map(|(id, record, _)| (*id, record.entity_id.as_deref(), record.content.as_str())),
            writer.next_seq,
        )?;
        if prepared.len() <= DEFERRED_INSERT_MAX_BATCH {
            for (id, record, vector) in prepared {
                index.insert_deferred(*id, record.entity_id.as_deref(), vector.clone());
            }
        } else {
            let items: Vec<(MemoryId, Option<&str>, &[f32])> = prepared
                .iter()
                .map(|(id, record, vector)| (*id, record.entity_id.as_deref(), vector.as_slice()))
                .collect();
            index.insert_many(&items);
        }
        Ok(())
    }

    /// Checkpoints the indexes when enough writes arrived since the last checkpoint.
    fn checkpoint_if_due(&self, writer: &mut WriterState, index: &VectorIndex) -> Result<()> {
        if writer.next_seq - writer.checkpointed_seq >= self.config.checkpoint_interval {
            self.text.commit()?;
            index.checkpoint(&self.dir.join(INDEX_DIR), writer.next_seq)?;
            self.store
                .truncate_changelog_below(writer.truncatable_below())?;
            writer.checkpointed_seq = writer.next_seq;
        }
        Ok(())
    }

    /// The index for vectors of `dimension`, creating it with the first vector.
    fn index_for(&self, dimension: usize) -> Result<Arc<VectorIndex>> {
        if let Some(index) = self.current_index() {
            return Ok(index);
        }
        let format = self.store.vector_format()?.unwrap_or_default();
        let index = Arc::new(
            VectorIndex::new(self.config.hnsw, dimension, format)
                .with_exact_rows(recovery::exact_rows(&self.dir, dimension, format)?),
        );
        *self.index.write() = Some(Arc::clone(&index));
        Ok(index)
    }

    /// Opens a standing query: every memory committed after this call that matches `request` is
    /// pushed to the returned [`Subscription`], in commit order (see [`crate::subscribe`]). It
    /// registers under the writer lock, so each concurrent write is either wholly before it (not
    /// pushed) or after it. A store without a dimension yet takes the cue's.
    pub fn subscribe(&self, request: SubscribeRequest) -> Result<Subscription> {
        self.check_open()?;
        request.validate()?;
        let _writer = self.writer.lock();
        let index = self.index_for(request.cue_vector.len())?;
        let cue = self.normalized_cue(&request.cue_vector, Some(&index))?;
        self.subscriptions.subscribe(request, cue)
    }

    /// Live subscriptions.
    pub fn subscription_count(&self) -> usize {
        self.subscriptions.len()
    }

    /// The memory with `id`, with its embedding if `include_embedding`.
    pub fn get(&self, id: &MemoryId, include_embedding: bool) -> Result<Memory> {
        self.check_open()?;
        let record = self
            .store
            .record(id)?
            .ok_or_else(|| HebbsError::NotFound { id: id.to_hex() })?;
        let stats = self.store.access_stats(std::slice::from_ref(id))?[0];
        let embedding = if include_embedding {
            self.store.vector(id)?
        } else {
            None
        };
        Ok(Memory::assemble(
            *id,
            record,
            stats.count,
            stats.last_access_us,
            embedding,
            now_us(),
        ))
    }

    /// Runs a recall and records one access of every returned memory: in memory at once (what
    /// `get` and the next recall read), in RocksDB within [`ACCESS_FLUSH_INTERVAL`] or at close.
    pub fn recall(&self, request: &RecallRequest) -> Result<RecallOutput> {
        let (output, now) = self.execute_recall(request)?;
        if output.results.is_empty() {
            return Ok(output);
        }
        if let Some(session) = &request.session_id {
            let mut batch = self.store.batch();
            for result in &output.results {
                batch.touch_session(session, now, &result.memory.id);
            }
            self.store.commit(batch, false)?;
        }
        let flush_due = self
            .store
            .record_accesses(output.results.iter().map(|result| &result.memory.id), now);
        if flush_due {
            self.access_flusher.wake();
        }
        Ok(output)
    }

    /// Runs a recall that writes nothing: no access is recorded and `session_id` touches no
    /// chat context, so the results carry the access statistics as stored (what a reader of
    /// another tenant's store runs: an organization's memory recalled by a member).
    pub fn recall_read_only(&self, request: &RecallRequest) -> Result<RecallOutput> {
        let (mut output, now) = self.execute_recall(request)?;
        let ids: Vec<MemoryId> = output
            .results
            .iter()
            .map(|result| result.memory.id)
            .collect();
        let stats = self.store.access_stats(&ids)?;
        for (result, stats) in output.results.iter_mut().zip(stats) {
            result
                .memory
                .set_access(stats.count, stats.last_access_us, now);
        }
        Ok(output)
    }

    /// The checked request's results, as a recall that records its accesses shows them, and
    /// the time it ran at.
    fn execute_recall(&self, request: &RecallRequest) -> Result<(RecallOutput, u64)> {
        self.check_open()?;
        request.validate()?;
        if let Some(session) = &request.session_id {
            checks::check_entity_id(session, "session_id")?;
        }
        let index = self.current_index();
        let cue = match &request.cue_vector {
            Some(vector) => Some(self.normalized_cue(vector, index.as_deref())?),
            None => None,
        };
        let now = now_us();
        let filter = match &request.filter {
            Some(filter) => Some(RecallFilter::new(&self.store, filter)?),
            None => None,
        };
        let context = RecallContext {
            store: &self.store,
            index: index.as_deref(),
            text: &self.text,
            request,
            cue,
            now_us: now,
            filter,
        };
        Ok((execute(&context)?, now))
    }

    /// Primes an agent's context for one entity: its recent memories blended with its memories
    /// nearest the cue, see [`PrimeRequest`]. Records one access of every returned memory.
    pub fn prime(&self, request: &PrimeRequest) -> Result<PrimeOutput> {
        Ok(self.recall(&request.to_recall()?)?.into())
    }

    fn normalized_cue(&self, vector: &[f32], index: Option<&VectorIndex>) -> Result<Vec<f32>> {
        checks::check_vector(vector, "cue")?;
        if let Some(index) = index {
            if vector.len() != index.dimension() {
                return Err(HebbsError::invalid(
                    "cue",
                    format!(
                        "dimension {} does not match the store's {}",
                        vector.len(),
                        index.dimension()
                    ),
                ));
            }
        }
        let mut cue = vector.to_vec();
        normalize(&mut cue);
        Ok(cue)
    }

    /// The memories conversation `session_id` touched (remembered with it, or returned by a
    /// recall that named it), in the order of their first touch, at most `limit`. Forgotten
    /// memories are skipped.
    pub fn chat_context(&self, session_id: &str, limit: usize) -> Result<Vec<Memory>> {
        self.check_open()?;
        checks::check_entity_id(session_id, "session_id")?;
        let mut seen = std::collections::HashSet::new();
        let ids: Vec<MemoryId> = self
            .store
            .session_touches(session_id, usize::MAX)?
            .into_iter()
            .map(|touch| touch.id)
            .filter(|id| seen.insert(*id))
            .take(limit)
            .collect();
        self.memories(&ids)
    }

    /// Up to `limit` memories with no edge in either direction, newest first; at most
    /// [`ORPHAN_SCAN_MAX`] memories are examined.
    pub fn list_orphans(&self, limit: usize) -> Result<Vec<Memory>> {
        self.check_open()?;
        let mut ids = Vec::new();
        for item in self.store.scan_records_newest_first().take(ORPHAN_SCAN_MAX) {
            if ids.len() >= limit {
                break;
            }
            let (id, _) = item?;
            if self.store.edges_up_to(&id, true, 1)?.is_empty()
                && self.store.edges_up_to(&id, false, 1)?.is_empty()
            {
                ids.push(id);
            }
        }
        self.memories(&ids)
    }

    /// The memories of `ids` that exist, in order, with their access statistics.
    fn memories(&self, ids: &[MemoryId]) -> Result<Vec<Memory>> {
        let records = self.store.records(ids)?;
        let stats = self.store.access_stats(ids)?;
        let now = now_us();
        Ok(ids
            .iter()
            .zip(records)
            .zip(stats)
            .filter_map(|((id, record), stats)| {
                record.map(|record| {
                    Memory::assemble(*id, record, stats.count, stats.last_access_us, None, now)
                })
            })
            .collect())
    }

    /// Edges held by `id`, pointing at other memories.
    pub fn edges_out(&self, id: &MemoryId) -> Result<Vec<crate::memory::Edge>> {
        self.check_open()?;
        self.store.edges_out(id)
    }

    /// Edges pointing at `id`; each edge's `target` is the memory that holds it.
    pub fn edges_in(&self, id: &MemoryId) -> Result<Vec<crate::memory::Edge>> {
        self.check_open()?;
        self.store.edges_in(id)
    }

    /// Serving state, version, memory count and uptime. Never scans.
    pub fn health(&self) -> HealthStatus {
        HealthStatus {
            serving: !self.closed.load(Ordering::Acquire),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            memory_count: self.writer.lock().memory_count,
            uptime_seconds: self.opened_at.elapsed().as_secs(),
        }
    }

    /// Finishes the vector index work that otherwise runs in the background, so the next
    /// recalls run at full speed: links the pending vectors into the graph (see
    /// `index::vector`), so searches no longer scan them exactly.
    pub fn optimize(&self) -> Result<()> {
        self.check_open()?;
        if let Some(index) = self.current_index() {
            index.drain();
        }
        Ok(())
    }

    /// Writes a vector index checkpoint now and drops the changelog it covers.
    pub fn checkpoint(&self) -> Result<()> {
        let mut writer = self.writer.lock();
        self.shared().checkpoint_locked(&mut writer)
    }

    /// Checkpoints the index, writes the pending access counts, flushes the store and refuses
    /// further calls.
    pub fn close(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        self.subscriptions.close_all();
        if let Some(worker) = self.auto_forget.lock().take() {
            worker.stop();
        }
        self.rebuild.cancel_and_join();
        self.access_flusher.stop();
        let dirty = {
            let writer = self.writer.lock();
            writer.checkpointed_seq != writer.next_seq
        };
        if dirty {
            self.checkpoint()?;
        }
        self.store.flush()
    }
}

/// Where a new memory goes: its id, its changelog sequence, the write's time and the prefix of
/// its field names in errors (`items[i].`).
struct NewSlot<'p> {
    id: MemoryId,
    seq: u64,
    now: u64,
    prefix: &'p str,
}

/// Validates `inputs` (field names prefixed by `prefix(i)`) and returns their common
/// embedding dimension.
fn validate_inputs(
    inputs: &[RememberInput],
    now: u64,
    prefix: impl Fn(usize) -> String,
) -> Result<usize> {
    for (i, input) in inputs.iter().enumerate() {
        input.validate(&prefix(i), now)?;
    }
    keys::check_unique_keys(inputs.iter().map(|input| &input.key), &prefix)?;
    let first_dimension = inputs.first().map_or(0, |input| input.embedding.len());
    if let Some(i) = inputs
        .iter()
        .position(|input| input.embedding.len() != first_dimension)
    {
        return Err(HebbsError::invalid(
            format!("items[{i}].embedding"),
            format!(
                "dimension {} differs from the batch's {first_dimension}",
                inputs[i].embedding.len()
            ),
        ));
    }
    Ok(first_dimension)
}

/// The memories just stored, as returned to the caller.
fn assemble_new(prepared: Vec<(MemoryId, StoredMemory, Vec<f32>)>, now: u64) -> Vec<Memory> {
    prepared
        .into_iter()
        .map(|(id, record, _)| Memory::assemble(id, record, 0, 0, None, now))
        .collect()
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Err(error) = self.close() {
            log::error!("closing {} failed: {error}", self.dir.display());
        }
        // A recall that raced `close` may have recorded accesses after its flush; no call is
        // in flight any more.
        if let Err(error) = self.store.flush_accesses() {
            log::error!(
                "writing access counts of {} failed: {error}",
                self.dir.display()
            );
        }
    }
}
