//! The checks of the values a memory is made of, each error naming its field: content,
//! context, entity ids, caller keys, vectors, edges and 0..=1 numbers. Every layer that takes them (the
//! engine's writes, the recall, forget and subscribe requests) checks them here.

use serde_json::{Map, Value};

use super::{
    Edge, MAX_CONTENT_BYTES, MAX_CONTEXT_BYTES, MAX_EDGES_PER_MEMORY, MAX_ENTITY_ID_BYTES,
    MAX_KEY_BYTES, MAX_VECTOR_DIMENSION,
};
use crate::error::{HebbsError, Result};

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

/// Checks a caller key: not empty, at most [`MAX_KEY_BYTES`]; any characters.
pub(crate) fn check_key(key: &str, field: &str) -> Result<()> {
    if key.is_empty() {
        return Err(HebbsError::invalid(field, "must not be empty"));
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(HebbsError::invalid(
            field,
            format!("{} bytes exceeds the limit of {MAX_KEY_BYTES}", key.len()),
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
