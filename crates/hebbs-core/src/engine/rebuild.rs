//! The background rebuild of the vector index. HNSW has no real delete, so forgotten vectors
//! stay in the graph as tombstoned slots that searches filter out; once they pass
//! [`INDEX_REBUILD_DELETED_FRACTION`] of the slots, a thread builds a fresh graph from the live
//! vectors and swaps it in.
//!
//! Writers are never blocked for the build: it records the changelog sequence it starts from
//! (checkpoints keep the changelog from there), streams the `vectors` column family into a new
//! index while writes go on into the old one, replays the changelog from its start sequence
//! without the writer lock, then takes the lock only to replay the last few entries and swap.
//! Replay is idempotent, so a vector both streamed and replayed is inserted once, and a delete
//! that raced the stream is applied by the replay.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::Mutex;

use super::recovery::{rebuild, replay, Recovery};
use super::shared::Shared;
use super::WriterState;
use crate::error::Result;
use crate::index::vector::VectorIndex;

/// Fraction of tombstoned slots past which the index is rebuilt in the background.
pub const INDEX_REBUILD_DELETED_FRACTION: f64 = 0.2;

/// The rebuild thread, its cancel flag and how many rebuilds completed.
#[derive(Default)]
pub(super) struct RebuildSlot {
    job: Mutex<Option<JoinHandle<()>>>,
    cancelled: AtomicBool,
    completed: AtomicU64,
}

impl RebuildSlot {
    /// Stops a running rebuild (it drops its half-built index) and waits for the thread.
    pub fn cancel_and_join(&self) {
        self.cancelled.store(true, Ordering::Release);
        self.join();
    }

    /// Waits for a running rebuild to finish (the handle is taken out first, so the slot's
    /// lock is not held while waiting).
    pub fn join(&self) {
        let job = self.job.lock().take();
        if let Some(handle) = job {
            if handle.join().is_err() {
                log::error!("the index rebuild thread panicked");
            }
        }
    }

    /// Rebuilds completed since the engine opened.
    pub fn completed(&self) -> u64 {
        self.completed.load(Ordering::Acquire)
    }
}

impl Shared {
    /// Starts a background rebuild if `index` has passed the tombstone threshold and none is
    /// running. The caller holds the writer lock (`writer`).
    pub fn maybe_rebuild(&self, writer: &mut WriterState, index: &VectorIndex) {
        if writer.rebuild_from.is_some() || self.rebuild.cancelled.load(Ordering::Acquire) {
            return;
        }
        let slots = index.slot_count();
        if slots == 0
            || (index.deleted_count() as f64) < INDEX_REBUILD_DELETED_FRACTION * slots as f64
        {
            return;
        }
        let mut job = self.rebuild.job.lock();
        if self.rebuild.cancelled.load(Ordering::Acquire) {
            return;
        }
        if let Some(finished) = job.take() {
            if finished.join().is_err() {
                log::error!("the index rebuild thread panicked");
            }
        }
        let from = writer.next_seq;
        writer.rebuild_from = Some(from);
        let shared = self.clone();
        let (params, dimension, format) = (self.hnsw, index.dimension(), index.format());
        let spawned = std::thread::Builder::new()
            .name("hebbs-index-rebuild".into())
            .spawn(move || {
                let outcome = shared.rebuild_index(params, dimension, format, from);
                if let Err(error) = &outcome {
                    log::error!("background index rebuild failed: {error}");
                }
                if !matches!(outcome, Ok(true)) {
                    shared.writer.lock().rebuild_from = None;
                }
            });
        match spawned {
            Ok(handle) => *job = Some(handle),
            Err(error) => {
                log::error!("could not start the index rebuild: {error}");
                writer.rebuild_from = None;
            }
        }
    }

    /// Builds a new index from the live vectors and the changelog from `from`, then swaps it
    /// in. Returns false if cancelled.
    fn rebuild_index(
        &self,
        params: crate::index::vector::HnswParams,
        dimension: usize,
        format: crate::index::vector::VectorFormat,
        from: u64,
    ) -> Result<bool> {
        // The live index's exact rows, shared: the new index's rows replace its rows as it
        // is built, and a row of the other numbering fails its check until then.
        let rows = self
            .current_index()
            .and_then(|live| live.exact_rows().cloned());
        let index = VectorIndex::new(params, dimension, format).with_exact_rows(rows);
        rebuild(&self.store, &index, &self.rebuild.cancelled)?;
        if self.rebuild.cancelled.load(Ordering::Acquire) {
            return Ok(false);
        }
        let mut recovery = Recovery::default();
        let caught_up = replay(&self.store, &index, from, &mut recovery)?;
        let mut writer = self.writer.lock();
        if self.rebuild.cancelled.load(Ordering::Acquire) {
            return Ok(false);
        }
        replay(&self.store, &index, caught_up, &mut recovery)?;
        *self.index.write() = Some(Arc::new(index));
        writer.rebuild_from = None;
        self.rebuild.completed.fetch_add(1, Ordering::AcqRel);
        Ok(true)
    }
}
