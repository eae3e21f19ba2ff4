//! Engine configuration and its defaults.

use std::time::Duration;

use crate::error::{HebbsError, Result};
use crate::forget::{check_limit, DEFAULT_FORGET_LIMIT};
use crate::index::vector::{HnswParams, VectorFormat};
use crate::memory::checks::check_unit;
use crate::memory::MAX_VECTOR_DIMENSION;

/// Changelog entries after which the vector index is checkpointed during writes.
pub const DEFAULT_CHECKPOINT_INTERVAL: u64 = 100_000;

/// How often the automatic decay pass runs when switched on.
pub const DEFAULT_AUTO_FORGET_INTERVAL: Duration = Duration::from_secs(3600);

/// The automatic decay pass: every `interval`, a background thread forgets up to `limit`
/// memories whose decay score (see [`crate::recall::decay_score`]) is below `floor`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AutoForget {
    /// Decay score below which a memory is forgotten, 0..=1.
    pub floor: f32,
    /// Time between passes.
    pub interval: Duration,
    /// Most memories one pass forgets; the next pass continues.
    pub limit: usize,
}

impl AutoForget {
    /// A pass every [`DEFAULT_AUTO_FORGET_INTERVAL`] of at most [`DEFAULT_FORGET_LIMIT`]
    /// memories below `floor`.
    pub fn with_floor(floor: f32) -> Self {
        Self {
            floor,
            interval: DEFAULT_AUTO_FORGET_INTERVAL,
            limit: DEFAULT_FORGET_LIMIT,
        }
    }

    fn validate(&self) -> Result<()> {
        check_unit(self.floor, "auto_forget.floor")?;
        if self.interval.is_zero() {
            return Err(HebbsError::invalid(
                "auto_forget.interval",
                "must be positive",
            ));
        }
        check_limit(self.limit, "auto_forget.limit")
    }
}

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
    /// The automatic decay pass; `None` (the default) leaves forgetting to the caller.
    pub auto_forget: Option<AutoForget>,
    /// How the vector index holds the vectors in memory; `None` keeps the store's (recorded on
    /// each open; `f32` for a new store). Another format than the store's rebuilds the index
    /// in it from the stored vectors, then records it.
    pub vector_format: Option<VectorFormat>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            hnsw: HnswParams::default(),
            dimension: None,
            sync_writes: false,
            checkpoint_interval: DEFAULT_CHECKPOINT_INTERVAL,
            auto_forget: None,
            vector_format: None,
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
        if let Some(auto_forget) = &self.auto_forget {
            auto_forget.validate()?;
        }
        Ok(())
    }
}
