//! The core [`RecallRequest`] of a recall, and the [`PrimeRequest`] of a prime, each given as
//! one dict (the Python model's fields, read by [`Fields`]): every core field is spelled in
//! one struct literal, so a field the core gains is a compile error here until it is read;
//! the defaults are the core's.

use hebbs_core::recall::{PrimeRequest, RecallRequest, Rerank};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::engine::vector_of;
use crate::errors::{invalid_type, to_py_err};
use crate::fields::Fields;
use crate::filter::extract_filter;
use crate::json::dict_to_map;
use crate::recall_types::{extract_direction, extract_edge_types, strategy_config};
use crate::token_vectors::matrix_rows;
use crate::types::{extract_id, ScoringWeights};

/// The recall `fields` describe: the Python model's names (`cue` is the cue's text,
/// `cue_embedding` its vector); a key that is not one of them is an `InvalidTypeError`.
pub fn recall_request(fields: &Bound<'_, PyDict>) -> PyResult<RecallRequest> {
    let mut fields = Fields::new(fields);
    let defaults = RecallRequest::similarity(Vec::new());
    let request = RecallRequest {
        cue_vector: fields.with("cue_embedding", vector)?,
        cue_text: fields.value("cue")?,
        strategies: match fields.value::<Vec<Bound<'_, PyAny>>>("strategies")? {
            Some(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| strategy_config(item, i))
                .collect::<PyResult<Vec<_>>>()?,
            None => defaults.strategies,
        },
        top_k: fields.value_or("top_k", defaults.top_k)?,
        entity_id: fields.value("entity_id")?,
        time_range: fields.value("time_range")?,
        ef_search: fields.value("ef_search")?,
        seed_memory_id: fields.with("seed_memory_id", extract_id)?,
        edge_types: extract_edge_types(fields.value("edge_types")?, "edge_types")?,
        max_depth: fields.value_or("max_depth", defaults.max_depth)?,
        direction: extract_direction(fields.value::<String>("direction")?.as_deref(), "direction")?
            .unwrap_or(defaults.direction),
        analogical_alpha: fields.value_or("analogical_alpha", defaults.analogical_alpha)?,
        rrf_k: fields.value_or("rrf_k", defaults.rrf_k)?,
        min_relevance: fields.value("min_relevance")?,
        graph_context: fields.value_or("graph_context", defaults.graph_context)?,
        session_id: fields.value("session_id")?,
        cue_context: fields.with("cue_context", dict_to_map)?,
        scoring_weights: fields
            .value::<ScoringWeights>("scoring_weights")?
            .map_or(defaults.scoring_weights, Into::into),
        include_embedding: fields.value_or("include_embedding", defaults.include_embedding)?,
        include_superseded: fields.value_or("include_superseded", defaults.include_superseded)?,
        rerank: fields
            .value::<String>("rerank")?
            .map(|name| name.parse::<Rerank>().map_err(to_py_err))
            .transpose()?
            .unwrap_or(defaults.rerank),
        rerank_top_n: fields.value_or("rerank_top_n", defaults.rerank_top_n)?,
        cue_token_vectors: fields.with("cue_token_vectors", |value, field| {
            let matrix = value
                .extract::<PyReadonlyArray2<'_, f32>>()
                .map_err(|_| invalid_type(field, "expected a float32 array [tokens, dimension]"))?;
            Ok(matrix_rows(&matrix))
        })?,
        filter: extract_filter(fields.object("filter")?.as_ref())?,
    };
    fields.finish()?;
    Ok(request)
}

/// The prime `fields` describe: the Python `PrimeRequest`'s names, `cue_embedding` the cue's
/// vector (the Python layer embeds a text cue); a key that is not one of them is an
/// `InvalidTypeError`.
pub fn prime_request(fields: &Bound<'_, PyDict>) -> PyResult<PrimeRequest> {
    let mut fields = Fields::new(fields);
    let entity_id: String = fields
        .value("entity_id")?
        .ok_or_else(|| invalid_type("entity_id", "is required"))?;
    let defaults = PrimeRequest::new(entity_id.clone());
    let request = PrimeRequest {
        entity_id,
        cue_vector: fields.with("cue_embedding", vector)?,
        max_memories: fields.value_or("max_memories", defaults.max_memories)?,
        time_range: fields.value("time_range")?,
        ef_search: fields.value("ef_search")?,
        scoring_weights: fields
            .value::<ScoringWeights>("scoring_weights")?
            .map_or(defaults.scoring_weights, Into::into),
        include_embedding: fields.value_or("include_embedding", defaults.include_embedding)?,
        filter: extract_filter(fields.object("filter")?.as_ref())?,
    };
    fields.finish()?;
    Ok(request)
}

/// A vector field (a cue's, a revision's embedding): a float32 array, not empty.
pub fn vector(value: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<f32>> {
    let array = value
        .extract::<PyReadonlyArray1<'_, f32>>()
        .map_err(|_| invalid_type(field, "expected a float32 array"))?;
    vector_of(&array, field)
}
