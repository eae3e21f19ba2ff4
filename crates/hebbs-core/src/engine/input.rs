//! [`RememberInput`]: what `remember` takes, and its validation. Every error names its field,
//! prefixed with `items[i].` inside `remember_many`.

use serde_json::{Map, Value};

use crate::error::{HebbsError, Result};
use crate::memory::{
    Edge, MemoryKind, TokenVectors, MAX_CONTENT_BYTES, MAX_CONTEXT_BYTES, MAX_EDGES_PER_MEMORY,
    MAX_ENTITY_ID_BYTES, MAX_VECTOR_DIMENSION,
};

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

/// Checks the count and confidences of edges; `prefix` goes before `edges` in field names.
pub(crate) fn check_edges(edges: &[Edge], prefix: &str) -> Result<()> {
    if edges.len() > MAX_EDGES_PER_MEMORY {
        return Err(HebbsError::invalid(
            format!("{prefix}edges"),
            format!(
                "{} edges exceeds the limit of {MAX_EDGES_PER_MEMORY}",
                edges.len()
            ),
        ));
    }
    for (i, edge) in edges.iter().enumerate() {
        check_unit(edge.confidence, &format!("{prefix}edges[{i}].confidence"))?;
    }
    Ok(())
}

/// Checks `content`: not blank, at most [`MAX_CONTENT_BYTES`].
pub(crate) fn check_content(content: &str, field: &str) -> Result<()> {
    if content.trim().is_empty() {
        return Err(HebbsError::invalid(field, "must not be empty"));
    }
    if content.len() > MAX_CONTENT_BYTES {
        return Err(HebbsError::invalid(
            field,
            format!(
                "{} bytes exceeds the limit of {MAX_CONTENT_BYTES}",
                content.len()
            ),
        ));
    }
    Ok(())
}

/// Checks that `context` serialises to at most [`MAX_CONTEXT_BYTES`] of JSON.
pub(crate) fn check_context(context: &Map<String, Value>, field: &str) -> Result<()> {
    let context_len = serde_json::to_vec(context).map_or(usize::MAX, |bytes| bytes.len());
    if context_len > MAX_CONTEXT_BYTES {
        return Err(HebbsError::invalid(
            field,
            format!("{context_len} bytes of JSON exceeds the limit of {MAX_CONTEXT_BYTES}"),
        ));
    }
    Ok(())
}

/// Checks `value` is a finite number in 0..=1.
pub(crate) fn check_unit(value: f32, field: &str) -> Result<()> {
    if value.is_finite() && (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(HebbsError::invalid(
            field,
            format!("{value} is outside 0..=1"),
        ))
    }
}

/// Checks an entity id: non-empty, at most [`MAX_ENTITY_ID_BYTES`], no control characters.
pub(crate) fn check_entity_id(entity: &str, field: &str) -> Result<()> {
    if entity.is_empty() {
        return Err(HebbsError::invalid(field, "must not be empty"));
    }
    if entity.len() > MAX_ENTITY_ID_BYTES {
        return Err(HebbsError::invalid(
            field,
            format!(
                "{} bytes exceeds the limit of {MAX_ENTITY_ID_BYTES}",
                entity.len()
            ),
        ));
    }
    if entity.chars().any(char::is_control) {
        return Err(HebbsError::invalid(
            field,
            "must not contain control characters",
        ));
    }
    Ok(())
}

/// Checks a vector: non-empty, not too long, finite, not all zeros.
pub(crate) fn check_vector(vector: &[f32], field: &str) -> Result<()> {
    if vector.is_empty() || vector.len() > MAX_VECTOR_DIMENSION {
        return Err(HebbsError::invalid(
            field,
            format!(
                "dimension {} is outside 1..={MAX_VECTOR_DIMENSION}",
                vector.len()
            ),
        ));
    }
    if let Some(at) = vector.iter().position(|x| !x.is_finite()) {
        return Err(HebbsError::invalid(
            field,
            format!("element {at} is not finite"),
        ));
    }
    if vector.iter().all(|x| *x == 0.0) {
        return Err(HebbsError::invalid(field, "must not be all zeros"));
    }
    Ok(())
}
