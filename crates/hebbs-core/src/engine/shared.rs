//! [`Shared`]: the parts of an [`Engine`] that background threads (the index rebuild, the
//! automatic decay pass) work on, as cheap clones of the engine's own handles.

use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::rebuild::RebuildSlot;
use super::{Engine, WriterState, INDEX_DIR};
use crate::error::Result;
use crate::index::text::TextIndex;
use crate::index::vector::{HnswParams, VectorIndex};
use crate::store::Store;

/// Handles shared between the engine and its background threads.
#[derive(Clone)]
pub(super) struct Shared {
    pub store: Arc<Store>,
    pub index: Arc<RwLock<Option<Arc<VectorIndex>>>>,
    pub text: Arc<TextIndex>,
    pub writer: Arc<Mutex<WriterState>>,
    pub rebuild: Arc<RebuildSlot>,
    pub dir: PathBuf,
    pub hnsw: HnswParams,
    pub sync_writes: bool,
}

impl Engine {
    /// The handles a background thread or a lifecycle call needs.
    pub(super) fn shared(&self) -> Shared {
        Shared {
            store: Arc::clone(&self.store),
            index: Arc::clone(&self.index),
            text: Arc::clone(&self.text),
            writer: Arc::clone(&self.writer),
            rebuild: Arc::clone(&self.rebuild),
            dir: self.dir.clone(),
            hnsw: self.config.hnsw,
            sync_writes: self.config.sync_writes,
        }
    }
}

impl Shared {
    /// The current vector index, if the store has a dimension.
    pub fn current_index(&self) -> Option<Arc<VectorIndex>> {
        self.index.read().clone()
    }

    /// Commits the full-text index, writes a vector index checkpoint and drops the changelog
    /// both cover (keeping what a running rebuild still has to replay). The caller holds the
    /// writer lock.
    pub fn checkpoint_locked(&self, writer: &mut WriterState) -> Result<()> {
        self.text.commit()?;
        if let Some(index) = self.current_index() {
            index.checkpoint(&self.dir.join(INDEX_DIR), writer.next_seq)?;
            self.store
                .truncate_changelog_below(writer.truncatable_below())?;
        }
        writer.checkpointed_seq = writer.next_seq;
        Ok(())
    }
}
