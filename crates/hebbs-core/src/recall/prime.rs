//! `prime`: warm an agent's context for one entity. The entity's most recent memories (temporal)
//! and, when a cue is given, its memories nearest the cue (similarity, scoped to the entity) are
//! merged and ranked by the composite score; [`PrimeOutput`] says how many results each part
//! contributed (a memory found by both counts for both).

use serde::{Deserialize, Serialize};

use super::request::{RecallRequest, MAX_TOP_K};
use super::result::{RecallOutput, RecallResult};
use super::scoring::ScoringWeights;
use super::strategy::Strategy;
use crate::error::{HebbsError, Result};
use crate::filter::Filter;

/// Memories a prime returns when the caller does not say.
pub const DEFAULT_PRIME_MAX_MEMORIES: usize = 20;

/// A prime request. Build one with [`PrimeRequest::new`] and adjust the public fields.
///
/// Its serde form, like [`RecallRequest`]'s, is its plain options, each left out at its
/// [`Default`] (an empty `entity_id`, which [`PrimeRequest::to_recall`] refuses); the fields
/// marked `serde(skip)` are set by the caller in their own types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PrimeRequest {
    /// The entity to prime for.
    pub entity_id: String,
    /// The cue's embedding; without it prime is the entity's recent timeline.
    #[serde(skip)]
    pub cue_vector: Option<Vec<f32>>,
    /// Results to return, 1..=[`MAX_TOP_K`].
    pub max_memories: usize,
    /// Inclusive creation-time bounds in microseconds for the recent part.
    pub time_range: Option<(u64, u64)>,
    /// HNSW candidate list size for the similarity part.
    pub ef_search: Option<usize>,
    /// Composite score weights.
    #[serde(skip)]
    pub scoring_weights: ScoringWeights,
    /// Whether returned memories carry their embedding.
    pub include_embedding: bool,
    /// Only memories this filter selects (see [`crate::filter`]).
    #[serde(skip)]
    pub filter: Option<Filter>,
}

impl Default for PrimeRequest {
    /// A prime without an entity, every field at its default.
    fn default() -> Self {
        Self::new(String::new())
    }
}

impl PrimeRequest {
    /// A prime of `entity_id` with every other field at its default.
    pub fn new(entity_id: impl Into<String>) -> Self {
        Self {
            entity_id: entity_id.into(),
            cue_vector: None,
            max_memories: DEFAULT_PRIME_MAX_MEMORIES,
            time_range: None,
            ef_search: None,
            scoring_weights: ScoringWeights::default(),
            include_embedding: false,
            filter: None,
        }
    }

    /// The recall this prime runs, after checking the prime-specific fields.
    pub fn to_recall(&self) -> Result<RecallRequest> {
        if self.entity_id.is_empty() {
            return Err(HebbsError::invalid("entity_id", "must not be empty"));
        }
        if !(1..=MAX_TOP_K).contains(&self.max_memories) {
            return Err(HebbsError::invalid(
                "max_memories",
                format!("{} is outside 1..={MAX_TOP_K}", self.max_memories),
            ));
        }
        let strategies: &[Strategy] = if self.cue_vector.is_some() {
            &[Strategy::Temporal, Strategy::Similarity]
        } else {
            &[Strategy::Temporal]
        };
        Ok(RecallRequest {
            cue_vector: self.cue_vector.clone(),
            top_k: self.max_memories,
            entity_id: Some(self.entity_id.clone()),
            time_range: self.time_range,
            ef_search: self.ef_search,
            scoring_weights: self.scoring_weights,
            include_embedding: self.include_embedding,
            filter: self.filter.clone(),
            ..RecallRequest::temporal(self.entity_id.clone())
        }
        .with_strategies(strategies))
    }
}

/// The answer to a prime (seed 003 `PrimeOutput`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrimeOutput {
    /// Blended results, best composite score first (newest first without a cue).
    pub results: Vec<RecallResult>,
    /// Results the temporal part found.
    pub temporal_count: usize,
    /// Results the similarity part found.
    pub similarity_count: usize,
}

impl From<RecallOutput> for PrimeOutput {
    fn from(output: RecallOutput) -> Self {
        let count = |strategy: Strategy| {
            output
                .results
                .iter()
                .filter(|result| {
                    result
                        .strategy_details
                        .iter()
                        .any(|detail| detail.strategy == strategy)
                })
                .count()
        };
        Self {
            temporal_count: count(Strategy::Temporal),
            similarity_count: count(Strategy::Similarity),
            results: output.results,
        }
    }
}
