//! [`RememberInput`]: what `remember` takes, and its validation. Every error names its field,
//! prefixed with `items[i].` inside `remember_many`.

use serde_json::{Map, Value};

use crate::error::{HebbsError, Result};
use crate::memory::checks::{
    check_content, check_context, check_edges, check_entity_id, check_key, check_unit, check_vector,
};
use crate::memory::{Edge, MemoryKind, TokenVectors};

/// Importance given to a memory stored without one.
pub const DEFAULT_IMPORTANCE: f32 = 0.5;
/// How far in the future a caller-supplied `created_at` may lie (clock skew), microseconds.
pub const MAX_FUTURE_SKEW_US: u64 = 24 * 3600 * 1_000_000;

/// A memory to store.
#[derive(Clone, Debug, PartialEq)]
pub struct RememberInput {
    /// The text, non-empty, at most [`MAX_CONTENT_BYTES`].
    pub content: String,
    /// The embedding of `content`; normalised by the engine.
    pub embedding: Vec<f32>,
    /// Importance, 0..=1.
    pub importance: f32,
    /// Structured metadata.
    pub context: Map<String, Value>,
    /// Entity scope.
    pub entity_id: Option<String>,
    /// Edges from the new memory to existing ones.
    pub edges: Vec<Edge>,
    /// Creation time in microseconds (for imports); now when `None`.
    pub created_at: Option<u64>,
    /// The conversation this memory came from: recorded for `Engine::chat_context`, and its
    /// place in the conversation's order (`created_at`, then arrival), which the re-rank
    /// stage reads as the turns around a hit.
    pub session_id: Option<String>,
    /// The per-token vectors of `content` from the embedding pass that made `embedding`
    /// (int8, see [`TokenVectors`]), stored for late-interaction re-ranking.
    pub token_vectors: Option<TokenVectors>,
    /// What the memory is: an episode (default) or an insight. Revisions are made by
    /// `revise` only.
    pub kind: MemoryKind,
    /// The caller's key for the memory (at most [`crate::memory::MAX_KEY_BYTES`], any
    /// characters): the memory the key names already, with every version of it, is forgotten
    /// in the same write, so a key always names one memory, the newest (an upsert).
    pub key: Option<String>,
}

impl RememberInput {
    /// An input with default importance, no context, entity, edges or timestamp.
    pub fn new(content: impl Into<String>, embedding: Vec<f32>) -> Self {
        Self {
            content: content.into(),
            embedding,
            importance: DEFAULT_IMPORTANCE,
            context: Map::new(),
            entity_id: None,
            edges: Vec::new(),
            created_at: None,
            session_id: None,
            token_vectors: None,
            kind: MemoryKind::Episode,
            key: None,
        }
    }

    /// Checks every field except edge targets' existence (the engine checks those under its
    /// write lock). `prefix` is prepended to field names.
    pub(crate) fn validate(&self, prefix: &str, now_us: u64) -> Result<()> {
        let field = |name: &str| format!("{prefix}{name}");
        check_content(&self.content, &field("content"))?;
        check_unit(self.importance, &field("importance"))?;
        if self.kind == MemoryKind::Revision {
            return Err(HebbsError::invalid(
                field("kind"),
                "revisions are created by revise, not remember",
            ));
        }
        check_context(&self.context, &field("context"))?;
        if let Some(entity) = &self.entity_id {
            check_entity_id(entity, &field("entity_id"))?;
        }
        if let Some(session) = &self.session_id {
            check_entity_id(session, &field("session_id"))?;
        }
        if let Some(key) = &self.key {
            check_key(key, &field("key"))?;
        }
        if let Some(vectors) = &self.token_vectors {
            vectors.check(&field("token_vectors"))?;
        }
        if let Some(created_at) = self.created_at {
            if created_at > now_us.saturating_add(MAX_FUTURE_SKEW_US) {
                return Err(HebbsError::invalid(
                    field("created_at"),
                    format!("{created_at} is more than a day in the future"),
                ));
            }
        }
        check_vector(&self.embedding, &field("embedding"))?;
        check_edges(&self.edges, prefix)
    }
}
