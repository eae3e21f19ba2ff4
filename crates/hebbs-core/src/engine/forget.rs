//! `forget`, `forget_decayed` and the audit reads (`tombstone`, `tombstones`, `find_bytes`). A forget selects under the writer lock, expands the cascade
//! ([`crate::forget::Cascade`]), commits it in one write batch with the counters and one
//! changelog delete per erased memory, tombstones the vectors in the index (a background
//! rebuild follows past [`super::INDEX_REBUILD_DELETED_FRACTION`]) and, with `purge`,
//! checkpoints the index and compacts the touched ranges so the bytes are gone from disk.

use super::shared::Shared;
use super::{now_us, Engine};
use crate::error::Result;
use crate::forget::{
    check_limit, select, select_decayed, Cascade, ForgetRequest, ForgetResult, Selection,
};
use crate::memory::checks::check_unit;
use crate::memory::{MemoryId, Tombstone};

/// Tombstones one page of `tombstones` lists when the caller does not say (the bindings'
/// default `limit`).
pub const DEFAULT_TOMBSTONE_PAGE: usize = 100;

impl Shared {
    /// Forgets what a validated `request` selects.
    pub fn forget(&self, request: &ForgetRequest) -> Result<ForgetResult> {
        let mut writer = self.writer.lock();
        let selection = select(&self.store, request)?;
        self.erase(&mut writer, selection, request.purge)
    }

    /// Forgets up to `limit` memories whose decay score is below `floor`.
    pub fn forget_decayed(&self, floor: f32, limit: usize) -> Result<ForgetResult> {
        check_unit(floor, "floor")?;
        check_limit(limit, "limit")?;
        let mut writer = self.writer.lock();
        let selection = select_decayed(&self.store, floor, limit, now_us())?;
        self.erase(&mut writer, selection, false)
    }

    fn erase(
        &self,
        writer: &mut super::WriterState,
        selection: Selection,
        purge: bool,
    ) -> Result<ForgetResult> {
        let truncated = selection.truncated;
        let cascade = Cascade::plan(&self.store, selection.targets)?;
        let erased = cascade.erase.len() as u64;
        let result = ForgetResult {
            forgotten_count: cascade.selected as u64,
            cascade_count: (cascade.erase.len() - cascade.selected + cascade.edges.len()) as u64,
            tombstone_count: erased,
            truncated,
        };
        if erased == 0 {
            return Ok(result);
        }
        let mut batch = self.store.batch();
        cascade.apply(&mut batch, writer.next_seq, now_us())?;
        batch.put_counters(
            writer.memory_count.saturating_sub(erased),
            writer.next_seq + erased,
        );
        let touched = batch.touched().clone();
        self.store.commit(batch, self.sync_writes)?;
        writer.memory_count = writer.memory_count.saturating_sub(erased);
        writer.next_seq += erased;
        let ids: Vec<MemoryId> = cascade.erase.iter().map(|(id, _)| *id).collect();
        self.text.delete(&ids, writer.next_seq)?;
        if let Some(index) = self.current_index() {
            for (id, _) in &cascade.erase {
                index.delete(id);
            }
            self.maybe_rebuild(writer, &index);
        }
        if purge {
            self.checkpoint_locked(writer)?;
            self.store.purge(&touched)?;
            self.text.purge()?;
        }
        Ok(result)
    }
}

impl Engine {
    /// Forgets the memories `request` selects (ids, entity, criteria; AND-combined), at most
    /// `request.limit` of them, with everything derived from them; see [`ForgetResult`] for
    /// what is counted. Unknown ids are skipped; malformed input is an `InvalidInput`.
    pub fn forget(&self, request: &ForgetRequest) -> Result<ForgetResult> {
        self.check_open()?;
        request.validate()?;
        self.shared().forget(request)
    }

    /// Forgets up to `limit` memories whose decay score (see [`crate::recall::decay_score`])
    /// is below `floor`, oldest first; `truncated` says more remain.
    pub fn forget_decayed(&self, floor: f32, limit: usize) -> Result<ForgetResult> {
        self.check_open()?;
        self.shared().forget_decayed(floor, limit)
    }

    /// The tombstone of a forgotten memory, if any.
    pub fn tombstone(&self, id: &MemoryId) -> Result<Option<Tombstone>> {
        self.check_open()?;
        self.store.tombstone(id)
    }

    /// Up to `limit` tombstones in id order, after `after` (exclusive) when given: page through
    /// them by passing the last id of the previous page. Callers without a page size of their
    /// own pass [`DEFAULT_TOMBSTONE_PAGE`].
    pub fn tombstones(&self, after: Option<&MemoryId>, limit: usize) -> Result<Vec<Tombstone>> {
        self.check_open()?;
        check_limit(limit, "limit")?;
        self.store.tombstones(after, limit)
    }

    /// Every `(column family, key)` of the store whose key or value contains `needle` (an
    /// id's bytes, a piece of content): a full streaming scan, for audits proving an erasure.
    /// After a forget, an id remains only in its tombstone, plus the changelog delete until
    /// the next checkpoint. Pending access counts are written first, so the scan sees them.
    pub fn find_bytes(&self, needle: &[u8]) -> Result<Vec<(&'static str, Vec<u8>)>> {
        self.check_open()?;
        self.store.flush_accesses()?;
        self.store.find_bytes(needle)
    }

    /// Background index rebuilds completed since open.
    pub fn index_rebuilds(&self) -> u64 {
        self.rebuild.completed()
    }

    /// Waits for a running background index rebuild, if any, to finish.
    pub fn wait_for_index_rebuild(&self) {
        self.rebuild.join();
    }

    /// `(slots, tombstoned slots)` of the vector index: how much of the graph is forgotten
    /// vectors awaiting a rebuild.
    pub fn index_slots(&self) -> (usize, usize) {
        self.current_index()
            .map_or((0, 0), |index| (index.slot_count(), index.deleted_count()))
    }
}
