//! The core [`RecallRequest`] of a recall, and the [`PrimeRequest`] of a prime, each given as
//! one dict (the Python model's fields, read by [`Fields`]): the fields that need a Python
//! conversion (arrays, strategy configs, ids, names, weights, the filter) are read here, and
//! every other field goes to the core's serde form, its defaults the core's
//! ([`Fields::rest`]). A new plain option of the core needs no line here.

use hebbs_core::recall::{PrimeRequest, RecallRequest, Rerank};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::engine::vector_of;
use crate::errors::{invalid_type, to_py_err};
use crate::fields::Fields;
use crate::filter::extract_filter;
use crate::recall_types::{extract_direction, extract_edge_types, strategy_config};
use crate::token_vectors::matrix_rows;
use crate::types::{extract_id, ScoringWeights};

/// The recall `fields` describe: the Python model's names (`cue` is the cue's text,
/// `cue_embedding` its vector); a key that is not one of them is an `InvalidTypeError`.
pub fn recall_request(fields: &Bound<'_, PyDict>) -> PyResult<RecallRequest> {
    let mut fields = Fields::new(fields);
    let cue_vector = fields.with("cue_embedding", vector)?;
    let strategies = fields
        .value::<Vec<Bound<'_, PyAny>>>("strategies")?
        .map(|items| {
            items
                .iter()
                .enumerate()
                .map(|(i, item)| strategy_config(item, i))
                .collect::<PyResult<Vec<_>>>()
        })
        .transpose()?;
    let seed_memory_id = fields.with("seed_memory_id", extract_id)?;
    let edge_types = extract_edge_types(fields.value("edge_types")?, "edge_types")?;
    let direction =
        extract_direction(fields.value::<String>("direction")?.as_deref(), "direction")?;
    let scoring_weights = fields.value::<ScoringWeights>("scoring_weights")?;
    let rerank = fields
        .value::<String>("rerank")?
        .map(|name| name.parse::<Rerank>().map_err(to_py_err))
        .transpose()?;
    let cue_token_vectors = fields.with("cue_token_vectors", |value, field| {
        let matrix = value
            .extract::<PyReadonlyArray2<'_, f32>>()
            .map_err(|_| invalid_type(field, "expected a float32 array [tokens, dimension]"))?;
        Ok(matrix_rows(&matrix))
    })?;
    let filter = extract_filter(fields.object("filter")?.as_ref())?;
    let defaults: RecallRequest = fields.rest()?;
    Ok(RecallRequest {
        cue_vector,
        strategies: strategies.unwrap_or(defaults.strategies),
        seed_memory_id,
        edge_types,
        direction: direction.unwrap_or(defaults.direction),
        scoring_weights: scoring_weights.map_or(defaults.scoring_weights, Into::into),
        rerank: rerank.unwrap_or(defaults.rerank),
        cue_token_vectors,
        filter,
        ..defaults
    })
}

/// The prime `fields` describe: the Python `PrimeRequest`'s names, `cue_embedding` the cue's
/// vector (the Python layer embeds a text cue); a key that is not one of them is an
/// `InvalidTypeError`.
pub fn prime_request(fields: &Bound<'_, PyDict>) -> PyResult<PrimeRequest> {
    let mut fields = Fields::new(fields);
    let entity_id: String = fields
        .value("entity_id")?
        .ok_or_else(|| invalid_type("entity_id", "is required"))?;
    let cue_vector = fields.with("cue_embedding", vector)?;
    let scoring_weights = fields.value::<ScoringWeights>("scoring_weights")?;
    let filter = extract_filter(fields.object("filter")?.as_ref())?;
    let defaults: PrimeRequest = fields.rest()?;
    Ok(PrimeRequest {
        entity_id,
        cue_vector,
        scoring_weights: scoring_weights.map_or(defaults.scoring_weights, Into::into),
        filter,
        ..defaults
    })
}

/// A vector field (a cue's, a revision's embedding): a float32 array, not empty.
pub fn vector(value: &Bound<'_, PyAny>, field: &str) -> PyResult<Vec<f32>> {
    let array = value
        .extract::<PyReadonlyArray1<'_, f32>>()
        .map_err(|_| invalid_type(field, "expected a float32 array"))?;
    vector_of(&array, field)
}
