//! Engine configuration and its defaults.

use crate::error::{HebbsError, Result};
use crate::index::vector::HnswParams;
use crate::memory::MAX_VECTOR_DIMENSION;

/// Changelog entries after which the vector index is checkpointed during writes.
pub const DEFAULT_CHECKPOINT_INTERVAL: u64 = 100_000;

/// How an [`crate::Engine`] is opened.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    /// HNSW build and search parameters.
    pub hnsw: HnswParams,
    /// Expected embedding dimension; `None` lets the first stored vector fix it. A store keeps
    /// its dimension for life: opening it with another one is an error.
    pub dimension: Option<usize>,
    /// fsync the write-ahead log on every write. Off, an acknowledged write survives a process
    /// crash (the log is in the OS page cache) but not a power loss.
    pub sync_writes: bool,
    /// Changelog entries after which the vector index is checkpointed while writing.
    pub checkpoint_interval: u64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            hnsw: HnswParams::default(),
            dimension: None,
            sync_writes: false,
            checkpoint_interval: DEFAULT_CHECKPOINT_INTERVAL,
        }
    }
}

impl EngineConfig {
    /// Checks every field.
    pub fn validate(&self) -> Result<()> {
        self.hnsw.validate()?;
        if let Some(dimension) = self.dimension {
            if !(1..=MAX_VECTOR_DIMENSION).contains(&dimension) {
                return Err(HebbsError::invalid(
                    "dimension",
                    format!("{dimension} is outside 1..={MAX_VECTOR_DIMENSION}"),
                ));
            }
        }
        if self.checkpoint_interval == 0 {
            return Err(HebbsError::invalid(
                "checkpoint_interval",
                "must be positive",
            ));
        }
        Ok(())
    }
}
