//! The one error type of the engine: every public call returns [`Result<T>`].
//!
//! Each variant is a struct variant that names what went wrong, so bindings can map each to its
//! own exception type and messages always name the offending field.

use std::path::PathBuf;

/// Everything that can go wrong in a `hebbs-core` call.
#[derive(Debug, thiserror::Error)]
pub enum HebbsError {
    /// A caller-supplied value is invalid; nothing was written.
    #[error("invalid {field}: {reason}")]
    InvalidInput {
        /// The name of the offending argument or field, e.g. `importance` or `edges[2].confidence`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A well-formed request contradicts the store's current state (revising a memory a newer
    /// revision already superseded, restoring or choosing an id the store already holds);
    /// nothing was written.
    #[error("conflict on {field}: {reason}")]
    Conflict {
        /// The name of the argument or field in conflict, e.g. `id` or `items[3].id`.
        field: String,
        /// What in the store it contradicts.
        reason: String,
    },
    /// A memory that the call refers to does not exist.
    #[error("memory not found: {id}")]
    NotFound {
        /// The id, as hex.
        id: String,
    },
    /// RocksDB reported an error.
    #[error("storage error: {source}")]
    Storage {
        /// The underlying RocksDB error.
        #[from]
        source: rocksdb::Error,
    },
    /// A file-system operation outside RocksDB failed (index checkpoints).
    #[error("io error on {path}: {source}")]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Stored bytes could not be decoded: the store was written by an incompatible version or damaged.
    #[error("corrupt {what}: {reason}")]
    Corruption {
        /// Which record or file.
        what: String,
        /// What failed to decode.
        reason: String,
    },
    /// The vector index failed (loading or dumping its checkpoint).
    #[error("vector index error: {reason}")]
    Index {
        /// What failed.
        reason: String,
    },
    /// The full-text index failed (opening, writing or committing it).
    #[error("full-text index error: {source}")]
    TextIndex {
        /// The tantivy error.
        #[from]
        source: tantivy::TantivyError,
    },
    /// The engine was closed and can no longer be used.
    #[error("the engine is closed")]
    Closed,
}

/// Shorthand used across the crate.
pub type Result<T> = std::result::Result<T, HebbsError>;

impl HebbsError {
    /// An [`HebbsError::InvalidInput`] for `field`.
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidInput {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// A [`HebbsError::Conflict`] for `field`.
    pub fn conflict(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Conflict {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// A [`HebbsError::Corruption`] for `what`.
    pub fn corrupt(what: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Corruption {
            what: what.into(),
            reason: reason.into(),
        }
    }

    /// Wraps an [`std::io::Error`] with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}
